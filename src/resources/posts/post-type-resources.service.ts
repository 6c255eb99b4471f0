import { Inject, Injectable } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../core/config/cms-options';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject } from '../../core/registry/content-types';
import { RestServer } from '../../core/rest/rest-server.service';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { FuturePosts } from './future-posts.service';
import { typeSupports } from './post-schema';
import { PostTypeResource } from './post-type.resource';
import { PostWriter } from './post-writer.service';
import { PostsService } from './posts.service';
import { RevisionsResource } from './revisions.resource';

/** The services a post type's resource works with, as Nest injected them (so tests can override any of them). */
export interface PostTypeDependencies {
  readonly server: RestServer;
  readonly extensions: CmsExtensionRegistry;
  readonly hooks: HookRegistry;
  readonly content: ContentRegistry;
  readonly posts: PostsService;
  readonly options: OptionsService;
  readonly writer: PostWriter;
  readonly future: FuturePosts;
  readonly cmsOptions: ResolvedCmsOptions;
}

/**
 * The resource of each REST post type (`post`, `page`, and every type extensions register with `show_in_rest`) and
 * of its revisions, made once per type from the injected services; the handlers classes serve every type through
 * it.
 */
@Injectable()
export class PostTypeResources implements PostTypeDependencies {
  private readonly resources = new Map<string, PostTypeResource>();
  private readonly revisions = new Map<string, RevisionsResource>();

  constructor(
    readonly server: RestServer,
    readonly extensions: CmsExtensionRegistry,
    readonly hooks: HookRegistry,
    readonly content: ContentRegistry,
    readonly posts: PostsService,
    readonly options: OptionsService,
    readonly writer: PostWriter,
    readonly future: FuturePosts,
    @Inject(CMS_OPTIONS) readonly cmsOptions: ResolvedCmsOptions,
  ) {}

  /** The resource of a post type. */
  of(type: PostTypeObject): PostTypeResource {
    let resource = this.resources.get(type.name);
    if (!resource) this.resources.set(type.name, (resource = new PostTypeResource(this, type)));
    return resource;
  }

  /** The revisions resource of a post type. */
  revisionsOf(type: PostTypeObject): RevisionsResource {
    let resource = this.revisions.get(type.name);
    if (!resource) {
      const parent = this.of(type);
      this.revisions.set(type.name, (resource = new RevisionsResource(this, type, () => parent.getItemSchema())));
    }
    return resource;
  }

  /** Whether the posts routes serve a type (attachments have their own resource). */
  static serves(type: PostTypeObject): boolean {
    return type.name !== 'attachment';
  }

  /** Whether a type gets revisions routes. */
  static keepsRevisions(type: PostTypeObject): boolean {
    return PostTypeResources.serves(type) && typeSupports(type, 'revisions');
  }
}
