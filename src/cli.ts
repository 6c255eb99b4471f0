import 'reflect-metadata';
import type { CliOutput } from './admin-cli/admin-commands';
import { CliError, Invocation, parseInvocation } from './admin-cli/command-line';
import { COMMANDS, USAGE } from './admin-cli/commands';
import type { CmsEnvironment } from './standalone/env';

/**
 * Administration commands on the database of the standalone server (same environment variables): users,
 * application passwords, migrations, options, WXR import and export (see {@link COMMANDS}, `npm run cms -- help`).
 * No HTTP server is started. Errors go to stderr with exit code 1.
 *
 * The command line is read first, with nothing else loaded: help and usage errors answer at once. The environment's
 * checks and the site's modules (admin-cli/run-command.ts) are loaded only for a command to run.
 */

export { CliError, USAGE };
export type { CliOutput };
export { parseArgs } from './admin-cli/command-line';

const ci = Boolean(process.env.CI) && process.env.CI !== 'false';

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  progress: process.stderr.isTTY && !ci ? process.stderr : undefined,
};

/** Runs one CLI invocation and returns the exit code (see admin-cli/run-command.ts). */
export async function runCli(
  argv: readonly string[],
  source: NodeJS.ProcessEnv = process.env,
  output: CliOutput = processOutput,
): Promise<number> {
  if (!argv.length) {
    output.err(USAGE);
    return 1;
  }
  let inv: Invocation;
  let env: CmsEnvironment;
  try {
    const parsed = parseInvocation(argv, COMMANDS, USAGE);
    if (parsed.kind === 'help') {
      output.out(parsed.text);
      return 0;
    }
    inv = parsed.invocation;
    env = (await import('./standalone/env')).loadEnvironment(source);
  } catch (error) {
    output.err(`Error: ${(error as Error).message}\n`);
    return 1;
  }
  const { runCommand } = await import('./admin-cli/run-command');
  return runCommand(inv, env, output);
}

if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
