import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Logger } from '@nestjs/common';
import sharp from 'sharp';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { LocalDiskStorage } from '../../src/resources/media/media-storage';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';

/** An image of noise (so that its compressed data is not trivial), as JPEG or PNG. */
function noisy(format: 'jpeg' | 'png', width = 800, height = 600): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    [format]()
    .toBuffer();
}

/** A PNG whose IHDR declares another size (its CRC made right again, so that only the size lies). */
function withPngSize(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  // Signature (8), IHDR length (4), "IHDR" at 12, width at 16, height at 20, CRC of type and data at 29.
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)) >>> 0, 29);
  return out;
}

/** A PNG whose first IDAT chunk's compressed data is scrambled, its CRC made right again. */
function withCorruptIdat(png: Buffer): Buffer {
  const out = Buffer.from(png);
  const type = out.indexOf('IDAT');
  const length = out.readUInt32BE(type - 4);
  for (let i = type + 4 + 16; i < type + 4 + Math.min(length, 400); i++) out[i] ^= 0x5a;
  out.writeUInt32BE(crc32(out.subarray(type, type + 4 + length)) >>> 0, type + 4 + length);
  return out;
}

/**
 * A lossless WebP of one pixel whose VP8L header declares `width` × `height`: a few dozen bytes that take seconds
 * to decode (every pixel of a one-colour image costs no bits).
 */
async function webpDeclaring(width: number, height: number): Promise<Buffer> {
  const one = await sharp({ create: { width: 1, height: 1, channels: 3, background: { r: 9, g: 9, b: 9 } } })
    .webp({ lossless: true })
    .toBuffer();
  const out = Buffer.from(one);
  // "VP8L", its chunk size (4), the signature byte 0x2f, then 14 bits of width - 1 and 14 bits of height - 1.
  const bits = out.indexOf('VP8L') + 9;
  const flags = out.readUInt32LE(bits) & ~((1 << 28) - 1);
  out.writeUInt32LE((flags | (width - 1) | ((height - 1) << 14)) >>> 0, bits);
  return out;
}

