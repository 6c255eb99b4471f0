import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chaosRun, ChaosRunResult } from '../../scripts/reliability/chaos-lib';
import { dropTestDatabase } from '../utils/test-db';
import { assertBuilt, randomPort, serverDatabase } from '../utils/standalone-server';

/**
 * Durability under kill -9, the short version of `npm run chaos`: a write load against `node dist/main`, SIGKILLed
 * at random moments and restarted; every acknowledged write must be found as acknowledged, nothing half-written.
 * Then the same with two processes on one database (`CMS_WORKERS=2`): no SQLITE_BUSY (a 503) reaches a client.
 */
jest.setTimeout(180_000);

describe('durability under kill -9 (node dist/main)', () => {
  const runs: Array<{ name: string; cleanup: () => void; uploads: string }> = [];

  beforeAll(() => assertBuilt());
  afterAll(async () => {
    for (const run of runs) {
      run.cleanup();
      rmSync(run.uploads, { recursive: true, force: true });
      await dropTestDatabase(run.name);
    }
  });

  async function run(
    name: string,
    options: { kills: number; seconds: number; writers: number; workers: number },
  ): Promise<ChaosRunResult> {
    const database = await serverDatabase(name);
    const uploads = mkdtempSync(join(tmpdir(), `cms-${name}-uploads-`));
    runs.push({ name, cleanup: database.cleanup, uploads });
    return chaosRun({ databaseUrl: database.url, uploadDir: uploads, port: randomPort(), seed: 20, ...options });
  }

  function expectDurable(result: ChaosRunResult): void {
    // The load did run, and was cut by the kills.
    expect(result.restarts).toBe(result.kills);
    expect(result.stats.acknowledged).toBeGreaterThan(50);
    expect(result.ledger.checked).toBeGreaterThan(20);
    // Every acknowledged write, after each restart and at the end.
    expect(result.ledger.lost).toEqual([]);
    expect(result.lostAfterRestarts).toBe(0);
    // No fault answered: the only failures are writes the kills cut.
    expect(result.stats.serverErrors).toEqual({});
    expect(result.stats.unexpected).toEqual({});
    // Nothing half-written: no post without its terms, no orphans, counts equal to a recount, unique slugs, and
    // files and attachment rows together (files a kill left between them are settled on the next start).
    expect(result.database.problems).toEqual({});
  }

  it('keeps every acknowledged write and nothing half-written across SIGKILLs', async () => {
    const result = await run('chaos', { kills: 3, seconds: 12, writers: 6, workers: 1 });
    expectDurable(result);
  });

  it('with two processes on one database, answers no SQLITE_BUSY and loses nothing', async () => {
    const result = await run('chaos_workers', { kills: 1, seconds: 6, writers: 12, workers: 2 });
    expectDurable(result);
    expect(result.stats.unavailable).toBe(0);
  });
});
