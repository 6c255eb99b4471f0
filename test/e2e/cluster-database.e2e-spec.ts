import { Controller, Get, INestApplication, ServiceUnavailableException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { MigrationLock, LOCKS_TABLE, WRITERS_LOCK } from '../../src/core/database/cluster-lock';
import { SiteBootstrapService } from '../../src/core/bootstrap/site-bootstrap.service';
import { writeTransaction, takeWriteTurn } from '../../src/core/database/write-transaction';
import { CmsHealthIndicator } from '../../src/core/health/cms-health.indicator';
import { CmsModule } from '../../src/cms.module';
import { buildDataSourceOptions } from '../../src/core/database/data-source-options';
import { createTestApp, expectRestError, TestApp, TEST_PREFIX } from '../utils/test-app';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

const mysqlOnly = testDatabaseKind() === 'mysql' ? describe : describe.skip;
const locks = `${TEST_PREFIX}${LOCKS_TABLE}`;

/**
 * What a clustered database does to a node, simulated on one server where a cluster cannot run inside jest: every
 * query of the pool fails as a Galera node outside the primary component fails them (error 1047) while `failing`.
 */
function failLikeANonPrimaryNode(dataSource: DataSource): { failing: boolean; causal: boolean } {
  const state = { failing: false, causal: false };
  const pool = (dataSource.driver as unknown as { pool: Record<string, (...args: unknown[]) => unknown> }).pool;
  // Without quorum a node refuses statements (1047); a read waiting for causality (wsrep_sync_wait) times out (1205).
  const error = () =>
    state.causal
      ? Object.assign(new Error('Lock wait timeout exceeded; try restarting transaction'), {
          code: 'ER_LOCK_WAIT_TIMEOUT',
          errno: 1205,
          sqlState: 'HY000',
        })
      : Object.assign(new Error('WSREP has not yet prepared node for application use'), {
          code: 'ER_UNKNOWN_COM_ERROR',
          errno: 1047,
          sqlState: '08S01',
        });
  const failing = (name: string, target: Record<string, (...args: unknown[]) => unknown>) => {
    const original = target[name];
    target[name] = function (this: unknown, ...args: unknown[]) {
      const callback = args.find((arg) => typeof arg === 'function') as ((e: Error) => void) | undefined;
      if (state.failing && callback) {
        setImmediate(() => callback(error()));
        return undefined;
      }
      return original.apply(this, args);
    };
  };
  failing('execute', pool);
  failing('query', pool);
  const getConnection = pool.getConnection;
  pool.getConnection = function (this: unknown, callback: unknown) {
    return getConnection.call(this, (e: Error | null, connection: Record<string, (...args: unknown[]) => unknown>) => {
      if (connection && !(connection as unknown as { __galera?: boolean }).__galera) {
        (connection as unknown as { __galera?: boolean }).__galera = true;
        failing('query', connection);
        failing('execute', connection);
      }
      (callback as (e: Error | null, c: unknown) => void)(e, connection);
    });
  };
  return state;
}

mysqlOnly('a Galera node that cannot serve (1047)', () => {
  let t: TestApp;
  let node: { failing: boolean; causal: boolean };

  beforeAll(async () => {
    t = await createTestApp('cluster_1047');
    node = failLikeANonPrimaryNode(t.dataSource);
  });
  afterAll(async () => {
    node.failing = false;
    await t.close();
  });

  it('answers reads and writes 503 rest_database_unavailable with Retry-After, as JSON (also a read that waited out causality), then serves again', async () => {
    expect((await t.http.get('/cms-json/cms/v2/posts?search=before')).status).toBe(200);
    node.failing = true;
    const read = await t.http.get('/cms-json/cms/v2/posts?search=during');
    expectRestError(read, 'rest_database_unavailable', 503);
    expect(read.headers['retry-after']).toBe('5');
    expect(read.headers['content-type']).toMatch(/application\/json/);
    const write = await t.http
      .post('/cms-json/cms/v2/posts')
      .set('Authorization', t.users.administrator.authorization)
      .send({ title: 'During', status: 'publish' });
    expectRestError(write, 'rest_database_unavailable', 503);
    node.causal = true;
    const waited = await t.http.get('/cms-json/cms/v2/posts?search=causal');
    expectRestError(waited, 'rest_database_unavailable', 503);
    expect(waited.headers['retry-after']).toBe('5');
    node.failing = false;
    expect((await t.http.get('/cms-json/cms/v2/posts?search=after')).status).toBe(200);
  });
});

/**
 * A host's readiness route over the API's database indicator, answering as terminus does (`details`, and 503 with
 * `error` when something is down); terminus itself is an ES module jest does not load.
 */
@Controller('health')
class ReadinessController {
  constructor(private readonly cms: CmsHealthIndicator) {}

  @Get('ready')
  async ready() {
    const details = await this.cms.database();
    if (details.database.status === 'down')
      throw new ServiceUnavailableException({ status: 'error', error: details, details });
    return { status: 'ok', details };
  }
}

mysqlOnly('readiness of a Galera node', () => {
  let app: INestApplication;
  let dataSource: DataSource;

  beforeAll(async () => {
    const databaseUrl = await testDatabaseUrl('cluster_ready');
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot(buildDataSourceOptions({ databaseUrl, tablePrefix: TEST_PREFIX })),
        CmsModule.forRoot({ baseUrl: 'http://example.org' }),
      ],
      controllers: [ReadinessController],
      providers: [CmsHealthIndicator],
    }).compile();
    app = moduleRef.createNestApplication({ logger: ['error'] });
    await app.init();
    dataSource = app.get<DataSource>(getDataSourceToken());
  });
  afterAll(async () => {
    await app.close();
    await dropTestDatabase('cluster_ready');
  });

  /** The server's answers to the indicator's wsrep questions, as a Galera node in `state` would give them. */
  function asGaleraNode(state: Record<string, string>): () => void {
    const query = dataSource.query.bind(dataSource);
    dataSource.query = (async (sql: string, params?: unknown[]) => {
      if (sql.startsWith("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")) return [{ Variable_name: 'wsrep_on', Value: 'ON' }];
      if (sql.includes('SHOW GLOBAL STATUS'))
        return Object.entries(state).map(([name, value]) => ({ Variable_name: `wsrep_${name}`, Value: value }));
      return query(sql, params);
    }) as DataSource['query'];
    return () => {
      dataSource.query = query;
    };
  }

  it('is 503 with the state named for a donor or a node without quorum, 200 once synced; a plain server is ready', async () => {
    const http = request(app.getHttpServer());
    // The real server first: a plain MariaDB (its wsrep status says Disconnected, but wsrep_on is OFF).
    const plain = await http.get('/health/ready');
    expect(plain.status).toBe(200);
    expect(plain.body.details.database).toEqual({ status: 'up', responseTime: expect.any(Number) });
    // The indicator remembers a plain server; a node of a cluster is another indicator (another process).
    (app.get<unknown>(CmsHealthIndicator) as { galera: boolean | null }).galera = null;
    const state = {
      ready: 'ON',
      local_state: '2',
      local_state_comment: 'Donor/Desynced',
      cluster_status: 'Primary',
      cluster_size: '3',
    };
    const restore = asGaleraNode(state);
    try {
      const donor = await http.get('/health/ready');
      expect(donor.status).toBe(503);
      expect(donor.body.error.database).toMatchObject({
        status: 'down',
        message: 'Galera node not synced (wsrep_local_state 2: Donor/Desynced)',
      });
      Object.assign(state, { local_state: '4', local_state_comment: 'Synced' });
      const synced = await http.get('/health/ready');
      expect(synced.status).toBe(200);
      expect(synced.body.details.database).toMatchObject({
        status: 'up',
        galera: { local_state: '4', cluster_status: 'Primary', cluster_size: '3' },
      });
      Object.assign(state, { cluster_status: 'non-Primary', ready: 'OFF', cluster_size: '1' });
      const alone = await http.get('/health/ready');
      expect(alone.status).toBe(503);
      expect(alone.body.error.database).toMatchObject({
        status: 'down',
        message: 'Galera node outside the primary component (wsrep_cluster_status non-Primary)',
      });
    } finally {
      restore();
    }
  });
});

