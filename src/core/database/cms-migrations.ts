import { InitialSchema1732147200000 } from './migrations/1732147200000-initial-schema';
import { SqliteCoveringKeys1763683200000 } from './migrations/1763683200000-sqlite-covering-keys';

export { InitialSchema1732147200000, SqliteCoveringKeys1763683200000 };

/**
 * The schema migrations, in order, for a DataSource's `migrations` (hosts may run them in their own pipeline).
 * They create missing WordPress tables (existing tables and data are never altered or dropped) and, on SQLite, give
 * older databases the current keys.
 */
export const CMS_MIGRATIONS = [InitialSchema1732147200000, SqliteCoveringKeys1763683200000];
