import { INestApplicationContext } from '@nestjs/common';
import { SingleBar } from 'cli-progress';
import { statSync, writeFileSync } from 'node:fs';
import type { CliOutput } from './admin-commands';
import { CliError, Invocation } from './command-line';
import { DEFAULT_FETCH_BOUNDS } from './wxr-attachments';
import { parseAuthorMode } from './wxr-authors';
import { DEFAULT_IMPORT_SETTINGS, ImportSettings, WxrImporter } from './wxr-import';

const message = (error: unknown) => (error as Error)?.message ?? String(error);

/** The import's settings from the command line (`--dry-run`, `--authors`, `--fetch-attachments`, ...). */
export function importSettings(inv?: Pick<Invocation, 'options' | 'flags'>): ImportSettings {
  if (!inv) return DEFAULT_IMPORT_SETTINGS;
  const fetch = inv.flags.has('fetch-attachments');
  if (!fetch && inv.flags.has('allow-private-urls'))
    throw new CliError('--allow-private-urls applies to --fetch-attachments only.');
  return {
    dryRun: inv.flags.has('dry-run'),
    authors: parseAuthorMode(inv.options.authors),
    fetch: fetch ? { ...DEFAULT_FETCH_BOUNDS, allowPrivate: inv.flags.has('allow-private-urls') } : null,
  };
}

/**
 * `import <file>`: runs the importer with a progress bar on a terminal (stderr), plain lines otherwise (no terminal,
 * or `CI` set), then prints the report on stdout: a line per record (created, skipped and why, failed and why) and
 * the counts per kind; `--report <file.json>` also writes it as JSON. Returns whether nothing failed.
 */
export async function runImport(
  app: INestApplicationContext,
  file: string,
  output: CliOutput,
  inv?: Pick<Invocation, 'options' | 'flags'>,
): Promise<boolean> {
  const settings = importSettings(inv);
  const reportFile = inv?.options.report;
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch {
    throw new CliError(`Cannot read "${file}": no such file.`);
  }
  const bar = output.progress
    ? new SingleBar({
        format: 'Importing [{bar}] {percentage}% | {value}/{total} bytes',
        stream: output.progress,
        hideCursor: true,
      })
    : null;
  let drawing = false;
  const stopBar = () => {
    if (drawing) bar?.stop();
    drawing = false;
  };
  // A failure line ends the bar: lines and a bar redrawn in place do not mix.
  const importer = new WxrImporter(app, settings, (line) => {
    stopBar();
    output.err(`${line}\n`);
  });
  await importer.check();
  if (bar) {
    bar.start(size, 0);
    drawing = true;
  } else output.err(`Importing ${file} (${size} bytes)${settings.dryRun ? ', dry run: nothing is written' : ''}\n`);
  try {
    await importer.run(file, (bytes) => drawing && bar?.update(Math.min(bytes, size)));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`Cannot import "${file}": ${message(error)}`);
  } finally {
    stopBar();
  }
  const report = importer.report;
  const lines = [...report.itemLines(), '', ...report.countLines()];
  if (settings.dryRun) lines.push('Dry run: nothing was written.');
  output.out(lines.join('\n') + '\n');
  if (reportFile) {
    try {
      writeFileSync(reportFile, JSON.stringify(report.toJSON(file), null, 2) + '\n');
    } catch (error) {
      throw new CliError(`Cannot write the report "${reportFile}": ${message(error)}`);
    }
  }
  return importer.ok;
}
