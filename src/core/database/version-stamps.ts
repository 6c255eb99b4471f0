import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { CMS_DATA_SOURCE } from './cms-data-source';
import { rawQuery, sqliteChanges } from './raw-query';
import { committedRead } from './sqlite-writing';
import { isMySql, quotedName } from './query-helpers';
import { HeldMoves, StampedRunners } from './stamped-runners';
import {
  CONTENT_CHANGES_KEPT,
  CONTENT_SEQUENCE,
  CONTENT_STAMP,
  contentSequence,
  POST_VERSIONS_TABLE,
  PostVersions,
  STAMP_GROUPS,
  StampChannel,
  StampGroup,
  Stamps,
  VERSIONS_TABLE,
} from './version-stamp-names';

export {
  API_SESSION_FLAG,
  CONTENT_CHANGES_KEPT,
  CONTENT_SEQUENCE,
  CONTENT_STAMP,
  contentSequence,
  NO_STAMP,
  POST_VERSIONS_TABLE,
  STAMP_GROUPS,
  VERSIONS_TABLE,
} from './version-stamp-names';
export type { PostVersions, StampChannel, StampGroup, Stamps } from './version-stamp-names';

/** The check phase of the event loop's next turn. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** The event loop's check phase after its next poll for I/O (an immediate queued from an immediate waits a turn). */
function afterNextPoll(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * The posts the narrowed commits after {@link since} wrote, with their versions, as read with the stamps: complete up to
 * {@link upTo}, the content version of the last read.
 */
interface ContentChanges {
  since: number;
  upTo: number;
  versions: Map<number, number>;
}

/**
 * Version stamps: one row per object group in `{prefix}cms_versions`, WordPress's `last_changed` idea kept in the
 * database so that every node sees it. Every write through this server's data source bumps the groups of the
 * tables it writes, in the same transaction (or right after an autocommitted statement): the query runners are
 * instrumented once, so creates, updates, trashes, deletes, term assignments, comment status changes, options,
 * users and the scheduler's publishing are all covered without each writer having to remember it.
 *
 * Readers ask {@link current} — one small query, shared by the requests that arrive while it has not started yet —
 * and caches that hold data of a group ({@link onChange}) are cleared when its version moves.
 *
 * Writes made outside this server (a WordPress sharing the database, SQL by hand) move the versions only through the
 * stamp triggers (stamp-triggers.ts); without them the response cache and the memos must be off (`memos: false`).
 */
@Injectable()
export class VersionStamps implements OnApplicationBootstrap {
  private readonly logger = new Logger('VersionStamps');
  private enabledFlag = false;
  private postsFlag = false;
  private table = VERSIONS_TABLE;
  private postTable = POST_VERSIONS_TABLE;
  /** The write side: the query runners that note and bump the groups writes move. */
  private readonly runners: StampedRunners;
  private readonly listeners = new Map<StampChannel, Array<() => void | Promise<void>>>();
  private readonly writtenListeners: Array<(postIds: readonly number[] | null) => void> = [];
  private last: Stamps | null = null;
  /** SQLite: what {@link sqliteChanges} gave before the last read. */
  private lastProbe: string | undefined;
  /** The narrowed commits read with the stamps (posts' versions only). */
  private changes: ContentChanges | null = null;
  private readonly validatedCaches: Array<{ validated: boolean }> = [];
  /** A read not started yet, that requests arriving now may share. */
  private queued: Promise<Stamps> | null = null;
  /** The read under way. */
  private running: Promise<unknown> | null = null;

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {
    this.runners = new StampedRunners(
      dataSource,
      () => this.enabledFlag,
      (groups, narrowed) => this.changedHere(groups, narrowed),
    );
  }

  /** Whether versions are kept and read (the memos are on and the table exists). */
  get enabled(): boolean {
    return this.enabledFlag;
  }

  /** Whether posts' versions are kept too (their table exists): edits in place are narrowed only then. */
  get postVersions(): boolean {
    return this.postsFlag;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.memos) return;
    const prefix = (this.dataSource.options as { entityPrefix?: string }).entityPrefix ?? '';
    this.table = `${prefix}${VERSIONS_TABLE}`;
    this.postTable = `${prefix}${POST_VERSIONS_TABLE}`;
    this.runners.learnTables(this.table, this.postTable);
    try {
      await this.dataSource.query(`SELECT name FROM ${this.quoted()} WHERE name = ?`, ['posts']);
    } catch {
      this.logger.warn(`${this.table} is missing (run the migrations): the response cache is off.`);
      return;
    }
    try {
      await this.dataSource.query(`SELECT post_id FROM ${this.quote(this.postTable)} WHERE post_id = ?`, [0]);
      // The content row exists before any narrowed commit locks it (two first ones would otherwise both count from 0).
      await this.dataSource.query(
        this.isMySql
          ? `INSERT IGNORE INTO ${this.quoted()} (name, version) VALUES (?, 0)`
          : `INSERT OR IGNORE INTO ${this.quoted()} (name, version) VALUES (?, 0)`,
        [CONTENT_STAMP],
      );
      this.postsFlag = true;
    } catch {
      this.logger.warn(
        `${this.postTable} is missing (run the migrations): every edit of a post moves every post's answers.`,
      );
    }
    this.runners.instrument();
    this.enabledFlag = true;
    for (const cache of this.validatedCaches) cache.validated = true;
  }

  /**
   * Makes a cache of values read from the database exact: once the stamps are on, it keeps its values until a
   * version moves (on any node) instead of for a moment, and is cleared then. Without stamps it keeps its own TTL.
   */
  validate(cache: { clear(): void; validated: boolean }, groups: readonly StampChannel[] = STAMP_GROUPS): void {
    this.validatedCaches.push(cache);
    if (this.enabledFlag) cache.validated = true;
    for (const group of groups) this.onChange(group, () => cache.clear());
  }

  /**
   * Calls `listener` (before {@link current} answers) whenever a read finds `group`'s version moved. `content`: the
   * posts' content, which every write of posts moves (a narrowed one moves it alone, without `posts`).
   */
  onChange(group: StampChannel, listener: () => void | Promise<void>): void {
    const list = this.listeners.get(group) ?? [];
    list.push(listener);
    this.listeners.set(group, list);
  }

  /**
   * Calls `listener` whenever the posts' content version moves without the `posts` group (edits in place, see
   * {@link narrow}), with the posts those edits wrote, or `null` when they are not known (more than a process keeps):
   * before {@link current} answers after another node's edit, and before a write of this process answers. It lets a
   * cache of per-post values drop those of the posts written alone, where a `content` listener drops everything.
   */
  onPostsWritten(listener: (postIds: readonly number[] | null) => void): void {
    this.writtenListeners.push(listener);
  }

  /**
   * The versions as they are now: read by a query that starts after this call (requests arriving together share
   * one), so a read that follows a committed write — on any node — sees its bump.
   */
  current(): Promise<Stamps> {
    if (this.queued) return this.queued;
    const queued = this.startAfterRunning();
    this.queued = queued;
    return queued;
  }

  private async startAfterRunning(): Promise<Stamps> {
    // The next turn of the event loop at the earliest: the requests of one poll phase share this read (on SQLite a
    // read is synchronous, so without the wait none would), and each of them arrived before it starts. After a read
    // that was under way, the loop polls once more first: the requests that arrive while the answers of that read
    // are written share this one too, instead of each read taking a round trip to the database for a few requests
    // (on MySQL a statement's write wakes the server's thread, the largest cost of a cached answer).
    await (this.running ? this.running.catch(() => undefined).then(afterNextPoll) : nextTurn());
    this.queued = null;
    const read = this.read();
    this.running = read;
    try {
      return await read;
    } finally {
      if (this.running === read) this.running = null;
    }
  }

  /** The groups a statement writes (`null`: none); every group when its table cannot be told. */
  groupsOf(sql: string): StampGroup[] | null {
    return this.runners.writeOf(sql)?.groups ?? null;
  }

  /**
   * Declares that the transaction open on `runner` writes the posts `postIds` without moving any of them among the
   * others: their slug, status, dates of publication, parent, author, order, password, terms, format and
   * stickiness stay as they were (their text, excerpt, meta, comment status may change, and revisions are added).
   * If it writes nothing but rows of the posts tables, its commit moves the content version and the versions of
   * these posts instead of the `posts` group's: cached answers that show other posts, or none, stay valid.
   * Anything else it writes moves its groups as usual (a write of terms moves `posts` too).
   */
  narrow(runner: QueryRunner | undefined, postIds: readonly number[]): void {
    if (!this.postsFlag) return;
    this.runners.narrow(runner, postIds);
  }

  /**
   * Runs `work` — writes each committed on its own, such as the requests of a batch — so that the versions move once
   * for all of them, when it has ended (successfully or not): in the transaction `transaction` opens, whose work must
   * call `carry` with its query runner (`writeTransaction(ds, (em) => carry(em.queryRunner))`, so that on SQLite it
   * takes its turn). Meanwhile this process's caches are cleared at each commit, as usual: a later write of the work
   * reads what an earlier one wrote. Other nodes, and answers cached under the versions, see the writes once they move.
   */
  async moveOnce<T>(
    work: () => Promise<T>,
    transaction: (carry: (runner: QueryRunner | undefined) => void) => Promise<unknown>,
  ): Promise<T> {
    if (!this.enabledFlag) return work();
    const moves = new HeldMoves();
    try {
      return await this.runners.hold(moves, work);
    } finally {
      if (!moves.empty) await transaction((runner) => this.runners.carry(runner, moves));
    }
  }

  /** The versions of `postIds`, in one statement (0 for a post no narrowed commit wrote). */
  async posts(postIds: readonly number[]): Promise<PostVersions> {
    const versions = new Map<number, number>(postIds.map((id) => [id, 0]));
    if (!postIds.length) return versions;
    const rows = await rawQuery(
      this.dataSource,
      `SELECT post_id, version FROM ${this.quote(this.postTable)} WHERE post_id IN (${postIds.map(() => '?').join(', ')})`,
      [...postIds],
    );
    for (const row of rows as Array<{ post_id: number | string; version: number | string }>)
      versions.set(Number(row.post_id), Number(row.version));
    return versions;
  }

  /**
   * Whether one of `postIds` was written by a narrowed commit after the content version `after`, told without a
   * statement from the posts' versions read with the stamps ({@link read}): `undefined` when those do not reach back
   * to `checked`, the content version up to which the caller knows the posts unwritten since `after`.
   */
  postsWrittenAfter(postIds: Iterable<number>, after: number, checked: number): boolean | undefined {
    const changes = this.changes;
    if (!changes || contentSequence(checked) < contentSequence(changes.since)) return undefined;
    const place = contentSequence(after);
    for (const id of postIds) {
      const version = changes.versions.get(id);
      if (version !== undefined && contentSequence(version) > place) return true;
    }
    return false;
  }

  /**
   * The groups' versions and the posts' content version; when the content version moved since the last read, the
   * posts' versions that narrowed commits wrote since then, with a second statement: every process learns which posts
   * an edit in place wrote once, instead of each cached answer reading the versions of the posts it shows (see
   * {@link postsWrittenAfter}). The second statement starts after the first, so it finds at least the commits up to
   * the content version the first found (and perhaps later ones, which only make answers checked again).
   */
  private async read(): Promise<Stamps> {
    // SQLite tells whether anything was committed since: by another connection (`data_version`, any process) or by
    // this one (`total_changes()`, which counts rolled-back changes too). Nothing was: the versions are the last ones.
    let probe: string | undefined;
    const changes = this.isMySql ? null : sqliteChanges(this.dataSource);
    if (changes) {
      const writing = committedRead(this.dataSource);
      if (writing) await writing;
      probe = changes();
      if (this.last && probe === this.lastProbe) return this.last;
    }
    const rows = await rawQuery<{ name: string; version: number | string }>(
      this.dataSource,
      `SELECT name, version FROM ${this.quoted()}`,
    );
    const versions = Object.fromEntries(STAMP_GROUPS.map((g) => [g, 0])) as Record<StampGroup, number>;
    let content = 0;
    for (const row of rows) {
      if (row.name === CONTENT_STAMP) content = Number(row.version);
      else if ((STAMP_GROUPS as readonly string[]).includes(row.name))
        versions[row.name as StampGroup] = Number(row.version);
    }
    // Only when the content version moved (no statement, and no await, on the hot path otherwise).
    const written = this.postsFlag && this.changes?.upTo !== content ? await this.readChanges(content) : undefined;
    const stamps: Stamps = { versions, token: STAMP_GROUPS.map((g) => versions[g]).join('.'), content };
    const before = this.last;
    this.last = stamps;
    // Taken before the rows were read: a commit between the two makes the next read read them again.
    this.lastProbe = probe;
    if (before && (before.token !== stamps.token || before.content !== content)) {
      const moved: StampChannel[] = STAMP_GROUPS.filter((group) => before.versions[group] !== versions[group]);
      if (moved.includes('posts') || before.content !== content) moved.push('content');
      if (before.content !== content && !moved.includes('posts'))
        for (const listener of this.writtenListeners) listener(written ?? null);
      for (const channel of moved) for (const listener of this.listeners.get(channel) ?? []) await listener();
    }
    return stamps;
  }

  /**
   * Reads the posts' versions written since the content version of the last read, when `content` (read now) is not
   * that one. More than {@link CONTENT_CHANGES_KEPT} (with those kept) are forgotten, and the changes start again
   * from `content`.
   */
  private async readChanges(content: number): Promise<readonly number[] | null | undefined> {
    const changes = this.changes;
    if (changes?.upTo === content) return undefined;
    // The first read, or a content version behind the last one (a database restored from a copy): from now on.
    if (!changes || contentSequence(content) < contentSequence(changes.upTo)) {
      this.changes = { since: content, upTo: content, versions: new Map() };
      return null;
    }
    const room = CONTENT_CHANGES_KEPT - changes.versions.size;
    const rows =
      room > 0
        ? await rawQuery<{ post_id: number | string; version: number | string }>(
            this.dataSource,
            `SELECT post_id, version FROM ${this.quote(this.postTable)} WHERE version >= ? LIMIT ${room + 1}`,
            [(contentSequence(changes.upTo) + 1) * CONTENT_SEQUENCE],
          )
        : [];
    // Another read may have moved on meanwhile (reads run one at a time, but a reset is always safe).
    if (this.changes !== changes || room <= 0 || rows.length > room) {
      this.changes = { since: content, upTo: content, versions: new Map() };
      return null;
    }
    const written: number[] = [];
    for (const row of rows) {
      const id = Number(row.post_id);
      changes.versions.set(id, Number(row.version));
      written.push(id);
    }
    changes.upTo = content;
    return written;
  }

  /**
   * A write of this process moved `groups` (and the posts' content with `posts`, or alone for the posts `narrowed`
   * wrote in place): their caches are cleared at once, before the writer answers (the next read of the stamps sees the move too, and
   * clears them again).
   */
  private async changedHere(groups: StampGroup[], narrowed: readonly number[] = []): Promise<void> {
    const channels = new Set<StampChannel>(groups);
    if (narrowed.length && !channels.has('posts')) for (const listener of this.writtenListeners) listener(narrowed);
    if (narrowed.length || channels.has('posts')) channels.add('content');
    for (const channel of channels) for (const listener of this.listeners.get(channel) ?? []) await listener();
  }

  private quoted(): string {
    return this.quote(this.table);
  }

  private quote(table: string): string {
    return quotedName(this.dataSource, table);
  }

  private get isMySql(): boolean {
    return isMySql(this.dataSource);
  }
}
