import { Injectable, OnModuleInit } from '@nestjs/common';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { RestServer } from '../../core/rest/rest-server.service';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { TermController } from './term.controller';
import { TermsService } from './terms.service';

/**
 * Creates one terms controller per REST taxonomy — `category`, `post_tag` and every taxonomy extensions registered
 * with `show_in_rest` — once all modules have registered theirs, just before the route table freezes.
 */
@Injectable()
export class TaxonomyTermRoutes implements OnModuleInit {
  constructor(
    private readonly server: RestServer,
    private readonly extensions: CmsExtensionRegistry,
    private readonly hooks: HookRegistry,
    private readonly content: ContentRegistry,
    private readonly terms: TermsService,
    private readonly options: OptionsService,
  ) {}

  onModuleInit(): void {
    this.server.registry.beforeFreeze(() => {
      for (const taxonomy of this.content.restTaxonomies()) {
        new TermController(this.server, this.extensions, this.hooks, taxonomy, this.content, this.terms, this.options).register();
      }
    });
  }
}
