import { createReadStream } from 'node:fs';
import exifr, { Exifr } from 'exifr';
import type { default as SharpConstructor, Sharp } from 'sharp';
import { textOf } from '../../core/formatting/php-serialize';

/**
 * Bounds on decoding an uploaded image to make its sizes. An image's header says how large it is, and a few bytes can
 * declare a huge one (a 38-byte WebP of 16383 × 16383 takes seconds to decode; a 16000² PNG 157 MB of memory), so the
 * header is read first and the image decoded only within these bounds: larger images and images that fail or take
 * too long are stored without sizes, as WordPress stores an image it cannot make sizes of.
 */
export interface DecodeLimits {
  /** The largest image (width × height) decoded to make sizes; larger ones get none. */
  maxPixels: number;
  /** Seconds the sizes of one image may take together; sizes not made by then are skipped. */
  seconds: number;
}

/** 50 megapixels (an 8660 × 5773 photo), and 10 seconds for all the sizes of an image. */
export const DEFAULT_DECODE_LIMITS: Readonly<DecodeLimits> = { maxPixels: 50_000_000, seconds: 10 };

/** Seconds reading an audio or video file's metadata may take (the whole file is read for its duration). */
export const AUDIO_VIDEO_META_SECONDS = 10;

let sharpModule: typeof SharpConstructor | undefined;

/**
 * sharp (libvips), loaded on the first image (it takes a while to load, and most CLI commands never need it) and set
 * up then, once per process: no operation cache (its default keeps up to 50 MB of decoded images and 20 open files,
 * among them the temporary files of uploads), and one libvips thread per image, the uploads running side by side on
 * libuv's pool instead (`VIPS_CONCURRENCY` set in the environment wins). Both are process-wide: they apply to a host
 * application's own use of sharp too.
 */
function sharp(...args: Parameters<typeof SharpConstructor>): Sharp {
  if (!sharpModule) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    sharpModule = require('sharp') as typeof SharpConstructor;
    sharpModule.cache(false);
    if (!process.env.VIPS_CONCURRENCY) sharpModule.concurrency(1);
  }
  return sharpModule(...args);
}

/** A registered image size (`add_image_size()`): a bounding box (0: unbounded) and whether it is cropped to it. */
export interface ImageSize {
  name: string;
  width: number;
  height: number;
  crop: boolean;
}

/** WordPress's default sizes. */
export const DEFAULT_IMAGE_SIZES: readonly ImageSize[] = [
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'medium_large', width: 768, height: 0, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false },
];

/** `image_meta` of `_wp_attachment_metadata`, as `wp_read_image_metadata()` fills it (numbers as strings). */
export interface ImageMeta {
  aperture: string;
  credit: string;
  camera: string;
  caption: string;
  created_timestamp: string;
  copyright: string;
  focal_length: string;
  iso: string;
  shutter_speed: string;
  title: string;
  orientation: string;
  keywords: string[];
}

/** One generated size, as WordPress stores it in `sizes`. */
export interface GeneratedSize {
  file: string;
  width: number;
  height: number;
  'mime-type': string;
  filesize: number;
  data: Buffer;
}

/** The box a size makes of an image (`image_resize_dimensions()`), or `null` when the image is not larger. */
export function resizeDimensions(
  width: number,
  height: number,
  size: ImageSize,
): { width: number; height: number } | null {
  if (width <= 0 || height <= 0 || (size.width <= 0 && size.height <= 0)) return null;
  if (size.crop) {
    const w = Math.min(size.width || width, width);
    const h = Math.min(size.height || height, height);
    if (w >= width && h >= height) return null;
    return { width: w, height: h };
  }
  const ratio = Math.min(
    size.width > 0 ? size.width / width : Infinity,
    size.height > 0 ? size.height / height : Infinity,
  );
  if (ratio >= 1) return null;
  const w = Math.max(1, Math.round(width * ratio));
  const h = Math.max(1, Math.round(height * ratio));
  if (w === width && h === height) return null;
  return { width: w, height: h };
}

/** Width and height as shown, EXIF orientation applied. */
export async function imageDimensions(
  data: Buffer | string,
): Promise<{ width: number; height: number; format?: string } | null> {
  try {
    // The header only: no pixel is decoded, so no pixel limit applies here.
    const meta = await sharp(data, { limitInputPixels: false }).metadata();
    if (!meta.width || !meta.height) return null;
    const turned = (meta.orientation ?? 1) >= 5;
    return { width: turned ? meta.height : meta.width, height: turned ? meta.width : meta.height, format: meta.format };
  } catch {
    return null;
  }
}

/** The sizes made of an image, and why the others were not made (`null` when nothing went wrong). */
export interface GeneratedSizes {
  sizes: Map<string, GeneratedSize>;
  problem: string | null;
}

type Pipeline = Sharp;

/** sharp's output format of each image type sizes are made for. */
const OUTPUT_FORMATS: Readonly<Record<string, Parameters<Pipeline['toFormat']>[0]>> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/tiff': 'tiff',
};

