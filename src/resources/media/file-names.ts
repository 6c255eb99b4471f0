/**
 * File names and types of uploads: WordPress's allowed types (`get_allowed_mime_types()` without the types that run
 * script in a browser), `sanitize_file_name()`, and the `Content-Disposition` reading of the reference.
 */

/** Extensions (a `|` list, as WordPress keys them) and their MIME type. */
export const ALLOWED_MIME_TYPES: Readonly<Record<string, string>> = {
  // Images.
  'jpg|jpeg|jpe': 'image/jpeg',
  gif: 'image/gif',
  png: 'image/png',
  bmp: 'image/bmp',
  'tiff|tif': 'image/tiff',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  'heic|heif': 'image/heic',
  // Video.
  'asf|asx': 'video/x-ms-asf',
  wmv: 'video/x-ms-wmv',
  avi: 'video/avi',
  'mov|qt': 'video/quicktime',
  'mpeg|mpg|mpe': 'video/mpeg',
  'mp4|m4v': 'video/mp4',
  ogv: 'video/ogg',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  '3gp|3gpp': 'video/3gpp',
  // Text.
  'txt|asc|c|cc|h|srt': 'text/plain',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  ics: 'text/calendar',
  rtx: 'text/richtext',
  vtt: 'text/vtt',
  // Audio.
  'mp3|m4a|m4b': 'audio/mpeg',
  aac: 'audio/aac',
  'ra|ram': 'audio/x-realaudio',
  wav: 'audio/wav',
  'ogg|oga': 'audio/ogg',
  flac: 'audio/flac',
  'mid|midi': 'audio/midi',
  wma: 'audio/x-ms-wma',
  // Documents and archives.
  rtf: 'application/rtf',
  pdf: 'application/pdf',
  doc: 'application/msword',
  'pot|pps|ppt': 'application/vnd.ms-powerpoint',
  'xla|xls|xlt|xlw': 'application/vnd.ms-excel',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  epub: 'application/epub+zip',
  zip: 'application/zip',
  'gz|gzip': 'application/x-gzip',
  '7z': 'application/x-7z-compressed',
  tar: 'application/x-tar',
};

/** Types a browser runs script in: refused unless the site allows them (`allowedScriptableTypes`). */
export const SCRIPTABLE_MIME_TYPES: Readonly<Record<string, string>> = {
  svg: 'image/svg+xml',
  'htm|html': 'text/html',
  js: 'application/javascript',
  css: 'text/css',
  xml: 'application/xml',
  swf: 'application/x-shockwave-flash',
};

/** The MIME type of a file name's extension among `types`, or `null`. */
export function mimeOfName(
  name: string,
  types: Readonly<Record<string, string>> = ALLOWED_MIME_TYPES,
): { ext: string; mime: string } | null {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return null;
  const ext = name.slice(dot + 1).toLowerCase();
  for (const [exts, mime] of Object.entries(types)) if (exts.split('|').includes(ext)) return { ext, mime };
  return null;
}

/** The top-level types of the allowed MIME types (`media_type` of the collection). */
export function mediaTypes(types: Readonly<Record<string, string>> = ALLOWED_MIME_TYPES): string[] {
  // In the order WordPress lists them (its text formats hold an application type, listed before audio).
  const order = ['image', 'video', 'text', 'application', 'audio'];
  const found = [...new Set(Object.values(types).map((m) => m.split('/')[0]))];
  return [...order.filter((t) => found.includes(t)), ...found.filter((t) => !order.includes(t))];
}

const SPECIAL_CHARS = [
  '?',
  '[',
  ']',
  '/',
  '\\',
  '=',
  '<',
  '>',
  ':',
  ';',
  ',',
  "'",
  '"',
  '&',
  '$',
  '#',
  '*',
  '(',
  ')',
  '|',
  '~',
  '`',
  '!',
  '{',
  '}',
  '%',
  '+',
  '’',
  '«',
  '»',
  '”',
  '“',
  '\0',
];

/**
 * WordPress's `sanitize_file_name()`: no path separators or special characters, no control characters, spaces and
 * dashes runs as one dash, no leading or trailing dots, dashes or underscores, and an intermediate extension-like
 * part that is not an allowed extension gets an underscore (`shell.php.jpg` → `shell.php_.jpg`).
 */
