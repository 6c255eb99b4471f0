import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chaosRun, Workload } from '../../scripts/reliability/chaos-lib';
import { dropTestDatabase } from '../utils/test-db';
import { assertBuilt, freePort, serverDatabase } from '../utils/standalone-server';

/**
 * The write load of `npm run writers` and `npm run chaos` (scripts/reliability/chaos-lib.ts) runs for the seconds it
 * is given: without kills it ran half of them, and the writers' figures were reported for the whole.
 */
jest.setTimeout(120_000);

describe('the reliability write load (node dist/main)', () => {
  let cleanup: () => void = () => undefined;
  let uploads = '';

  beforeAll(() => assertBuilt());
  afterAll(async () => {
    cleanup();
    if (uploads) rmSync(uploads, { recursive: true, force: true });
    await dropTestDatabase('writers_duration');
  });

  it('runs the writers for the seconds asked, with no kills, and reports what it measured', async () => {
    const database = await serverDatabase('writers_duration');
    cleanup = database.cleanup;
    uploads = mkdtempSync(join(tmpdir(), 'cms-writers-duration-uploads-'));
    // Measured apart from the run: from the writers' start to the end of their last write.
    let startedAt = 0;
    let stoppedAt = 0;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the workload as `this`
    const realStart = Workload.prototype.start;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the workload as `this`
    const realStop = Workload.prototype.stop;
    const start = jest.spyOn(Workload.prototype, 'start').mockImplementation(function (this: Workload) {
      startedAt = performance.now();
      realStart.call(this);
    });
    const stop = jest.spyOn(Workload.prototype, 'stop').mockImplementation(async function (this: Workload) {
      await realStop.call(this);
      stoppedAt = performance.now();
    });
    try {
      const result = await chaosRun({
        databaseUrl: database.url,
        uploadDir: uploads,
        port: await freePort(),
        seed: 20,
        kills: 0,
        seconds: 5,
        writers: 4,
        contendedNames: true,
      });
      const measured = (stoppedAt - startedAt) / 1000;
      expect({ starts: start.mock.calls.length, stops: stop.mock.calls.length }).toEqual({ starts: 1, stops: 1 });
      expect(measured).toBeGreaterThanOrEqual(5);
      expect(result.loadSeconds).toBeGreaterThanOrEqual(5);
      expect(Math.abs(result.loadSeconds - measured)).toBeLessThan(0.5);
      expect(result.stats.acknowledged).toBeGreaterThan(20);
      expect(result.stats.serverErrors).toEqual({});
    } finally {
      start.mockRestore();
      stop.mockRestore();
    }
  });
});
