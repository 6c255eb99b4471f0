import { InitialSchema1732147200000 } from './migrations/1732147200000-initial-schema';

export { InitialSchema1732147200000 };

/**
 * The schema migrations, in order, for a DataSource's `migrations` (hosts may run them in their own pipeline).
 * They only ever create missing WordPress tables: existing tables and data are never altered or dropped.
 */
export const CMS_MIGRATIONS = [InitialSchema1732147200000];