/** The largest rendition (in pixels) the sizes of an image are made from, held raw (4 MP: 16 MB at most). */
const SHARED_RENDITION_PIXELS = 4_000_000;

/**
 * The sizes of an image that is larger than them, resized (cropped to the box for cropped sizes) and auto-oriented,
 * within `limits`: none for an image over the pixel limit, and none after a size that fails (the image cannot be
 * decoded: the next would fail alike) or once the time is spent. Never throws.
 *
 * The image is decoded once, into the smallest rendition every size can be made from (the `large` size's, with
 * WordPress's sizes), and the sizes are made from it, as WordPress's editors make them from the image they loaded
 * once; without sharp's cache, decoding it again for each size made uploads half as slow again.
 */
export async function generateSizes(
  data: Buffer | string,
  base: string,
  ext: string,
  mimeType: string,
  width: number,
  height: number,
  sizes: readonly ImageSize[],
  limits: DecodeLimits = DEFAULT_DECODE_LIMITS,
): Promise<GeneratedSizes> {
  const out = new Map<string, GeneratedSize>();
  const boxes = sizes.flatMap((size) => {
    const box = resizeDimensions(width, height, size);
    return box ? [{ size, box }] : [];
  });
  if (!boxes.length) return { sizes: out, problem: null };
  if (width * height > limits.maxPixels) {
    return {
      sizes: out,
      problem: `${width} × ${height} is over the limit of ${limits.maxPixels} pixels for making sizes`,
    };
  }
  const deadline = Date.now() + limits.seconds * 1000;
  const secondsLeft = () => Math.floor((deadline - Date.now()) / 1000);
  const format = OUTPUT_FORMATS[mimeType];
  // The scale the largest size needs: a cropped size covers its box, another fits it.
  const scale = Math.max(
    ...boxes.map(({ size, box }) => (size.crop ? Math.max(box.width / width, box.height / height) : box.width / width)),
  );
  const shared = {
    width: Math.min(width, Math.ceil(width * scale)),
    height: Math.min(height, Math.ceil(height * scale)),
  };
  try {
    let source: () => Pipeline = () => sharp(data, { limitInputPixels: limits.maxPixels }).rotate();
    if (format && shared.width * shared.height <= SHARED_RENDITION_PIXELS) {
      if (secondsLeft() < 1) return { sizes: out, problem: `making sizes took over ${limits.seconds} s` };
      const rendition = await source()
        .timeout({ seconds: secondsLeft() })
        .resize(shared.width, shared.height, { fit: 'fill' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const raw = { width: rendition.info.width, height: rendition.info.height, channels: rendition.info.channels };
      source = () => sharp(rendition.data, { raw });
    }
    for (const { size, box } of boxes) {
      if (secondsLeft() < 1) return { sizes: out, problem: `making sizes took over ${limits.seconds} s` };
      let pipeline = source()
        .timeout({ seconds: secondsLeft() })
        .resize(box.width, box.height, { fit: size.crop ? 'cover' : 'fill' });
      if (format) pipeline = pipeline.toFormat(format);
      const resized = await pipeline.toBuffer({ resolveWithObject: true });
      out.set(size.name, {
        file: `${base}-${resized.info.width}x${resized.info.height}.${ext}`,
        width: resized.info.width,
        height: resized.info.height,
        'mime-type': mimeType,
        filesize: resized.data.length,
        data: resized.data,
      });
    }
  } catch (error) {
    return { sizes: out, problem: error instanceof Error ? error.message.split('\n')[0] : String(error) };
  }
  return { sizes: out, problem: null };
}

const text = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(text).filter(Boolean).join(', ');
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    return text(v.value ?? v['x-default'] ?? Object.values(v)[0]);
  }
  return textOf(value).trim();
};
const num = (value: unknown): string => {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? String(Math.round(n * 100) / 100) : '0';
};

/** Bytes of one value of each TIFF field type (1 BYTE … 13 IFD), as exifr reads them. */
const TIFF_TYPE_SIZES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];

/**
 * exifr's TIFF parser (EXIF), leaving out a field whose values do not fit in the data: exifr makes and fills an array
 * of the count a field declares, wherever its data ends (a 1 KB JPEG declaring 16 million rationals held the event
 * loop 1.2 s and took 255 MB). Registered in exifr's parser registry, once.
 */
function boundExifr(): void {
  const parsers = exifr.segmentParsers;
  const Tiff = parsers.get('tiff') as (new (...args: unknown[]) => {
    parseTag(offset: number, tag: number, block: string): unknown;
  }) & { bounded?: boolean };
  if (!Tiff || Tiff.bounded) return;
  class BoundedTiff extends Tiff {
    static override bounded = true;
    declare chunk: { byteLength: number; getUint16(offset: number): number; getUint32(offset: number): number };

    override parseTag(offset: number, tag: number, block: string): unknown {
      const size = (TIFF_TYPE_SIZES[this.chunk.getUint16(offset + 2)] ?? 0) * this.chunk.getUint32(offset + 4);
      if (size > 4 && this.chunk.getUint32(offset + 8) + size > this.chunk.byteLength) return undefined;
      return super.parseTag(offset, tag, block);
    }
  }
  parsers.set('tiff', BoundedTiff);
}
boundExifr();

