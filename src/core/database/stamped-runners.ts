import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';
import type { DataSource, ObjectType, QueryRunner } from 'typeorm';
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
  NO_STAMP,
  POST_VERSIONS_TABLE,
  STAMP_GROUPS,
  StampGroup,
  VERSIONS_TABLE,
} from './version-stamp-names';

/** The groups each WordPress table belongs to (term assignment changes posts as well as terms). */
const TABLE_GROUPS: ReadonlyArray<[ObjectType<unknown>, StampGroup[]]> = [
  [PostEntity, ['posts']],
  [PostMetaEntity, ['posts']],
  [TermEntity, ['terms']],
  [TermTaxonomyEntity, ['terms']],
  [TermMetaEntity, ['terms']],
  [TermRelationshipEntity, ['posts', 'terms']],
  [CommentEntity, ['comments']],
  [CommentMetaEntity, ['comments']],
  [UserEntity, ['users']],
  [UserMetaEntity, ['users']],
  [OptionEntity, ['options']],
];

/** The verb and table of a write statement, as TypeORM and this server write them. */
const WRITE =
  /^\s*(?:\/\*[^]*?\*\/\s*)*(?:INSERT(?:\s+(?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|IGNORE|OR\s+\w+))*\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+(?:LOW_PRIORITY|IGNORE|OR\s+\w+))*|DELETE(?:\s+(?:LOW_PRIORITY|QUICK|IGNORE))*\s+FROM)\s+(?:[`"]?\w+[`"]?\.)?[`"]?(\w+)[`"]?(\s*,)?/i;

/** Per query runner: the groups its open transaction wrote. */
const RUNNER_STATE = Symbol('cms-version-stamps');

interface RunnerState {
  dirty: Set<StampGroup>;
  /** The open transaction wrote rows of the posts tables (`posts`, `postmeta`). */
  postRows: boolean;
  /** The posts the open transaction declared it writes without moving any post's place ({@link VersionStamps.narrow}). */
  narrow: Set<number> | null;
}

type Instrumented = QueryRunner & {
  [RUNNER_STATE]?: RunnerState;
  transactionDepth?: number;
  databaseConnection?: object;
};

/**
 * The moves of the versions that writes made while they were held back ({@link StampedRunners.hold}): the groups
 * their commits would have moved, and the posts narrowed commits wrote in place (see `VersionStamps.narrow`).
 */
export class HeldMoves {
  readonly groups = new Set<StampGroup>();
  readonly narrowed = new Set<number>();
  /** Whether writes are held still; a write after the holding work ended moves the versions itself. */
  open = true;

  get empty(): boolean {
    return !this.groups.size && !this.narrowed.size;
  }
}

/** The moves held for the writes of the work under way, if any. */
const HELD = new AsyncLocalStorage<HeldMoves>();

/** The MySQL connections that set {@link API_SESSION_FLAG}. */
const FLAGGED = new WeakSet<object>();

/**
 * The write side of the version stamps (`VersionStamps`): the data source's query runners, instrumented once, note the
 * groups of the tables each write statement writes, and bump them in the same transaction (or right after an
 * autocommitted statement); a transaction narrowed to some posts moves the posts' content version and theirs instead.
 */
export class StampedRunners {
  private table = VERSIONS_TABLE;
  private postTable = POST_VERSIONS_TABLE;
  /** Table name → groups. */
  private readonly groupsOfTable = new Map<string, StampGroup[]>();
  /** The posts tables (`posts`, `postmeta`): what a narrowed write may write. */
  private readonly postTables = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    /** Whether the versions are kept: writes are noted only then. */
    private readonly enabled: () => boolean,
    /** Clears the caches of what a write of this process moved, before the writer answers. */
    private readonly changedHere: (groups: StampGroup[], narrowed?: readonly number[]) => Promise<void>,
  ) {}

  /** Learns the tables (with the table prefix): the versions', the posts' versions', and the groups of each. */
  learnTables(table: string, postTable: string): void {
    this.table = table;
    this.postTable = postTable;
    for (const [entity, groups] of TABLE_GROUPS)
      this.groupsOfTable.set(this.dataSource.getMetadata(entity).tableName.toLowerCase(), groups);
    for (const entity of [PostEntity, PostMetaEntity])
      this.postTables.add(this.dataSource.getMetadata(entity).tableName.toLowerCase());
  }

  /** What a statement writes: its groups, and whether its table is one of the posts tables alone. */
  writeOf(sql: string): { groups: StampGroup[]; postRows: boolean } | null {
    const first = sql.charCodeAt(0) | 0x20;
    // Reads (SELECT, SHOW, PRAGMA, ...) return at the first letter.
    if (
      first !== 0x69 &&
      first !== 0x75 &&
      first !== 0x64 &&
      first !== 0x72 &&
      first !== 0x20 &&
      first !== 0x2f &&
      first !== 0x2a
    )
      return null;
    const match = WRITE.exec(sql);
    if (!match)
      return /^\s*(?:\/\*[^]*?\*\/\s*)*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql)
        ? { groups: [...STAMP_GROUPS], postRows: false }
        : null;
    if (sql.includes(NO_STAMP)) return null;
    // A multi-table statement (`DELETE a, b FROM ...`) is counted against every group.
    if (match[2]) return { groups: [...STAMP_GROUPS], postRows: false };
    const table = match[1].toLowerCase();
    const groups = this.groupsOfTable.get(table);
    return groups ? { groups, postRows: this.postTables.has(table) } : null;
  }

  /** Notes the posts a transaction open on `runner` writes in place (see `VersionStamps.narrow`). */
  narrow(runner: QueryRunner | undefined, postIds: readonly number[]): void {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the compiler needs it (a symbol key)
    const state = (runner as Instrumented | undefined)?.[RUNNER_STATE];
    if (!state || !runner?.isTransactionActive) return;
    state.narrow ??= new Set();
    for (const id of postIds) state.narrow.add(id);
  }

  /**
   * Runs `work` with the moves of the versions its writes make held in `moves` instead of made: each write still
   * commits on its own and clears this process's caches at once (later writes of the work read what earlier ones
   * wrote), but the versions, what other nodes and the response cache see, move only when `moves` are carried by a
   * transaction ({@link carry}). Writes made once `work` has ended move the versions themselves.
   */
  async hold<T>(moves: HeldMoves, work: () => Promise<T>): Promise<T> {
    try {
      return await HELD.run(moves, work);
    } finally {
      moves.open = false;
    }
  }

  /** Makes held moves part of the transaction open on `runner`: its commit moves them, once (see {@link hold}). */
  carry(runner: QueryRunner | undefined, moves: HeldMoves): void {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the compiler needs it (a symbol key)
    const state = (runner as Instrumented | undefined)?.[RUNNER_STATE];
    if (!state || !runner?.isTransactionActive) return;
    for (const group of moves.groups) state.dirty.add(group);
    if (!moves.narrowed.size) return;
    state.postRows = true;
    state.narrow ??= new Set();
    for (const id of moves.narrowed) state.narrow.add(id);
  }

  /**
   * The statement that moves the versions of `groups` to a new random value (not `version + 1`: a transaction
   * rolled back after a reader on its connection saw its bump must not leave a version a later write reuses).
   */
  private bump(groups: StampGroup[]): [string, unknown[]] {
    const version = randomInt(1, 2 ** 47);
    return [
      `UPDATE ${quotedName(this.dataSource, this.table)} SET version = ? WHERE name IN (${groups.map(() => '?').join(', ')})`,
      [version, ...groups],
    ];
  }

  /**
   * Moves the content version to the next in sequence (its row's lock is taken by the update itself: narrowed
   * commits take turns on it, the last lock they take) and gives it to `postIds` (their rows are made on their
   * first narrowed write), in two statements: the new version is computed and read back by the database.
   */
  private async bumpContent(
    query: (sql: string, params?: unknown[]) => Promise<unknown>,
    postIds: number[],
  ): Promise<void> {
    const mysql = isMySql(this.dataSource);
    const stamps = quotedName(this.dataSource, this.table);
    const sequence = mysql ? `version DIV ${CONTENT_SEQUENCE}` : `version / ${CONTENT_SEQUENCE}`;
    await query(`UPDATE ${stamps} SET version = (${sequence} + 1) * ${CONTENT_SEQUENCE} + ? WHERE name = ?`, [
      randomInt(0, CONTENT_SEQUENCE),
      CONTENT_STAMP,
    ]);
    // The version written just now, read through the update's own lock (MySQL's INSERT ... SELECT reads the row as
    // this transaction left it).
    const ids = postIds.map(() => 'SELECT ? AS post_id').join(' UNION ALL ');
    const table = quotedName(this.dataSource, this.postTable);
    const select = `SELECT ids.post_id, s.version FROM (${ids}) ids, ${stamps} s WHERE s.name = ?`;
    await query(
      mysql
        ? `INSERT INTO ${table} (post_id, version) ${select} ON DUPLICATE KEY UPDATE version = VALUES(version)`
        : `INSERT INTO ${table} (post_id, version) ${select} ON CONFLICT(post_id) DO UPDATE SET version = excluded.version`,
      [...postIds, CONTENT_STAMP],
    );
  }

  /** Wraps the data source's query runners: writes note their groups, commits bump them. */
  instrument(): void {
    const driver = this.dataSource.driver as unknown as { createQueryRunner(mode: string): QueryRunner };
    const create = driver.createQueryRunner.bind(driver);
    driver.createQueryRunner = (mode: string) => this.wrap(create(mode));
  }

  private wrap(runner: Instrumented): QueryRunner {
    if (runner[RUNNER_STATE]) return runner;
    const state: RunnerState = { dirty: new Set(), postRows: false, narrow: null };
    runner[RUNNER_STATE] = state;
    const query = runner.query.bind(runner) as (
      sql: string,
      params?: unknown[],
      structured?: boolean,
    ) => Promise<unknown>;
    const bump = async (groups: Iterable<StampGroup>) => {
      const list = [...new Set(groups)];
      if (list.length) await query(...this.bump(list));
    };
    const reset = () => {
      state.dirty.clear();
      state.postRows = false;
      state.narrow = null;
    };
    const mysql = isMySql(this.dataSource);
    runner.query = (async (sql: string, params?: unknown[], structured?: boolean) => {
      const write = this.enabled() ? this.writeOf(sql) : null;
      if (write && mysql) {
        // The stamp triggers skip this connection's writes: they are stamped here.
        const connection = runner.databaseConnection ?? ((await runner.connect()) as object);
        if (!FLAGGED.has(connection)) {
          await query(`SET ${API_SESSION_FLAG} = 1`);
          FLAGGED.add(connection);
        }
      }
      const result = await query(sql, params, structured);
      if (write) {
        // Rows of the posts tables are told apart until the commit: a narrowed transaction moves posts' versions.
        if (runner.isTransactionActive) {
          if (write.postRows) state.postRows = true;
          else for (const g of write.groups) state.dirty.add(g);
        } else {
          const held = heldMoves();
          if (held) for (const g of write.groups) held.groups.add(g);
          else await bump(write.groups);
          await this.changedHere(write.groups);
        }
      }
      return result;
    }) as QueryRunner['query'];
    const commit = runner.commitTransaction.bind(runner);
    runner.commitTransaction = async () => {
      // The outermost commit carries the bump (a savepoint's release is not a commit).
      if ((runner.transactionDepth ?? 1) <= 1 && (state.dirty.size || state.postRows)) {
        const narrowed = state.postRows && state.narrow !== null && !state.dirty.has('posts') ? [...state.narrow] : [];
        if (state.postRows && !narrowed.length) state.dirty.add('posts');
        const groups = [...state.dirty];
        reset();
        const held = heldMoves();
        if (held) {
          for (const g of groups) held.groups.add(g);
          for (const id of narrowed) held.narrowed.add(id);
        } else {
          if (groups.length) await bump(groups);
          if (narrowed.length) await this.bumpContent(query, narrowed);
        }
        await commit();
        await this.changedHere(groups, narrowed);
        return;
      }
      if ((runner.transactionDepth ?? 1) <= 1) reset();
      return commit();
    };
    const rollback = runner.rollbackTransaction.bind(runner);
    runner.rollbackTransaction = async () => {
      if ((runner.transactionDepth ?? 1) <= 1) reset();
      return rollback();
    };
    return runner;
  }
}

/** The moves held for the work under way, while they are held. */
function heldMoves(): HeldMoves | undefined {
  const held = HELD.getStore();
  return held?.open ? held : undefined;
}
