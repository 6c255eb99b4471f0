/**
 * The fuzzer's media corpus: files an upload may carry that are not what they say — cut short, corrupt inside, with
 * headers that lie about dimensions or lengths, decompression bombs, names longer than a file system takes. Built
 * here byte by byte, the same bytes every time (no encoder, so that the requests of a seed stay synchronous and
 * reproducible): each from a valid file of its format made first (the JPEG, PNG and GIF decode; see
 * test/e2e/fuzz-media.e2e-spec.ts), then broken in one place.
 */
import { deflateRawSync, deflateSync, constants as zlibConstants } from 'node:zlib';

/** One file of the corpus: what it is called, the type the client declares, its bytes. */
export interface MediaCase {
  label: string;
  filename: string;
  type: string;
  bytes: Buffer;
}

// ---------------------------------------------------------------------------------------------------------------
// PNG
// ---------------------------------------------------------------------------------------------------------------

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

/** A PNG chunk: length, type, data, CRC (of type and data). `length` lies when given. */
function pngChunk(type: string, data: Buffer, length = data.length): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function ihdr(width: number, height: number, colourType = 2): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = 8; // bit depth
  data[9] = colourType; // 2: RGB
  return data; // compression, filter, interlace: 0
}

/** The scanlines of an RGB image of one colour: a filter byte (none) and the pixels, per row. */
function rgbRows(width: number, rows: number, rgb: [number, number, number]): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  return Buffer.concat(Array.from({ length: rows }, () => row));
}

/** A valid RGB PNG of one colour. */
export function solidPng(width: number, height: number, rgb: [number, number, number] = [200, 40, 90]): Buffer {
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr(width, height)),
    pngChunk('IDAT', deflateSync(rgbRows(width, height, rgb))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Adler-32 of the concatenation of two blocks, from theirs (zlib's adler32_combine). */
function adlerCombine(adler1: number, adler2: number, length2: number): number {
  const BASE = 65521;
  const rem = length2 % BASE;
  let sum1 = adler1 & 0xffff;
  let sum2 = (rem * sum1) % BASE;
  sum1 += (adler2 & 0xffff) + BASE - 1;
  sum2 += ((adler1 >>> 16) & 0xffff) + ((adler2 >>> 16) & 0xffff) + BASE - rem;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum2 >= BASE << 1) sum2 -= BASE << 1;
  if (sum2 >= BASE) sum2 -= BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; i++) {
    a = (a + data[i]) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * A valid PNG of `size` × `size` pixels of one colour, a compression bomb: 768 MB of pixels at 16,000², in about
 * 750 KB. The zlib stream is one block of rows compressed once and repeated (each piece ends on a full flush, so it
 * stands alone), closed by a final empty block and the Adler-32 of all the rows; nothing that size is ever held.
 */
export function bombPng(size: number, rowsPerBlock = 100): Buffer {
  if (size % rowsPerBlock) throw new Error('size must be a multiple of rowsPerBlock');
  const rows = rgbRows(size, rowsPerBlock, [20, 120, 220]);
  const piece = deflateRawSync(rows, { level: 9, finishFlush: zlibConstants.Z_FULL_FLUSH });
  const blocks = size / rowsPerBlock;
  const pieceAdler = adler32(rows);
  let adler = 1;
  for (let i = 0; i < blocks; i++) adler = adlerCombine(adler, pieceAdler, rows.length);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler, 0);
  const stream = Buffer.concat([
    Buffer.from([0x78, 0xda]),
    ...Array.from({ length: blocks }, () => piece),
    deflateRawSync(Buffer.alloc(0)),
    trailer,
  ]);
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr(size, size)),
    pngChunk('IDAT', stream),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 1 × 1 PNG whose IHDR says 1 × 1,000,000 (its CRC made to match): the data holds one row of the million. */
function tallPng(): Buffer {
  const real = solidPng(1, 1);
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr(1, 1_000_000)), real.subarray(8 + 25)]);
}

