// The posts resource's public surface: what other resources may use (its module, its exported services — PostReads
// holds the reads every post-based resource shares — the bases of a post type's resource and of its policies, and
// types). Anything else in this folder is its own.
export { PostsModule } from './posts.module';
export { PostsService } from './posts.service';
export type { PostQuery } from './posts.service';
export { PostReads } from './post-reads.service';
export { PostTypeResources } from './post-type-resources.service';
export type { PostTypeDependencies } from './post-type-resources.service';
export { PostTypeResource } from './post-type.resource';
export { PostPolicies } from './post-policies';
export type { PostPolicyView } from './post-policies';
export type { PostListArgs } from './post-collection-args';
export { POST_ORDERBY, postCollectionArgs, postListQuery } from './post-collection-args';
export { availableActions, schemaLinks } from './post-edit-extras';
export type { PostWriteArgs } from './post-schema';
