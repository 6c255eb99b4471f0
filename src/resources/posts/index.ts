// The posts resource's public surface: what other resources may use (its module, its exported services, the base of
// a post type's resource, and the reads and links every post-based answer shares). Anything else in this folder is
// its own.
export { PostsModule } from './posts.module';
export { PostsService } from './posts.service';
export type { PostQuery } from './posts.service';
export { PostTypeResources } from './post-type-resources.service';
export type { PostTypeDependencies } from './post-type-resources.service';
export { PostTypeResource } from './post-type.resource';
export { canReadPost, postLoader } from './post-access';
export { permalink, PLAIN_LINK_STATUSES } from './permalink';
export { samePassword } from './post-content';
export { listReadsPostContent } from './posts.handlers';
