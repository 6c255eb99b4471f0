import { AsyncLocalStorage } from 'node:async_hooks';
import type * as mysql2 from 'mysql2';
import type { DataSource } from 'typeorm';
import { CallerMarks, MemoryCallerMarks } from './caller-marks';
import { isDatabaseUnavailable } from './database-errors';

export { callerKeyOf, MemoryCallerMarks } from './caller-marks';
export type { CallerMarks } from './caller-marks';

/**
 * Read replicas, routed as WordPress VIP's HyperDB/LudicrousDB route them: each API request runs in a scope
 * ({@link ReplicaRouter.run}) chosen at its start.
 *
 * - A read (GET/HEAD) of a caller who has not written within the read-after-write window is pinned to **one**
 *   replica (round robin among those not lagging): every statement of the request, the version stamps and the
 *   response cache's reads included, goes to that server, so an answer and its stamps name one state of the data.
 * - Any statement that is not a read (and any transaction) goes to the primary; from the request's first write on,
 *   its reads go to the primary too. An answer made from rows of two servers is not kept by the response cache
 *   ({@link servedFromTwoServers}).
 * - A request that is not a read (POST, PUT, PATCH, DELETE) runs on the primary and marks its caller
 *   ({@link callerKeyOf}) for the window: that caller's reads go to the primary meanwhile (read-your-writes).
 * - A replica lagging past the bound, with replication stopped, or not answering its probe is skipped; with none
 *   left, reads go to the primary. A request whose replica cannot be reached goes on on the primary (its answer,
 *   if the replica had answered part of it, is not cached), and the replica is skipped until its next probe. Work outside requests (start-up, migrations, the CLI, timers) uses the primary.
 *
 * The pool that sends each statement where its request's scope says is routed-pool.ts; the callers' marks are in
 * caller-marks.ts. Without replicas nothing of this runs: the request path checks one constant.
 */

/** Where a request's statements go: a replica's index, or {@link PRIMARY}. */
export const PRIMARY = -1;

/** The routing of one API request. */
export interface ReplicaScope {
  readonly router: ReplicaRouter;
  /**
   * The replica the request's reads are pinned to, or {@link PRIMARY}; {@link PRIMARY} from the moment its replica
   * could not be reached (the request goes on on the primary).
   */
  replica: number;
  /** The request wrote (or opened a transaction): its reads go to the primary from then on. */
  wrote: boolean;
  /** A statement of the request ran on its replica. */
  usedReplica: boolean;
  /** A statement of the request ran on the primary. */
  usedPrimary: boolean;
  /**
   * The request was answered: work it left behind (a timer armed during it, which keeps its scope) runs on the primary,
   * as work outside requests does.
   */
  ended: boolean;
  /** Statements the request sent through the routed pool's own `query`/`execute` (the fast readers'), counted. */
  statements: number;
  /** The request used what another request read (the version stamps, read once for requests arriving together). */
  borrowed: boolean;
}

const storage = new AsyncLocalStorage<ReplicaScope>();

/** Whether any data source of the process has replicas: until one has, the helpers below answer without a lookup. */
let routing = false;

/** The routing scope of the running request, if any (only with replicas configured). */
export function currentReplicaScope(): ReplicaScope | undefined {
  return routing ? storage.getStore() : undefined;
}

/**
 * Whether the running request's answer was made from rows of two servers (a replica, then the primary after a write):
 * such an answer names no one state of the data and must not be cached.
 */
export function servedFromTwoServers(): boolean {
  if (!routing) return false;
  const scope = storage.getStore();
  return scope !== undefined && (scope.borrowed || (scope.usedReplica && (scope.usedPrimary || scope.wrote)));
}

/**
 * For a read shared among requests (the version stamps): a mark taken before it, which {@link sharedReadDone} checks
 * after. `-1` outside a routed request.
 */
export function sharedReadMark(): number {
  return routing ? (storage.getStore()?.statements ?? -1) : -1;
}

/**
 * After a read shared among requests: when the running request sent no statement since `mark`, what it got was read
 * by another request, perhaps on another server; its answer then counts as made from two servers.
 */
export function sharedReadDone(mark: number): void {
  const scope = storage.getStore();
  if (scope && mark >= 0 && scope.statements === mark) scope.borrowed = true;
}

