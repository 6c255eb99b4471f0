import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataSource, MigrationInterface } from 'typeorm';
import type { MysqlConnectionOptions } from 'typeorm/driver/mysql/MysqlConnectionOptions';
import {
  CMS_ENTITIES,
  OptionEntity,
  PostEntity,
  TermEntity,
  TermTaxonomyEntity,
} from '../../src/core/database/cms-entities';
import {
  afterDataSourceInit,
  buildDataSourceOptions,
  GROUP_CONCAT_MAX_LEN,
  parseDatabaseUrl,
  WP_INCOMPATIBLE_SQL_MODES,
  WP_SQL_MODE_STATEMENT,
} from '../../src/core/database/data-source-options';
import {
  InitialSchema1732147200000,
  wordpressSchemaStatements,
} from '../../src/core/database/migrations/1732147200000-initial-schema';
import { SqliteCoveringKeys1763683200000 } from '../../src/core/database/migrations/1763683200000-sqlite-covering-keys';
import {
  COMMENT_KEYS,
  CommentQueryKeys1764028800000,
} from '../../src/core/database/migrations/1764028800000-comment-query-keys';
import {
  REVISION_KEY,
  REVISION_KEY_COLUMNS,
  RevisionKeys1764892800000,
} from '../../src/core/database/migrations/1764892800000-revision-keys';
import { POST_LIST_KEYS } from '../../src/core/database/migrations/1765324800000-post-list-keys';
import { PostVersionKeys1764979200000 } from '../../src/core/database/migrations/1764979200000-post-version-keys';
import { formatMysqlDate, mysqlToRfc3339, ZERO_DATE } from '../../src/core/database/mysql-date';
import { rawEntities, rawQuery } from '../../src/core/database/raw-query';
import { maybeSerialize, maybeUnserialize } from '../../src/core/formatting/php-serialize';
import { DEFAULT_ROLES, installSite } from '../../src/core/database/site-install';
import { dropTestDatabase, testDatabaseKind, testDatabaseName, testDatabaseUrl } from '../utils/test-db';

const kind = testDatabaseKind();
const itMysql = kind === 'mysql' ? it : it.skip;
const itSqlite = kind === 'sqlite' ? it : it.skip;
const DB_NAME = 'database';

/** WordPress's columns, in order, per table (wp-admin/includes/schema.php). */
const WP_COLUMNS: Record<string, string[]> = {
  posts: [
    'ID', 'post_author', 'post_date', 'post_date_gmt', 'post_content', 'post_title', 'post_excerpt', 'post_status',
    'comment_status', 'ping_status', 'post_password', 'post_name', 'to_ping', 'pinged', 'post_modified',
    'post_modified_gmt', 'post_content_filtered', 'post_parent', 'guid', 'menu_order', 'post_type', 'post_mime_type',
    'comment_count',
  ],
  postmeta: ['meta_id', 'post_id', 'meta_key', 'meta_value'],
  users: [
    'ID', 'user_login', 'user_pass', 'user_nicename', 'user_email', 'user_url', 'user_registered',
    'user_activation_key', 'user_status', 'display_name',
  ],
  usermeta: ['umeta_id', 'user_id', 'meta_key', 'meta_value'],
  terms: ['term_id', 'name', 'slug', 'term_group'],
  termmeta: ['meta_id', 'term_id', 'meta_key', 'meta_value'],
  term_taxonomy: ['term_taxonomy_id', 'term_id', 'taxonomy', 'description', 'parent', 'count'],
  term_relationships: ['object_id', 'term_taxonomy_id', 'term_order'],
  comments: [
    'comment_ID', 'comment_post_ID', 'comment_author', 'comment_author_email', 'comment_author_url',
    'comment_author_IP', 'comment_date', 'comment_date_gmt', 'comment_content', 'comment_karma', 'comment_approved',
    'comment_agent', 'comment_type', 'comment_parent', 'user_id',
  ],
  commentmeta: ['meta_id', 'comment_id', 'meta_key', 'meta_value'],
  options: ['option_id', 'option_name', 'option_value', 'autoload'],
}; // prettier-ignore
const TABLES = Object.keys(WP_COLUMNS);

interface ColumnInfo {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
}

/** Index name → columns (with MySQL prefix length as `col(191)`), plus uniqueness. */
type IndexInfo = Record<string, { columns: string[]; unique: boolean }>;

async function tableNames(ds: DataSource): Promise<string[]> {
  const rows: { name: string }[] =
    kind === 'sqlite'
      ? await ds.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      : await ds.query('SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()');
  return rows.map((row) => row.name).sort();
}

async function columnsOf(ds: DataSource, table: string): Promise<ColumnInfo[]> {
  if (kind === 'sqlite') {
    const rows: { name: string; type: string; notnull: number; dflt_value: string | null }[] = await ds.query(
      `PRAGMA table_info("${table}")`,
    );
    return rows.map((row) => ({ name: row.name, type: row.type, notNull: row.notnull === 1, default: row.dflt_value }));
  }
  const rows: { name: string; type: string; nullable: string; def: string | null }[] = await ds.query(
    `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS def
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
    [table],
  );
  return rows.map((row) => ({ name: row.name, type: row.type, notNull: row.nullable === 'NO', default: row.def }));
}

async function indexesOf(ds: DataSource, table: string): Promise<IndexInfo> {
  const result: IndexInfo = {};
  if (kind === 'sqlite') {
    const list: { name: string; unique: number; origin: string }[] = await ds.query(`PRAGMA index_list("${table}")`);
    for (const index of list) {
      const info: { seqno: number; name: string }[] = await ds.query(`PRAGMA index_info("${index.name}")`);
      const columns = info.sort((a, b) => a.seqno - b.seqno).map((column) => column.name);
      result[index.origin === 'pk' ? 'PRIMARY' : index.name] = { columns, unique: index.unique === 1 };
    }
    return result;
  }
  const rows: { name: string; col: string; sub: number | null; nonUnique: number }[] = await ds.query(
    `SELECT INDEX_NAME AS name, COLUMN_NAME AS col, SUB_PART AS sub, NON_UNIQUE AS nonUnique
       FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
      ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
    [table],
  );
  for (const row of rows) {
    result[row.name] ??= { columns: [], unique: Number(row.nonUnique) === 0 };
    result[row.name].columns.push(row.sub ? `${row.col}(${row.sub})` : row.col);
  }
  return result;
}

