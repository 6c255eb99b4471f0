/**
 * Benchmark seeding: fills a fresh WordPress-schema database with a realistic site, fast, straight through SQL
 * (batched multi-row INSERTs inside transactions; no HTTP).
 *
 * The schema and the default site come from the server's own code in `dist/` (the DataSource options, the
 * migrations and `installSite`), so the database is exactly what `node dist/main` would have created; then this
 * module inserts users (with roles and, for the first administrator, an application password), categories and
 * tags, attachments, posts, term relationships, comments and post meta, all as WordPress writes them.
 *
 * Used by `bench/run.ts`; also runnable alone:
 *
 *   npx ts-node --transpile-only bench/seed.ts --db sqlite --posts 2000 [--file /tmp/cms.sqlite]
 *   npx ts-node --transpile-only bench/seed.ts --db mysql --posts 2000      # database cms_bench, recreated
 *
 * It prints what it made (JSON) on stdout, the application password included.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DataSource as DataSourceType, QueryRunner } from 'typeorm';

/** The compiled server, loaded lazily so that `bench/run.ts` can build it first. */
type Dist = {
  dataSourceOptions: typeof import('../dist/core/database/data-source-options');
  siteInstall: typeof import('../dist/core/database/site-install');
  phpSerialize: typeof import('../dist/core/formatting/php-serialize');
  passwordHash: typeof import('../dist/core/auth/password-hash');
  appPasswords: typeof import('../dist/core/auth/application-passwords.service');
  userRecords: typeof import('../dist/core/auth/user-records');
  mysqlDate: typeof import('../dist/core/database/mysql-date');
};

const ROOT = path.resolve(__dirname, '..');

function loadDist(): Dist {
  const dist = path.join(ROOT, 'dist');
  if (!fs.existsSync(path.join(dist, 'main.js'))) {
    throw new Error(`${dist}/main.js is missing: build the server first (npx nest build)`);
  }
  /* eslint-disable @typescript-eslint/no-require-imports */
  require('reflect-metadata');
  const load = <K extends keyof Dist>(file: string) => require(path.join(dist, file)) as Dist[K];
  return {
    dataSourceOptions: load<'dataSourceOptions'>('core/database/data-source-options'),
    siteInstall: load<'siteInstall'>('core/database/site-install'),
    phpSerialize: load<'phpSerialize'>('core/formatting/php-serialize'),
    passwordHash: load<'passwordHash'>('core/auth/password-hash'),
    appPasswords: load<'appPasswords'>('core/auth/application-passwords.service'),
    userRecords: load<'userRecords'>('core/auth/user-records'),
    mysqlDate: load<'mysqlDate'>('core/database/mysql-date'),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

// ---------------------------------------------------------------------------------------------------------------------
// Options and result
// ---------------------------------------------------------------------------------------------------------------------

export type BenchDb = 'sqlite' | 'mysql';

export interface SeedOptions {
  /** `sqlite:<file>` or `mysql://...`; the database must be empty (see {@link prepareDatabase}). */
  databaseUrl: string;
  /** Table prefix (default `cms_`, the server's default). */
  tablePrefix?: string;
  /** Number of posts (post_type `post`), default 10000. */
  posts?: number;
  /** Site URL written in the options and GUIDs (default `http://localhost:3000`, the server's default). */
  siteUrl?: string;
  /** PRNG seed: the same seed gives the same site on both databases (default 20240601). */
  randomSeed?: number;
  /** Progress messages (default: none). */
  log?: (message: string) => void;
}

export interface SeedResult {
  /** Wall time of the whole seeding (schema included), in milliseconds. */
  ms: number;
  /** Time of the schema + default site part, in milliseconds. */
  schemaMs: number;
  counts: {
    users: number;
    usermeta: number;
    categories: number;
    tags: number;
    attachments: number;
    posts: number;
    postsByStatus: Record<string, number>;
    termRelationships: number;
    comments: number;
    /** Comments by `comment_approved` ('1', '0', 'spam', 'trash'). */
    commentsByStatus: Record<string, number>;
    /** Published posts with 200–400 comments. */
    postsWithManyComments: number;
    postmeta: number;
    revisions: number;
  };
  /** The administrator with an application password, for the authenticated scenario. */
  admin: { id: number; login: string; applicationPassword: string; uuid: string };
  /** A published post (for `posts/<id>`). */
  samplePostId: number;
  /** A published post with a few (3–5) approved comments, the first from the middle of the table on (for `comments?post=<id>`). */
  sampleCommentsPostId: number;
  /** A published post with hundreds of comments, the middle one of those (for `comments?post=<big id>`). */
  busyCommentsPostId: number;
  /** The category (term ID) with the most published posts (for `posts?categories=<id>`). */
  sampleCategoryId: number;
  /** A word that occurs in the titles and contents of many posts (for `posts?search=<word>`). */
  searchWord: string;
  /** Posts whose title or content contain {@link searchWord} (all statuses). */
  searchWordPosts: number;
  /** ID sets for the mixed load and the read-after-write check (not written into the results file). */
  samples: {
    /** 60 published posts spread over the table, oldest first. */
    publishedPostIds: number[];
    /** 55 published posts with 1–5 approved comments, spread over the table. */
    commentedPostIds: number[];
    /** Published posts in all. */
    publishedCount: number;
    /** Held comments (`comment_approved` '0') on published posts with fewer than 10 approved comments (at most 1000, spread). */
    heldComments: Array<{ id: number; postId: number }>;
  };
}

/** `count` items of `items` spread evenly over it (all of them when there are fewer). */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return items.slice();
  return Array.from({ length: count }, (_, i) => items[Math.floor(((i + 0.5) * items.length) / count)]);
}

// ---------------------------------------------------------------------------------------------------------------------
// Deterministic text
// ---------------------------------------------------------------------------------------------------------------------

/** mulberry32: small, fast, seedable (the seed and the mixed load's choice of URLs are the same on every run). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in is that for it as with was on be by at this from or an are not have but which one all were ' +
  'when there can more been has their if will about out what so up into some them other than then its only new ' +
  'time people could these two way first also after year work back well even because good through over most ' +
  'system garden coffee river mountain market design energy network library morning travel recipe festival ' +
  'kitchen winter summer journey ocean forest village language history science music theatre museum harbour ' +
  'bicycle railway station weather planet window pattern camera portrait island desert valley ' +
  'software database server browser keyboard function variable release update feature performance security ' +
  'community neighbour volunteer project report budget council election school teacher student lesson ' +
  'season harvest orchard bakery bread cheese olive lemon honey tomato pepper spice picnic dinner breakfast ' +
  'football tennis marathon cycling swimming climbing sailing hiking running training stadium champion ' +
  'quietly slowly carefully finally suddenly rarely often always never perhaps really simply nearly ' +
  'bright dark ancient modern simple complex small large green golden silver wooden careful curious gentle'
).split(/\s+/);
/** Words picked with a bias (Zipf-like) so that common words are common. */
const CONTENT_WORDS = WORDS.slice(75);
const SEARCH_WORD = 'lighthouse';

const FIRST_NAMES = ['Alice', 'Bruno', 'Chloe', 'Dmitri', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kira',
  'Liam', 'Maya', 'Noah', 'Olga', 'Pablo', 'Quinn', 'Rosa', 'Sami', 'Tara', 'Umar', 'Vera', 'Wen', 'Yara']; // prettier-ignore
const LAST_NAMES = ['Andersen', 'Bianchi', 'Costa', 'Dubois', 'Eriksson', 'Fischer', 'García', 'Horvat', 'Ito',
  'Jansen', 'Kowalski', 'Laurent', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Quintero', 'Rossi', 'Silva', 'Tanaka']; // prettier-ignore
const CATEGORY_ROOTS = ['News', 'Technology', 'Science', 'Travel', 'Food', 'Sports', 'Culture', 'Business',
  'Health', 'Opinion']; // prettier-ignore
const CATEGORY_CHILDREN = ['Local', 'World', 'Politics', 'Gadgets', 'Software', 'Open Source', 'Space', 'Biology',
  'Climate', 'Physics', 'Europe', 'Asia', 'Americas', 'Weekend Trips', 'Recipes', 'Restaurants', 'Wine',
  'Baking', 'Football', 'Tennis', 'Cycling', 'Running', 'Film', 'Books', 'Music', 'Theatre', 'Art', 'Startups',
  'Markets', 'Careers', 'Fitness', 'Nutrition', 'Sleep', 'Mental Health', 'Editorials', 'Letters', 'Columns',
  'Interviews', 'Reviews', 'Photography']; // prettier-ignore

const titleCase = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `sanitize_title()` of ASCII text, as WordPress makes post slugs and term slugs. */
function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&.+?;/g, '')
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
}

