import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  DEFAULT_DECODE_LIMITS,
  DEFAULT_IMAGE_SIZES,
  generateSizes,
  readAudioVideoMeta,
  readImageMeta,
} from './image-processor';

/** A lossless WebP of one pixel whose header declares `width` × `height`: tiny, and seconds to decode. */
async function webpDeclaring(width: number, height: number): Promise<Buffer> {
  const out = Buffer.from(
    await sharp({ create: { width: 1, height: 1, channels: 3, background: { r: 9, g: 9, b: 9 } } })
      .webp({ lossless: true })
      .toBuffer(),
  );
  const bits = out.indexOf('VP8L') + 9;
  out.writeUInt32LE(((out.readUInt32LE(bits) & ~((1 << 28) - 1)) | (width - 1) | ((height - 1) << 14)) >>> 0, bits);
  return out;
}

/** `count` MPEG-1 layer III frames (128 kb/s, 44.1 kHz, 417 bytes each) of silence. */
function mp3Frames(count: number): Buffer {
  const frame = Buffer.alloc(417);
  frame.writeUInt32BE(0xfffb9064);
  return Buffer.concat(Array.from({ length: count }, () => frame));
}

describe('image processing bounds', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'cms-images-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes no sizes of an image over the pixel limit, without decoding it', async () => {
    const webp = await webpDeclaring(16383, 16383);
    const started = Date.now();
    const made = await generateSizes(webp, 'huge', 'webp', 'image/webp', 16383, 16383, DEFAULT_IMAGE_SIZES);
    expect(made.sizes.size).toBe(0);
    expect(made.problem).toMatch(/over the limit of 50000000 pixels/);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('stops making sizes once the time is spent', async () => {
    const webp = await webpDeclaring(16383, 16383);
    const started = Date.now();
    // Unbounded in pixels, one second in time: decoding it takes several.
    const made = await generateSizes(webp, 'huge', 'webp', 'image/webp', 16383, 16383, DEFAULT_IMAGE_SIZES, {
      maxPixels: 0x3fff ** 2,
      seconds: 1,
    });
    expect(made.sizes.size).toBeLessThan(DEFAULT_IMAGE_SIZES.length);
    expect(made.problem).toMatch(/timeout|took over/);
    // sharp checks its timeout as it goes: a second or two past it.
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('makes the sizes of an image within the limits', async () => {
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .png()
      .toBuffer();
    const made = await generateSizes(
      png,
      'red',
      'png',
      'image/png',
      640,
      480,
      DEFAULT_IMAGE_SIZES,
      DEFAULT_DECODE_LIMITS,
    );
    expect([...made.sizes.values()].map((s) => s.file)).toEqual(['red-150x150.png', 'red-300x225.png']);
    expect(made.problem).toBeNull();
  });

  it('reads EXIF whose field declares more values than the data holds quickly, keeping the other fields', async () => {
    const jpeg = Buffer.from(
      await sharp({ create: { width: 64, height: 64, channels: 3, background: 'red' } })
        .jpeg()
        .withExif({ IFD0: { ImageDescription: 'hello', Copyright: 'someone' } })
        .toBuffer(),
    );
    // XResolution (0x011a, RATIONAL, little-endian): 16.7 million rationals declared.
    const entry = jpeg.indexOf(Buffer.from([0x1a, 0x01, 0x05, 0x00]));
    expect(entry).toBeGreaterThan(0);
    jpeg.writeUInt32LE(0x00ff0001, entry + 4);
    const file = join(dir, 'lying-exif.jpg');
    writeFileSync(file, jpeg);
    const started = Date.now();
    const meta = await readImageMeta(file);
    expect(Date.now() - started).toBeLessThan(500);
    expect([meta.title, meta.copyright]).toEqual(['hello', 'someone']);
  });

  it('reads the length of an MP3, and gives up on it (nothing) once the time is spent', async () => {
    const file = join(dir, 'silence.mp3');
    writeFileSync(file, mp3Frames(24000));
    const meta = await readAudioVideoMeta(file, 'audio/mpeg');
    expect(meta).toMatchObject({ length: 627, fileformat: 'mpeg', sample_rate: 44100 });
    const started = Date.now();
    expect(await readAudioVideoMeta(file, 'audio/mpeg', undefined, 0.001)).toEqual({});
    expect(Date.now() - started).toBeLessThan(500);
  });
});
