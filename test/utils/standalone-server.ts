import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { testDatabaseKind, testDatabaseUrl } from './test-db';

export const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

/** The built server (`node dist/main`) running in a child process, its output collected. */
export interface StandaloneServer {
  child: ChildProcess;
  port: number;
  base: string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The JSON lines of stdout so far (the server logs JSON when stdout is not a terminal). */
  lines(): Array<Record<string, any>>;
  /** Waits until a log line matches, or fails after `ms`. */
  waitForLine(match: (line: Record<string, any>) => boolean, ms?: number): Promise<Record<string, any>>;
  /** Waits for the process to exit; its exit code (null when killed by a signal) and signal. */
  exited(): Promise<[number | null, NodeJS.Signals | null]>;
}

export function assertBuilt(): void {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: npm test builds it first (pretest)');
}

/** A port unlikely to be taken. */
export function randomPort(): number {
  return 40000 + Math.floor(Math.random() * 20000);
}

/** A port free right now: the system's pick for a listener on port 0, released at once (not a guessed number). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A database for a spawned server: a temporary SQLite file (so that several worker processes share it), or the
 * test file's MariaDB database with `DB=mysql`. `cleanup` removes the file.
 */
export async function serverDatabase(name: string): Promise<{ url: string; cleanup: () => void }> {
  if (testDatabaseKind() === 'mysql') return { url: await testDatabaseUrl(name), cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), `cms-${name}-`));
  return { url: `sqlite:${join(dir, 'cms.sqlite')}`, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `node dist/main` with an environment (PATH only besides it) and waits until the API answers. */
export async function startServer(env: Record<string, string>): Promise<StandaloneServer> {
  const port = Number(env.PORT ?? (await freePort()));
  let stdout = '';
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => {
    stdout += String(d);
    output += String(d);
  });
  child.stderr?.on('data', (d) => (output += String(d)));
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const lines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);
  const server: StandaloneServer = {
    child,
    port,
    base: `http://127.0.0.1:${port}`,
    output: () => output,
    lines,
    exited: () => exit,
    async waitForLine(match, ms = 10_000) {
      for (const started = Date.now(); Date.now() - started < ms; await new Promise((r) => setTimeout(r, 25))) {
        const line = lines().find(match);
        if (line) return line;
      }
      throw new Error(`no such log line within ${ms} ms:\n${output}`);
    },
  };
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      await fetch(`${server.base}/health/live`);
      return server;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${output}`);
}

/** Stops a server that may still run (SIGTERM) and waits for it. */
export async function stopServer(server: StandaloneServer | undefined): Promise<void> {
  if (!server) return;
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await server.exited();
}
