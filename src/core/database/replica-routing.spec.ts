import { EventEmitter } from 'node:events';
import type * as mysql2 from 'mysql2';
import {
  callerKeyOf,
  CallerMarks,
  currentReplicaScope,
  isReadStatement,
  MemoryCallerMarks,
  PRIMARY,
  ReplicaRouter,
  servedFromTwoServers,
  sharedReadDone,
  sharedReadMark,
} from './replica-routing';
import { routedPool } from './routed-pool';

type Callback = (error: Error | null, rows?: unknown) => void;

/** A connection that records the statements it ran and answers each with `rows`. */
class FakeConnection extends EventEmitter {
  readonly ran: string[] = [];
  released = 0;

  constructor(readonly server: string) {
    super();
  }

  query(sql: string | { sql: string }, ...rest: unknown[]): void {
    this.ran.push(typeof sql === 'string' ? sql : sql.sql);
    const done = rest[rest.length - 1] as Callback;
    setImmediate(() => done(null, [{ server: this.server }]));
  }

  execute(sql: string, ...rest: unknown[]): void {
    this.query(sql, ...rest);
  }

  release(): void {
    this.released++;
  }
}

/** A pool of fake connections; its own `query`/`execute` record the statements too. */
class FakePool extends EventEmitter {
  readonly ran: string[] = [];
  readonly handedOut: FakeConnection[] = [];
  answer: (sql: string) => Error | unknown[] = () => [{ server: this.server }];

  constructor(readonly server: string) {
    super();
  }

  /** An error every connection and statement of this pool gets (an unreachable server). */
  down: Error | null = null;

  getConnection(callback: (error: Error | null, connection: FakeConnection) => void): void {
    if (this.down) {
      const error = this.down;
      return void setImmediate(() => callback(error, undefined as never));
    }
    const connection = new FakeConnection(this.server);
    this.handedOut.push(connection);
    setImmediate(() => callback(null, connection));
  }

  query(sql: string, ...rest: unknown[]): void {
    this.ran.push(sql);
    const done = rest[rest.length - 1] as Callback;
    const answer = this.down ?? this.answer(sql);
    setImmediate(() => (answer instanceof Error ? done(answer) : done(null, answer)));
  }

  execute(sql: string, ...rest: unknown[]): void {
    this.query(sql, ...rest);
  }

  end(callback?: () => void): void {
    callback?.();
  }
}

const asPool = (pool: FakePool) => pool as unknown as mysql2.Pool;

function ask(
  pool: mysql2.Pool | FakeConnection,
  sql: string,
  method: 'query' | 'execute' = 'query',
): Promise<Array<{ server: string }>> {
  return new Promise((resolve, reject) =>
    (pool[method] as (...args: unknown[]) => void)(sql, [], (error: Error | null, rows: Array<{ server: string }>) =>
      error ? reject(error) : resolve(rows),
    ),
  );
}

function connectionOf(pool: mysql2.Pool): Promise<FakeConnection> {
  return new Promise((resolve, reject) =>
    pool.getConnection((error, connection) =>
      error ? reject(error) : resolve(connection as unknown as FakeConnection),
    ),
  );
}

/** A router over two fake replicas, both probed in sync. */
async function routerWithReplicas(
  lags: Array<number | null> = [0, 0],
): Promise<{ router: ReplicaRouter; replicas: FakePool[]; primary: FakePool; pool: mysql2.Pool }> {
  const router = new ReplicaRouter(5);
  const replicas = lags.map((_, i) => new FakePool(`replica${i}`));
  replicas.forEach((replica, i) => router.add(`replica ${i}`, asPool(replica)));
  router.probe = async (index) => lags[index];
  await router.probeAll();
  const primary = new FakePool('primary');
  return { router, replicas, primary, pool: routedPool(asPool(primary), router) };
}

