import { runCli } from '../../src/cli';

/** What a CLI command did: its exit code and what it wrote on stdout and stderr. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a CLI command in this process: `runCli` of src/cli.ts, which `node dist/cli.js` runs, on the environment
 * `env` alone (not this process's), with its output collected. The same command as a child process costs a second
 * of module loading each time; suites spawn `node dist/cli.js` for what only the binary does (exit codes, streams,
 * npm, a terminal).
 */
export async function runCliInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, env, {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}
