import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestS3, TestS3 } from '../../../test/utils/s3-server';
import { S3MediaStorage, SINGLE_PUT_BYTES } from './s3-storage';

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString();
}

describe('S3MediaStorage against a real S3 API (s3rver)', () => {
  let s3: TestS3;
  let storage: S3MediaStorage;
  let dir: string;

  beforeAll(async () => {
    s3 = await startTestS3();
    storage = new S3MediaStorage(s3.options('site-a'));
    dir = mkdtempSync(join(tmpdir(), 'cms-s3-spec-'));
  });
  afterAll(async () => {
    storage.close();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores from memory and from a file, under the prefix, and reads them back', async () => {
    await storage.put('2026/11/a.txt', Buffer.from('from memory'), 'text/plain');
    const file = join(dir, 'upload.tmp');
    writeFileSync(file, 'from a file');
    await storage.put('2026/11/b.txt', { path: file }, 'text/plain');
    expect(await storage.list()).toEqual(['2026/11/a.txt', '2026/11/b.txt']);
    expect(storage.key('2026/11/a.txt')).toBe('site-a/2026/11/a.txt');
    expect(await text(storage.read('2026/11/b.txt'))).toBe('from a file');
    const opened = await storage.open('2026/11/a.txt');
    expect({ size: opened?.size, type: opened?.contentType }).toEqual({ size: 11, type: 'text/plain' });
    expect(await text(opened!.body)).toBe('from memory');
    expect(await storage.open('2026/11/missing.txt')).toBeNull();
  });

  it('never replaces a stored file: a taken name is EEXIST', async () => {
    await storage.put('2026/11/same.txt', Buffer.from('first'), 'text/plain');
    await expect(storage.put('2026/11/same.txt', Buffer.from('second'), 'text/plain')).rejects.toMatchObject({
      code: 'EEXIST',
    });
    expect(await text(storage.read('2026/11/same.txt'))).toBe('first');
  });

  it('tells a free name from a stored one', async () => {
    expect(await storage.exists('2026/11/a.txt')).toBe(true);
    expect(await storage.exists('2026/11/nothing.txt')).toBe(false);
  });

  it('sends a large file in parts', async () => {
    const file = join(dir, 'large.bin');
    writeFileSync(file, Buffer.alloc(SINGLE_PUT_BYTES + 1024 * 1024, 7));
    await storage.put('2026/11/large.bin', { path: file }, 'application/octet-stream');
    const opened = await storage.open('2026/11/large.bin');
    expect(opened?.size).toBe(SINGLE_PUT_BYTES + 1024 * 1024);
    opened?.body.destroy();
  });

  it('removes files, a missing one being no error', async () => {
    await storage.remove(['2026/11/a.txt', '2026/11/b.txt', '2026/11/never-stored.txt']);
    expect(await storage.exists('2026/11/a.txt')).toBe(false);
    expect(await storage.exists('2026/11/b.txt')).toBe(false);
  });

  it('refuses a path outside the uploads', async () => {
    await expect(storage.put('../escape.txt', Buffer.from('x'), 'text/plain')).rejects.toThrow(/outside the uploads/);
  });

  it('fails, rather than answering "free", when the server cannot be reached', async () => {
    const away = new S3MediaStorage({ ...s3.options(), endpoint: 'http://127.0.0.1:9' });
    await expect(away.exists('2026/11/a.txt')).rejects.toThrow();
    away.close();
  });
});