/** A 64 × 64 PNG whose IDAT is corrupt in the middle of its zlib stream, its CRC made to match. */
function corruptIdatPng(): Buffer {
  const rows = Buffer.alloc(64 * (1 + 64 * 3));
  for (let i = 0; i < rows.length; i++) rows[i] = i % (1 + 64 * 3) === 0 ? 0 : (i * 7) & 0xff;
  const idat = deflateSync(rows, { level: 1 });
  for (let i = Math.floor(idat.length / 2); i < Math.floor(idat.length / 2) + 16; i++) idat[i] ^= 0x5a;
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr(64, 64)),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 1 × 1 PNG whose IDAT length field says 2 GiB − 16, with its few bytes of data. */
function lyingLengthPng(): Buffer {
  const real = solidPng(1, 1);
  const idat = deflateSync(rgbRows(1, 1, [1, 2, 3]));
  return Buffer.concat([
    real.subarray(0, 8 + 25),
    pngChunk('IDAT', idat, 0x7ffffff0),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---------------------------------------------------------------------------------------------------------------
// JPEG: a baseline greyscale JPEG of one grey, written by hand
// ---------------------------------------------------------------------------------------------------------------

/** JPEG's standard luminance Huffman tables (ITU T.81, K.3): code counts per length, then the values. */
const DC_COUNTS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_COUNTS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
const AC_VALUES = Buffer.from(
  '01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa',
  'hex',
);

function jpegSegment(marker: number, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xff00 | marker, 0);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/**
 * A valid baseline JPEG, `width` × `height` of one grey (multiples of 8), one component. Each 8 × 8 block is coded as a
 * DC difference of 0 (code `00`) and an end of block (code `1010`); `declared` makes the frame header lie about the
 * size instead.
 */
export function greyJpeg(width: number, height: number, declared = { width, height }): Buffer {
  const sof = Buffer.alloc(9);
  sof[0] = 8;
  sof.writeUInt16BE(declared.height, 1);
  sof.writeUInt16BE(declared.width, 3);
  sof[5] = 1; // components
  sof[6] = 1; // id
  sof[7] = 0x11; // sampling 1 × 1
  sof[8] = 0; // quantisation table 0
  const blocks = (width / 8) * (height / 8);
  const bits = '001010'.repeat(blocks);
  const padded = bits + '1'.repeat((8 - (bits.length % 8)) % 8);
  const scan = Buffer.from(
    Array.from({ length: padded.length / 8 }, (_, i) => parseInt(padded.slice(i * 8, i * 8 + 8), 2)),
  );
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jpegSegment(0xe0, Buffer.from('4a46494600010100000100010000', 'hex')), // JFIF 1.1, no thumbnail
    jpegSegment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    jpegSegment(0xc0, sof),
    jpegSegment(0xc4, Buffer.from([0x00, ...DC_COUNTS, ...DC_VALUES])),
    jpegSegment(0xc4, Buffer.concat([Buffer.from([0x10, ...AC_COUNTS]), AC_VALUES])),
    jpegSegment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}

// ---------------------------------------------------------------------------------------------------------------
// GIF, WebP, WebM, MP3, MP4
// ---------------------------------------------------------------------------------------------------------------

/** A valid 1 × 1 GIF89a, its logical screen `screen` × `screen` (1: true; more: a lie). */
export function gif(screen = 1): Buffer {
  const head = Buffer.from('GIF89a', 'latin1');
  const lsd = Buffer.alloc(7);
  lsd.writeUInt16LE(screen, 0);
  lsd.writeUInt16LE(screen, 2);
  lsd[4] = 0x80; // a global colour table of 2 entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const image = Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b]);
  return Buffer.concat([head, lsd, palette, image]);
}

function riff(form: string, chunks: Buffer[]): Buffer {
  const body = Buffer.concat([Buffer.from(form, 'latin1'), ...chunks]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

function riffChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A WebP of a few bytes whose lossless (VP8L) header declares 16383 × 16383, then stops. */
function hugeWebpLossless(): Buffer {
  // Signature 0x2f, then 14 bits width − 1, 14 bits height − 1, alpha, 3 bits version, little-endian.
  const bits = (16382 | (16382 << 14)) >>> 0;
  const header = Buffer.alloc(5);
  header[0] = 0x2f;
  header.writeUInt32LE(bits, 1);
  return riff('WEBP', [riffChunk('VP8L', Buffer.concat([header, Buffer.from([0x00, 0x11, 0x22, 0x33])]))]);
}

/** A WebP whose extended header (VP8X) declares a 16383 × 16383 canvas, with no image after it. */
function hugeWebpCanvas(): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x.writeUIntLE(16382, 4, 3);
  vp8x.writeUIntLE(16382, 7, 3);
  return riff('WEBP', [riffChunk('VP8X', vp8x)]);
}

/** An MP3 cut short: an ID3v2 tag that says it is 1 MB long, a few frames' headers, then nothing. */
function truncatedMp3(): Buffer {
  const id3 = Buffer.from([0x49, 0x44, 0x33, 0x03, 0x00, 0x00, 0x00, 0x3f, 0x7f, 0x7f]); // syncsafe size ≈ 1 MB
  const frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(60, 0x55)]); // MPEG-1 layer III, 128 kb/s
  return Buffer.concat([id3, Buffer.from('TIT2\0\0\0\x05\0\0\x03cut', 'latin1'), frame, frame, frame.subarray(0, 20)]);
}

/** An MP4 cut short: `ftyp`, then a `moov` that says it holds 1 MB, and a `mvhd` cut in its middle. */
function truncatedMp4(): Buffer {
  const box = (type: string, size: number, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(size, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, data]);
  };
  const ftyp = box('ftyp', 24, Buffer.from('isom\0\0\x02\0isomiso2', 'latin1'));
  const mvhd = box('mvhd', 108, Buffer.alloc(20));
  return Buffer.concat([ftyp, box('moov', 1_000_000, mvhd)]);
}

/** An MP4 whose first box says it is 2^64 − 1 bytes long (a 64-bit size). */
function hugeBoxMp4(): Buffer {
  const head = Buffer.alloc(16);
  head.writeUInt32BE(1, 0);
  head.write('ftyp', 4, 'latin1');
  head.writeBigUInt64BE(0xffffffffffffffffn, 8);
  return Buffer.concat([head, Buffer.from('isom\0\0\x02\0', 'latin1')]);
}

// ---------------------------------------------------------------------------------------------------------------
// The corpus
// ---------------------------------------------------------------------------------------------------------------

let corpus: MediaCase[] | undefined;

/** The corpus, built once (about 1 MB; the bomb is most of it). */
export function mediaCorpus(): MediaCase[] {
  if (corpus) return corpus;
  const jpeg = greyJpeg(256, 256);
  const png = solidPng(16, 16);
  const webm = Buffer.concat([
    Buffer.from('1a45dfa3', 'hex'),
    Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 37 + 11) & 0xff)),
  ]);
  corpus = [
    { label: 'JPEG cut at 400 bytes', filename: 'cut.jpg', type: 'image/jpeg', bytes: jpeg.subarray(0, 400) },
    {
      label: 'JPEG whose frame header says 65500 × 65500',
      filename: 'wide.jpg',
      type: 'image/jpeg',
      bytes: greyJpeg(64, 64, { width: 65500, height: 65500 }),
    },
    {
      label: 'PNG whose IHDR says 1 × 1,000,000 (CRC fixed)',
      filename: 'tall.png',
      type: 'image/png',
      bytes: tallPng(),
    },
    {
      label: 'PNG with a corrupt IDAT (CRC fixed)',
      filename: 'corrupt.png',
      type: 'image/png',
      bytes: corruptIdatPng(),
    },
    { label: 'PNG whose IDAT length says 2 GiB', filename: 'long.png', type: 'image/png', bytes: lyingLengthPng() },
    { label: 'PNG cut in its IDAT', filename: 'cut.png', type: 'image/png', bytes: solidPng(64, 64).subarray(0, 60) },
    { label: 'PNG bomb: 16000 × 16000 of one colour', filename: 'bomb.png', type: 'image/png', bytes: bombPng(16000) },
    { label: 'EBML magic and junk, named .webm', filename: 'clip.webm', type: 'video/webm', bytes: webm },
    {
      label: 'WebP (lossless) declaring 16383 × 16383',
      filename: 'huge.webp',
      type: 'image/webp',
      bytes: hugeWebpLossless(),
    },
    {
      label: 'WebP canvas (VP8X) of 16383 × 16383 and no image',
      filename: 'canvas.webp',
      type: 'image/webp',
      bytes: hugeWebpCanvas(),
    },
    {
      label: 'GIF whose logical screen says 65535 × 65535',
      filename: 'screen.gif',
      type: 'image/gif',
      bytes: gif(65535),
    },
    { label: 'MP3 cut short', filename: 'cut.mp3', type: 'audio/mpeg', bytes: truncatedMp3() },
    { label: 'MP4 cut short', filename: 'cut.mp4', type: 'video/mp4', bytes: truncatedMp4() },
    { label: 'MP4 box of 2^64 − 1 bytes', filename: 'huge.mp4', type: 'video/mp4', bytes: hugeBoxMp4() },
    { label: 'empty file named .png', filename: 'empty.png', type: 'image/png', bytes: Buffer.alloc(0) },
    { label: 'text named .png', filename: 'text.png', type: 'image/png', bytes: Buffer.from('not a picture at all\n') },
    { label: 'PNG declared as a JPEG', filename: 'declared.jpg', type: 'image/jpeg', bytes: png },
    { label: 'name of 260 × a + .png', filename: `${'a'.repeat(260)}.png`, type: 'image/png', bytes: png },
    { label: 'name of 130 × é + .png', filename: `${'é'.repeat(130)}.png`, type: 'image/png', bytes: png },
  ];
  return corpus;
}

/** `Content-Disposition` of a raw upload: the name plain when it is ASCII, else as RFC 8187 `filename*`. */
export function rawDisposition(filename: string): string {
  return /^[\x20-\x7e]*$/.test(filename)
    ? `attachment; filename="${filename.replace(/["\\]/g, '')}"`
    : `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
