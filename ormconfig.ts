import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './src/core/database/data-source-options';
import { loadEnvironment } from './src/standalone/env';

/** The DataSource of the typeorm CLI (`npm run typeorm -- migration:show`), from the same environment as the server. */
const env = loadEnvironment();
export default new DataSource(
  buildDataSourceOptions({ databaseUrl: env.DATABASE_URL, tablePrefix: env.CMS_TABLE_PREFIX }),
);