/** Runs a migration's up() once more, on a query runner of its own. */
async function upAgain(ds: DataSource, migration: MigrationInterface): Promise<void> {
  const queryRunner = ds.createQueryRunner();
  try {
    await migration.up(queryRunner);
  } finally {
    await queryRunner.release();
  }
}

/** The query plan of a statement, as text (MySQL's EXPLAIN rows, SQLite's EXPLAIN QUERY PLAN). */
async function planOf(ds: DataSource, sql: string): Promise<string> {
  return JSON.stringify(await ds.query(`${kind === 'mysql' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${sql}`));
}

/** Everything about the tables with a prefix: columns, indexes, row counts. */
async function snapshot(ds: DataSource, prefix: string): Promise<unknown> {
  const result: Record<string, unknown> = {};
  for (const table of (await tableNames(ds)).filter((name) => name.startsWith(prefix))) {
    const [{ n }] = await ds.query(`SELECT COUNT(*) AS n FROM ${table}`);
    result[table] = { columns: await columnsOf(ds, table), indexes: await indexesOf(ds, table), rows: Number(n) };
  }
  return result;
}

function dataSourceFor(url: string, prefix: string): DataSource {
  return new DataSource(buildDataSourceOptions({ databaseUrl: url, tablePrefix: prefix }));
}

/** Strips display widths and quotes so that MariaDB and MySQL 8 report the same. */
const normalizeType = (type: string): string => type.toLowerCase().replace(/(int)\(\d+\)/, '$1');
const normalizeDefault = (value: string | null): string | null => (value === null ? null : value.replace(/^'|'$/g, ''));

