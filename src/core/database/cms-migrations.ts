import { InitialSchema1732147200000 } from './migrations/1732147200000-initial-schema';
import { SqliteCoveringKeys1763683200000 } from './migrations/1763683200000-sqlite-covering-keys';
import { CommentQueryKeys1764028800000 } from './migrations/1764028800000-comment-query-keys';

export { InitialSchema1732147200000, SqliteCoveringKeys1763683200000, CommentQueryKeys1764028800000 };

/**
 * The schema migrations, in order, for a DataSource's `migrations` (hosts may run them in their own pipeline).
 * They create missing WordPress tables (existing tables and data are never altered or dropped), on SQLite give
 * older databases the current keys, and add the keys of the comment queries (`cms_*`).
 */
export const CMS_MIGRATIONS = [InitialSchema1732147200000, SqliteCoveringKeys1763683200000, CommentQueryKeys1764028800000];
