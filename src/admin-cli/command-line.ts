/** An error of the command line: printed as it is, exit code 1. */
export class CliError extends Error {}

/** A parsed command line: positional words, `--name value` / `--name=value` options and `--flag`s. */
export interface ParsedArgs {
  positionals: string[];
  options: Record<string, string>;
  flags: Set<string>;
}

/**
 * Splits `argv` into positionals, options and flags. Only `allowed` option names (each taking a value) and `flags`
 * (taking none) are accepted; `--` ends the options.
 */
export function parseArgs(
  argv: readonly string[],
  allowed: readonly string[] = [],
  flags: readonly string[] = [],
): ParsedArgs {
  const positionals: string[] = [];
  const options: Record<string, string> = {};
  const set = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      if (flags.includes(name)) {
        if (eq >= 0) throw new CliError(`Option --${name} takes no value.`);
        set.add(name);
        continue;
      }
      if (!allowed.includes(name)) throw new CliError(`Unknown option --${name}.`);
      let value: string | undefined;
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length) value = argv[++i];
      if (value === undefined) throw new CliError(`Option --${name} needs a value.`);
      options[name] = value;
      continue;
    }
    positionals.push(arg);
  }
  return { positionals, options, flags: set };
}

/** One command of the CLI: how it is called and what it does (its `--help`). */
export interface CommandSpec {
  /** `user create`, `migrate:status`, ... */
  name: string;
  /** Positionals after the name, e.g. `<username> <email>`. */
  args: string;
  /** Names of the required positionals, in order, then the optional ones. */
  required: string[];
  optional?: string[];
  /** Options taking a value, with their help line. */
  options?: Record<string, string>;
  /** Options taking no value, with their help line. */
  flags?: Record<string, string>;
  /** One line for the command list. */
  summary: string;
  /** More lines for the command's own help. */
  details?: string;
}

/** A command line matched to its command. */
export interface Invocation {
  spec: CommandSpec;
  /** Positionals by name. */
  values: Record<string, string | undefined>;
  options: Record<string, string>;
  flags: Set<string>;
}

const HELP_FLAGS = ['--help', '-h'];

/** The usage line of a command. */
export function usageOf(spec: CommandSpec): string {
  const opts = [
    ...Object.keys(spec.options ?? {}).map((o) => `[--${o} <${o}>]`),
    ...Object.keys(spec.flags ?? {}).map((f) => `[--${f}]`),
  ];
  return [spec.name, spec.args, ...opts].filter(Boolean).join(' ');
}

/** The help of one command (its `--help`). */
export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: npm run cms -- ${usageOf(spec)}`, '', spec.summary];
  if (spec.details) lines.push('', spec.details);
  const entries = [
    ...Object.entries(spec.options ?? {}).map(([name, text]) => [`--${name} <${name}>`, text]),
    ...Object.entries(spec.flags ?? {}).map(([name, text]) => [`--${name}`, text]),
    ['--help', 'Show this help.'],
  ];
  const width = Math.max(...entries.map(([name]) => name.length));
  lines.push('', 'Options:', ...entries.map(([name, text]) => `  ${name.padEnd(width)}  ${text}`));
  return lines.join('\n') + '\n';
}

/** The help of a command group (`user --help`): its sub-commands. */
export function groupHelp(group: string, specs: readonly CommandSpec[]): string {
  const mine = specs.filter((s) => s.name.startsWith(`${group} `));
  const lines = [`Usage: npm run cms -- ${group} <command>`, '', 'Commands:'];
  for (const spec of mine) lines.push(`  ${usageOf(spec)}`, `      ${spec.summary}`);
  lines.push('', `Run "npm run cms -- ${group} <command> --help" for a command's options.`);
  return lines.join('\n') + '\n';
}

export type Parsed = { kind: 'help'; text: string } | { kind: 'run'; invocation: Invocation };

/**
 * Matches `argv` to one of `specs` (`<group> <command>` or one word). `--help`/`-h` anywhere before `--` asks for the
 * help of what precedes it; `help [command]` does the same.
 */
export function parseInvocation(argv: readonly string[], specs: readonly CommandSpec[], mainHelp: string): Parsed {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const wantsHelp = head.some((a) => HELP_FLAGS.includes(a));
  let words = [...argv];
  if (words[0] === 'help') {
    words = words.slice(1);
    if (!words.length) return { kind: 'help', text: mainHelp };
    return helpFor(
      words.filter((w) => !w.startsWith('-')),
      specs,
      mainHelp,
    );
  }
  if (wantsHelp)
    return helpFor(
      head.filter((w) => !HELP_FLAGS.includes(w) && !w.startsWith('-')),
      specs,
      mainHelp,
    );
  const [first, second] = words;
  const groups = new Set(specs.filter((s) => s.name.includes(' ')).map((s) => s.name.split(' ')[0]));
  let spec: CommandSpec | undefined;
  let rest: string[];
  if (groups.has(first)) {
    const subs = specs.filter((s) => s.name.startsWith(`${first} `)).map((s) => s.name.split(' ')[1]);
    if (second === undefined)
      throw new CliError(`Missing sub-command: ${subs.map((s) => `${first} ${s}`).join(' | ')}.`);
    spec = specs.find((s) => s.name === `${first} ${second}`);
    if (!spec) throw new CliError(`Unknown command "${first} ${second}". Run "npm run cms -- ${first} --help".`);
    rest = words.slice(2);
  } else {
    spec = specs.find((s) => s.name === first);
    if (!spec) throw new CliError(`Unknown command "${first}". Run "npm run cms -- help".`);
    rest = words.slice(1);
  }
  const { positionals, options, flags } = parseArgs(
    rest,
    Object.keys(spec.options ?? {}),
    Object.keys(spec.flags ?? {}),
  );
  const usage = usageOf(spec);
  if (positionals.length < spec.required.length) {
    const missing = spec.required.slice(positionals.length);
    throw new CliError(`Missing ${missing.map((m) => `<${m}>`).join(' and ')}. Usage: ${usage}`);
  }
  const names = [...spec.required, ...(spec.optional ?? [])];
  if (positionals.length > names.length)
    throw new CliError(`Unexpected argument "${positionals[names.length]}". Usage: ${usage}`);
  const values: Record<string, string | undefined> = {};
  names.forEach((name, i) => (values[name] = positionals[i]));
  return { kind: 'run', invocation: { spec, values, options, flags } };
}

function helpFor(words: string[], specs: readonly CommandSpec[], mainHelp: string): Parsed {
  if (!words.length) return { kind: 'help', text: mainHelp };
  const two = specs.find((s) => s.name === `${words[0]} ${words[1]}`);
  if (two) return { kind: 'help', text: commandHelp(two) };
  const one = specs.find((s) => s.name === words[0]);
  if (one) return { kind: 'help', text: commandHelp(one) };
  if (specs.some((s) => s.name.startsWith(`${words[0]} `))) {
    if (words[1] !== undefined)
      throw new CliError(`Unknown command "${words[0]} ${words[1]}". Run "npm run cms -- ${words[0]} --help".`);
    return { kind: 'help', text: groupHelp(words[0], specs) };
  }
  throw new CliError(`Unknown command "${words[0]}". Run "npm run cms -- help".`);
}

/** Left-aligned text table. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
