import { InitialSchema1732147200000 } from './migrations/1732147200000-initial-schema';
import { SqliteCoveringKeys1763683200000 } from './migrations/1763683200000-sqlite-covering-keys';
import { CommentQueryKeys1764028800000 } from './migrations/1764028800000-comment-query-keys';
import { VersionStamps1764633600000 } from './migrations/1764633600000-version-stamps';
import { PostVersions1764806400000 } from './migrations/1764806400000-post-versions';
import { RevisionKeys1764892800000 } from './migrations/1764892800000-revision-keys';
import { PostVersionKeys1764979200000 } from './migrations/1764979200000-post-version-keys';
import { ClusterLocks1765152000000 } from './migrations/1765152000000-cluster-locks';
import { UploadJournal1765238400000 } from './migrations/1765238400000-upload-journal';
import { PostListKeys1765324800000 } from './migrations/1765324800000-post-list-keys';
import { Webhooks1765411200000 } from './migrations/1765411200000-webhooks';

/**
 * The schema migrations, in order, for a DataSource's `migrations` (hosts may run them in their own pipeline).
 * They create missing WordPress tables (existing tables and data are never altered or dropped), on SQLite give
 * older databases the current keys, add the keys of the comment queries (`cms_*`), and create the version stamps'
 * table (`cms_versions`) of the response cache, the posts' versions (`cms_post_versions`, keyed by version too), and the key of posts' revisions
 * (`cms_parent_type_status_date`), and the locks every node shares (`cms_locks`: the migrations' lock row, the writers' turn) and the upload journal (`cms_upload_journal`), and the keys of posts' lists in other orders than the date (`cms_type_status_*`), and the webhooks' subscriptions, outbox and delivery log (`cms_webhooks`, `cms_webhook_events`, `cms_webhook_deliveries`).
 */
export const CMS_MIGRATIONS = [
  InitialSchema1732147200000,
  SqliteCoveringKeys1763683200000,
  CommentQueryKeys1764028800000,
  VersionStamps1764633600000,
  PostVersions1764806400000,
  RevisionKeys1764892800000,
  PostVersionKeys1764979200000,
  ClusterLocks1765152000000,
  UploadJournal1765238400000,
  PostListKeys1765324800000,
  Webhooks1765411200000,
];