/** A leading comment, then the first word: statements that only read. */
const READ = /^\s*(?:\/\*[^]*?\*\/\s*)*(?:SELECT|SHOW|DESCRIBE|DESC|EXPLAIN|WITH)\b/i;
/** Reads that lock or take a named lock: they belong to the primary. */
const LOCKING =
  /\bFOR\s+UPDATE\b|\bLOCK\s+IN\s+SHARE\s+MODE\b|\bFOR\s+SHARE\b|\b(?:GET_LOCK|RELEASE_LOCK|RELEASE_ALL_LOCKS|IS_USED_LOCK|NEXTVAL|LAST_INSERT_ID)\s*\(/i;

/** Whether a statement only reads (a replica may run it). */
export function isReadStatement(sql: string): boolean {
  return READ.test(sql) && !LOCKING.test(sql);
}

/** What a lag probe found: seconds behind the primary, `null` when replication is stopped or the replica did not answer. */
export type LagProbe = (replica: number) => Promise<number | null>;

/** One replica: its pool and what its last probe found. */
interface Replica {
  readonly name: string;
  readonly pool: mysql2.Pool;
  /** Seconds behind, as last probed (`null`: stopped or unreachable; skipped). */
  lag: number | null;
}

/** How often each replica's lag is probed. */
export const REPLICA_PROBE_MS = 1500;

/**
 * The replicas of one data source and the routing of requests among them (see the file's comment). Built by
 * `buildDataSourceOptions` when `replicaUrls` are given; found with {@link replicaRouterOf}.
 */
export class ReplicaRouter {
  private readonly replicas: Replica[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  /** Where the lag comes from: `SHOW REPLICA STATUS` on each replica by default; tests put their own. */
  probe: LagProbe = (index) => this.probeStatus(index);
  /** The marks of callers who wrote lately: this process's, or a fleet's (`RedisCallerMarks`, with `redisUrl`). */
  marks: CallerMarks = new MemoryCallerMarks();

  constructor(
    /** Seconds of lag past which a replica is skipped. */
    readonly maxLagSeconds = 5,
  ) {
    routing = true;
  }

  /** Adds a replica's pool (in the order of `replicaUrls`); it is used once a probe found it in sync. */
  add(name: string, pool: mysql2.Pool): void {
    this.replicas.push({ name, pool, lag: null });
  }

  /** The replicas' pools, in order. */
  get pools(): readonly mysql2.Pool[] {
    return this.replicas.map((replica) => replica.pool);
  }

  /** How many replicas are configured. */
  get size(): number {
    return this.replicas.length;
  }

  /** The lag each replica's last probe found (`null`: skipped), in order. */
  lags(): Array<number | null> {
    return this.replicas.map((replica) => replica.lag);
  }

  /** Whether a replica is usable now: probed, in sync within {@link maxLagSeconds}. */
  usable(index: number): boolean {
    const lag = this.replicas[index]?.lag;
    return lag !== null && lag !== undefined && lag <= this.maxLagSeconds;
  }

  /** The next usable replica, round robin, or {@link PRIMARY} when none is. */
  pick(): number {
    const count = this.replicas.length;
    for (let i = 0; i < count; i++) {
      const index = (this.next + i) % count;
      if (this.usable(index)) {
        this.next = (index + 1) % count;
        return index;
      }
    }
    return PRIMARY;
  }

  /** Probes every replica now (and then every {@link REPLICA_PROBE_MS}, once {@link start}ed). */
  async probeAll(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await Promise.all(
        this.replicas.map(async (replica, index) => {
          try {
            replica.lag = await this.probe(index);
          } catch {
            replica.lag = null;
          }
        }),
      );
    } finally {
      this.probing = false;
    }
  }

  /** Starts the background probe (an unref'd timer: it never keeps the process up). */
  start(): void {
    if (this.timer || !this.replicas.length) return;
    void this.probeAll();
    this.timer = setInterval(() => void this.probeAll(), REPLICA_PROBE_MS);
    this.timer.unref();
  }

  /** Stops the probe and closes the replicas' pools. */
  async end(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all(
      this.replicas.map((replica) => new Promise<void>((resolve) => replica.pool.end(() => resolve()))),
    );
    await this.marks.close?.().catch(() => undefined);
  }

  /**
   * `SHOW REPLICA STATUS` (`SHOW SLAVE STATUS` on servers before MariaDB 10.5 / MySQL 8.0.22): `Seconds_Behind_Master`
   * (or `_Source`); `null` (replication stopped) and an error (unreachable) skip the replica; no row (not a replica:
   * a Galera node, a stand-in) is in sync.
   */
  private async probeStatus(index: number): Promise<number | null> {
    const pool = this.replicas[index].pool;
    const ask = (sql: string) =>
      new Promise<Array<Record<string, unknown>>>((resolve, reject) =>
        pool.query(sql, (error, rows) => (error ? reject(error) : resolve(rows as Array<Record<string, unknown>>))),
      );
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await ask('SHOW REPLICA STATUS');
    } catch (error) {
      if ((error as { code?: string }).code !== 'ER_PARSE_ERROR') return null;
      rows = await ask('SHOW SLAVE STATUS');
    }
    if (!rows.length) return 0;
    let worst = 0;
    for (const row of rows) {
      const lag = row.Seconds_Behind_Master ?? row.Seconds_Behind_Source;
      if (lag === null || lag === undefined) return null;
      worst = Math.max(worst, Number(lag));
    }
    return worst;
  }

  /**
   * The routing of a request that starts now: a read of a caller not marked goes to a replica; any other request goes
   * to the primary, and one that is not a read marks its caller for `readAfterWriteMs`.
   */
  async scopeFor(method: string | undefined, callerKey: string, readAfterWriteMs: number): Promise<ReplicaScope> {
    const read = method === 'GET' || method === 'HEAD';
    let replica = PRIMARY;
    if (!read) {
      await this.markSafely(callerKey, readAfterWriteMs);
    } else if (!(await this.isMarkedSafely(callerKey))) {
      replica = this.pick();
    }
    return {
      router: this,
      replica,
      wrote: false,
      usedReplica: false,
      usedPrimary: false,
      ended: false,
      statements: 0,
      borrowed: false,
    };
  }

  /** Runs `work` in `scope`: its statements are routed by it until it ends. */
  async run<T>(scope: ReplicaScope, work: () => Promise<T>): Promise<T> {
    try {
      return await storage.run(scope, work);
    } finally {
      scope.ended = true;
    }
  }

  /** Marks a caller again (at the end of a write: the window counts from the answer). Never fails. */
  async markSafely(callerKey: string, ms: number): Promise<void> {
    if (ms <= 0) return;
    try {
      await this.marks.mark(callerKey, ms);
    } catch {
      // A store that does not answer: the caller may read a replica, as without the window.
    }
  }

  private async isMarkedSafely(callerKey: string): Promise<boolean> {
    try {
      return await this.marks.isMarked(callerKey);
    } catch {
      // Not known: the primary, which is never behind.
      return true;
    }
  }

  /**
   * Where a statement of the running request goes: a replica's pool when the request is pinned to one, has not
   * written, and the statement reads; else `undefined` (the primary). Notes the write and the server used.
   */
  route(sql: string): mysql2.Pool | undefined {
    const scope = storage.getStore();
    if (!scope || scope.router !== this || scope.ended) return undefined;
    if (!isReadStatement(sql)) scope.wrote = true;
    if (scope.replica === PRIMARY || scope.wrote) {
      scope.usedPrimary = true;
      return undefined;
    }
    scope.usedReplica = true;
    return this.replicas[scope.replica]?.pool;
  }

  /**
   * After an error of a replica's statement or connection: when the replica is unreachable, the running request goes
   * on on the primary, and the replica is skipped until a probe finds it again. Answers whether it failed over.
   */
  failOver(error: unknown): boolean {
    const scope = storage.getStore();
    if (!scope || scope.router !== this || scope.replica === PRIMARY || !isDatabaseUnavailable(error)) return false;
    const replica = this.replicas[scope.replica];
    if (replica) replica.lag = null;
    scope.replica = PRIMARY;
    return true;
  }

  /** Notes that the running request holds a primary connection (a transaction, a TypeORM query runner that wrote). */
  notePrimary(): void {
    const scope = storage.getStore();
    if (scope && scope.router === this) scope.usedPrimary = true;
  }
}

/** The router of each `mysql2` module handed to TypeORM by `buildDataSourceOptions` (its `driver` option). */
const ROUTERS = new WeakMap<object, ReplicaRouter>();

/** Registers the router of a `driver` module (see {@link replicaRouterOf}). */
export function registerReplicaRouter(driver: object, router: ReplicaRouter): void {
  ROUTERS.set(driver, router);
}

/** The replica router of a data source, when it was built with `replicaUrls`. */
export function replicaRouterOf(dataSource: DataSource): ReplicaRouter | undefined {
  const driver = (dataSource.options as { driver?: unknown }).driver;
  return driver && typeof driver === 'object' ? ROUTERS.get(driver) : undefined;
}