describe('media: malformed, oversized and long-named uploads', () => {
  let t: TestApp;
  let uploads: string;
  /** A storage failure to answer on the next write, if any. */
  let failNextPut: NodeJS.ErrnoException | null = null;
  const files = (): string[] => {
    const out: string[] = [];
    const walk = (dir: string, prefix: string) => {
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name.startsWith('.')) continue;
        if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
        else out.push(`${prefix}${entry.name}`);
      }
    };
    walk(uploads, '');
    return out.sort();
  };
  const attachments = () => t.dataSource.getRepository(PostEntity).countBy({ type: 'attachment' });
  const upload = (body: Buffer, name: string, type: string) =>
    t.http
      .post(`${API}/media`)
      .set('Authorization', t.users.author.authorization)
      .set('Content-Type', type)
      .set('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
      .send(body);

  beforeAll(async () => {
    uploads = mkdtempSync(join(tmpdir(), 'cms-uploads-'));
    const disk = new LocalDiskStorage(uploads);
    const storage = {
      put: async (path: string, data: Buffer | { path: string }, _mime: string) => {
        const failure = failNextPut;
        failNextPut = null;
        if (failure) throw failure;
        return disk.put(path, data);
      },
      exists: (path: string) => disk.exists(path),
      remove: (paths: readonly string[]) => disk.remove(paths),
    };
    t = await createTestApp('media_malformed', { cms: { uploadDir: uploads, mediaStorage: storage } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(uploads, { recursive: true, force: true });
  });

  /** Uploads a file that is an image by its header but cannot be decoded: kept, with its size, without sizes. */
  async function expectStoredWithoutSizes(
    body: Buffer,
    name: string,
    type: string,
    width: number,
    height: number,
  ): Promise<void> {
    const before = files();
    const res = await upload(body, name, type);
    expect([res.status, res.body.code]).toEqual([201, undefined]);
    expect(res.body.media_details).toMatchObject({ width, height, sizes: { full: { width, height } } });
    expect(Object.keys(res.body.media_details.sizes)).toEqual(['full']);
    // The original only: no size was written.
    expect(files().filter((f) => !before.includes(f))).toEqual([res.body.media_details.file]);
  }

  describe('images that cannot be decoded are stored without sizes (201), as WordPress does when it cannot make them', () => {
    it('a JPEG cut after 400 bytes', async () => {
      await expectStoredWithoutSizes((await noisy('jpeg')).subarray(0, 400), 'cut.jpg', 'image/jpeg', 800, 600);
    });

    it('a PNG whose header declares 1 × 1,000,000', async () => {
      await expectStoredWithoutSizes(
        withPngSize(await noisy('png'), 1, 1_000_000),
        'tall.png',
        'image/png',
        1,
        1_000_000,
      );
    });

    it('a PNG whose image data (IDAT) is corrupt', async () => {
      await expectStoredWithoutSizes(withCorruptIdat(await noisy('png')), 'corrupt.png', 'image/png', 800, 600);
    });

    it('a WebP declaring 16383 × 16383 (268 MP), over the pixel limit: its sizes are not attempted', async () => {
      const started = Date.now();
      await expectStoredWithoutSizes(await webpDeclaring(16383, 16383), 'huge.webp', 'image/webp', 16383, 16383);
      // Decoding it takes seconds; reading its header, milliseconds.
      expect(Date.now() - started).toBeLessThan(3000);
    });
  });

  it('refuses a file that starts like a WebM (EBML) and is junk after: 400 rest_upload_sideload_error, nothing stored', async () => {
    const before = files();
    const rows = await attachments();
    const junk = Buffer.concat([Buffer.from('1A45DFA3', 'hex'), Buffer.from('junk'.repeat(100))]);
    expectRestError(await upload(junk, 'clip.webm', 'video/webm'), 'rest_upload_sideload_error', 400);
    expect(files()).toEqual(before);
    expect(await attachments()).toBe(rows);
  });

  it('stores a WAV whose header lies about its data (201), with what could be read of it', async () => {
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(0x7fffffff, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(2, 22);
    header.writeUInt32LE(44100, 24);
    header.writeUInt32LE(44100 * 4, 28);
    header.writeUInt16LE(4, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36);
    header.writeUInt32LE(0x7ffffff0, 40);
    const res = await upload(Buffer.concat([header, Buffer.alloc(1000)]), 'liar.wav', 'audio/wav');
    expect([res.status, res.body.code]).toEqual([201, undefined]);
    expect(res.body.media_details).toMatchObject({ filesize: 1044 });
  });

  describe('file names over 255 bytes are shortened, keeping the extension and whole characters', () => {
    const bytes = (name: string) => Buffer.byteLength(name);

    it.each([
      ['260 × a', `${'a'.repeat(260)}.png`],
      ['130 × é (2 bytes each)', `${'é'.repeat(130)}.png`],
      ['70 × 😀 (4 bytes each)', `${'😀'.repeat(70)}.png`],
      ['e and a combining acute accent, 90 times', `${'e\u0301'.repeat(90)}.png`],
    ])('%s', async (_label, name) => {
      const before = files();
      const first = await upload(await noisy('png', 640, 480), name, 'image/png');
      expect([first.status, first.body.code]).toEqual([201, undefined]);
      const second = await upload(await noisy('png', 640, 480), name, 'image/png');
      expect([second.status, second.body.code]).toEqual([201, undefined]);
      const stored = files().filter((f) => !before.includes(f));
      // Each original and its sizes (thumbnail and medium): all on disk, every name within 255 bytes.
      expect(stored).toHaveLength(6);
      for (const file of stored) {
        const base = file.slice(file.lastIndexOf('/') + 1);
        expect(bytes(base)).toBeLessThanOrEqual(255);
        expect(base.endsWith('.png')).toBe(true);
        expect(base).not.toContain('\ufffd');
        // Whole characters, whole graphemes: no lone combining mark, no lone surrogate.
        expect(Buffer.from(base, 'utf8').toString('utf8')).toBe(base);
        expect(base).not.toMatch(/[\ud800-\udfff]/u);
      }
      const firstFile = first.body.media_details.file.split('/').pop();
      const secondFile = second.body.media_details.file.split('/').pop();
      expect(secondFile).toBe(firstFile.replace(/\.png$/, '-1.png'));
      // The start of the name, cut between characters as shown (no mark left without its letter).
      const stem = firstFile.slice(0, -'.png'.length);
      expect(name.startsWith(stem)).toBe(true);
      expect(name.slice(stem.length)).not.toMatch(/^\p{M}/u);
      // The title keeps the whole name.
      expect(first.body.title.raw).toBe(name.replace(/\.png$/, ''));
    });
  });

  it('answers a storage failure as what it is (500 rest_upload_sideload_error, logged), not as a database error, and keeps nothing', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const before = files();
      const rows = await attachments();
      failNextPut = Object.assign(new Error('EACCES: permission denied, copyfile'), { code: 'EACCES' });
      const res = await upload(await noisy('png', 100, 80), 'denied.png', 'image/png');
      expectRestError(res, 'rest_upload_sideload_error', 500);
      expect(res.body.message).toMatch(/could not be moved/);
      expect(logged.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(/EACCES/);
      expect(files()).toEqual(before);
      expect(await attachments()).toBe(rows);
    } finally {
      logged.mockRestore();
    }
  });

  it('picks another name when the one it picked was taken before the file was stored (EEXIST), and keeps no file behind', async () => {
    failNextPut = Object.assign(new Error('EEXIST: file already exists, copyfile'), { code: 'EEXIST' });
    const res = await upload(await noisy('png', 100, 80), 'raced.png', 'image/png');
    expect(res.status).toBe(201);
    expect(res.body.media_details.file).toMatch(/\/raced-1\.png$/);
    expect(files().filter((f) => f.includes('/raced'))).toEqual(expect.arrayContaining([res.body.media_details.file]));
    expect(files().some((f) => /\/raced\.png$/.test(f))).toBe(false);
  });

  it('stores eight uploads of the same name sent at once, each under its own name', async () => {
    const png = await noisy('png', 120, 90);
    const answers = await Promise.all(Array.from({ length: 8 }, () => upload(png, 'same.png', 'image/png')));
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(201));
    const stored = answers.map((res) => res.body.media_details.file as string);
    expect(new Set(stored).size).toBe(8);
    for (const file of stored) expect(files()).toContain(file);
  });
});
