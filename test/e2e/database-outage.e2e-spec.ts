import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outageRun, OutageResult } from '../../scripts/reliability/outage-lib';
import { dropTestDatabase, testDatabaseKind } from '../utils/test-db';
import { assertBuilt, randomPort, serverDatabase } from '../utils/standalone-server';

/**
 * The database going away for 10 s under `node dist/main` with CMS_DB_TIMEOUT=2: on MariaDB the network to it goes
 * silent (a TCP proxy of the test's, cut and restored); on SQLite another process holds the write lock. Requests
 * that need it answer 503 rest_database_unavailable with Retry-After within the timeout (no hang), and service
 * resumes by itself once it is back, with every acknowledged write kept.
 */
jest.setTimeout(120_000);

const TIMEOUT_SECONDS = 2;

describe('the database going away (node dist/main)', () => {
  let result: OutageResult;
  let database: { url: string; cleanup: () => void };
  let uploads: string;

  beforeAll(async () => {
    assertBuilt();
    database = await serverDatabase('outage');
    uploads = mkdtempSync(join(tmpdir(), 'cms-outage-uploads-'));
    result = await outageRun({
      kind: testDatabaseKind(),
      databaseUrl: database.url,
      uploadDir: uploads,
      port: randomPort(),
      timeoutSeconds: TIMEOUT_SECONDS,
      outageSeconds: 10,
    });
  });

  afterAll(async () => {
    database?.cleanup();
    if (uploads) rmSync(uploads, { recursive: true, force: true });
    await dropTestDatabase('outage');
  });

  it('answers writes 503 rest_database_unavailable with Retry-After while it is away', () => {
    const writes = result.during.filter((a) => a.kind === 'write');
    expect(writes.length).toBeGreaterThanOrEqual(2);
    for (const answer of writes)
      expect(answer).toMatchObject({
        status: 503,
        code: 'rest_database_unavailable',
        retryAfter: expect.stringMatching(/^\d+$/),
      });
  });

  it('answers reads as the database allows: 503 when it is unreachable, served from the readable SQLite file', () => {
    const reads = result.during.filter((a) => a.kind === 'read');
    expect(reads.length).toBeGreaterThanOrEqual(1);
    for (const answer of reads) {
      if (testDatabaseKind() === 'mysql')
        expect(answer).toMatchObject({
          status: 503,
          code: 'rest_database_unavailable',
          retryAfter: expect.stringMatching(/^\d+$/),
        });
      else expect(answer.status).toBe(200);
    }
  });

  it('never holds a request much beyond CMS_DB_TIMEOUT', () => {
    // A bound, not a measurement: a request waits for one query's timeout (and the connection's), not forever.
    for (const answer of result.during) expect(answer.ms).toBeLessThan(TIMEOUT_SECONDS * 2 * 1000 + 3000);
  });

  it('serves writes again by itself once the database is back, with every acknowledged write kept', () => {
    expect(result.recoveredMs).toBeGreaterThanOrEqual(0);
    expect(result.lost).toBe(0);
  });
});
