import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The definition of one of WordPress's meta tables (`{p}postmeta`, `{p}termmeta`, ...), which differ only in their
 * names: the table, the column of the object a row belongs to (and its key), and the row's id (`umeta_id` for users).
 */
function metaTable(table: string, objectColumn: string, idColumn = 'meta_id'): string {
  return `CREATE TABLE {p}${table} (
\t${idColumn} bigint(20) unsigned NOT NULL auto_increment,
\t${objectColumn} bigint(20) unsigned NOT NULL default '0',
\tmeta_key varchar(255) default NULL,
\tmeta_value longtext,
\tPRIMARY KEY  (${idColumn}),
\tKEY ${objectColumn} (${objectColumn}),
\tKEY meta_key (meta_key(191))
);`;
}

/**
 * WordPress 6.1's single-site blog tables (`wp_get_db_schema()` in wp-admin/includes/schema.php, db_version
 * 53496), copied verbatim (the meta tables through {@link metaTable}) except `wp_links`, which the API does not use.
 * `{p}` is the table prefix.
 *
 * MySQL/MariaDB gets this text as is (plus `IF NOT EXISTS` and WordPress's utf8mb4 charset/collation); the
 * SQLite DDL is derived from it by {@link toSqlite}.
 */
const WORDPRESS_TABLES = `${metaTable('termmeta', 'term_id')}
CREATE TABLE {p}terms (
 term_id bigint(20) unsigned NOT NULL auto_increment,
 name varchar(200) NOT NULL default '',
 slug varchar(200) NOT NULL default '',
 term_group bigint(10) NOT NULL default 0,
 PRIMARY KEY  (term_id),
 KEY slug (slug(191)),
 KEY name (name(191))
);
CREATE TABLE {p}term_taxonomy (
 term_taxonomy_id bigint(20) unsigned NOT NULL auto_increment,
 term_id bigint(20) unsigned NOT NULL default 0,
 taxonomy varchar(32) NOT NULL default '',
 description longtext NOT NULL,
 parent bigint(20) unsigned NOT NULL default 0,
 count bigint(20) NOT NULL default 0,
 PRIMARY KEY  (term_taxonomy_id),
 UNIQUE KEY term_id_taxonomy (term_id,taxonomy),
 KEY taxonomy (taxonomy)
);
CREATE TABLE {p}term_relationships (
 object_id bigint(20) unsigned NOT NULL default 0,
 term_taxonomy_id bigint(20) unsigned NOT NULL default 0,
 term_order int(11) NOT NULL default 0,
 PRIMARY KEY  (object_id,term_taxonomy_id),
 KEY term_taxonomy_id (term_taxonomy_id)
);
${metaTable('commentmeta', 'comment_id')}
CREATE TABLE {p}comments (
	comment_ID bigint(20) unsigned NOT NULL auto_increment,
	comment_post_ID bigint(20) unsigned NOT NULL default '0',
	comment_author tinytext NOT NULL,
	comment_author_email varchar(100) NOT NULL default '',
	comment_author_url varchar(200) NOT NULL default '',
	comment_author_IP varchar(100) NOT NULL default '',
	comment_date datetime NOT NULL default '0000-00-00 00:00:00',
	comment_date_gmt datetime NOT NULL default '0000-00-00 00:00:00',
	comment_content text NOT NULL,
	comment_karma int(11) NOT NULL default '0',
	comment_approved varchar(20) NOT NULL default '1',
	comment_agent varchar(255) NOT NULL default '',
	comment_type varchar(20) NOT NULL default 'comment',
	comment_parent bigint(20) unsigned NOT NULL default '0',
	user_id bigint(20) unsigned NOT NULL default '0',
	PRIMARY KEY  (comment_ID),
	KEY comment_post_ID (comment_post_ID),
	KEY comment_approved_date_gmt (comment_approved,comment_date_gmt),
	KEY comment_date_gmt (comment_date_gmt),
	KEY comment_parent (comment_parent),
	KEY comment_author_email (comment_author_email(10))
);
CREATE TABLE {p}options (
	option_id bigint(20) unsigned NOT NULL auto_increment,
	option_name varchar(191) NOT NULL default '',
	option_value longtext NOT NULL,
	autoload varchar(20) NOT NULL default 'yes',
	PRIMARY KEY  (option_id),
	UNIQUE KEY option_name (option_name),
	KEY autoload (autoload)
);
${metaTable('postmeta', 'post_id')}
CREATE TABLE {p}posts (
	ID bigint(20) unsigned NOT NULL auto_increment,
	post_author bigint(20) unsigned NOT NULL default '0',
	post_date datetime NOT NULL default '0000-00-00 00:00:00',
	post_date_gmt datetime NOT NULL default '0000-00-00 00:00:00',
	post_content longtext NOT NULL,
	post_title text NOT NULL,
	post_excerpt text NOT NULL,
	post_status varchar(20) NOT NULL default 'publish',
	comment_status varchar(20) NOT NULL default 'open',
	ping_status varchar(20) NOT NULL default 'open',
	post_password varchar(255) NOT NULL default '',
	post_name varchar(200) NOT NULL default '',
	to_ping text NOT NULL,
	pinged text NOT NULL,
	post_modified datetime NOT NULL default '0000-00-00 00:00:00',
	post_modified_gmt datetime NOT NULL default '0000-00-00 00:00:00',
	post_content_filtered longtext NOT NULL,
	post_parent bigint(20) unsigned NOT NULL default '0',
	guid varchar(255) NOT NULL default '',
	menu_order int(11) NOT NULL default '0',
	post_type varchar(20) NOT NULL default 'post',
	post_mime_type varchar(100) NOT NULL default '',
	comment_count bigint(20) NOT NULL default '0',
	PRIMARY KEY  (ID),
	KEY post_name (post_name(191)),
	KEY type_status_date (post_type,post_status,post_date,ID),
	KEY post_parent (post_parent),
	KEY post_author (post_author)
);
CREATE TABLE {p}users (
	ID bigint(20) unsigned NOT NULL auto_increment,
	user_login varchar(60) NOT NULL default '',
	user_pass varchar(255) NOT NULL default '',
	user_nicename varchar(50) NOT NULL default '',
	user_email varchar(100) NOT NULL default '',
	user_url varchar(100) NOT NULL default '',
	user_registered datetime NOT NULL default '0000-00-00 00:00:00',
	user_activation_key varchar(255) NOT NULL default '',
	user_status int(11) NOT NULL default '0',
	display_name varchar(250) NOT NULL default '',
	PRIMARY KEY  (ID),
	KEY user_login_key (user_login),
	KEY user_nicename (user_nicename),
	KEY user_email (user_email)
);
${metaTable('usermeta', 'user_id', 'umeta_id')}`;

