/** Injection token of the TypeORM DataSource the API reads and writes (the host's default one unless named). */
export const CMS_DATA_SOURCE = Symbol('CMS_DATA_SOURCE');