describe('isReadStatement', () => {
  it('tells reads (SELECT, SHOW, WITH, after comments) from writes and locking reads', () => {
    expect(isReadStatement('SELECT 1')).toBe(true);
    expect(isReadStatement('  /* cms */ select * from wp_posts')).toBe(true);
    expect(isReadStatement('SHOW VARIABLES')).toBe(true);
    expect(isReadStatement('WITH a AS (SELECT 1) SELECT * FROM a')).toBe(true);
    expect(isReadStatement('INSERT INTO wp_posts VALUES (1)')).toBe(false);
    expect(isReadStatement('UPDATE wp_options SET x = 1')).toBe(false);
    expect(isReadStatement('START TRANSACTION')).toBe(false);
    expect(isReadStatement('SET SESSION x = 1')).toBe(false);
    expect(isReadStatement('SELECT * FROM wp_posts WHERE ID = 1 FOR UPDATE')).toBe(false);
    expect(isReadStatement("SELECT GET_LOCK('x', 1)")).toBe(false);
  });
});

describe('callerKeyOf', () => {
  it('is one key per caller: address, Authorization and session cookies, other cookies ignored', () => {
    const key = callerKeyOf('10.0.0.1', 'Basic YTpi', 'cms_logged_in=abc; theme=dark');
    expect(callerKeyOf('10.0.0.1', 'Basic YTpi', 'theme=light; cms_logged_in=abc')).toBe(key);
    expect(callerKeyOf('10.0.0.2', 'Basic YTpi', 'cms_logged_in=abc')).not.toBe(key);
    expect(callerKeyOf('10.0.0.1', 'Basic YTpj', 'cms_logged_in=abc')).not.toBe(key);
    expect(callerKeyOf('10.0.0.1', 'Basic YTpi', 'cms_logged_in=abd')).not.toBe(key);
    // A digest: the credentials themselves are not in the key.
    expect(key).not.toContain('YTpi');
    expect(key).not.toContain('abc');
  });
});

describe('MemoryCallerMarks', () => {
  it('keeps a mark for its time, and at most its bound of entries (the oldest dropped)', async () => {
    const marks = new MemoryCallerMarks(2);
    await marks.mark('a', 60_000);
    await marks.mark('b', 60_000);
    await marks.mark('c', 60_000);
    expect(marks.size).toBe(2);
    expect(await marks.isMarked('a')).toBe(false);
    expect(await marks.isMarked('c')).toBe(true);
    await marks.mark('d', 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await marks.isMarked('d')).toBe(false);
  });
});

describe('ReplicaRouter: choosing a server', () => {
  it('takes the replicas in turn, skipping one lagging past the bound, stopped or unreachable', async () => {
    const { router } = await routerWithReplicas([0, 2, 9, null]);
    expect([router.pick(), router.pick(), router.pick()]).toEqual([0, 1, 0]);
    router.probe = async (index) => {
      if (index === 1) throw new Error('connect ECONNREFUSED');
      return index === 2 ? 1 : 0;
    };
    await router.probeAll();
    expect(router.lags()).toEqual([0, null, 1, 0]);
    expect([router.pick(), router.pick(), router.pick()]).toEqual([2, 3, 0]);
  });

  it('sends reads to the primary when no replica is usable', async () => {
    const { router } = await routerWithReplicas([null, 6]);
    expect(router.pick()).toBe(PRIMARY);
    expect((await router.scopeFor('GET', 'k', 5000)).replica).toBe(PRIMARY);
  });

  it('reads SHOW REPLICA STATUS: no row is in sync, NULL is stopped, the older statement where the newer is unknown', async () => {
    const router = new ReplicaRouter(5);
    const replica = new FakePool('r');
    router.add('r', asPool(replica));
    replica.answer = () => [];
    await router.probeAll();
    expect(router.lags()).toEqual([0]);
    replica.answer = () => [{ Seconds_Behind_Master: null }];
    await router.probeAll();
    expect(router.lags()).toEqual([null]);
    replica.answer = (sql) =>
      sql === 'SHOW REPLICA STATUS'
        ? Object.assign(new Error('syntax'), { code: 'ER_PARSE_ERROR' })
        : [{ Seconds_Behind_Master: 3 }];
    await router.probeAll();
    expect(router.lags()).toEqual([3]);
    expect(replica.ran.slice(-2)).toEqual(['SHOW REPLICA STATUS', 'SHOW SLAVE STATUS']);
    replica.answer = () => Object.assign(new Error('gone'), { code: 'ECONNREFUSED' });
    await router.probeAll();
    expect(router.lags()).toEqual([null]);
  });

  it('a write request marks its caller: the caller reads the primary within the window, a replica after it; others read a replica', async () => {
    const { router } = await routerWithReplicas();
    expect((await router.scopeFor('GET', 'writer', 50)).replica).not.toBe(PRIMARY);
    expect((await router.scopeFor('POST', 'writer', 50)).replica).toBe(PRIMARY);
    expect((await router.scopeFor('GET', 'writer', 50)).replica).toBe(PRIMARY);
    expect((await router.scopeFor('HEAD', 'writer', 50)).replica).toBe(PRIMARY);
    expect((await router.scopeFor('GET', 'someone else', 50)).replica).not.toBe(PRIMARY);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await router.scopeFor('GET', 'writer', 50)).replica).not.toBe(PRIMARY);
  });

  it('a store of marks that fails sends reads to the primary and never fails a request', async () => {
    const { router } = await routerWithReplicas();
    const broken: CallerMarks = {
      mark: () => Promise.reject(new Error('down')),
      isMarked: () => Promise.reject(new Error('down')),
    };
    router.marks = broken;
    expect((await router.scopeFor('POST', 'k', 5000)).replica).toBe(PRIMARY);
    expect((await router.scopeFor('GET', 'k', 5000)).replica).toBe(PRIMARY);
  });
});