/** WordPress's `$charset_collate` on a utf8mb4 server with the unicode 5.20 collation, plus the engine. */
const MYSQL_TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci';

/**
 * Columns that get `COLLATE NOCASE` on SQLite, because WordPress's `_ci` MySQL collation makes slugs, logins,
 * names, e-mails and option names compare case-insensitively (SQLite's NOCASE folds ASCII only).
 */
const SQLITE_NOCASE_COLUMNS: Record<string, string[]> = {
  terms: ['name', 'slug'],
  posts: ['post_name'],
  users: ['user_login', 'user_nicename', 'user_email'],
  options: ['option_name'],
};

interface ParsedTable {
  /** Table name without prefix. */
  name: string;
  /** Body lines of the CREATE TABLE statement, trimmed, without trailing commas. */
  lines: string[];
}

/** Splits {@link WORDPRESS_TABLES} into tables and their definition lines. */
function parseTables(): ParsedTable[] {
  return WORDPRESS_TABLES.split(/;\n?(?=CREATE TABLE|$)/)
    .map((statement) => statement.trim())
    .filter(Boolean)
    .map((statement) => {
      const header = /^CREATE TABLE \{p\}(\w+) \(/.exec(statement);
      if (!header) throw new Error(`initial-schema: cannot parse ${statement.slice(0, 40)}`);
      const body = statement.slice(header[0].length, statement.lastIndexOf(')'));
      const lines = body
        .split('\n')
        .map((line) => line.trim().replace(/,$/, ''))
        .filter(Boolean);
      return { name: header[1], lines };
    });
}

/** Column list of a key definition, without MySQL prefix lengths: `(meta_key(191))` → `["meta_key"]`. */
function keyColumns(list: string): string[] {
  return list.split(',').map((column) => column.trim().replace(/\(\d+\)$/, ''));
}

/** The MySQL/MariaDB statements: WordPress's DDL with `IF NOT EXISTS`, the prefix and the table options. */
function toMysql(table: ParsedTable, prefix: string): string[] {
  const body = table.lines.map((line) => `\t${line}`).join(',\n');
  return [`CREATE TABLE IF NOT EXISTS \`${prefix}${table.name}\` (\n${body}\n) ${MYSQL_TABLE_OPTIONS}`];
}

/** Maps one WordPress column definition to SQLite. */
function sqliteColumn(tableName: string, line: string): string {
  const match = /^(\w+) (\w+)(?:\([\d,]+\))?( unsigned)?(.*)$/.exec(line);
  if (!match) throw new Error(`initial-schema: cannot parse column "${line}"`);
  const [, name, mysqlType, , rest] = match;
  const isInteger = /int$/i.test(mysqlType);
  const notNull = /NOT NULL/i.test(rest);
  if (/auto_increment/i.test(rest)) return `"${name}" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL`;
  let definition = `"${name}" ${isInteger ? 'INTEGER' : 'TEXT'}`;
  if (notNull) definition += ' NOT NULL';
  const defaultMatch = /default ('[^']*'|\d+|NULL)/i.exec(rest);
  if (defaultMatch) {
    const value = defaultMatch[1];
    // WordPress quotes numeric defaults ('0'); SQLite should store them as integers.
    definition += ` DEFAULT ${isInteger ? value.replace(/'/g, '') : value}`;
  } else if (notNull) {
    // MySQL (outside strict mode, as WordPress runs it) writes '' into NOT NULL text columns without default.
    definition += ` DEFAULT ${isInteger ? '0' : "''"}`;
  }
  if (SQLITE_NOCASE_COLUMNS[tableName]?.includes(name)) definition += ' COLLATE NOCASE';
  return definition;
}

/**
 * The SQLite statements: the table (INTEGER/TEXT, same defaults, same primary key) and its keys as indexes
 * named `{prefix}{table}__{key}` (index names are global in SQLite), as WordPress's SQLite integration does.
 */
function toSqlite(table: ParsedTable, prefix: string): string[] {
  const tableName = `${prefix}${table.name}`;
  const columns = table.lines.filter((line) => !KEY_LINE.test(line)).map((line) => sqliteColumn(table.name, line));
  const primary = primaryKeyColumns(table);
  // An auto_increment column is declared the INTEGER PRIMARY KEY itself.
  if (!hasRowidKey(table) && primary.length)
    columns.push(`PRIMARY KEY (${primary.map((column) => `"${column}"`).join(', ')})`);
  const indexes = sqliteIndexesOf(table, prefix).map((index) => index.statement);
  return [`CREATE TABLE IF NOT EXISTS "${tableName}" (\n\t${columns.join(',\n\t')}\n)`, ...indexes];
}

const KEY_LINE = /^(PRIMARY KEY|UNIQUE KEY|KEY)\s+(\w+)?\s*\((.+)\)$/;

/** A SQLite index of a WordPress table: its name, its columns in order, the statement that creates it. */
export interface SqliteIndex {
  name: string;
  columns: string[];
  statement: string;
}

/** Whether a table's primary key is an auto_increment column, which SQLite makes the rowid. */
function hasRowidKey(table: ParsedTable): boolean {
  return table.lines.some((line) => !KEY_LINE.test(line) && /auto_increment/i.test(line));
}

/** The SQLite indexes of a table: its keys but the primary one, named `{prefix}{table}__{key}` (index names are global in SQLite). */
function sqliteIndexesOf(table: ParsedTable, prefix: string): SqliteIndex[] {
  const tableName = `${prefix}${table.name}`;
  const primary = primaryKeyColumns(table);
  const indexes: SqliteIndex[] = [];
  for (const line of table.lines) {
    const key = KEY_LINE.exec(line);
    if (!key || key[1] === 'PRIMARY KEY') continue;
    const [, kind, keyName, list] = key;
    const columns = keyColumns(list);
    // InnoDB's secondary keys carry the primary key; SQLite's carry the rowid, which is the primary key only when
    // that is one INTEGER column. A composite primary key (term_relationships) is added to the plain keys, so that
    // they cover the same lookups (a term's posts from the term_taxonomy_id key alone).
    if (kind === 'KEY' && !hasRowidKey(table)) columns.push(...primary.filter((column) => !columns.includes(column)));
    const name = `${tableName}__${keyName}`;
    const unique = kind === 'UNIQUE KEY' ? 'UNIQUE ' : '';
    const statement = `CREATE ${unique}INDEX IF NOT EXISTS "${name}" ON "${tableName}" (${columns.map((column) => `"${column}"`).join(', ')})`;
    indexes.push({ name, columns, statement });
  }
  return indexes;
}

/** Every SQLite index of the WordPress tables with the given prefix (see {@link wordpressSchemaStatements}). */
export function wordpressSqliteIndexes(prefix: string): SqliteIndex[] {
  checkPrefix(prefix);
  return parseTables().flatMap((table) => sqliteIndexesOf(table, prefix));
}

/** The primary key's columns of a table. */
function primaryKeyColumns(table: ParsedTable): string[] {
  for (const line of table.lines) {
    const key = /^PRIMARY KEY\s*\((.+)\)$/.exec(line);
    if (key) return keyColumns(key[1]);
  }
  return [];
}

/** WordPress accepts only letters, digits and underscores in `$table_prefix`. */
function checkPrefix(prefix: string): string {
  if (!/^\w*$/.test(prefix)) throw new Error(`Invalid table prefix "${prefix}": use letters, digits and _ only`);
  return prefix;
}

/** Whether a table exists, on the current database/schema. */
async function tableExists(queryRunner: QueryRunner, name: string, sqlite: boolean): Promise<boolean> {
  const rows = (
    sqlite
      ? await queryRunner.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE`, [
          name,
        ])
      : await queryRunner.query(
          'SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
          [name],
        )
  ) as unknown[];
  return rows.length > 0;
}

/**
 * The SQL statements that create the 11 WordPress tables with the given prefix, for `mysql` (also MariaDB) or
 * `sqlite`. Exposed for tests and tooling; the migration only runs those of tables that do not exist yet.
 */
export function wordpressSchemaStatements(dialect: 'mysql' | 'sqlite', prefix: string): Map<string, string[]> {
  checkPrefix(prefix);
  const statements = new Map<string, string[]>();
  for (const table of parseTables()) {
    statements.set(table.name, dialect === 'mysql' ? toMysql(table, prefix) : toSqlite(table, prefix));
  }
  return statements;
}

/**
 * Creates WordPress's tables (`{entityPrefix}posts`, `...options`, ...) when they do not exist.
 *
 * Data safety: it never alters, truncates or drops anything. A table that already exists, e.g. in an existing
 * WordPress database, is left exactly as it is (indexes included), and `down()` refuses to run.
 */
export class InitialSchema1732147200000 implements MigrationInterface {
  name = 'InitialSchema1732147200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { type } = queryRunner.connection.driver.options;
    const prefix = checkPrefix(queryRunner.connection.options.entityPrefix ?? '');
    const sqlite = type === 'better-sqlite3' || type === 'sqlite';
    if (!sqlite && type !== 'mysql' && type !== 'mariadb') {
      throw new Error(`InitialSchema: unsupported database type "${type}" (use MySQL/MariaDB or SQLite)`);
    }
    for (const [table, statements] of wordpressSchemaStatements(sqlite ? 'sqlite' : 'mysql', prefix)) {
      if (await tableExists(queryRunner, `${prefix}${table}`, sqlite)) continue;
      for (const statement of statements) await queryRunner.query(statement);
    }
  }

  async down(): Promise<void> {
    throw new Error(
      'InitialSchema1732147200000.down(): refusing to drop WordPress tables; they may hold a live site. ' +
        'Drop them by hand if you really mean to.',
    );
  }
}
