import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../utils/standalone-server';

/**
 * The first minutes: `npm start` on a built checkout answers within seconds (its prestart builds only when a
 * source is newer than the build), and SIGTERM or SIGINT to the npm process stops the server it started.
 * The server runs on an embedded SQLite database in a temporary directory, whatever `DB` says.
 */

const ROOT = join(__dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cms-npm-start-'));
  // A built checkout: build now if the sources are newer than dist/ (npm test's pretest has built it already).
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300000,
  });
  if (build.status !== 0) throw new Error(`build failed: ${build.stderr}`);
}, 310000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  npm: ChildProcess;
  port: number;
  output: () => string;
  /** Milliseconds from the command to the first answer of `/cms-json/`. */
  answeredAfter: number;
  /** The server's pid, from its log lines. */
  serverPid: number;
}

/** Runs `npm start` in the checkout and waits until `/cms-json/` answers (at most `ms`). */
async function npmStart(name: string, ms = 10000): Promise<Started> {
  const port = await freePort();
  let output = '';
  const started = Date.now();
  const npm = spawn(NPM, ['start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dir, `${name}.sqlite`)}`,
      CMS_UPLOAD_DIR: join(dir, `${name}-uploads`),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stdout?.on('data', (d) => (output += String(d)));
  npm.stderr?.on('data', (d) => (output += String(d)));
  for (;;) {
    if (npm.exitCode !== null) throw new Error(`npm start exited: ${output}`);
    if (Date.now() - started > ms) {
      npm.kill('SIGKILL');
      throw new Error(`npm start did not answer within ${ms} ms: ${output}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/cms-json/`);
      if (res.ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const answeredAfter = Date.now() - started;
  const serving = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { pid: number; msg: string })
    .find((line) => line.msg.startsWith('Serving '));
  if (!serving) throw new Error(`no "Serving" line: ${output}`);
  return { npm, port, output: () => output, answeredAfter, serverPid: serving.pid };
}

/** Whether a process runs (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The parent pid of a process (Linux: /proc/<pid>/stat). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

async function refused(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/cms-json/`);
    return false;
  } catch {
    return true;
  }
}

describe('npm start on a built checkout', () => {
  it('answers /cms-json/ within 10 s of the command, without rebuilding', async () => {
    const started = await npmStart('fast');
    try {
      expect(started.answeredAfter).toBeLessThan(10000);
      expect(started.output()).toContain('Build up to date');
      expect(started.output()).not.toContain('Building:');
    } finally {
      started.npm.kill('SIGKILL');
      if (alive(started.serverPid)) process.kill(started.serverPid, 'SIGKILL');
    }
  }, 30000);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the npm process stops the server cleanly and leaves no process behind',
    async (signal) => {
      const started = await npmStart(signal.toLowerCase());
      try {
        // The server is npm's own child (the script execs node): the signal npm passes on reaches it.
        if (process.platform === 'linux') expect(parentOf(started.serverPid)).toBe(started.npm.pid);
        const exited = once(started.npm, 'exit');
        started.npm.kill(signal);
        await exited;
        for (let i = 0; i < 50 && alive(started.serverPid); i++) await new Promise((r) => setTimeout(r, 100));
        expect(alive(started.serverPid)).toBe(false);
        expect(await refused(started.port)).toBe(true);
        // It stopped gracefully (its shutdown steps are logged), not killed.
        expect(started.output()).toContain(`${signal}: stopping`);
        expect(started.output()).toContain('Stopped: requests answered, database closed');
      } finally {
        if (started.npm.exitCode === null) started.npm.kill('SIGKILL');
        if (alive(started.serverPid)) process.kill(started.serverPid, 'SIGKILL');
      }
    },
    30000,
  );
});

describe('scripts/build-if-stale.mjs', () => {
  /** A copy of the script in a fake checkout whose `nest` only records that it ran (and writes dist/main.js). */
  function fakeCheckout(): { root: string; run: () => { code: number | null; stderr: string }; built: () => number } {
    const root = mkdtempSync(join(dir, 'checkout-'));
    mkdirSync(join(root, 'scripts'));
    mkdirSync(join(root, 'src', 'core'), { recursive: true });
    mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
    copyFileSync(join(ROOT, 'scripts', 'build-if-stale.mjs'), join(root, 'scripts', 'build-if-stale.mjs'));
    writeFileSync(join(root, 'package.json'), '{}');
    writeFileSync(join(root, 'src', 'core', 'a.ts'), 'export const a = 1;\n');
    const nest = join(root, 'node_modules', '.bin', 'nest');
    writeFileSync(nest, '#!/bin/sh\nmkdir -p dist && echo "//" > dist/main.js && echo x >> built.log\n');
    chmodSync(nest, 0o755);
    return {
      root,
      run: () => {
        const r = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], {
          cwd: root,
          encoding: 'utf8',
        });
        return { code: r.status, stderr: r.stderr };
      },
      built: () => {
        try {
          return readFileSync(join(root, 'built.log'), 'utf8').trim().split('\n').length;
        } catch {
          return 0;
        }
      },
    };
  }

  it('builds when there is no build, or a source is newer; not otherwise', () => {
    if (process.platform === 'win32') return;
    const checkout = fakeCheckout();
    expect(checkout.run()).toMatchObject({ code: 0, stderr: expect.stringContaining('no build yet') });
    expect(checkout.built()).toBe(1);
    expect(checkout.run()).toMatchObject({ code: 0, stderr: expect.stringContaining('Build up to date') });
    expect(checkout.built()).toBe(1);
    // A source saved after the build (in a nested folder), then package.json: each builds once more.
    const at = (file: string, secondsAgo: number) => {
      const time = new Date(Date.now() - secondsAgo * 1000);
      utimesSync(join(checkout.root, file), time, time);
    };
    at('dist/main.js', 60);
    at('src/core/a.ts', 30);
    expect(checkout.run().stderr).toContain('sources changed');
    expect(checkout.built()).toBe(2);
    expect(checkout.run().stderr).toContain('Build up to date');
    at('dist/main.js', 60);
    at('src/core/a.ts', 120);
    at('package.json', 30);
    expect(checkout.run().stderr).toContain('sources changed');
    expect(checkout.built()).toBe(3);
  });
});
