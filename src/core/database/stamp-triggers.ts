import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource, ObjectType } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { CMS_DATA_SOURCE } from './cms-data-source';
import { CommentMetaEntity } from './entities/comment-meta.entity';
import { CommentEntity } from './entities/comment.entity';
import { OptionEntity } from './entities/option.entity';
import { PostMetaEntity } from './entities/post-meta.entity';
import { PostEntity } from './entities/post.entity';
import { TermMetaEntity } from './entities/term-meta.entity';
import { TermRelationshipEntity } from './entities/term-relationship.entity';
import { TermTaxonomyEntity } from './entities/term-taxonomy.entity';
import { TermEntity } from './entities/term.entity';
import { UserMetaEntity } from './entities/user-meta.entity';
import { UserEntity } from './entities/user.entity';
import { isMySql, quotedName } from './query-helpers';
import {
  API_SESSION_FLAG,
  CONTENT_SEQUENCE,
  CONTENT_STAMP,
  POST_VERSIONS_TABLE,
  StampGroup,
  VERSIONS_TABLE,
} from './version-stamps';

/** The name every stamp trigger starts with, after the table prefix. */
export const TRIGGER_NAME = 'cms_stamp_';

/**
 * Option names whose writes move no version: transients and the cron schedule, which WordPress writes on most of its
 * own requests and which no answer of this API shows (LIKE patterns, `!` escaping).
 */
export const QUIET_OPTIONS = ['!_transient!_%', '!_site!_transient!_%', 'cron'];

/** Post meta no answer shows and wp-admin writes every few seconds while a post is open (the edit lock). */
export const QUIET_POST_META = ['!_edit!_lock'];

/** User meta no answer shows and WordPress writes on logins and in wp-admin (sessions, screen settings). */
export const QUIET_USER_META = [
  'session!_tokens',
  '%user-settings',
  '%user-settings-time',
  '%dashboard!_quick!_press!_last!_post!_id',
  'community-events-location',
];

/**
 * The columns that place a post among the others (the same as an edit in place through the API keeps, see
 * `VersionStamps.narrow`): an update that changes none of them moves the posts' content version and that post's own
 * version, not the `posts` group's.
 */
const PLACE_COLUMNS = [
  'ID',
  'post_name',
  'post_status',
  'post_date',
  'post_date_gmt',
  'post_parent',
  'post_author',
  'menu_order',
  'post_password',
  'post_type',
  'post_mime_type',
];

type Event = 'insert' | 'update' | 'delete';

/** One trigger: its name and the statement that creates it. */
export interface StampTrigger {
  name: string;
  table: string;
  create: string;
}

/** What a table's rows move: groups, or (posts tables) posts' versions when they keep their place. */
interface TablePlan {
  entity: ObjectType<unknown>;
  groups: StampGroup[];
  /** Column of the post a row of a posts table belongs to, for edits in place (`ID` of a post, `post_id` of meta). */
  post?: 'ID' | 'post_id';
  /** The column and LIKE patterns of rows whose writes move nothing. */
  quiet?: { column: string; patterns: string[] };
}

const PLANS: TablePlan[] = [
  { entity: PostEntity, groups: ['posts'], post: 'ID' },
  {
    entity: PostMetaEntity,
    groups: ['posts'],
    post: 'post_id',
    quiet: { column: 'meta_key', patterns: QUIET_POST_META },
  },
  { entity: TermEntity, groups: ['terms'] },
  { entity: TermTaxonomyEntity, groups: ['terms'] },
  { entity: TermMetaEntity, groups: ['terms'] },
  { entity: TermRelationshipEntity, groups: ['posts', 'terms'] },
  { entity: CommentEntity, groups: ['comments'] },
  { entity: CommentMetaEntity, groups: ['comments'] },
  { entity: UserEntity, groups: ['users'] },
  { entity: UserMetaEntity, groups: ['users'], quiet: { column: 'meta_key', patterns: QUIET_USER_META } },
  { entity: OptionEntity, groups: ['options'], quiet: { column: 'option_name', patterns: QUIET_OPTIONS } },
];

/** SQL of one dialect. */
interface Dialect {
  mysql: boolean;
  quote(name: string): string;
  /** Null-safe equality. */
  same(a: string, b: string): string;
}

/**
 * The triggers that keep the version stamps moving whoever writes WordPress's tables: after each row written, in the
 * writer's own transaction, the versions of the row's groups move (`version + 1`); an update of a post that keeps its
 * place, and a write of its meta or of a revision, moves the posts' content version and that post's version instead,
 * as an edit in place through the API does. Writes of transients, the cron option, the edit lock and wp-admin's
 * per-user settings move nothing. On MySQL/MariaDB, writes of this server's own connections are skipped
 * ({@link API_SESSION_FLAG}); on SQLite they move the versions twice, which is only more invalidation.
 */