export function sanitizeFileName(name: string, types: Readonly<Record<string, string>> = ALLOWED_MIME_TYPES): string {
  // Control characters go (tabs and line breaks become dashes below).
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  let file = name.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, '');
  for (const c of SPECIAL_CHARS) file = file.split(c).join('');
  file = file.replace(/%20|\+/g, '-').replace(/\u00a0/g, '-');
  file = file.replace(/[\r\n\t -]+/g, '-');
  file = file.replace(/^[.\-_]+|[.\-_]+$/g, '');
  if (!file.includes('.')) return file;
  const parts = file.split('.');
  let out = parts.shift()!;
  const extension = parts.pop()!;
  const allowed = Object.keys(types).flatMap((k) => k.split('|'));
  for (const part of parts) {
    out += `.${part}`;
    if (/^[a-zA-Z]{2,5}\d?$/.test(part) && !allowed.includes(part.toLowerCase())) out += '_';
  }
  return `${out}.${extension}`;
}

/**
 * The file name of a `Content-Disposition` header, as the reference reads it: after the first `;`, `key=value`
 * pairs split on `;`, the `filename` one (trimmed, quotes removed), the last one winning; also `filename*` with
 * RFC 5987's `UTF-8''…` encoding, which wins over `filename`. `null` when there is none.
 */
export function fileNameOfDisposition(header: string | undefined): string | null {
  if (!header) return null;
  const semicolon = header.indexOf(';');
  if (semicolon < 0) return null;
  let plain: string | null = null;
  let extended: string | null = null;
  for (const pair of header.slice(semicolon + 1).split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const key = pair.slice(0, eq).trim().toLowerCase();
    const value = pair.slice(eq + 1).trim();
    if (key === 'filename' && value) plain = value.replace(/^"(.*)"$/, '$1').trim() || plain;
    if (key === 'filename*' && value) {
      const match = /^([\w-]*)'[\w-]*'(.*)$/.exec(value.replace(/^"(.*)"$/, '$1'));
      if (match) {
        try {
          extended = decodeURIComponent(match[2]);
        } catch {
          // A bad escape: the plain name, if any, is used.
        }
      }
    }
  }
  const name = extended ?? plain;
  return name ? name : null;
}

/** The name and extension of a file name (`photo.large.JPG` → `photo.large`, `JPG`). */
export function splitExtension(name: string): { base: string; ext: string } {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? { base: name, ext: '' } : { base: name.slice(0, dot), ext: name.slice(dot + 1) };
}

/** The longest file name file systems take: 255 bytes (ext4, XFS, ZFS; APFS and NTFS count 255 UTF-16 units, never more than the bytes). */
export const MAX_FILE_NAME_BYTES = 255;

/** Room kept for what an image size adds to the name (`-1024x768`): up to `-999999999x999999999`. */
export const SIZE_SUFFIX_BYTES = 20;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The start of `text` within `maxBytes` bytes of UTF-8, cut between characters as shown (a letter keeps its marks). */
export function truncateToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const { segment } of graphemes.segment(text)) {
    bytes += Buffer.byteLength(segment);
    if (bytes > maxBytes) break;
    out += segment;
  }
  return out;
}

/** Room kept for the number that makes a name unique (`-1` … `-99999`; a longer one shortens the name further). */
export const COUNTER_BYTES = 6;

/**
 * The file name `base` + `suffix` (`-1`, `-2` … making it unique) + `.ext`, the base shortened so that the name and
 * the names of its image sizes (`name-1024x768.ext`) stay within {@link MAX_FILE_NAME_BYTES}: the same base for
 * each number. WordPress keeps long names as they are (storing them fails); here they are cut, keeping the extension.
 */
export function fitFileName(base: string, suffix: string, ext: string): string {
  const room =
    MAX_FILE_NAME_BYTES -
    SIZE_SUFFIX_BYTES -
    Math.max(COUNTER_BYTES, Buffer.byteLength(suffix)) -
    Buffer.byteLength(`.${ext}`);
  const fitted = Buffer.byteLength(base) > room ? truncateToBytes(base, room).replace(/[.\-_]+$/, '') : base;
  return `${fitted || 'file'}${suffix}.${ext}`;
}
