import { INestApplicationContext } from '@nestjs/common';
import { SingleBar } from 'cli-progress';
import { statSync } from 'node:fs';
import type { CliOutput } from './admin-commands';
import { CliError } from './command-line';
import { WxrImporter } from './wxr-import';

const message = (error: unknown) => (error as Error)?.message ?? String(error);

/**
 * `import <file>`: runs the importer with a progress bar on a terminal (stderr), plain lines otherwise, and prints
 * the summary on stdout. Returns whether nothing failed.
 */
export async function runImport(app: INestApplicationContext, file: string, output: CliOutput): Promise<boolean> {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch {
    throw new CliError(`Cannot read "${file}": no such file.`);
  }
  const tty = Boolean(process.stderr.isTTY);
  const bar = tty
    ? new SingleBar({
        format: 'Importing [{bar}] {percentage}% | {value}/{total} bytes',
        stream: process.stderr,
        hideCursor: true,
      })
    : null;
  let drawing = false;
  const stopBar = () => {
    if (drawing) bar?.stop();
    drawing = false;
  };
  // A failure line ends the bar: lines and a bar redrawn in place do not mix.
  const importer = new WxrImporter(app, (line) => {
    stopBar();
    output.err(`${line}\n`);
  });
  if (bar) {
    bar.start(size, 0);
    drawing = true;
  } else output.err(`Importing ${file} (${size} bytes)\n`);
  try {
    await importer.run(file, (bytes) => drawing && bar?.update(Math.min(bytes, size)));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`Cannot import "${file}": ${message(error)}`);
  } finally {
    stopBar();
  }
  output.out(importer.summary().join('\n') + '\n');
  return importer.ok;
}