/** The image's embedded metadata (EXIF, IPTC, XMP), as `wp_read_image_metadata()` gives it. */
export async function readImageMeta(data: Buffer | string): Promise<ImageMeta> {
  const meta: ImageMeta = {
    aperture: '0',
    credit: '',
    camera: '',
    caption: '',
    created_timestamp: '0',
    copyright: '',
    focal_length: '0',
    iso: '0',
    shutter_speed: '0',
    title: '',
    orientation: '0',
    keywords: [],
  };
  let tags: Record<string, unknown> | undefined;
  // exifr's parse() leaves its file open when parsing fails on the way: the file is closed here, whatever happens.
  const reader = new Exifr({
    tiff: true,
    exif: true,
    iptc: true,
    xmp: true,
    translateValues: false,
    reviveValues: true,
    mergeOutput: true,
  });
  try {
    await reader.read(data);
    tags = (await reader.parse()) as Record<string, unknown>;
  } catch {
    return meta;
  } finally {
    await (reader as unknown as { file?: { close?: () => Promise<void> } }).file?.close?.()?.catch(() => undefined);
  }
  if (!tags) return meta;
  // IPTC first (object name, caption), then XMP's title; EXIF's ImageDescription is the title when short (under 80
  // bytes) and none was found, and the caption when none was found, as wp_read_image_metadata() reads them.
  meta.title = text(tags.ObjectName ?? tags.title ?? tags.XPTitle);
  meta.caption = text(tags.Caption ?? tags['Caption-Abstract'] ?? tags.description);
  const description = text(tags.ImageDescription);
  if (description) {
    if (!meta.title && Buffer.byteLength(description) < 80) meta.title = description;
    if (!meta.caption) meta.caption = text(tags.UserComment) || description;
  }
  meta.credit = text(tags.Credit ?? tags.Byline ?? tags.Artist ?? tags.creator);
  meta.copyright = text(tags.CopyrightNotice ?? tags.Copyright ?? tags.rights);
  meta.camera = text(tags.Model);
  if (tags.FNumber !== undefined) meta.aperture = num(tags.FNumber);
  if (tags.FocalLength !== undefined) meta.focal_length = num(tags.FocalLength);
  if (tags.ISO !== undefined) meta.iso = text(Array.isArray(tags.ISO) ? tags.ISO[0] : tags.ISO);
  if (tags.ExposureTime !== undefined) meta.shutter_speed = textOf(tags.ExposureTime);
  if (tags.Orientation !== undefined) meta.orientation = textOf(tags.Orientation);
  const created = tags.DateTimeOriginal ?? tags.CreateDate;
  if (created instanceof Date && Number.isFinite(created.getTime()))
    meta.created_timestamp = String(Math.floor(created.getTime() / 1000));
  const keywords = tags.Keywords ?? tags.subject;
  if (keywords) meta.keywords = (Array.isArray(keywords) ? keywords : [keywords]).map(text).filter(Boolean);
  return meta;
}

/** `length_formatted` of WordPress: `m:ss`, or `h:mm:ss` from an hour on. */
export function formatLength(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/**
 * What WordPress's `wp_read_audio_metadata()` / `wp_read_video_metadata()` keep of an audio or video file: length,
 * format and stream facts (read with `music-metadata`), or nothing when the file cannot be read or reading it takes
 * over `seconds` (the file is read as a stream, which is cut then; `parseFile` also leaves its file open when a
 * file's tail cannot be read).
 */
export async function readAudioVideoMeta(
  file: string,
  mimeType: string,
  size?: number,
  seconds = AUDIO_VIDEO_META_SECONDS,
): Promise<Record<string, unknown>> {
  const stream = createReadStream(file);
  const timer = setTimeout(
    () => stream.destroy(new Error(`reading the metadata took over ${seconds} s`)),
    seconds * 1000,
  );
  try {
    const { parseStream } = await import('music-metadata');
    const { format } = await parseStream(stream, size === undefined ? undefined : { size }, {
      duration: true,
      skipCovers: true,
    });
    const out: Record<string, unknown> = {};
    if (format.duration !== undefined && Number.isFinite(format.duration)) {
      out.length = Math.round(format.duration);
      out.length_formatted = formatLength(format.duration);
    }
    if (format.container) out.fileformat = format.container.toLowerCase();
    if (format.codec) out.dataformat = format.codec.toLowerCase();
    if (format.sampleRate) out.sample_rate = format.sampleRate;
    if (format.numberOfChannels) out.channels = format.numberOfChannels;
    if (format.bitrate && Number.isFinite(format.bitrate)) out.bitrate = Math.round(format.bitrate);
    if (format.lossless !== undefined) out.lossless = format.lossless;
    out.mime_type = mimeType;
    return out;
  } catch {
    return {};
  } finally {
    clearTimeout(timer);
    stream.destroy();
  }
}
