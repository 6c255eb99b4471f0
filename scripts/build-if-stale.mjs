// `npm start`'s prestart: builds (`nest build`) only when the build is missing or older than what it is built from
// (a file under src/, the tsconfig files, nest-cli.json or package.json), so that a built checkout starts in
// seconds. `--force` builds anyway. Exits with the build's exit code; SIGTERM and SIGINT stop the build.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const output = join(root, 'dist', 'main.js');
const inputs = ['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package.json'].map((f) => join(root, f));

/** The newest modification time (ms) of the files under a folder, its files' and its subfolders'. */
function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestUnder(path));
    else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Why a build is needed, or `null` when the build is up to date. */
function staleness() {
  if (process.argv.includes('--force')) return 'asked for (--force)';
  if (!existsSync(output)) return 'no build yet (dist/main.js)';
  const built = statSync(output).mtimeMs;
  const sources = Math.max(
    newestUnder(join(root, 'src')),
    ...inputs.filter(existsSync).map((f) => statSync(f).mtimeMs),
  );
  return sources > built ? 'sources changed since the last build' : null;
}

const reason = staleness();
if (!reason) {
  console.error('Build up to date (dist/ is newer than src/): not rebuilding.');
  process.exit(0);
}
console.error(`Building: ${reason}.`);
const nest = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'nest.cmd' : 'nest');
const started = new Date();
const build = spawn(nest, ['build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
// SIGTERM or SIGINT while building (npm passes them on) stop the build too, rather than leave it running alone.
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => build.kill(signal));
build.on('exit', (code, signal) => {
  if (code === 0 && existsSync(output)) {
    // The build is as new as its start: a source saved while it ran is newer, and builds again next time.
    utimesSync(output, started, started);
  }
  process.exit(code ?? (signal ? 1 : 0));
});