export function stampTriggers(dataSource: DataSource): StampTrigger[] {
  const mysql = isMySql(dataSource);
  const d: Dialect = {
    mysql,
    quote: (name) => quotedName(dataSource, name),
    same: (a, b) => (mysql ? `${a} <=> ${b}` : `${a} IS ${b}`),
  };
  const prefix = (dataSource.options as { entityPrefix?: string }).entityPrefix ?? '';
  const versions = d.quote(`${prefix}${VERSIONS_TABLE}`);
  const postVersions = d.quote(`${prefix}${POST_VERSIONS_TABLE}`);
  const bump = (groups: StampGroup[]) =>
    `UPDATE ${versions} SET version = version + 1 WHERE name IN (${groups.map((g) => `'${g}'`).join(', ')})`;
  const sequence = mysql ? `version DIV ${CONTENT_SEQUENCE}` : `version / ${CONTENT_SEQUENCE}`;
  const narrow = (post: string) => [
    `UPDATE ${versions} SET version = (${sequence} + 1) * ${CONTENT_SEQUENCE} WHERE name = '${CONTENT_STAMP}'`,
    mysql
      ? `INSERT INTO ${postVersions} (post_id, version) SELECT ${post}, version FROM ${versions} WHERE name = '${CONTENT_STAMP}' ON DUPLICATE KEY UPDATE version = VALUES(version)`
      : `INSERT OR REPLACE INTO ${postVersions} (post_id, version) SELECT ${post}, version FROM ${versions} WHERE name = '${CONTENT_STAMP}'`,
  ];
  const triggers: StampTrigger[] = [];
  for (const plan of PLANS) {
    const table = dataSource.getMetadata(plan.entity).tableName;
    for (const event of ['insert', 'update', 'delete'] as Event[]) {
      const rows = event === 'insert' ? ['NEW'] : event === 'delete' ? ['OLD'] : ['OLD', 'NEW'];
      const conditions: string[] = [];
      if (plan.quiet) {
        // A write moves something unless every row it touches is quiet (an update may rename a row out of quiet).
        const { column, patterns } = plan.quiet;
        const quiet = (row: string) =>
          `(${patterns.map((p) => `${row}.${column} LIKE '${p}' ESCAPE '!'`).join(' OR ')})`;
        conditions.push(`NOT (${rows.map(quiet).join(' AND ')})`);
      }
      // Groups moved, or statements of an edit in place (posts tables), with their condition.
      let body: string[];
      if (plan.post === 'ID') {
        const revisionParent = (row: string) => `${row}.post_type = 'revision' AND ${row}.post_parent > 0`;
        if (event === 'update') {
          const keeps = PLACE_COLUMNS.map((c) => d.same(`NEW.${c}`, `OLD.${c}`)).join(' AND ');
          body = branch(
            d,
            keeps,
            [...narrow('NEW.ID'), ...when(d, revisionParent('NEW'), narrow('NEW.post_parent'))],
            [bump(plan.groups)],
          );
        } else {
          // A revision added or removed (autosaves included) changes its parent alone, as an edit in place does.
          const row = rows[0];
          body = branch(
            d,
            revisionParent(row),
            [...narrow(`${row}.post_parent`), ...narrow(`${row}.ID`)],
            [bump(plan.groups)],
          );
        }
      } else if (plan.post === 'post_id') {
        body =
          event === 'update'
            ? branch(d, d.same('NEW.post_id', 'OLD.post_id'), narrow('NEW.post_id'), [bump(plan.groups)])
            : narrow(`${rows[0]}.post_id`);
      } else {
        body = [bump(plan.groups)];
      }
      if (mysql) conditions.unshift(`${API_SESSION_FLAG} IS NULL`);
      const name = `${prefix}${TRIGGER_NAME}${table.slice(prefix.length)}_${event}`.slice(0, 64);
      const head = `CREATE TRIGGER ${d.quote(name)} AFTER ${event.toUpperCase()} ON ${d.quote(table)} FOR EACH ROW`;
      const create = mysql
        ? `${head} BEGIN${conditions.length ? ` IF ${conditions.join(' AND ')} THEN` : ''} ${body.join('; ')};${conditions.length ? ' END IF;' : ''} END`
        : `${head}${conditions.length ? ` WHEN ${conditions.join(' AND ')}` : ''} BEGIN ${body.join('; ')}; END`;
      triggers.push({ name, table, create });
    }
  }
  return triggers;
}

/**
 * Statements run when `condition` holds, else `otherwise`. MySQL: an IF block; SQLite (no IF in trigger bodies): each
 * statement guarded by a `WHERE` on the condition.
 */
function branch(d: Dialect, condition: string, then: string[], otherwise: string[]): string[] {
  if (d.mysql) return [`IF ${condition} THEN ${then.join('; ')}; ELSE ${otherwise.join('; ')}; END IF`];
  return [...when(d, condition, then), ...when(d, `NOT (${condition})`, otherwise)];
}

/** Statements run only when `condition` holds. */
function when(d: Dialect, condition: string, statements: string[]): string[] {
  if (d.mysql) return [`IF ${condition} THEN ${statements.join('; ')}; END IF`];
  return statements.map((s) => guard(s, condition));
}

/** A SQLite UPDATE or INSERT ... SELECT of a trigger body made conditional. */
function guard(statement: string, condition: string): string {
  if (/^UPDATE /.test(statement)) return `${statement} AND (${condition})`;
  return statement.replace(/ WHERE name = /, ` WHERE (${condition}) AND name = `);
}

