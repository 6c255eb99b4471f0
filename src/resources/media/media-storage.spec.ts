import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDiskStorage } from './media-storage';

describe('LocalDiskStorage', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'cms-storage-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('says a missing file is free, and answers any other failure as the error it is (a name too long is not "free")', async () => {
    const disk = new LocalDiskStorage(root);
    await disk.put('2026/01/a.png', Buffer.from('x'));
    expect(await disk.exists('2026/01/a.png')).toBe(true);
    expect(await disk.exists('2026/01/b.png')).toBe(false);
    await expect(disk.exists(`2026/01/${'a'.repeat(300)}.png`)).rejects.toMatchObject({ code: 'ENAMETOOLONG' });
  });
});