class TextMaker {
  constructor(private readonly random: () => number) {}

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  /** Zipf-ish index in [0, n): small indexes much more likely. */
  skewed(n: number): number {
    return Math.min(n - 1, Math.floor(n * Math.pow(this.random(), 2.2)));
  }

  word(): string {
    return this.random() < 0.45 ? this.pick(WORDS.slice(0, 75)) : this.pick(CONTENT_WORDS);
  }

  words(min: number, max: number): string[] {
    const count = this.int(min, max);
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(this.word());
    return out;
  }

  sentence(): string {
    const words = this.words(7, 18);
    if (this.random() < 0.004) words[this.int(0, words.length - 1)] = SEARCH_WORD;
    return titleCase(words.join(' ')) + (this.random() < 0.1 ? '?' : '.');
  }

  paragraph(): string {
    const out: string[] = [];
    for (let i = this.int(2, 5); i > 0; i--) out.push(this.sentence());
    return out.join(' ');
  }

  title(): string {
    const words = [this.pick(CONTENT_WORDS), ...this.words(2, 7)];
    if (this.random() < 0.03) words.push(SEARCH_WORD);
    // Shuffle the leading content word into the title.
    const at = this.int(0, words.length - 1);
    [words[0], words[at]] = [words[at], words[0]];
    return words.map((w, i) => (i === 0 || w.length > 3 ? titleCase(w) : w)).join(' ');
  }

