import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDiskStorage } from './media-storage';
import { UploadJournal } from './upload-journal';

describe('UploadJournal', () => {
  let root: string;
  let journalDir: string;
  let journal: UploadJournal;
  /** The pid of a process that has exited. */
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cms-journal-'));
    journalDir = join(root, '.cms-pending');
    journal = new UploadJournal(journalDir, new LocalDiskStorage(root));
    mkdirSync(join(root, '2026', '01'), { recursive: true });
    for (const name of ['a.png', 'a-150x150.png', 'b.png']) writeFileSync(join(root, '2026', '01', name), 'x');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A note left by a process that was killed between the files and the row. */
  const leftBy = (pid: number, main: string, files: string[], host = hostname()) =>
    writeFileSync(join(journalDir, `${pid}-${main.replace(/\W/g, '_')}.json`), JSON.stringify({ pid, host, main, files }));
  const file = (name: string) => existsSync(join(root, '2026', '01', name));

  it('notes files while their row is written, and forgets them once settled', async () => {
    const settled = await journal.begin('2026/01/a.png', ['2026/01/a.png']);
    expect(readdirSync(journalDir)).toHaveLength(1);
    await settled();
    expect(readdirSync(journalDir)).toHaveLength(0);
  });

  it('removes the files of a process that died before their row was written, and its note', async () => {
    mkdirSync(journalDir);
    leftBy(deadPid, '2026/01/a.png', ['2026/01/a.png', '2026/01/a-150x150.png']);
    expect(await journal.recover(async () => false)).toBe(2);
    expect([file('a.png'), file('a-150x150.png'), file('b.png')]).toEqual([false, false, true]);
    expect(readdirSync(journalDir)).toHaveLength(0);
  });

  it('keeps the files a row owns (the row committed before the process died), and forgets the note', async () => {
    mkdirSync(journalDir);
    leftBy(deadPid, '2026/01/a.png', ['2026/01/a.png', '2026/01/a-150x150.png']);
    const asked: string[] = [];
    expect(await journal.recover(async (main) => (asked.push(main), true))).toBe(0);
    expect(asked).toEqual(['2026/01/a.png']);
    expect([file('a.png'), file('a-150x150.png')]).toEqual([true, true]);
    expect(readdirSync(journalDir)).toHaveLength(0);
  });

  it("leaves the notes of live processes and of other hosts' processes alone", async () => {
    mkdirSync(journalDir);
    leftBy(process.ppid, '2026/01/a.png', ['2026/01/a.png']);
    leftBy(deadPid, '2026/01/b.png', ['2026/01/b.png'], 'another-host');
    expect(await journal.recover(async () => false)).toBe(0);
    expect([file('a.png'), file('b.png')]).toEqual([true, true]);
    expect(readdirSync(journalDir)).toHaveLength(2);
  });
});
