import exifr from 'exifr';
import sharp from 'sharp';

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
export function resizeDimensions(width: number, height: number, size: ImageSize): { width: number; height: number } | null {
  if (width <= 0 || height <= 0 || (size.width <= 0 && size.height <= 0)) return null;
  if (size.crop) {
    const w = Math.min(size.width || width, width);
    const h = Math.min(size.height || height, height);
    if (w >= width && h >= height) return null;
    return { width: w, height: h };
  }
  const ratio = Math.min(size.width > 0 ? size.width / width : Infinity, size.height > 0 ? size.height / height : Infinity);
  if (ratio >= 1) return null;
  const w = Math.max(1, Math.round(width * ratio));
  const h = Math.max(1, Math.round(height * ratio));
  if (w === width && h === height) return null;
  return { width: w, height: h };
}

/** Width and height as shown, EXIF orientation applied. */
export async function imageDimensions(data: Buffer | string): Promise<{ width: number; height: number; format?: string } | null> {
  try {
    const meta = await sharp(data).metadata();
    if (!meta.width || !meta.height) return null;
    const turned = (meta.orientation ?? 1) >= 5;
    return { width: turned ? meta.height : meta.width, height: turned ? meta.width : meta.height, format: meta.format };
  } catch {
    return null;
  }
}

/** The sizes of an image that is larger than them, resized (cropped to the box for cropped sizes) and auto-oriented. */
export async function generateSizes(data: Buffer | string, base: string, ext: string, mimeType: string, width: number, height: number, sizes: readonly ImageSize[]): Promise<Map<string, GeneratedSize>> {
  const out = new Map<string, GeneratedSize>();
  for (const size of sizes) {
    const box = resizeDimensions(width, height, size);
    if (!box) continue;
    const resized = await sharp(data)
      .rotate()
      .resize(box.width, box.height, { fit: size.crop ? 'cover' : 'inside', withoutEnlargement: true })
      .toBuffer({ resolveWithObject: true });
    out.set(size.name, {
      file: `${base}-${resized.info.width}x${resized.info.height}.${ext}`,
      width: resized.info.width,
      height: resized.info.height,
      'mime-type': mimeType,
      filesize: resized.data.length,
      data: resized.data,
    });
  }
  return out;
}

const text = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(text).filter(Boolean).join(', ');
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    return text(v.value ?? v['x-default'] ?? Object.values(v)[0]);
  }
  return String(value).trim();
};
const num = (value: unknown): string => {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? String(Math.round(n * 100) / 100) : '0';
};

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
  try {
    tags = await exifr.parse(data, { tiff: true, exif: true, iptc: true, xmp: true, translateValues: false, reviveValues: true, mergeOutput: true });
  } catch {
    return meta;
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
  if (tags.ExposureTime !== undefined) meta.shutter_speed = String(tags.ExposureTime);
  if (tags.Orientation !== undefined) meta.orientation = String(tags.Orientation);
  const created = tags.DateTimeOriginal ?? tags.CreateDate;
  if (created instanceof Date && Number.isFinite(created.getTime())) meta.created_timestamp = String(Math.floor(created.getTime() / 1000));
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
 * format and stream facts (read with `music-metadata`), or nothing when the file cannot be read.
 */
export async function readAudioVideoMeta(file: string, mimeType: string): Promise<Record<string, unknown>> {
  try {
    const { parseFile } = await import('music-metadata');
    const { format } = await parseFile(file, { duration: true, skipCovers: true });
    const out: Record<string, unknown> = {};
    if (format.duration !== undefined) {
      out.length = Math.round(format.duration);
      out.length_formatted = formatLength(format.duration);
    }
    if (format.container) out.fileformat = format.container.toLowerCase();
    if (format.codec) out.dataformat = format.codec.toLowerCase();
    if (format.sampleRate) out.sample_rate = format.sampleRate;
    if (format.numberOfChannels) out.channels = format.numberOfChannels;
    if (format.bitrate) out.bitrate = Math.round(format.bitrate);
    if (format.lossless !== undefined) out.lossless = format.lossless;
    out.mime_type = mimeType;
    return out;
  } catch {
    return {};
  }
}