  /** Block-editor post content: paragraphs, with the odd heading, list, quote or image. */
  content(thumbnailUrl: string | null): string {
    const blocks: string[] = [];
    const count = this.int(3, 8);
    for (let i = 0; i < count; i++) {
      const roll = this.random();
      if (i > 0 && roll < 0.12) {
        blocks.push(
          `<!-- wp:heading -->\n<h2 class="wp-block-heading">${titleCase(this.words(2, 5).join(' '))}</h2>\n<!-- /wp:heading -->`,
        );
      } else if (i > 0 && roll < 0.2) {
        const items = this.words(3, 5)
          .map(() => `<li>${this.sentence()}</li>`)
          .join('');
        blocks.push(`<!-- wp:list -->\n<ul>${items}</ul>\n<!-- /wp:list -->`);
      } else if (i > 0 && roll < 0.24) {
        blocks.push(
          `<!-- wp:quote -->\n<blockquote class="wp-block-quote"><p>${this.sentence()}</p><cite>${this.pick(FIRST_NAMES)}</cite></blockquote>\n<!-- /wp:quote -->`,
        );
      } else if (i > 0 && roll < 0.27 && thumbnailUrl) {
        blocks.push(
          `<!-- wp:image {"sizeSlug":"large"} -->\n<figure class="wp-block-image size-large"><img src="${thumbnailUrl}" alt=""/></figure>\n<!-- /wp:image -->`,
        );
      }
      blocks.push(`<!-- wp:paragraph -->\n<p>${this.paragraph()}</p>\n<!-- /wp:paragraph -->`);
    }
    return blocks.join('\n\n');
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Bulk inserts
// ---------------------------------------------------------------------------------------------------------------------

type Row = (string | number)[];

class BulkWriter {
  rows = 0;

  constructor(
    private readonly runner: QueryRunner,
    private readonly prefix: string,
    /** Bound parameters per statement (SQLite: 32766; MySQL: 65535). */
    private readonly maxParams: number,
    /** Approximate bytes per statement (below MySQL's max_allowed_packet). */
    private readonly maxBytes: number,
  ) {}

  /** Multi-row `INSERT INTO <prefix><table> (columns) VALUES (...), (...)`, in batches. */
  async insert(table: string, columns: string[], rows: Row[]): Promise<void> {
    const head = `INSERT INTO \`${this.prefix}${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES `;
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const maxRows = Math.max(1, Math.floor(this.maxParams / columns.length));
    let batch: Row[] = [];
    let bytes = 0;
    const flush = async () => {
      if (!batch.length) return;
      await this.runner.query(head + batch.map(() => tuple).join(', '), batch.flat());
      this.rows += batch.length;
      batch = [];
      bytes = 0;
    };
    for (const row of rows) {
      if (row.length !== columns.length)
        throw new Error(`${table}: row has ${row.length} values for ${columns.length} columns`);
      let size = 0;
      for (const value of row) size += typeof value === 'string' ? value.length * 2 + 4 : 12;
      if (batch.length >= maxRows || (batch.length > 0 && bytes + size > this.maxBytes)) await flush();
      batch.push(row);
      bytes += size;
    }
    await flush();
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Database preparation
// ---------------------------------------------------------------------------------------------------------------------

/** MySQL database used by the benchmark (dropped and recreated on each run). */
export const BENCH_MYSQL_DATABASE = 'cms_bench';

export interface PreparedDatabase {
  databaseUrl: string;
  /** Removes the database (SQLite: the temp directory; MySQL: drops `cms_bench`). */
  drop(): Promise<void>;
  /** Human-readable location. */
  where: string;
}

/** `mysql://user:pass@host:port` → connection options of mysql2 (no database). */
function mysqlServer(mysqlUrl: string): { host: string; port: number; user: string; password: string } {
  const url = new URL(mysqlUrl.replace(/^mariadb:/i, 'mysql:'));
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
  };
}

async function mysqlAdmin(mysqlUrl: string, statements: string[]): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mysql = require('mysql2/promise') as typeof import('mysql2/promise');
  const connection = await mysql.createConnection({ ...mysqlServer(mysqlUrl), connectTimeout: 10_000 });
  try {
    // Do not wait long behind a lock (e.g. a seeding transaction interrupted by Ctrl-C).
    await connection.query('SET SESSION lock_wait_timeout = 5');
    for (const statement of statements) await connection.query(statement);
  } finally {
    await connection.end().catch(() => connection.destroy());
  }
}

/**
 * A fresh, empty database: SQLite → a file in a new temp directory (or `sqliteFile`, deleted first);
 * MySQL → `cms_bench` on the server of `mysqlUrl`, dropped and recreated (utf8mb4, WordPress's collation).
 */
export async function prepareDatabase(
  db: BenchDb,
  options: { mysqlUrl?: string; sqliteFile?: string; mysqlDatabase?: string } = {},
): Promise<PreparedDatabase> {
  if (db === 'sqlite') {
    let dir: string | null = null;
    let file = options.sqliteFile;
    if (file) {
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-bench-'));
      file = path.join(dir, 'bench.sqlite');
    }
    const target = file;
    return {
      databaseUrl: `sqlite:${target}`,
      where: target,
      drop: async () => {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
        else for (const suffix of ['', '-wal', '-shm']) fs.rmSync(target + suffix, { force: true });
      },
    };
  }
  const mysqlUrl = (options.mysqlUrl ?? 'mysql://root@127.0.0.1:3306').replace(/\/+$/, '');
  const database = options.mysqlDatabase ?? BENCH_MYSQL_DATABASE;
  if (!/^\w+$/.test(database)) throw new Error(`Invalid MySQL database name ${database}`);
  await mysqlAdmin(mysqlUrl, [
    `DROP DATABASE IF EXISTS \`${database}\``,
    `CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci`,
  ]);
  return {
    databaseUrl: `${mysqlUrl}/${database}`,
    where: `${mysqlUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}/${database}`,
    drop: () => mysqlAdmin(mysqlUrl, [`DROP DATABASE IF EXISTS \`${database}\``]),
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Seeding
// ---------------------------------------------------------------------------------------------------------------------

interface SeedUser {
  id: number;
  login: string;
  role: 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
  first: string;
  last: string;
}

const USER_LEVEL = { administrator: 10, editor: 7, author: 2, contributor: 1, subscriber: 0 } as const;

/** Currently open DataSource, so that an interrupted run can close it (see {@link abortSeeding}). */
let activeDataSource: DataSourceType | null = null;

/** Closes the DataSource of a seeding in progress (for Ctrl-C). */
export async function abortSeeding(): Promise<void> {
  const ds = activeDataSource;
  activeDataSource = null;
  if (ds?.isInitialized) await ds.destroy().catch(() => undefined);
}

/**
 * Seeds an empty database (schema included) with a realistic site. Deterministic for a given `randomSeed`
 * apart from password hashes, UUIDs and the dates (relative to now).
 */
export async function seedDatabase(options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const dist = loadDist();
  const { maybeSerialize, phpSerialize } = dist.phpSerialize;
  const { formatMysqlDate, ZERO_DATE } = dist.mysqlDate;
  const prefix = options.tablePrefix ?? 'cms_';
  const postCount = options.posts ?? 10_000;
  const siteUrl = (options.siteUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
  const log = options.log ?? (() => undefined);
  const random = prng(options.randomSeed ?? 20240601);
  const text = new TextMaker(random);
  if (!Number.isInteger(postCount) || postCount < 1)
    throw new Error(`posts must be a positive integer (got ${postCount})`);

  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DataSource } = require('typeorm') as typeof import('typeorm');
  const dataSourceOptions = dist.dataSourceOptions.buildDataSourceOptions({
    databaseUrl: options.databaseUrl,
    tablePrefix: prefix,
    logging: false,
  });
  const ds = new DataSource(dataSourceOptions);
  await ds.initialize();
  activeDataSource = ds;
  try {
    const isMysql = ds.options.type === 'mysql' || ds.options.type === 'mariadb';
    await dist.dataSourceOptions.afterDataSourceInit(ds);

    // 1. Schema and default site, as the server's first start does.
    await ds.runMigrations({ transaction: 'each' });
    const installed = await dist.siteInstall.installSite(ds, { tablePrefix: prefix, siteUrl, title: 'Benchmark Site' });
    if (!installed) throw new Error('the database is not empty (a site is already installed)');
    const schemaMs = Date.now() - started;
    log(`schema and default site: ${schemaMs} ms`);

    let maxBytes = 4 * 1024 * 1024;
    if (isMysql) {
      const [{ packet }] = await ds.query<{ packet: number | string }[]>('SELECT @@max_allowed_packet AS packet');
      maxBytes = Math.max(256 * 1024, Math.min(maxBytes, Math.floor(Number(packet) / 3)));
    }
    const runner = ds.createQueryRunner();
    await runner.connect();
    const writer = new BulkWriter(runner, prefix, isMysql ? 60_000 : 30_000, maxBytes);
    const inTransaction = async (label: string, work: () => Promise<void>) => {
      const t0 = Date.now();
      const before = writer.rows;
      await runner.startTransaction();
      try {
        await work();
        await runner.commitTransaction();
      } catch (error) {
        await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      }
      log(`${label}: ${writer.rows - before} rows in ${Date.now() - t0} ms`);
    };

    const now = Date.now();
    const YEAR = 365.25 * 24 * 3600 * 1000;
    const firstPostTime = now - 6 * YEAR;
    const date = (ms: number) => formatMysqlDate(new Date(Math.min(ms, now)));

    // 2. Users: 20, with WordPress's usermeta (as wp_insert_user() writes them).
    const roles: SeedUser['role'][] = [
      'administrator', 'administrator',
      'editor', 'editor', 'editor', 'editor',
      'author', 'author', 'author', 'author', 'author', 'author', 'author', 'author',
      'contributor', 'contributor', 'contributor',
      'subscriber', 'subscriber', 'subscriber',
    ]; // prettier-ignore
    const users: SeedUser[] = roles.map((role, i) => {
      const first = FIRST_NAMES[i % FIRST_NAMES.length];
      const last = LAST_NAMES[(i * 7) % LAST_NAMES.length];
      const login = i === 0 ? 'bench-admin' : `${first}.${slugify(last)}`.toLowerCase();
      return { id: i + 1, login, role, first, last };
    });
    const admin = users[0];
    const appPassword = dist.userRecords.generatePassword(24);
    const appUuid = randomUUID();
    const userHash = dist.passwordHash.hashPhpass('bench-password');
    let usermetaRows = 0;
    await inTransaction('users', async () => {
      await writer.insert(
        'users',
        [
          'ID',
          'user_login',
          'user_pass',
          'user_nicename',
          'user_email',
          'user_url',
          'user_registered',
          'user_activation_key',
          'user_status',
          'display_name',
        ],
        users.map((u) => [
          u.id,
          u.login,
          userHash,
          slugify(u.login.replace(/\./g, '-')),
          `${u.login}@example.com`,
          u.role === 'subscriber' ? '' : `https://${slugify(u.last)}.example.com`,
          date(firstPostTime - YEAR + u.id * 86_400_000),
          '',
          0,
          u.id === 1 ? 'Bench Admin' : `${u.first} ${u.last}`,
        ]),
      );
      const meta: Row[] = [];
      for (const u of users) {
        const grants = { [u.role]: true };
        const entries: [string, unknown][] = [
          ['nickname', u.login],
          ['first_name', u.id === 1 ? 'Bench' : u.first],
          ['last_name', u.id === 1 ? 'Admin' : u.last],
          ['description', u.role === 'subscriber' ? '' : text.sentence()],
          ['rich_editing', 'true'],
          ['syntax_highlighting', 'true'],
          ['comment_shortcuts', 'false'],
          ['admin_color', 'fresh'],
          ['use_ssl', 0],
          ['show_admin_bar_front', 'true'],
          ['locale', ''],
          [`${prefix}capabilities`, grants],
          [`${prefix}user_level`, USER_LEVEL[u.role]],
        ];
        if (u.id === admin.id) {
          // WP_Application_Passwords::create_new_application_password(): a list keyed 0.. of 7-field items.
          entries.push([
            dist.appPasswords.APPLICATION_PASSWORDS_META_KEY,
            [
              {
                uuid: appUuid,
                app_id: '',
                name: 'benchmark',
                password: dist.appPasswords.hashApplicationPassword(appPassword),
                created: Math.floor(now / 1000),
                last_used: null,
                last_ip: null,
              },
            ],
          ]);
        }
        for (const [key, value] of entries) meta.push([u.id, key, maybeSerialize(value)]);
      }
      usermetaRows = meta.length;
      await writer.insert('usermeta', ['user_id', 'meta_key', 'meta_value'], meta);
      await writer.insert(
        'options',
        ['option_name', 'option_value', 'autoload'],
        [[dist.appPasswords.APPLICATION_PASSWORDS_IN_USE_OPTION, '1', 'no']],
      );
    });

    // 3. Terms: 50 categories (10 top-level, 40 children) and 200 tags; term_taxonomy_id = term_id (IDs from 2).
    interface SeedTerm {
      id: number;
      name: string;
      slug: string;
      taxonomy: 'category' | 'post_tag';
      parent: number;
      description: string;
    }
    const terms: SeedTerm[] = [];
    let termId = 2; // 1 is "Uncategorized" (installSite)
    for (const name of CATEGORY_ROOTS) {
      terms.push({
        id: termId++,
        name,
        slug: slugify(name),
        taxonomy: 'category',
        parent: 0,
        description: text.sentence(),
      });
    }
    CATEGORY_CHILDREN.forEach((name, i) => {
      const parent = terms[Math.floor((i * CATEGORY_ROOTS.length) / CATEGORY_CHILDREN.length)].id;
      terms.push({
        id: termId++,
        name,
        slug: slugify(name),
        taxonomy: 'category',
        parent,
        description: random() < 0.5 ? text.sentence() : '',
      });
    });
    const categories = terms.slice();
    const tagNames = new Set<string>();
    while (tagNames.size < 200) {
      const name =
        random() < 0.6 ? text.pick(CONTENT_WORDS) : `${text.pick(CONTENT_WORDS)} ${text.pick(CONTENT_WORDS)}`;
      tagNames.add(name);
    }
    const tags: SeedTerm[] = [...tagNames].map((name) => ({
      id: termId++,
      name,
      slug: slugify(name),
      taxonomy: 'post_tag',
      parent: 0,
      description: '',
    }));
    terms.push(...tags);

    // 4. Attachments (images used as featured images), then posts.
    const attachmentCount = Math.min(200, Math.max(10, Math.round(postCount / 100)));
    interface SeedPost {
      id: number;
      author: number;
      time: number;
      status: string;
      title: string;
      slug: string;
      type: string;
      mime: string;
      guid: string;
      content: string;
      excerpt: string;
      thumbnail: number;
      commentStatus: string;
      pingStatus: string;
      modified: number;
      parent: number;
    }
    const posts: SeedPost[] = [];
    const attachmentFiles = new Map<number, string>();
    for (let i = 0; i < attachmentCount; i++) {
      const id = i + 1;
      const time = firstPostTime + (i / attachmentCount) * 6 * YEAR * 0.98;
      const d = new Date(time);
      const file = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${text.pick(CONTENT_WORDS)}-${id}.jpg`;
      attachmentFiles.set(id, file);
      const name = path.basename(file, '.jpg');
      posts.push({
        id,
        author: 1 + (i % 8),
        time,
        status: 'inherit',
        title: name,
        slug: name,
        type: 'attachment',
        mime: 'image/jpeg',
        guid: `${siteUrl}/wp-content/uploads/${file}`,
        content: '',
        excerpt: random() < 0.3 ? text.sentence() : '',
        thumbnail: 0,
        commentStatus: 'open',
        pingStatus: 'closed',
        modified: time,
        parent: 0,
      });
    }
    const postingUsers = users.filter((u) => u.role !== 'subscriber');
    const publishingUsers = postingUsers.filter((u) => u.role !== 'contributor');
    const slugs = new Set<string>(posts.map((p) => p.slug));
    const byStatus: Record<string, number> = {};
    for (let i = 0; i < postCount; i++) {
      const id = attachmentCount + i + 1;
      const roll = random();
      const status = roll < 0.9 ? 'publish' : roll < 0.96 ? 'draft' : roll < 0.99 ? 'private' : 'pending';
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      const pool = status === 'publish' || status === 'private' ? publishingUsers : postingUsers;
      const author = text.pick(pool).id;
      const time = firstPostTime + ((i + random()) / postCount) * 6 * YEAR - 3600_000;
      const title = text.title();
      const base = slugify(title) || `post-${id}`;
      let slug = base;
      for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`;
      slugs.add(slug);
      const thumbnail = random() < 0.4 ? text.int(1, attachmentCount) : 0;
      posts.push({
        id,
        author,
        time,
        status,
        title,
        slug,
        type: 'post',
        mime: '',
        guid: `${siteUrl}/?p=${id}`,
        content: text.content(thumbnail ? `${siteUrl}/wp-content/uploads/${attachmentFiles.get(thumbnail)}` : null),
        excerpt: random() < 0.5 ? text.sentence() : '',
        thumbnail,
        commentStatus: random() < 0.9 ? 'open' : 'closed',
        pingStatus: 'open',
        modified: time + (random() < 0.3 ? random() * 60 * 86_400_000 : 0),
        parent: 0,
      });
    }

    // Term relationships: 1–3 categories and 0–5 tags per post (popular terms more often).
    const relationships: Row[] = [];
    const publishedCount = new Map<number, number>();
    const postTerms = new Map<number, number[]>();
    for (const post of posts) {
      if (post.type !== 'post') continue;
      const chosen = new Set<number>();
      for (let n = text.int(1, 3); n > 0; n--) chosen.add(categories[text.skewed(categories.length)].id);
      for (let n = text.int(0, 5); n > 0; n--) chosen.add(tags[text.skewed(tags.length)].id);
      postTerms.set(post.id, [...chosen]);
      for (const id of chosen) {
        relationships.push([post.id, id, 0]);
        if (post.status === 'publish') publishedCount.set(id, (publishedCount.get(id) ?? 0) + 1);
      }
    }

    // Comments, as a real site has them: 0–5 on most published posts, 200–400 on about 1 in 50 (open to
    // comments); threaded up to 3 levels (WordPress's "N levels deep": a top-level comment, a reply, a reply to
    // the reply); ≈ 87 % approved, 8 % held ('0'), 4 % spam, 1 % trash; anonymous commenters (a pool of regulars
    // and one-off visitors: name, e-mail, sometimes a URL) and registered users (their display name, e-mail and
    // URL, user_id set; the post's author answering). Dates after the post's, never in the future; the site is
    // UTC (gmt_offset 0, as installSite leaves it), so comment_date = comment_date_gmt, like post_date.
    // IDs in date order across the site, as WordPress hands them out. comment_count = approved comments.
    interface SeedComment {
      time: number;
      postId: number;
      author: string;
      email: string;
      url: string;
      ip: string;
      agent: string;
      content: string;
      approved: string;
      parent: number;
      userId: number;
      depth: number;
      index: number;
    }
    const AGENTS = [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
      'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
    ]; // prettier-ignore
    const ipAddress = () =>
      random() < 0.15
        ? `2001:db8:${text.int(0, 0xffff).toString(16)}::${text.int(1, 0xffff).toString(16)}`
        : `${text.pick(['192.0.2', '198.51.100', '203.0.113'])}.${text.int(1, 254)}`;
    interface Commenter {
      author: string;
      email: string;
      url: string;
      ip: string;
      agent: string;
      userId: number;
    }
    const visitor = (): Commenter => {
      const author = `${text.pick(FIRST_NAMES)} ${text.pick(LAST_NAMES)}`;
      const handle = slugify(author).replace(/-/g, '.');
      return {
        author,
        email: `${handle}${text.int(1, 99)}@${text.pick(['example.org', 'example.net', 'example.com'])}`,
        url: random() < 0.3 ? `https://${slugify(author)}.example.net` : '',
        ip: ipAddress(),
        agent: text.pick(AGENTS),
        userId: 0,
      };
    };
    const regulars = Array.from({ length: 150 }, visitor);
    const member = (u: SeedUser): Commenter => ({
      author: u.id === 1 ? 'Bench Admin' : `${u.first} ${u.last}`,
      email: `${u.login}@example.com`,
      url: u.role === 'subscriber' ? '' : `https://${slugify(u.last)}.example.com`,
      ip: `203.0.113.${200 + u.id}`,
      agent: AGENTS[u.id % AGENTS.length],
      userId: u.id,
    });
    const members = new Map(users.map((u) => [u.id, member(u)]));
    const commentText = () => {
      const paragraphs = random() < 0.15 ? 2 : 1;
      return Array.from({ length: paragraphs }, () =>
        Array.from({ length: text.int(1, 3) }, () => text.sentence()).join(' '),
      ).join('\n\n');
    };
    const seedComments: SeedComment[] = [];
    const approvedCount = new Map<number, number>();
    const bigPosts: number[] = [];
    const publishedPosts = posts.filter((p) => p.type === 'post' && p.status === 'publish');
    // About 1 in 50 open posts is busy; at least one (the first open one past the middle, on a small site).
    const bigPost = (p: SeedPost, i: number) =>
      p.commentStatus === 'open' && (random() < 0.02 || (!bigPosts.length && i > publishedPosts.length / 2));
    publishedPosts.forEach((post, i) => {
      const big = bigPost(post, i);
      const n = big ? text.int(200, 400) : text.int(0, 5);
      if (big) bigPosts.push(post.id);
      // Comment times: after the post, within 3 days (30 for a busy post), earlier ones more likely; never after now.
      const span = Math.max(60_000, Math.min(now - post.time - 60_000, (big ? 30 : 3) * 86_400_000));
      const times = Array.from({ length: n }, () => post.time + 60_000 + Math.pow(random(), 1.6) * span).sort(
        (a, b) => a - b,
      );
      const thread: SeedComment[] = []; // this post's approved comments, candidates for replies
      let approved = 0;
      for (const time of times) {
        const roll = random();
        const status = roll < 0.87 ? '1' : roll < 0.95 ? '0' : roll < 0.99 ? 'spam' : 'trash';
        let who: Commenter;
        let parent: SeedComment | null = null;
        if (status === 'spam') {
          const site = `${text.pick(CONTENT_WORDS)}-${text.pick(['deals', 'casino', 'pills', 'loans', 'seo'])}`;
          who = {
            ...visitor(),
            author: `${titleCase(site.replace('-', ' '))}`,
            email: `info@${site}.example.com`,
            url: `https://${site}.example.com`,
          };
        } else {
          const candidates = thread.filter((c) => c.depth < 3 && c.time <= time - 1000);
          // A reply, most often to one of the latest comments.
          if (candidates.length && random() < 0.35)
            parent = candidates[candidates.length - 1 - text.skewed(candidates.length)];
          // Registered commenters' comments are approved: the post's author answers a third of the replies, and
          // 15 % of the rest come from other users.
          if (status === '1' && parent && random() < 0.33) who = members.get(post.author) as Commenter;
          else if (status === '1' && random() < 0.15) who = members.get(text.pick(users).id) as Commenter;
          else who = random() < 0.5 ? text.pick(regulars) : visitor();
        }
        const content =
          status === 'spam'
            ? `${text.sentence()} <a href="${who.url}">${text.words(2, 4).join(' ')}</a>`
            : commentText();
        const comment: SeedComment = {
          time,
          postId: post.id,
          ...who,
          content,
          approved: status,
          parent: parent ? parent.index + 1 : 0, // index + 1 for now; an ID once sorted
          depth: parent ? parent.depth + 1 : 1,
          index: seedComments.length,
        };
        seedComments.push(comment);
        if (status === '1') {
          thread.push(comment);
          approved++;
        }
      }
      approvedCount.set(post.id, approved);
    });
    // IDs in date order (a parent is always at least a second older than its replies, so it gets a lower ID).
    const order = seedComments.map((_, i) => i).sort((a, b) => seedComments[a].time - seedComments[b].time || a - b);
    const commentIdOf = new Array<number>(seedComments.length);
    order.forEach((index, k) => (commentIdOf[index] = k + 1));
    const comments: Row[] = order.map((index) => {
      const c = seedComments[index];
      const when = date(c.time);
      return [
        commentIdOf[index],
        c.postId,
        c.author,
        c.email,
        c.url,
        c.ip,
        when,
        when,
        c.content,
        0,
        c.approved,
        c.agent,
        'comment',
        c.parent ? commentIdOf[c.parent - 1] : 0,
        c.userId,
      ];
    });
    const commentsByStatus: Record<string, number> = {};
    for (const c of seedComments) commentsByStatus[c.approved] = (commentsByStatus[c.approved] ?? 0) + 1;
    const commentCount = approvedCount;

    // Post meta: attachment files and metadata, featured images, _edit_last.
    const postmeta: Row[] = [];
    for (const post of posts) {
      if (post.type === 'attachment') {
        const file = attachmentFiles.get(post.id) as string;
        const width = 1920;
        const height = 1280;
        const base = path.basename(file, '.jpg');
        const sizes = Object.fromEntries(
          (
            [
              ['thumbnail', 150, 150],
              ['medium', 300, 200],
              ['medium_large', 768, 512],
              ['large', 1024, 683],
            ] as const
          ).map(([size, w, h]) => [
            size,
            {
              file: `${base}-${w}x${h}.jpg`,
              width: w,
              height: h,
              'mime-type': 'image/jpeg',
              filesize: Math.round((w * h) / 8),
            },
          ]),
        );
        const metadata = {
          width,
          height,
          file,
          filesize: 412_345,
          sizes,
          image_meta: {
            aperture: '0',
            credit: '',
            camera: '',
            caption: '',
            created_timestamp: '0',
            copyright: '',
            focal_length: '0',
            iso: '0',
            shutter_speed: '0',
            title: '',
            orientation: '0',
            keywords: [],
          },
        };
        postmeta.push([post.id, '_wp_attached_file', file]);
        postmeta.push([post.id, '_wp_attachment_metadata', phpSerialize(metadata)]);
        postmeta.push([post.id, '_wp_attachment_image_alt', post.title.replace(/-\d+$/, '')]);
      } else {
        postmeta.push([post.id, '_edit_last', String(post.author)]);
        if (post.thumbnail) postmeta.push([post.id, '_thumbnail_id', String(post.thumbnail)]);
      }
    }

    // Revisions, as the block editor leaves them: 0–3 per post (the latest one a copy of the post as saved).
    let revisionId = posts.length + 1;
    let revisionCount = 0;
    for (const post of posts.slice()) {
      if (post.type !== 'post' || post.status === 'pending') continue;
      const n = text.int(0, 3);
      for (let k = 1; k <= n; k++) {
        const id = revisionId++;
        const time = post.time + ((k - 1) / n) * Math.max(0, post.modified - post.time);
        posts.push({
          ...post,
          id,
          time,
          modified: time,
          status: 'inherit',
          type: 'revision',
          slug: `${post.id}-revision-v1`,
          guid: `${siteUrl}/?p=${id}`,
          thumbnail: 0,
          commentStatus: 'closed',
          pingStatus: 'closed',
          parent: post.id,
          content: k === n ? post.content : post.content.slice(0, Math.round(post.content.length * (k / (n + 1)))),
        });
        revisionCount++;
      }
    }

    await inTransaction('terms', async () => {
      await writer.insert(
        'terms',
        ['term_id', 'name', 'slug', 'term_group'],
        terms.map((t) => [t.id, t.name, t.slug, 0]),
      );
      await writer.insert(
        'term_taxonomy',
        ['term_taxonomy_id', 'term_id', 'taxonomy', 'description', 'parent', 'count'],
        terms.map((t) => [t.id, t.id, t.taxonomy, t.description, t.parent, publishedCount.get(t.id) ?? 0]),
      );
    });
    const postColumns = [
      'ID', 'post_author', 'post_date', 'post_date_gmt', 'post_content', 'post_title', 'post_excerpt', 'post_status',
      'comment_status', 'ping_status', 'post_password', 'post_name', 'to_ping', 'pinged', 'post_modified',
      'post_modified_gmt', 'post_content_filtered', 'post_parent', 'guid', 'menu_order', 'post_type', 'post_mime_type',
      'comment_count',
    ]; // prettier-ignore
    await inTransaction('posts', async () => {
      const rows = posts.map((p): Row => {
        const local = date(p.time);
        // Drafts and pending posts whose date was never set keep a zero post_date_gmt, as WordPress does.
        const gmt = p.status === 'draft' || p.status === 'pending' ? ZERO_DATE : local;
        const modified = date(p.modified);
        return [
          p.id,
          p.author,
          local,
          gmt,
          p.content,
          p.title,
          p.excerpt,
          p.status,
          p.commentStatus,
          p.pingStatus,
          '',
          p.slug,
          '',
          '',
          modified,
          modified,
          '',
          p.parent,
          p.guid,
          0,
          p.type,
          p.mime,
          commentCount.get(p.id) ?? 0,
        ];
      });
      await writer.insert('posts', postColumns, rows);
    });
    await inTransaction('term_relationships', () =>
      writer.insert('term_relationships', ['object_id', 'term_taxonomy_id', 'term_order'], relationships),
    );
    await inTransaction('comments', () =>
      writer.insert(
        'comments',
        [
          'comment_ID',
          'comment_post_ID',
          'comment_author',
          'comment_author_email',
          'comment_author_url',
          'comment_author_IP',
          'comment_date',
          'comment_date_gmt',
          'comment_content',
          'comment_karma',
          'comment_approved',
          'comment_agent',
          'comment_type',
          'comment_parent',
          'user_id',
        ],
        comments,
      ),
    );
    log(
      `comments: ${comments.length} (${Object.entries(commentsByStatus)
        .map(([status, n]) => `${n} '${status}'`)
        .join(', ')}), ` + `${bigPosts.length} posts with 200–400`,
    );
    await inTransaction('postmeta', () => writer.insert('postmeta', ['post_id', 'meta_key', 'meta_value'], postmeta));

    // Three sticky posts, as a real blog often has.
    const published = posts.filter((p) => p.type === 'post' && p.status === 'publish');
    const sticky = published.slice(-40, -37).map((p) => p.id);
    await runner.query(`UPDATE \`${prefix}options\` SET option_value = ? WHERE option_name = 'sticky_posts'`, [
      phpSerialize(sticky),
    ]);
    await runner.release();
    // Fresh statistics for the query planners, as on a database that has lived a while.
    if (isMysql) {
      const tables = [
        'posts',
        'postmeta',
        'term_relationships',
        'term_taxonomy',
        'terms',
        'comments',
        'users',
        'usermeta',
      ];
      await ds.query(`ANALYZE TABLE ${tables.map((t) => `\`${prefix}${t}\``).join(', ')}`);
    } else {
      await ds.query('ANALYZE');
      await ds.query('PRAGMA wal_checkpoint(TRUNCATE)');
    }

    const sampleCategoryId = categories.reduce((best, c) =>
      (publishedCount.get(c.id) ?? 0) > (publishedCount.get(best.id) ?? 0) ? c : best,
    ).id;
    const samplePost = published[Math.floor(published.length / 2)];
    const sampleCommentsPost = published
      .slice(Math.floor(published.length / 2))
      .find((p) => (approvedCount.get(p.id) ?? 0) >= 3 && !bigPosts.includes(p.id));
    const searchWordPosts = posts.filter(
      (p) => p.type === 'post' && (p.title.toLowerCase().includes(SEARCH_WORD) || p.content.includes(SEARCH_WORD)),
    ).length;
    const commented = published.filter((p) => {
      const n = approvedCount.get(p.id) ?? 0;
      return n >= 1 && n <= 5;
    });
    const held = seedComments
      .filter((c) => c.approved === '0' && (approvedCount.get(c.postId) ?? 0) < 10)
      .map((c) => ({ id: commentIdOf[c.index], postId: c.postId }))
      .sort((a, b) => a.id - b.id);

    return {
      ms: Date.now() - started,
      schemaMs,
      counts: {
        users: users.length,
        usermeta: usermetaRows,
        categories: categories.length,
        tags: tags.length,
        attachments: attachmentCount,
        posts: postCount,
        postsByStatus: byStatus,
        termRelationships: relationships.length,
        comments: comments.length,
        commentsByStatus,
        postsWithManyComments: bigPosts.length,
        postmeta: postmeta.length,
        revisions: revisionCount,
      },
      admin: { id: admin.id, login: admin.login, applicationPassword: appPassword, uuid: appUuid },
      samplePostId: samplePost?.id ?? attachmentCount + 1,
      sampleCommentsPostId: sampleCommentsPost?.id ?? samplePost?.id ?? attachmentCount + 1,
      busyCommentsPostId: bigPosts[Math.floor(bigPosts.length / 2)] ?? samplePost?.id ?? attachmentCount + 1,
      sampleCategoryId,
      searchWord: SEARCH_WORD,
      searchWordPosts,
      samples: {
        publishedPostIds: spread(
          published.map((p) => p.id),
          60,
        ),
        commentedPostIds: spread(
          commented.map((p) => p.id),
          55,
        ),
        publishedCount: published.length,
        heldComments: spread(held, 1000),
      },
    };
  } finally {
    activeDataSource = null;
    if (ds.isInitialized) await ds.destroy();
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string, fallback: string | undefined) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const db = (flag('db', process.env.BENCH_DB ?? 'sqlite') as BenchDb) ?? 'sqlite';
  if (db !== 'sqlite' && db !== 'mysql') throw new Error('--db must be sqlite or mysql');
  const posts = Number(flag('posts', process.env.BENCH_POSTS ?? '10000'));
  const prepared = await prepareDatabase(db, {
    mysqlUrl: flag('mysql-url', process.env.MYSQL_URL),
    sqliteFile: flag('file', undefined),
  });
  const result = await seedDatabase({
    databaseUrl: prepared.databaseUrl,
    tablePrefix: flag('prefix', process.env.CMS_TABLE_PREFIX ?? 'cms_'),
    posts,
    log: (message) => process.stderr.write(`  ${message}\n`),
  });
  process.stderr.write(
    `seeded ${prepared.where} in ${(result.ms / 1000).toFixed(1)} s: ${result.counts.posts} posts, ${result.counts.comments} comments\n`,
  );
  process.stdout.write(JSON.stringify({ databaseUrl: prepared.databaseUrl, ...result }, null, 2) + '\n');
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`seed failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
