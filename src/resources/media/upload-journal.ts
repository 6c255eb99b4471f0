import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { MediaStorage } from './media-storage';

/** One write of files and a row that must happen together: the files, and the attachment file that owns them. */
interface Entry {
  pid: number;
  host: string;
  /** The attachment's `_wp_attached_file`: while a row holds it, the files are its own. */
  main: string;
  files: string[];
}

/**
 * Notes, in `<uploadDir>/.cms-pending/`, the files of an upload or an attachment's deletion while its row is written:
 * an upload stores its files before its row commits, a deletion removes them after. A process killed in between
 * (kill -9, a crash, the power) leaves files no row points at; the next process of the same host to start finds the
 * note of a process that is gone and removes the files unless a row owns them.
 */
export class UploadJournal {
  private readonly host = hostname();

  constructor(
    private readonly dir: string,
    private readonly storage: MediaStorage,
  ) {}

  /** Notes the files before they are stored or their row deleted; returns what forgets them once all is done. */
  async begin(main: string, files: string[]): Promise<() => Promise<void>> {
    await fs.mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, `${randomUUID()}.json`);
    const entry: Entry = { pid: process.pid, host: this.host, main, files };
    await fs.writeFile(file, JSON.stringify(entry));
    return () => fs.rm(file, { force: true });
  }

  /**
   * Settles the notes of processes of this host that are gone: their files are removed unless `owned(main)` says a
   * row holds them. Answers how many files were removed.
   */
  async recover(owned: (main: string) => Promise<boolean>): Promise<number> {
    let names: string[];
    try {
      names = (await fs.readdir(this.dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const file = path.join(this.dir, name);
      let entry: Entry;
      try {
        entry = JSON.parse(await fs.readFile(file, 'utf8')) as Entry;
      } catch {
        // Cut short while it was written: nothing was stored yet.
        await fs.rm(file, { force: true });
        continue;
      }
      if (entry.host !== this.host || alive(entry.pid)) continue;
      if (!(await owned(entry.main))) {
        await this.storage.remove(entry.files);
        removed += entry.files.length;
      }
      await fs.rm(file, { force: true });
    }
    return removed;
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