describe(`WordPress database layer (${kind})`, () => {
  let url: string;
  let ds: DataSource;

  beforeAll(async () => {
    url = await testDatabaseUrl(DB_NAME);
    ds = dataSourceFor(url, 'cms_');
    await ds.initialize();
    await afterDataSourceInit(ds);
    await ds.runMigrations();
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await dropTestDatabase(DB_NAME);
  });

  describe('schema', () => {
    it("creates the 11 prefixed WordPress tables, the prefixed migrations table, the version stamps' tables, the locks table and the upload journal", async () => {
      const names = await tableNames(ds);
      expect(names).toEqual(
        [
          ...TABLES.map((table) => `cms_${table}`),
          'cms_cms_locks',
          'cms_cms_migrations',
          'cms_cms_post_versions',
          'cms_cms_upload_journal',
          'cms_cms_versions',
          'cms_cms_webhook_deliveries',
          'cms_cms_webhook_events',
          'cms_cms_webhooks',
        ].sort(),
      );
    });

    it.each(TABLES)('%s has exactly WordPress’s columns, in order', async (table) => {
      const columns = await columnsOf(ds, `cms_${table}`);
      expect(columns.map((column) => column.name)).toEqual(WP_COLUMNS[table]);
    });

    it('uses WordPress’s types, nullability and defaults (posts, options, usermeta)', async () => {
      const posts = Object.fromEntries((await columnsOf(ds, 'cms_posts')).map((column) => [column.name, column]));
      const meta = Object.fromEntries((await columnsOf(ds, 'cms_usermeta')).map((column) => [column.name, column]));
      if (kind === 'mysql') {
        expect(normalizeType(posts.ID.type)).toBe('bigint unsigned');
        expect(posts.post_date.type).toBe('datetime');
        expect(posts.post_content.type).toBe('longtext');
        expect(posts.post_title.type).toBe('text');
        expect(posts.post_name.type).toBe('varchar(200)');
        expect(normalizeType(posts.menu_order.type)).toBe('int');
        expect(meta.meta_value.type).toBe('longtext');
      } else {
        expect(posts.ID.type).toBe('INTEGER');
        expect(posts.post_date.type).toBe('TEXT');
        expect(posts.post_content.type).toBe('TEXT');
      }
      expect(normalizeDefault(posts.post_date.default)).toBe(ZERO_DATE);
      expect(normalizeDefault(posts.post_status.default)).toBe('publish');
      expect(normalizeDefault(posts.post_type.default)).toBe('post');
      expect(normalizeDefault(posts.comment_count.default)).toBe('0');
      expect(posts.post_content.notNull).toBe(true);
      expect(meta.meta_key.notNull).toBe(false);
      expect(meta.meta_value.notNull).toBe(false);
    });

    it('declares WordPress’s keys', async () => {
      const posts = await indexesOf(ds, 'cms_posts');
      const options = await indexesOf(ds, 'cms_options');
      const termTaxonomy = await indexesOf(ds, 'cms_term_taxonomy');
      const relationships = await indexesOf(ds, 'cms_term_relationships');
      const postmeta = await indexesOf(ds, 'cms_postmeta');
      const comments = await indexesOf(ds, 'cms_comments');
      const name = (key: string, table: string): string => (kind === 'mysql' ? key : `cms_${table}__${key}`);
      const prefixed = (column: string, length: number): string => (kind === 'mysql' ? `${column}(${length})` : column);
      expect(posts[name('post_name', 'posts')].columns).toEqual([prefixed('post_name', 191)]);
      expect(posts[name('type_status_date', 'posts')].columns).toEqual(['post_type', 'post_status', 'post_date', 'ID']);
      expect(posts[name('post_parent', 'posts')].columns).toEqual(['post_parent']);
      expect(posts[name('post_author', 'posts')].columns).toEqual(['post_author']);
      expect(options[name('option_name', 'options')]).toEqual({ columns: ['option_name'], unique: true });
      expect(options[name('autoload', 'options')]).toEqual({ columns: ['autoload'], unique: false });
      expect(termTaxonomy[name('term_id_taxonomy', 'term_taxonomy')]).toEqual({
        columns: ['term_id', 'taxonomy'],
        unique: true,
      });
      expect(postmeta[name('meta_key', 'postmeta')].columns).toEqual([prefixed('meta_key', 191)]);
      expect(comments[name('comment_author_email', 'comments')].columns).toEqual([
        prefixed('comment_author_email', 10),
      ]);
      expect(relationships.PRIMARY.columns).toEqual(['object_id', 'term_taxonomy_id']);
      // InnoDB's keys carry the primary key; on SQLite the key holds it (its rowid is not the primary key here).
      expect(relationships[name('term_taxonomy_id', 'term_relationships')].columns).toEqual(
        kind === 'mysql' ? ['term_taxonomy_id'] : ['term_taxonomy_id', 'object_id'],
      );
      if (kind === 'mysql') expect(posts.PRIMARY.columns).toEqual(['ID']);
    });

    it('adds the keys of the comment queries, once, and a post’s replies are read through one', async () => {
      const name = (key: string): string => (kind === 'mysql' ? key : `cms_comments__${key}`);
      const keys = await indexesOf(ds, 'cms_comments');
      for (const [key, columns] of COMMENT_KEYS) expect(keys[name(key)]?.columns).toEqual(columns);
      await upAgain(ds, new CommentQueryKeys1764028800000());
      expect(await indexesOf(ds, 'cms_comments')).toEqual(keys);
      // A site's shape: many approved comments over many posts, a few on the posts asked for.
      const rows = Array.from(
        { length: 400 },
        (_, i) => `(${(i % 100) + 10}, 'a', '', '', 'x', '1', '2024-01-01 00:00:${String(i % 60).padStart(2, '0')}')`,
      );
      await ds.query(
        `INSERT INTO cms_comments (comment_post_ID, comment_author, comment_author_email, comment_author_url, comment_content, comment_approved, comment_date_gmt) VALUES ${rows.join(', ')}`,
      );
      await ds.query(kind === 'mysql' ? 'ANALYZE TABLE cms_comments' : 'ANALYZE');
      try {
        const replies = `SELECT * FROM cms_comments c WHERE c.comment_approved = '1' AND c.comment_post_ID IN (11, 12) ORDER BY c.comment_date_gmt DESC`;
        const plan = await planOf(ds, replies);
        expect(plan).toMatch(
          kind === 'mysql'
            ? /"key":"(cms_post_approved_date_gmt|comment_post_ID)"/
            : /INDEX cms_comments__cms_post_approved_date_gmt/,
        );
      } finally {
        await ds.query('DELETE FROM cms_comments');
      }
    });

    it('adds the key of posts’ revisions, once, and a post’s latest revision is found through it', async () => {
      const name = kind === 'mysql' ? REVISION_KEY : `cms_posts__${REVISION_KEY}`;
      const keys = await indexesOf(ds, 'cms_posts');
      expect(keys[name]?.columns).toEqual(REVISION_KEY_COLUMNS);
      await upAgain(ds, new RevisionKeys1764892800000());
      expect(await indexesOf(ds, 'cms_posts')).toEqual(keys);
      // Many posts with many revisions each.
      const rows = Array.from(
        { length: 600 },
        (_, i) =>
          `(${(i % 30) + 1}, 'revision', 'inherit', '2024-01-01 00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}', 'x', 't', '')`,
      );
      await ds.query(
        `INSERT INTO cms_posts (post_parent, post_type, post_status, post_date, post_content, post_title, post_excerpt) VALUES ${rows.join(', ')}`,
      );
      await ds.query(kind === 'mysql' ? 'ANALYZE TABLE cms_posts' : 'ANALYZE');
      try {
        const latest = `SELECT ID FROM cms_posts WHERE post_parent = 7 AND post_type = 'revision' AND post_status = 'inherit' ORDER BY post_date DESC, ID DESC LIMIT 1`;
        const count = `SELECT COUNT(*) AS n, MAX(ID) AS last FROM cms_posts WHERE post_parent = 7 AND post_type = 'revision' AND post_status = 'inherit'`;
        const plan = await planOf(ds, latest);
        expect(plan).toMatch(kind === 'mysql' ? new RegExp(`"key":"${REVISION_KEY}"`) : new RegExp(`INDEX ${name}`));
        expect(plan).not.toMatch(/TEMP B-TREE|filesort/);
        // The revision count reads the key alone (SQLite: a covering index; MySQL: "Using index").
        const counted = await planOf(ds, count);
        expect(counted).toMatch(kind === 'mysql' ? /Using index/ : new RegExp(`COVERING INDEX ${name}`));
        expect(await ds.query(count)).toEqual([expect.objectContaining({ n: 20 })]);
      } finally {
        await ds.query(`DELETE FROM cms_posts WHERE post_type = 'revision'`);
      }
    });

    it('adds the key of posts’ versions, once, and the posts edited in place since a version are found through it', async () => {
      const name = kind === 'mysql' ? 'cms_version' : 'cms_cms_post_versions__cms_version';
      const keys = await indexesOf(ds, 'cms_cms_post_versions');
      expect(keys[name]?.columns).toEqual(['version']);
      await upAgain(ds, new PostVersionKeys1764979200000());
      expect(await indexesOf(ds, 'cms_cms_post_versions')).toEqual(keys);
      // Many posts edited in place over time; the stamps' read asks for the last few.
      const rows = Array.from({ length: 2000 }, (_, i) => `(${i + 1}, ${(i + 1) * 2 ** 20 + 7})`);
      await ds.query(`INSERT INTO cms_cms_post_versions (post_id, version) VALUES ${rows.join(', ')}`);
      await ds.query(kind === 'mysql' ? 'ANALYZE TABLE cms_cms_post_versions' : 'ANALYZE');
      try {
        const since = `SELECT post_id, version FROM cms_cms_post_versions WHERE version >= ${1998 * 2 ** 20}`;
        expect(await planOf(ds, since)).toMatch(kind === 'mysql' ? /"key":"cms_version"/ : new RegExp(`INDEX ${name}`));
        expect((await ds.query(since)).map((row: { post_id: number | string }) => Number(row.post_id)).sort()).toEqual([
          1998, 1999, 2000,
        ]);
      } finally {
        await ds.query('DELETE FROM cms_cms_post_versions');
      }
    });

    itSqlite('gives a database made by an earlier version the covering term_relationships key, once', async () => {
      const key = 'cms_term_relationships__term_taxonomy_id';
      const recount = `SELECT COUNT(*) AS n FROM cms_term_relationships r INNER JOIN cms_posts p ON p.ID = r.object_id
                        WHERE r.term_taxonomy_id = 1 AND p.post_status = 'publish'`;
      const plan = async () =>
        (await ds.query(`EXPLAIN QUERY PLAN ${recount}`)).map((row: { detail: string }) => row.detail).join('\n');
      expect(await plan()).toContain(`COVERING INDEX ${key}`);
      await ds.query(`DROP INDEX "${key}"`);
      await ds.query(`CREATE INDEX "${key}" ON "cms_term_relationships" ("term_taxonomy_id")`);
      await ds.query(
        `INSERT OR IGNORE INTO cms_term_relationships (object_id, term_taxonomy_id, term_order) VALUES (987654, 1, 0)`,
      );
      expect(await plan()).not.toContain('COVERING');
      const queryRunner = ds.createQueryRunner();
      try {
        await new SqliteCoveringKeys1763683200000().up(queryRunner);
        expect((await indexesOf(ds, 'cms_term_relationships'))[key]).toEqual({
          columns: ['term_taxonomy_id', 'object_id'],
          unique: false,
        });
        const before = await snapshot(ds, 'cms_');
        await new SqliteCoveringKeys1763683200000().up(queryRunner);
        expect(await snapshot(ds, 'cms_')).toEqual(before);
      } finally {
        await queryRunner.release();
      }
      expect(await plan()).toContain(`COVERING INDEX ${key}`);
      expect((await ds.query('SELECT COUNT(*) AS n FROM cms_term_relationships WHERE object_id = 987654'))[0].n).toBe(
        1,
      );
      await ds.query('DELETE FROM cms_term_relationships WHERE object_id = 987654');
    });

    itMysql('creates tables identical to a real WordPress install (SHOW CREATE TABLE vs wp_oracle)', async () => {
      const [oracle] = await ds.query(
        `SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'wp_oracle'`,
      );
      if (!oracle) return; // the oracle WordPress is optional (shared/wp-oracle/setup.sh)
      // Our own comment query keys (`cms_*`, added by a migration) aside, as on a WordPress database served by us.
      const normalize = (ddl: string, prefix: string): string =>
        ddl
          .replace(/ AUTO_INCREMENT=\d+/, '')
          .replace(/,\n\s*KEY `cms_[a-z_]+` \([^)]*\)/g, '')
          .split(prefix)
          .join('{p}');
      for (const table of TABLES) {
        const [ours] = await ds.query(`SHOW CREATE TABLE \`cms_${table}\``);
        const [theirs] = await ds.query(`SHOW CREATE TABLE wp_oracle.\`wp_${table}\``);
        expect(normalize(ours['Create Table'], 'cms_')).toBe(normalize(theirs['Create Table'], 'wp_'));
      }
    });

    it('is idempotent: running the migrations again changes nothing', async () => {
      await ds.getRepository(OptionEntity).save({ name: 'idempotency_probe', value: 'x', autoload: 'no' });
      const before = await snapshot(ds, 'cms_');
      expect(await ds.runMigrations()).toEqual([]);
      const queryRunner = ds.createQueryRunner();
      try {
        await new InitialSchema1732147200000().up(queryRunner);
      } finally {
        await queryRunner.release();
      }
      expect(await snapshot(ds, 'cms_')).toEqual(before);
    });

    it('refuses to run down()', async () => {
      await expect(new InitialSchema1732147200000().down()).rejects.toThrow('refusing to drop WordPress tables');
      // The locks table, the posts' versions' key, the revisions' key, the posts' versions, the version stamps' table and
      // the comment keys are dropped, SQLite's keys have nothing to undo; the one that creates the tables refuses.
      await ds.undoLastMigration();
      for (const table of ['cms_cms_webhooks', 'cms_cms_webhook_events', 'cms_cms_webhook_deliveries'])
        expect(await tableNames(ds)).not.toContain(table);
      await ds.undoLastMigration();
      for (const [key] of POST_LIST_KEYS)
        expect((await indexesOf(ds, 'cms_posts'))[kind === 'mysql' ? key : `cms_posts__${key}`]).toBeUndefined();
      expect(
        (await indexesOf(ds, 'cms_posts'))[kind === 'mysql' ? REVISION_KEY : `cms_posts__${REVISION_KEY}`],
      ).toBeDefined();
      await ds.undoLastMigration();
      expect(await tableNames(ds)).not.toContain('cms_cms_upload_journal');
      await ds.undoLastMigration();
      expect(await tableNames(ds)).not.toContain('cms_cms_locks');
      await ds.undoLastMigration();
      expect(
        (await indexesOf(ds, 'cms_cms_post_versions'))[
          kind === 'mysql' ? 'cms_version' : 'cms_cms_post_versions__cms_version'
        ],
      ).toBeUndefined();
      await ds.undoLastMigration();
      expect(
        (await indexesOf(ds, 'cms_posts'))[kind === 'mysql' ? REVISION_KEY : `cms_posts__${REVISION_KEY}`],
      ).toBeUndefined();
      await ds.undoLastMigration();
      expect(await tableNames(ds)).not.toContain('cms_cms_post_versions');
      await ds.undoLastMigration();
      expect(await tableNames(ds)).not.toContain('cms_cms_versions');
      await ds.undoLastMigration();
      await ds.undoLastMigration();
      await expect(ds.undoLastMigration()).rejects.toThrow('refusing to drop WordPress tables');
      expect(await tableNames(ds)).toContain('cms_posts');
      expect((await ds.runMigrations()).map((m) => m.name)).toEqual([
        'SqliteCoveringKeys1763683200000',
        'CommentQueryKeys1764028800000',
        'VersionStamps1764633600000',
        'PostVersions1764806400000',
        'RevisionKeys1764892800000',
        'PostVersionKeys1764979200000',
        'ClusterLocks1765152000000',
        'UploadJournal1765238400000',
        'PostListKeys1765324800000',
        'Webhooks1765411200000',
      ]);
    });

    it('only emits CREATE … IF NOT EXISTS statements', () => {
      for (const dialect of ['mysql', 'sqlite'] as const) {
        for (const statements of wordpressSchemaStatements(dialect, 'wp_').values()) {
          for (const statement of statements) {
            expect(statement).toMatch(/^CREATE (UNIQUE )?(TABLE|INDEX) IF NOT EXISTS /);
          }
        }
      }
      expect(() => wordpressSchemaStatements('mysql', 'wp-; DROP')).toThrow('Invalid table prefix');
    });
  });

  describe('existing tables are never altered', () => {
    /** A DataSource on the same MySQL database, or a new SQLite database, with another prefix. */
    async function withPrefix(prefix: string, run: (other: DataSource) => Promise<void>): Promise<void> {
      const other = dataSourceFor(url, prefix);
      await other.initialize();
      try {
        await run(other);
      } finally {
        await other.destroy();
      }
    }

    it('keeps a hand-made options table with its data and its own columns', async () => {
      await withPrefix('pre_', async (other) => {
        await other.query(
          `CREATE TABLE pre_options (option_id INTEGER PRIMARY KEY, option_name VARCHAR(191) NOT NULL,
             option_value TEXT NOT NULL, autoload VARCHAR(20) NOT NULL, legacy_flag INTEGER)`,
        );
        await other.query(
          `INSERT INTO pre_options (option_id, option_name, option_value, autoload, legacy_flag)
           VALUES (7, 'siteurl', 'https://old.example', 'yes', 1)`,
        );
        const before = await snapshot(other, 'pre_options');
        await other.runMigrations();
        expect(await snapshot(other, 'pre_options')).toEqual(before);
        expect(await other.query(`SELECT * FROM pre_options`)).toEqual([
          {
            option_id: 7,
            option_name: 'siteurl',
            option_value: 'https://old.example',
            autoload: 'yes',
            legacy_flag: 1,
          },
        ]);
        expect(await tableNames(other)).toEqual(
          expect.arrayContaining(['pre_posts', 'pre_users', 'pre_cms_migrations']),
        );
        expect(await installSite(other, { tablePrefix: 'pre_', siteUrl: 'https://new.example' })).toBe(false);
      });
    });

    it('keeps an existing wp_posts table (WordPress DDL + a row), adding only the revisions key, and creates the rest', async () => {
      await withPrefix('wp_', async (other) => {
        const dialect = kind === 'mysql' ? 'mysql' : 'sqlite';
        for (const statement of wordpressSchemaStatements(dialect, 'wp_').get('posts')!) await other.query(statement);
        await other.query(
          `INSERT INTO wp_posts (ID, post_author, post_title, post_content, post_excerpt, to_ping, pinged,
             post_content_filtered, post_name, post_date)
           VALUES (41, 1, 'Existing', 'Body', '', '', '', '', 'existing', '2020-01-02 03:04:05')`,
        );
        const before = (await snapshot(other, 'wp_posts')) as Record<string, { indexes: IndexInfo }>;
        await other.runMigrations();
        // the raw statements too: IF NOT EXISTS makes them harmless on an existing table
        for (const statement of wordpressSchemaStatements(dialect, 'wp_').get('posts')!) await other.query(statement);
        // Columns and rows as they were; the one change is keys: of posts' revisions (RevisionKeys1764892800000) and of
        // lists in other orders (PostListKeys1765324800000).
        const keyName = (name: string) => (kind === 'mysql' ? name : `wp_posts__${name}`);
        const added = Object.fromEntries(
          [[REVISION_KEY, REVISION_KEY_COLUMNS], ...POST_LIST_KEYS].map(([name, columns]) => [
            keyName(name as string),
            { columns, unique: false },
          ]),
        );
        const expected = { wp_posts: { ...before.wp_posts, indexes: { ...before.wp_posts.indexes, ...added } } };
        expect(await snapshot(other, 'wp_posts')).toEqual(expected);
        const post = await other.getRepository(PostEntity).findOneByOrFail({ id: 41 });
        expect(post).toMatchObject({ id: 41, title: 'Existing', name: 'existing', date: '2020-01-02 03:04:05' });
        expect(await tableNames(other)).toEqual(expect.arrayContaining(TABLES.map((table) => `wp_${table}`)));
      });
    });
  });

  describe('values', () => {
    it('round-trips utf8mb4 text (emoji, CJK, accents) in post_title', async () => {
      const title = 'Hello 😀 wörld — 日本語 🏳️‍🌈';
      const saved = await ds.getRepository(PostEntity).save({ title, content: '𝒞𝓂𝓈 body', name: 'emoji' });
      const found = await ds.getRepository(PostEntity).findOneByOrFail({ id: saved.id });
      expect(found.title).toBe(title);
      expect(found.content).toBe('𝒞𝓂𝓈 body');
      const [raw] = await ds.query('SELECT post_title FROM cms_posts WHERE ID = ?', [saved.id]);
      expect(raw.post_title).toBe(title);
    });

    it('reads zero dates and real dates back as the exact strings', async () => {
      const repo = ds.getRepository(PostEntity);
      const draft = await repo.save({
        title: 'Draft',
        status: 'draft',
        date: '2024-02-29 13:45:07',
        dateGmt: ZERO_DATE,
        modified: '2024-02-29 13:45:07',
        modifiedGmt: '2024-02-29 12:45:07',
      });
      const found = await repo.findOneByOrFail({ id: draft.id });
      expect(found.date).toBe('2024-02-29 13:45:07');
      expect(found.dateGmt).toBe(ZERO_DATE);
      expect(found.modifiedGmt).toBe('2024-02-29 12:45:07');
      // column defaults, as written by the database itself
      await ds.query(
        `INSERT INTO cms_posts (post_title, post_content, post_excerpt, to_ping, pinged, post_content_filtered)
         VALUES ('Defaults', '', '', '', '', '')`,
      );
      const [raw] = await ds.query(
        `SELECT ID, post_date, post_date_gmt, post_modified, post_status FROM cms_posts WHERE post_title = 'Defaults'`,
      );
      expect(raw).toMatchObject({ post_date: ZERO_DATE, post_date_gmt: ZERO_DATE, post_modified: ZERO_DATE });
      expect(raw.post_status).toBe('publish');
      expect((await repo.findOneByOrFail({ id: raw.ID })).modifiedGmt).toBe(ZERO_DATE);
    });

    it('returns ids and bigint columns as JS numbers, through entities and raw queries', async () => {
      const repo = ds.getRepository(PostEntity);
      const saved = await repo.save({ title: 'Numbers', author: 3, parent: 2 ** 40, commentCount: 5 });
      expect(typeof saved.id).toBe('number');
      const found = await repo.findOneByOrFail({ id: saved.id });
      expect(found).toMatchObject({ id: saved.id, author: 3, parent: 2 ** 40, commentCount: 5, menuOrder: 0 });
      const big = await repo.save({ id: 2 ** 40 + 1, title: 'Big id' });
      expect(big.id).toBe(2 ** 40 + 1);
      expect((await repo.findOneByOrFail({ id: 2 ** 40 + 1 })).id).toBe(2 ** 40 + 1);
      const [raw] = await ds.query('SELECT ID, post_author, post_parent FROM cms_posts WHERE ID = ?', [saved.id]);
      expect(raw).toEqual({ ID: saved.id, post_author: 3, post_parent: 2 ** 40 });
      const [viaRaw] = await rawQuery(
        ds,
        'SELECT ID, post_author, post_parent, post_title FROM cms_posts WHERE ID = ?',
        [saved.id],
      );
      expect(viaRaw).toEqual({ ID: saved.id, post_author: 3, post_parent: 2 ** 40, post_title: 'Numbers' });
      const entities = await rawEntities<PostEntity>(
        ds,
        ds.getMetadata(PostEntity),
        'SELECT * FROM cms_posts WHERE ID IN (?, ?) ORDER BY ID',
        [saved.id, 2 ** 40 + 1],
      );
      expect(entities.map((e) => e instanceof PostEntity)).toEqual([true, true]);
      expect(entities[0]).toEqual(found);
      expect(entities[1]).toMatchObject({ id: 2 ** 40 + 1, title: 'Big id' });
      const partial = await rawEntities<PostEntity>(
        ds,
        ds.getMetadata(PostEntity),
        'SELECT ID, post_title, 1 AS extra FROM cms_posts WHERE ID = ?',
        [saved.id],
      );
      expect({ ...partial[0] }).toEqual({ id: saved.id, title: 'Numbers' });
    });

    it('fills WordPress defaults for a minimal insert through the entity', async () => {
      const repo = ds.getRepository(PostEntity);
      const { identifiers } = await repo.insert({ title: 'Minimal' });
      const found = await repo.findOneByOrFail({ id: identifiers[0].id as number });
      expect(found).toMatchObject({
        content: '',
        excerpt: '',
        status: 'publish',
        commentStatus: 'open',
        type: 'post',
        date: ZERO_DATE,
        guid: '',
        toPing: '',
      });
    });

    it('round-trips a PHP-serialized option through OptionEntity', async () => {
      const value = { list: ['a', 'ü', '😀'], nested: { enabled: true, count: 3, ratio: 0.5 }, empty: [] };
      const repo = ds.getRepository(OptionEntity);
      await repo.save({ name: 'cms_serialized_probe', value: maybeSerialize(value), autoload: 'no' });
      await repo.save({ name: 'cms_double_probe', value: maybeSerialize('a:0:{}'), autoload: 'no' });
      const stored = await repo.findOneByOrFail({ name: 'cms_serialized_probe' });
      expect(maybeUnserialize(stored.value)).toEqual(value);
      expect(stored.value).toContain('s:4:"😀";');
      const double = await repo.findOneByOrFail({ name: 'cms_double_probe' });
      expect(double.value).toBe('s:6:"a:0:{}";');
      expect(maybeUnserialize(double.value)).toBe('a:0:{}');
    });
  });

  describe('installSite', () => {
    const now = new Date('2025-01-01T00:00:00Z');

    it('installs options, roles and the Uncategorized category once', async () => {
      const first = await installSite(ds, { tablePrefix: 'cms_', siteUrl: 'https://example.test/', now });
      expect(first).toBe(true);
      const options = ds.getRepository(OptionEntity);
      const get = async (name: string): Promise<OptionEntity> => options.findOneByOrFail({ name });
      expect((await get('siteurl')).value).toBe('https://example.test');
      expect((await get('home')).value).toBe('https://example.test');
      expect((await get('blogname')).value).toBe('My CMS Site');
      expect((await get('posts_per_page')).value).toBe('10');
      expect((await get('date_format')).value).toBe('F j, Y');
      expect((await get('permalink_structure')).value).toBe('/%postname%/');
      expect((await get('default_category')).value).toBe('1');
      expect((await get('sticky_posts')).value).toBe('a:0:{}');
      expect((await get('db_version')).value).toBe('53496');
      expect((await get('admin_email_lifespan')).value).toBe(String(1735689600 + 15552000));
      expect(await get('moderation_keys')).toMatchObject({ value: '', autoload: 'no' });
      expect((await get('blog_charset')).autoload).toBe('yes');
      const roles = await get('cms_user_roles');
      expect(roles.autoload).toBe('yes');
      expect(maybeUnserialize(roles.value)).toEqual(DEFAULT_ROLES);
      expect(await ds.getRepository(TermEntity).find()).toEqual([
        { id: 1, name: 'Uncategorized', slug: 'uncategorized', group: 0 },
      ]);
      expect(await ds.getRepository(TermTaxonomyEntity).find()).toEqual([
        { id: 1, termId: 1, taxonomy: 'category', description: '', parent: 0, count: 0 },
      ]);
    });

    it('is a no-op the second time', async () => {
      const before = await snapshot(ds, 'cms_');
      const again = await installSite(ds, { tablePrefix: 'cms_', siteUrl: 'https://other.test', title: 'Other', now });
      expect(again).toBe(false);
      expect(await snapshot(ds, 'cms_')).toEqual(before);
      expect((await ds.getRepository(OptionEntity).findOneByOrFail({ name: 'blogname' })).value).toBe('My CMS Site');
    });
  });

  describe('MySQL sessions', () => {
    const modesOf = async (runner: { query(sql: string): Promise<{ mode: string }[]> }): Promise<string[]> =>
      (await runner.query('SELECT @@SESSION.sql_mode AS mode'))[0].mode.split(',').filter(Boolean);

    itMysql('every pooled connection runs without WordPress-incompatible sql modes', async () => {
      const [{ global }] = await ds.query('SELECT @@GLOBAL.sql_mode AS global');
      const runners = Array.from({ length: 6 }, () => ds.createQueryRunner());
      try {
        await Promise.all(runners.map((runner) => runner.connect()));
        const modes = await Promise.all(runners.map((runner) => modesOf(runner)));
        const incompatible: readonly string[] = WP_INCOMPATIBLE_SQL_MODES;
        const keep = (global as string).split(',').filter((mode) => mode && !incompatible.includes(mode));
        for (const mode of modes) expect(mode).toEqual(keep);
      } finally {
        await Promise.all(runners.map((runner) => runner.release()));
      }
    });

    itMysql('strips exactly the incompatible modes and keeps the others', async () => {
      const runner = ds.createQueryRunner();
      try {
        await runner.query(
          `SET SESSION sql_mode = 'TRADITIONAL,NO_ZERO_DATE,ONLY_FULL_GROUP_BY,PIPES_AS_CONCAT,NO_ENGINE_SUBSTITUTION'`,
        );
        const before = await modesOf(runner);
        expect(before).toEqual(expect.arrayContaining(['NO_ZERO_DATE', 'STRICT_ALL_TABLES', 'ONLY_FULL_GROUP_BY']));
        await runner.query(WP_SQL_MODE_STATEMENT);
        const incompatible: readonly string[] = WP_INCOMPATIBLE_SQL_MODES;
        const after = await modesOf(runner);
        expect(after).toEqual(before.filter((mode) => !incompatible.includes(mode)));
        expect(after).toEqual(expect.arrayContaining(['PIPES_AS_CONCAT', 'NO_ENGINE_SUBSTITUTION']));
      } finally {
        await runner.query(WP_SQL_MODE_STATEMENT);
        await runner.release();
      }
    });

    itMysql('afterDataSourceInit fixes a DataSource built without buildDataSourceOptions', async () => {
      const base = buildDataSourceOptions({ databaseUrl: url, tablePrefix: 'cms_' }) as MysqlConnectionOptions;
      const { driver: _wrappedDriver, ...plain } = base; // a host's own options: TypeORM loads mysql2 itself
      const hostDs = new DataSource({ ...plain, entities: CMS_ENTITIES, poolSize: 3 });
      await hostDs.initialize();
      try {
        await hostDs.query(`SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE'`);
        await afterDataSourceInit(hostDs);
        const runners = Array.from({ length: 3 }, () => hostDs.createQueryRunner());
        await Promise.all(runners.map((runner) => runner.connect()));
        for (const runner of runners) {
          expect(await modesOf(runner)).not.toEqual(expect.arrayContaining(['NO_ZERO_DATE']));
          expect(await modesOf(runner)).not.toEqual(expect.arrayContaining(['STRICT_ALL_TABLES']));
          const [{ length }] = await runner.query('SELECT @@SESSION.group_concat_max_len AS length');
          expect(Number(length)).toBe(GROUP_CONCAT_MAX_LEN);
        }
        await Promise.all(runners.map((runner) => runner.release()));
        await hostDs.getRepository(PostEntity).save({ title: 'host', dateGmt: ZERO_DATE });
      } finally {
        await hostDs.destroy();
      }
    });

    itMysql('connects through the Unix socket named by ?socket=', async () => {
      const [{ socket }] = await ds.query('SELECT @@socket AS socket');
      if (!socket || !fs.existsSync(String(socket))) return; // a server on another host: no socket to reach here
      const viaSocket = new URL(url);
      viaSocket.hostname = 'localhost';
      viaSocket.port = '';
      viaSocket.searchParams.set('socket', String(socket));
      const socketDs = new DataSource(
        buildDataSourceOptions({ databaseUrl: viaSocket.toString(), tablePrefix: 'cms_' }),
      );
      await socketDs.initialize();
      try {
        const [{ host }] = await socketDs.query(
          'SELECT host FROM information_schema.processlist WHERE id = CONNECTION_ID()',
        );
        // A TCP client shows as host:port; a socket client as the bare host name.
        expect(String(host)).toBe('localhost');
        expect(Number((await socketDs.query('SELECT COUNT(*) AS n FROM cms_posts'))[0].n)).toBeGreaterThanOrEqual(0);
      } finally {
        await socketDs.destroy();
      }
    });

    itMysql('uses the per-test database name', () => {
      expect(url).toMatch(new RegExp(`/${testDatabaseName(DB_NAME)}$`));
    });
  });

  describe('SQLite planner statistics', () => {
    itSqlite(
      'keeps per-index statistics and drops sample statistics, which re-plan statements on every binding',
      async () => {
        const posts = Array.from({ length: 40 }, (_, i) => [`s-${i}`, i % 2 ? 'publish' : 'draft']);
        for (const [name, status] of posts) {
          await ds.query(
            `INSERT INTO cms_posts (post_author, post_content, post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_content_filtered, post_type)
           VALUES (1, '', ?, '', ?, ?, '', '', '', 'post')`,
            [name, status, name],
          );
        }
        await ds.query('ANALYZE');
        expect(Number((await ds.query('SELECT COUNT(*) AS n FROM sqlite_stat4'))[0].n)).toBeGreaterThan(0);

        await afterDataSourceInit(ds);

        expect(Number((await ds.query('SELECT COUNT(*) AS n FROM sqlite_stat4'))[0].n)).toBe(0);
        const stat1 = await ds.query("SELECT idx FROM sqlite_stat1 WHERE tbl = 'cms_posts'");
        expect(stat1.map((r: { idx: string }) => r.idx)).toContain('cms_posts__type_status_date');
        await ds.query("DELETE FROM cms_posts WHERE post_name LIKE 's-%'");
      },
    );
  });

  describe('helpers', () => {
    it('parses DATABASE_URL forms', () => {
      expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ type: 'sqlite', path: ':memory:' });
      expect(parseDatabaseUrl('sqlite:./data/cms.db')).toEqual({ type: 'sqlite', path: './data/cms.db' });
      expect(parseDatabaseUrl('sqlite:/var/lib/cms.db')).toEqual({ type: 'sqlite', path: '/var/lib/cms.db' });
      expect(parseDatabaseUrl('sqlite:///var/lib/cms.db')).toEqual({ type: 'sqlite', path: '/var/lib/cms.db' });
      expect(parseDatabaseUrl('mysql://wp:p%40ss%3Aw@db.local:3307/wordpress')).toEqual({
        type: 'mysql',
        host: 'db.local',
        port: 3307,
        username: 'wp',
        password: 'p@ss:w',
        database: 'wordpress',
      });
      expect(parseDatabaseUrl('mariadb://root@127.0.0.1/wp')).toMatchObject({ port: 3306, password: '' });
      expect(parseDatabaseUrl('mysql://wp@localhost/wp?socket=%2Frun%2Fmysqld%2Fmysqld.sock')).toMatchObject({
        host: 'localhost',
        database: 'wp',
        socketPath: '/run/mysqld/mysqld.sock',
      });
      expect(parseDatabaseUrl('mysql://wp@localhost/wp?socket=/tmp/my.sock')).toMatchObject({
        socketPath: '/tmp/my.sock',
      });
      expect(parseDatabaseUrl('mysql://wp@localhost/wp')).not.toHaveProperty('socketPath');
      expect(() => parseDatabaseUrl('mysql://wp@localhost/wp?socket=relative.sock')).toThrow(
        /socket must be an absolute path/,
      );
      for (const bad of ['postgres://u:p@h/db', 'mysql://u:secret@h:3306', 'sqlite:', 'cms.db', '']) {
        expect(() => parseDatabaseUrl(bad)).toThrow(/DATABASE_URL.*sqlite::memory:.*mysql:\/\//);
      }
      expect(() => parseDatabaseUrl('mysql://u:secret@h:3306')).toThrow(/u:\*\*\*@h/);
    });

    it('builds DataSource options for both drivers', () => {
      const sqlite = buildDataSourceOptions({ databaseUrl: 'sqlite::memory:', tablePrefix: 'wp_' });
      expect(sqlite).toMatchObject({
        type: 'better-sqlite3',
        database: ':memory:',
        entityPrefix: 'wp_',
        migrationsTableName: 'wp_cms_migrations',
        synchronize: false,
        migrationsRun: false,
        enableWAL: false,
      });
      expect(sqlite.entities).toBe(CMS_ENTITIES);
      const mysql = buildDataSourceOptions({ databaseUrl: 'mysql://u:p@h:3306/db', tablePrefix: 'wp_' });
      expect(mysql).toMatchObject({
        type: 'mysql',
        host: 'h',
        database: 'db',
        charset: 'utf8mb4_unicode_520_ci',
        dateStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
        timezone: 'Z',
        entityPrefix: 'wp_',
      });
      expect(() => buildDataSourceOptions({ databaseUrl: 'sqlite::memory:', tablePrefix: 'wp-' })).toThrow('prefix');
    });

    it('formats MySQL dates', () => {
      expect(formatMysqlDate(new Date('2024-05-06T07:08:09.999Z'))).toBe('2024-05-06 07:08:09');
      expect(formatMysqlDate(new Date(Date.UTC(999, 0, 2, 3, 4, 5)))).toBe('0999-01-02 03:04:05');
      expect(mysqlToRfc3339('2024-05-06 07:08:09')).toBe('2024-05-06T07:08:09');
      expect(mysqlToRfc3339(ZERO_DATE)).toBeNull();
      expect(mysqlToRfc3339('')).toBeNull();
      expect(mysqlToRfc3339(null)).toBeNull();
      expect(mysqlToRfc3339('garbage')).toBeNull();
    });

    (kind === 'sqlite' ? it : it.skip)('uses a SQLite file in a new directory, in WAL mode', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-db-'));
      const file = path.join(dir, 'nested', 'deeper', 'cms.db');
      const fileDs = new DataSource(buildDataSourceOptions({ databaseUrl: `sqlite:${file}`, tablePrefix: 'wp_' }));
      try {
        await fileDs.initialize();
        await fileDs.runMigrations();
        expect(await installSite(fileDs, { tablePrefix: 'wp_', siteUrl: 'http://localhost' })).toBe(true);
        expect(await fileDs.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
        await fileDs.destroy();
        // reopened: the site is there, nothing is installed twice
        await fileDs.initialize();
        expect(await fileDs.runMigrations()).toEqual([]);
        expect(await installSite(fileDs, { tablePrefix: 'wp_', siteUrl: 'http://localhost' })).toBe(false);
        expect(fs.existsSync(file)).toBe(true);
      } finally {
        if (fileDs.isInitialized) await fileDs.destroy();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
