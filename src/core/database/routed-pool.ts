import type * as mysql2 from 'mysql2';
import { currentReplicaScope, PRIMARY, ReplicaRouter } from './replica-routing';

/** The text of a statement as mysql2 takes it: a string, or an object with `sql`. */
function sqlOf(statement: unknown): string {
  if (typeof statement === 'string') return statement;
  const sql = (statement as { sql?: unknown } | null)?.sql;
  return typeof sql === 'string' ? sql : '';
}

type Callback = (error: Error | null, ...rest: unknown[]) => void;

/** The callback of a mysql2 `query`/`execute` call: its last function argument. */
function splitCallback(args: unknown[]): [unknown[], Callback | undefined] {
  const last = args[args.length - 1];
  return typeof last === 'function' ? [args.slice(0, -1), last as Callback] : [args, undefined];
}

/**
 * A connection handed out by the routed pool for a request pinned to a replica: it runs reads on a replica
 * connection and, at the first statement that writes, gives that back and runs it and everything after it on a
 * primary connection. TypeORM's query runners use `query`, `release` and the `error` listeners only.
 */
class RoutedConnection {
  private current: mysql2.PoolConnection;
  private onPrimary = false;
  private switching: Promise<void> | null = null;
  private readonly errorListeners: Array<(error: Error) => void> = [];

  constructor(
    private readonly router: ReplicaRouter,
    private readonly primary: mysql2.Pool,
    replicaConnection: mysql2.PoolConnection,
  ) {
    this.current = replicaConnection;
  }

  listeners(event: string): unknown[] {
    return event === 'error' ? [...this.errorListeners] : [];
  }

  on(event: string, listener: (error: Error) => void): this {
    if (event === 'error') {
      this.errorListeners.push(listener);
      this.current.on('error', listener);
    }
    return this;
  }

  query(...args: unknown[]): void {
    this.run('query', args);
  }

  execute(...args: unknown[]): void {
    this.run('execute', args);
  }

  release(): void {
    this.current.release();
  }

  destroy(): void {
    this.current.destroy();
  }

  private run(method: 'query' | 'execute', args: unknown[]): void {
    const sql = sqlOf(args[0]);
    // Returns nothing: mysql2's command objects are thenables that refuse to be awaited.
    const send = (): void => void (this.current[method] as (...a: unknown[]) => unknown).apply(this.current, args);
    if (this.onPrimary || this.switching) {
      this.router.route(sql);
      if (this.switching) void this.switching.then(send, (error: Error) => splitCallback(args)[1]?.(error));
      else send();
      return;
    }
    if (this.router.route(sql) !== undefined) {
      const [rest, callback] = splitCallback(args);
      // An unreachable replica: the request goes on on the primary (a read retried takes a primary connection).
      if (callback)
        args = [
          ...rest,
          (error: Error | null, ...results: unknown[]) => (
            error && this.router.failOver(error),
            callback(error, ...results)
          ),
        ];
      return send();
    }
    this.switching = new Promise<void>((resolve, reject) =>
      this.primary.getConnection((error, connection) => {
        if (error) return reject(error);
        this.current.release();
        this.current = connection;
        for (const listener of this.errorListeners) connection.on('error', listener);
        this.onPrimary = true;
        this.switching = null;
        resolve();
      }),
    );
    void this.switching.then(send, (error: Error) => splitCallback(args)[1]?.(error));
  }
}

/**
 * The primary's pool as TypeORM and the fast readers see it, routing by the running request's scope: `getConnection`
 * hands out a {@link RoutedConnection} (a replica connection that moves to the primary at the first write) for a
 * request pinned to a replica; the pool's own `query`/`execute` (reads that need no connection held) run on the
 * pinned replica's pool. Everything else is the primary pool's.
 */
export function routedPool(primary: mysql2.Pool, router: ReplicaRouter): mysql2.Pool {
  const getConnection = (callback: (error: Error | null, connection?: unknown) => void): void => {
    const scope = currentReplicaScope();
    const pinned =
      scope && scope.router === router && scope.replica !== PRIMARY && !scope.wrote && !scope.ended
        ? router.pools[scope.replica]
        : undefined;
    if (!pinned) {
      router.notePrimary();
      return primary.getConnection(callback as Parameters<mysql2.Pool['getConnection']>[0]);
    }
    pinned.getConnection((error, connection) => {
      if (!error) return callback(null, new RoutedConnection(router, primary, connection));
      if (!router.failOver(error)) return callback(error);
      router.notePrimary();
      primary.getConnection(callback as Parameters<mysql2.Pool['getConnection']>[0]);
    });
  };
  const direct = (method: 'query' | 'execute') =>
    function (...args: unknown[]): unknown {
      const scope = currentReplicaScope();
      if (scope) scope.statements++;
      const pool = router.route(sqlOf(args[0])) ?? primary;
      const [rest, callback] = splitCallback(args);
      if (pool === primary || !callback) return (pool[method] as (...a: unknown[]) => unknown).apply(pool, args);
      // An unreachable replica: read once more on the primary, and the rest of the request too.
      return (pool[method] as (...a: unknown[]) => unknown).apply(pool, [
        ...rest,
        (error: Error | null, ...results: unknown[]) => {
          if (!error || !router.failOver(error)) return callback(error, ...results);
          router.notePrimary();
          (primary[method] as (...a: unknown[]) => unknown).apply(primary, args);
        },
      ]);
    };
  const end = (callback?: (error?: unknown) => void): void => {
    void router.end().then(() => primary.end(callback as never));
  };
  const overrides: Record<string | symbol, unknown> = {
    getConnection,
    query: direct('query'),
    execute: direct('execute'),
    end,
  };
  return new Proxy(primary, {
    get(target, property) {
      if (Object.prototype.hasOwnProperty.call(overrides, property)) return overrides[property];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
