import { Injectable } from '@nestjs/common';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { TaxonomyObject } from '../../core/registry/content-types';
import { RestServer } from '../../core/rest/rest-server.service';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { TermResource } from './term.resource';
import { TermsService } from './terms.service';

/** The services a taxonomy's terms resource works with, as Nest injected them (so tests can override any of them). */
export interface TaxonomyDependencies {
  readonly server: RestServer;
  readonly extensions: CmsExtensionRegistry;
  readonly hooks: HookRegistry;
  readonly content: ContentRegistry;
  readonly terms: TermsService;
  readonly options: OptionsService;
}

/**
 * The terms resource of each REST taxonomy (`category`, `post_tag`, and every taxonomy extensions register with
 * `show_in_rest`), made once per taxonomy from the injected services; TermsHandlers serves every taxonomy through it.
 */
@Injectable()
export class TaxonomyResources implements TaxonomyDependencies {
  private readonly resources = new Map<string, TermResource>();

  constructor(
    readonly server: RestServer,
    readonly extensions: CmsExtensionRegistry,
    readonly hooks: HookRegistry,
    readonly content: ContentRegistry,
    readonly terms: TermsService,
    readonly options: OptionsService,
  ) {}

  /** The terms resource of a taxonomy. */
  of(taxonomy: TaxonomyObject): TermResource {
    let resource = this.resources.get(taxonomy.name);
    if (!resource) this.resources.set(taxonomy.name, (resource = new TermResource(this, taxonomy)));
    return resource;
  }
}