describe('ReplicaRouter: routing statements', () => {
  it('outside a request, everything goes to the primary', async () => {
    const { pool, primary, replicas } = await routerWithReplicas();
    expect(await ask(pool, 'SELECT 1')).toEqual([{ server: 'primary' }]);
    expect((await connectionOf(pool)).server).toBe('primary');
    expect(replicas[0].ran).toEqual([]);
    expect(primary.ran).toEqual(['SELECT 1']);
  });

  it("a read request's statements all go to its one replica, through the pool and through a held connection", async () => {
    const { router, pool } = await routerWithReplicas();
    const scope = await router.scopeFor('GET', 'k', 5000);
    const seen = await router.run(scope, async () => {
      const servers = [(await ask(pool, 'SELECT 1'))[0].server, (await ask(pool, 'SELECT 2', 'execute'))[0].server];
      const connection = await connectionOf(pool);
      servers.push((await ask(connection, 'SELECT 3'))[0].server);
      connection.release();
      servers.push((await ask(pool, 'SELECT 4'))[0].server);
      expect(servedFromTwoServers()).toBe(false);
      return servers;
    });
    expect(new Set(seen)).toEqual(new Set([`replica${scope.replica}`]));
    expect(scope.usedReplica).toBe(true);
  });

  it('a write in a read request goes to the primary, and so does everything after it; the answer is from two servers', async () => {
    const { router, pool, primary, replicas } = await routerWithReplicas();
    const scope = await router.scopeFor('GET', 'k', 5000);
    await router.run(scope, async () => {
      const connection = await connectionOf(pool);
      expect((await ask(connection, 'SELECT 1'))[0].server).toBe(`replica${scope.replica}`);
      // The held replica connection moves to the primary at the write, and gives the replica's back.
      expect((await ask(connection, 'INSERT INTO wp_options VALUES (1)'))[0].server).toBe('primary');
      expect(replicas[scope.replica].handedOut[0].released).toBe(1);
      expect((await ask(connection, 'SELECT 2'))[0].server).toBe('primary');
      connection.release();
      expect(primary.handedOut[0].released).toBe(1);
      expect((await ask(pool, 'SELECT 3'))[0].server).toBe('primary');
      expect((await connectionOf(pool)).server).toBe('primary');
      expect(currentReplicaScope()?.wrote).toBe(true);
      expect(servedFromTwoServers()).toBe(true);
    });
    expect(primary.handedOut[0].ran).toEqual(['INSERT INTO wp_options VALUES (1)', 'SELECT 2']);
  });

  it('a transaction goes to the primary from its first statement', async () => {
    const { router, pool } = await routerWithReplicas();
    const scope = await router.scopeFor('GET', 'k', 5000);
    await router.run(scope, async () => {
      const connection = await connectionOf(pool);
      expect((await ask(connection, 'START TRANSACTION'))[0].server).toBe('primary');
      expect((await ask(connection, 'SELECT 1'))[0].server).toBe('primary');
    });
    expect(scope.wrote).toBe(true);
  });

  it("a write request's statements all go to the primary", async () => {
    const { router, pool, replicas } = await routerWithReplicas();
    const scope = await router.scopeFor('PUT', 'k', 5000);
    await router.run(scope, async () => {
      expect((await ask(pool, 'SELECT 1'))[0].server).toBe('primary');
      expect((await connectionOf(pool)).server).toBe('primary');
      expect(servedFromTwoServers()).toBe(false);
    });
    expect(replicas.every((replica) => replica.ran.length === 0 && replica.handedOut.length === 0)).toBe(true);
  });

  it('work a request left behind (a timer armed during it) runs on the primary once it was answered', async () => {
    const { router, pool } = await routerWithReplicas();
    const scope = await router.scopeFor('GET', 'k', 5000);
    let later: Promise<string> | undefined;
    await router.run(scope, async () => {
      later = new Promise((resolve) =>
        setTimeout(() => void ask(pool, 'SELECT 1').then((rows) => resolve(rows[0].server)), 20),
      );
    });
    expect(await later).toBe('primary');
  });

  it('the routed pool is otherwise the primary pool (events, properties)', async () => {
    const { pool, primary } = await routerWithReplicas();
    const seen: unknown[] = [];
    pool.on('connection', (connection) => seen.push(connection));
    primary.emit('connection', 'c');
    expect(seen).toEqual(['c']);
    expect((pool as unknown as { server: string }).server).toBe('primary');
  });

  it('a read shared with another request (the stamps, read once for requests arriving together) makes the answer one from two servers', async () => {
    const { router, pool } = await routerWithReplicas();
    expect(sharedReadMark()).toBe(-1);
    const [first, second] = await Promise.all([router.scopeFor('GET', 'a', 5000), router.scopeFor('GET', 'b', 5000)]);
    let shared: Promise<unknown> | undefined;
    const read = () => (shared ??= ask(pool, 'SELECT name, version FROM cms_versions'));
    const [own, borrowed] = await Promise.all(
      [first, second].map((scope) =>
        router.run(scope, async () => {
          const mark = sharedReadMark();
          await read();
          sharedReadDone(mark);
          return servedFromTwoServers();
        }),
      ),
    );
    expect([own, borrowed]).toEqual([false, true]);
  });

  it('a replica that cannot be reached: the request goes on on the primary, and the replica is skipped until probed again', async () => {
    const { router, pool, replicas } = await routerWithReplicas([0]);
    replicas[0].down = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const scope = await router.scopeFor('GET', 'k', 5000);
    expect(scope.replica).toBe(0);
    await router.run(scope, async () => {
      expect((await ask(pool, 'SELECT 1'))[0].server).toBe('primary');
      expect((await connectionOf(pool)).server).toBe('primary');
    });
    expect(scope.replica).toBe(PRIMARY);
    expect(router.pick()).toBe(PRIMARY);
    // Through a held connection too.
    await router.probeAll();
    const second = await router.scopeFor('GET', 'k', 5000);
    await router.run(second, async () => {
      expect((await connectionOf(pool)).server).toBe('primary');
    });
    // Another error (a bad statement) is the request's own.
    replicas[0].down = Object.assign(new Error('syntax'), { code: 'ER_PARSE_ERROR' });
    await router.probeAll();
    const third = await router.scopeFor('GET', 'k', 5000);
    await router.run(third, async () => {
      await expect(ask(pool, 'SELECT nonsense')).rejects.toThrow('syntax');
    });
    expect(third.replica).toBe(0);
  });
});
