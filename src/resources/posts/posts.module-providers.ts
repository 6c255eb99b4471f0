import { Injectable, OnModuleInit } from '@nestjs/common';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { RestServer } from '../../core/rest/rest-server.service';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { PostTypeController } from './post-type.controller';
import { PostsService } from './posts.service';
import { PostWriter } from './post-writer.service';
import { FuturePosts } from './future-posts.service';
import { typeSupports } from './post-schema';
import { RevisionsController } from './revisions.controller';

/** Post types served elsewhere (attachments have their own controller). */
const NOT_SERVED_HERE = new Set(['attachment']);

/**
 * Creates one posts controller (and one revisions controller when it keeps revisions) per REST post type — `post`, `page` and every type extensions registered with
 * `show_in_rest` — once all modules have registered their types, just before the route table freezes.
 */
@Injectable()
export class PostTypeRoutes implements OnModuleInit {
  constructor(
    private readonly server: RestServer,
    private readonly extensions: CmsExtensionRegistry,
    private readonly hooks: HookRegistry,
    private readonly content: ContentRegistry,
    private readonly posts: PostsService,
    private readonly options: OptionsService,
    private readonly writer: PostWriter,
    private readonly future: FuturePosts,
  ) {}

  onModuleInit(): void {
    this.server.registry.beforeFreeze(() => {
      for (const type of this.content.restPostTypes()) {
        if (NOT_SERVED_HERE.has(type.name)) continue;
        const controller = new PostTypeController(this.server, this.extensions, this.hooks, type, this.content, this.posts, this.options, this.writer, this.future);
        controller.register();
        if (typeSupports(type, 'revisions')) {
          new RevisionsController(this.server, this.extensions, this.hooks, type, () => controller.getItemSchema(), this.posts, this.writer, this.options).register();
        }
      }
    });
  }
}