describe('the migrations lock row and the writers turn', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('cluster_locks');
  });
  afterAll(() => t.close());

  it('records the locks table among the migrations, and frees the lock after the start', async () => {
    const [row] = await t.dataSource.query(`SELECT holder, expires_at FROM ${locks} WHERE name = 'migrations'`);
    expect(row).toEqual({ holder: '', expires_at: expect.anything() });
    expect(Number(row.expires_at)).toBe(0);
  });

  it('makes a second node wait while another holds the lock, then run (finding nothing to do)', async () => {
    const other = new MigrationLock(t.dataSource);
    expect(await other.claim(60_000)).toBeNull();
    let done = false;
    const second = t.app
      .get(SiteBootstrapService)
      .bootstrap()
      .finally(() => {
        done = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(done).toBe(false);
    await other.release();
    expect(await second).toEqual({ migrations: [], siteInstalled: false, adminCreated: null });
  });

  it('runs the start-up set-up under the lock: nothing left to do on a second run, the lock free again', async () => {
    const report = await t.app.get(SiteBootstrapService).bootstrap();
    expect(report).toEqual({ migrations: [], siteInstalled: false, adminCreated: null });
    const [row] = await t.dataSource.query(`SELECT holder FROM ${locks} WHERE name = 'migrations'`);
    expect(row.holder).toBe('');
  });

  it('takes over a lock whose holder died (its lease ended)', async () => {
    await t.dataSource.query(`UPDATE ${locks} SET holder = ?, expires_at = ? WHERE name = 'migrations'`, [
      'gone-host:4242:dead',
      Date.now() - 1000,
    ]);
    const report = await t.app.get(SiteBootstrapService).bootstrap();
    expect(report.migrations).toEqual([]);
    const [row] = await t.dataSource.query(`SELECT holder FROM ${locks} WHERE name = 'migrations'`);
    expect(row.holder).toBe('');
  });

  describe('a holder on this machine', () => {
    /** This machine's part of a holder (`scope:pid:nonce`). */
    const scope = () => new MigrationLock(t.dataSource).holder.replace(/:\d+:[^:]*$/, '');
    const holdAs = (holder: string) =>
      t.dataSource.query(`UPDATE ${locks} SET holder = ?, expires_at = ? WHERE name = 'migrations'`, [
        holder,
        Date.now() + 60_000,
      ]);
    afterEach(() => t.dataSource.query(`UPDATE ${locks} SET holder = '', expires_at = 0 WHERE name = 'migrations'`));

    it('is taken over at once when its process is gone, before its lease ends, and the take-over is told', async () => {
      const child = spawn(process.execPath, ['-e', '']);
      await once(child, 'exit');
      const dead = `${scope()}:${child.pid}:dead`;
      await holdAs(dead);
      const told: string[] = [];
      const lock = new MigrationLock(t.dataSource);
      expect(await lock.run(async () => 'ran', { pollMs: 50, waitMs: 1000, onTakeOver: (h) => told.push(h) })).toBe(
        'ran',
      );
      expect(told).toEqual([dead]);
      const [row] = await t.dataSource.query(`SELECT holder FROM ${locks} WHERE name = 'migrations'`);
      expect(row.holder).toBe('');
    });

    it('is waited for while its process runs, and so is a gone process of another machine', async () => {
      const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
      try {
        for (const holder of [`${scope()}:${child.pid}:alive`, `other-host:${(child.pid ?? 0) + 1_000_000}:gone`]) {
          await holdAs(holder);
          await expect(
            new MigrationLock(t.dataSource).run(async () => 'ran', { pollMs: 50, waitMs: 300 }),
          ).rejects.toThrow(`held by ${holder}`);
        }
      } finally {
        child.kill('SIGKILL');
      }
    });
  });

  it('gives up with a clear message when the lock stays held', async () => {
    const other = new MigrationLock(t.dataSource);
    expect(await other.claim(60_000)).toBeNull();
    try {
      await expect(new MigrationLock(t.dataSource).run(async () => 'ran', { pollMs: 50, waitMs: 200 })).rejects.toThrow(
        /Gave up waiting 0 s for the migrations lock held by .*:\d+:/,
      );
    } finally {
      await other.release();
    }
  });

  const mysqlIt = testDatabaseKind() === 'mysql' ? it : it.skip;

  mysqlIt('moves the writers row with each write turn, so that two nodes taking it at once conflict', async () => {
    const before = await t.dataSource.query(`SELECT turns FROM ${locks} WHERE name = ?`, [WRITERS_LOCK]);
    await writeTransaction(t.dataSource, (em) => takeWriteTurn(em));
    await writeTransaction(t.dataSource, (em) => takeWriteTurn(em));
    const [after] = await t.dataSource.query(`SELECT turns FROM ${locks} WHERE name = ?`, [WRITERS_LOCK]);
    expect(Number(after.turns)).toBe(Number(before[0]?.turns ?? 0) + 2);
    // A post with a slug to make unique takes it too.
    const res = await t.http
      .post('/cms-json/cms/v2/posts')
      .set('Authorization', t.users.administrator.authorization)
      .send({ title: 'Turn', status: 'publish' });
    expect(res.status).toBe(201);
    const [last] = await t.dataSource.query(`SELECT turns FROM ${locks} WHERE name = ?`, [WRITERS_LOCK]);
    expect(Number(last.turns)).toBeGreaterThan(Number(after.turns));
  });
});