/** What `triggers status` reports. */
export interface StampTriggersStatus {
  /** Every trigger there, none, or some (an interrupted install or removal, or one dropped by hand). */
  state: 'installed' | 'absent' | 'partial';
  installed: string[];
  missing: string[];
}

/** The stamp triggers of this prefix now in the database. */
async function existing(dataSource: DataSource): Promise<string[]> {
  const prefix = (dataSource.options as { entityPrefix?: string }).entityPrefix ?? '';
  const like = `${prefix}${TRIGGER_NAME}`.replace(/[!_%]/g, (c) => `!${c}`) + '%';
  const rows: Array<{ name: string }> = isMySql(dataSource)
    ? await dataSource.query(
        `SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME LIKE ? ESCAPE '!'`,
        [like],
      )
    : await dataSource.query(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE ? ESCAPE '!'`, [
        like,
      ]);
  return rows.map((r) => r.name);
}

/** Whether the stamp triggers are installed, absent, or only some of them. */
export async function stampTriggersStatus(dataSource: DataSource): Promise<StampTriggersStatus> {
  const wanted = stampTriggers(dataSource).map((t) => t.name);
  const present = new Set(await existing(dataSource));
  const installed = wanted.filter((n) => present.has(n));
  const missing = wanted.filter((n) => !present.has(n));
  return { state: !missing.length ? 'installed' : installed.length ? 'partial' : 'absent', installed, missing };
}

/**
 * Installs the stamp triggers (again: each is dropped and created, so an install made by an older version is brought
 * up to date). Needs the version tables (the migrations) and, on MySQL with binary logging, the TRIGGER privilege and
 * `log_bin_trust_function_creators` or SUPER. Returns how many were created.
 */
export async function installStampTriggers(dataSource: DataSource): Promise<number> {
  const triggers = stampTriggers(dataSource);
  const prefix = (dataSource.options as { entityPrefix?: string }).entityPrefix ?? '';
  const mysql = isMySql(dataSource);
  const quote = (name: string) => quotedName(dataSource, name);
  // The tables the triggers write (made by the migrations), and the content row they move.
  try {
    await dataSource.query(`SELECT version FROM ${quote(`${prefix}${VERSIONS_TABLE}`)} WHERE name = ?`, ['posts']);
    await dataSource.query(`SELECT version FROM ${quote(`${prefix}${POST_VERSIONS_TABLE}`)} WHERE post_id = ?`, [0]);
  } catch {
    throw new Error(
      `The version tables (${prefix}${VERSIONS_TABLE}, ${prefix}${POST_VERSIONS_TABLE}) are missing: run the migrations first.`,
    );
  }
  await dataSource.query(
    mysql
      ? `INSERT IGNORE INTO ${quote(`${prefix}${VERSIONS_TABLE}`)} (name, version) VALUES (?, 0)`
      : `INSERT OR IGNORE INTO ${quote(`${prefix}${VERSIONS_TABLE}`)} (name, version) VALUES (?, 0)`,
    [CONTENT_STAMP],
  );
  try {
    for (const trigger of triggers) {
      await dataSource.query(`DROP TRIGGER IF EXISTS ${quote(trigger.name)}`);
      await dataSource.query(trigger.create);
    }
  } catch (error) {
    const reason = (error as { sqlMessage?: string }).sqlMessage ?? (error as Error).message;
    throw new Error(
      `Could not install the stamp triggers: ${reason}` +
        (mysql
          ? ' (they need the TRIGGER privilege and, with binary logging, log_bin_trust_function_creators=1 or SUPER)'
          : ''),
    );
  }
  return triggers.length;
}

/** Drops every stamp trigger of this prefix (also ones an older version made); returns how many there were. */
export async function removeStampTriggers(dataSource: DataSource): Promise<number> {
  const names = await existing(dataSource);
  for (const name of names) await dataSource.query(`DROP TRIGGER IF EXISTS ${quotedName(dataSource, name)}`);
  return names.length;
}

/**
 * The stamp triggers of the API's data source: their state logged at start (and, with `stampTriggers`, installed or
 * removed with the migrations, see `SiteBootstrapService`); the `triggers` CLI commands use it.
 */
@Injectable()
export class StampTriggersService implements OnApplicationBootstrap {
  private readonly logger = new Logger('VersionStamps');

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.memos) return;
    const status = await this.status().catch(() => null);
    if (status?.state === 'installed')
      this.logger.log('Stamp triggers installed: writes made outside this API move the version stamps too.');
    else if (status?.state === 'partial')
      this.logger.warn(
        `Stamp triggers incomplete (missing: ${status.missing.join(', ')}): run "npm run cms -- triggers install".`,
      );
  }

  status(): Promise<StampTriggersStatus> {
    return stampTriggersStatus(this.dataSource);
  }

  install(): Promise<number> {
    return installStampTriggers(this.dataSource);
  }

  remove(): Promise<number> {
    return removeStampTriggers(this.dataSource);
  }
}
