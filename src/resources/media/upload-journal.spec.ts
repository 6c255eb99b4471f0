import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../core/database/data-source-options';
import { LocalDiskStorage } from './media-storage';
import { UPLOAD_JOURNAL_STALE_MS, UploadJournal } from './upload-journal';

describe('UploadJournal (in the database)', () => {
  let root: string;
  let ds: DataSource;
  let journal: UploadJournal;
  /** The pid of a process that has exited. */
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
  const table = 'wp_cms_upload_journal';

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'cms-journal-'));
    ds = new DataSource(buildDataSourceOptions({ databaseUrl: 'sqlite::memory:', tablePrefix: 'wp_' }));
    await ds.initialize();
    await ds.runMigrations();
    journal = new UploadJournal(ds, new LocalDiskStorage(root));
    mkdirSync(join(root, '2026', '01'), { recursive: true });
    for (const name of ['a.png', 'a-150x150.png', 'b.png']) writeFileSync(join(root, '2026', '01', name), 'x');
  });
  afterEach(async () => {
    await ds.destroy();
    rmSync(root, { recursive: true, force: true });
  });

  /** An entry left by a process that was killed between the files and the row. */
  const leftBy = (owner: string, main: string, files: string[], age = 0) =>
    ds.query(`INSERT INTO ${table} (main, files, owner, created_at) VALUES (?, ?, ?, ?)`, [
      main,
      JSON.stringify(files),
      owner,
      Date.now() - age,
    ]);
  const file = (name: string) => existsSync(join(root, '2026', '01', name));
  const entries = async () => Number((await ds.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);

  it('notes files while their row is written, and forgets them once settled', async () => {
    const settled = await journal.begin('2026/01/a.png', ['2026/01/a.png']);
    expect(await ds.query(`SELECT main, files, owner FROM ${table}`)).toEqual([
      { main: '2026/01/a.png', files: '["2026/01/a.png"]', owner: journal.owner },
    ]);
    await settled();
    expect(await entries()).toBe(0);
  });

  it('removes at once the files of a process of this host that died before their row was written', async () => {
    await leftBy(`${hostname()}:${deadPid}:00`, '2026/01/a.png', ['2026/01/a.png', '2026/01/a-150x150.png']);
    expect(await journal.recover(async () => false)).toEqual({ entries: 1, removed: 2 });
    expect([file('a.png'), file('a-150x150.png'), file('b.png')]).toEqual([false, false, true]);
    expect(await entries()).toBe(0);
  });

  it('keeps the files a row owns (the row committed before the process died), and forgets the entry', async () => {
    await leftBy(`${hostname()}:${deadPid}:00`, '2026/01/a.png', ['2026/01/a.png', '2026/01/a-150x150.png']);
    const asked: string[] = [];
    expect(await journal.recover(async (main) => (asked.push(main), true))).toEqual({ entries: 1, removed: 0 });
    expect(asked).toEqual(['2026/01/a.png']);
    expect([file('a.png'), file('a-150x150.png')]).toEqual([true, true]);
    expect(await entries()).toBe(0);
  });

  it("leaves the recent entries of live processes and of other hosts' processes alone, and settles other hosts' stale ones", async () => {
    await leftBy(`${hostname()}:${process.ppid}:00`, '2026/01/a.png', ['2026/01/a.png']);
    await leftBy('another-host:1234:00', '2026/01/b.png', ['2026/01/b.png']);
    expect(await journal.recover(async () => false)).toEqual({ entries: 0, removed: 0 });
    expect([file('a.png'), file('b.png')]).toEqual([true, true]);
    expect(await entries()).toBe(2);
    // Later: the other host's upload could not last that long; its process is gone (or lost its database).
    expect(await journal.recover(async () => false, Date.now() + UPLOAD_JOURNAL_STALE_MS + 1000)).toEqual({
      entries: 2,
      removed: 2,
    });
    expect([file('a.png'), file('b.png')]).toEqual([false, false]);
  });

  it('settles an entry once when two nodes settle at the same time', async () => {
    await leftBy('another-host:1234:00', '2026/01/a.png', ['2026/01/a.png'], UPLOAD_JOURNAL_STALE_MS + 1000);
    const other = new UploadJournal(ds, new LocalDiskStorage(root));
    const reports = await Promise.all([journal.recover(async () => false), other.recover(async () => false)]);
    expect(reports.map((r) => r.entries).sort()).toEqual([0, 1]);
    expect(file('a.png')).toBe(false);
  });

  it('keeps an entry whose files could not be removed, for the next settling', async () => {
    await leftBy('another-host:1234:00', '2026/01/a.png', ['2026/01/a.png'], UPLOAD_JOURNAL_STALE_MS + 1000);
    const failing = new UploadJournal(ds, {
      put: async () => undefined,
      exists: async () => false,
      remove: async () => Promise.reject(new Error('bucket unreachable')),
    });
    await expect(failing.recover(async () => false)).rejects.toThrow('bucket unreachable');
    expect(await entries()).toBe(1);
    expect((await journal.recover(async () => false)).removed).toBe(1);
  });
});