describe('the auth secret from the environment (authSecret)', () => {
  const secretX = randomBytes(32).toString('base64');
  const secretY = randomBytes(32).toString('base64');
  const sqliteFile = join(tmpdir(), `cms-secret-${process.pid}-${Date.now()}.sqlite`);
  let first: TestApp;
  let databaseUrl: string;

  beforeAll(async () => {
    // Nodes of one fleet share one database: a file on SQLite.
    databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${sqliteFile}` : await testDatabaseUrl('cluster_secret');
    first = await createTestApp('cluster_secret', { databaseUrl, cms: { authSecret: secretX } });
  });
  afterAll(async () => {
    await first.close();
    await dropTestDatabase('cluster_secret');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });
  });

  it('signs cookie sessions with it: accepted by a node with the same secret, refused by one with another; never stored', async () => {
    const res = await first.http
      .post('/cms-json/cms-auth/v1/login')
      .send({ username: 'editor', password: first.users.editor.password });
    expect(res.status).toBe(200);
    const header = res.headers['set-cookie'] as unknown as string[] | string;
    const cookie = (Array.isArray(header) ? header[0] : header).split(';')[0];
    const nonce = String(res.body.nonce);
    const me = (t: TestApp) =>
      t.http.get('/cms-json/cms/v2/users/me?context=edit').set('Cookie', cookie).set('X-CMS-Nonce', nonce);
    expect((await me(first)).body.slug).toBe('editor');
    const same = await createTestApp('cluster_secret', {
      databaseUrl,
      users: first.users,
      cms: { authSecret: secretX },
    });
    const other = await createTestApp('cluster_secret', {
      databaseUrl,
      users: first.users,
      cms: { authSecret: secretY },
    });
    try {
      const accepted = await me(same);
      expect(accepted.status).toBe(200);
      expect(accepted.body.slug).toBe('editor');
      // Another secret: the cookie's signature does not hold; the caller is anonymous.
      expectRestError(await me(other), 'rest_not_logged_in', 401);
    } finally {
      await same.app.close();
      await other.app.close();
    }
    expect(
      await first.dataSource.query(
        `SELECT option_value FROM ${TEST_PREFIX}options WHERE option_name = 'cms_auth_secret'`,
      ),
    ).toEqual([]);
  });
});
