import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SessionService } from '../../core/auth/session.service';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { PostTypeObject } from '../../core/registry/content-types';
import { AutosavePreviews } from './autosave-previews';
import { AutosavesResource } from './autosaves.resource';
import { PostTypeResources } from './post-type-resources.service';

/** The autosaves resource of each post type the posts routes serve, made once per type from the injected services. */
@Injectable()
export class AutosaveResources {
  private readonly resources = new Map<string, AutosavesResource>();
  private readonly previews: AutosavePreviews;

  constructor(
    private readonly types: PostTypeResources,
    sessions: SessionService,
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {
    this.previews = new AutosavePreviews(types.posts, types.content, types.options, sessions, types.hooks);
  }

  /** The autosaves resource of a post type. */
  of(type: PostTypeObject): AutosavesResource {
    let resource = this.resources.get(type.name);
    if (!resource) {
      resource = new AutosavesResource(this.types, type, {
        parent: this.types.of(type),
        revisions: this.types.revisionsOf(type),
        previews: this.previews,
        dataSource: this.dataSource,
      });
      this.resources.set(type.name, resource);
    }
    return resource;
  }

  /** Whether a type gets autosaves routes: every type the posts routes serve, as WordPress registers them. */
  static keepsAutosaves(type: PostTypeObject): boolean {
    return PostTypeResources.serves(type);
  }
}
