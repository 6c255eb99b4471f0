import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { fromFile as sniffFile } from 'file-type';
import { RestException } from '../../core/errors/rest.exception';
import type { RestRequest, UploadedFile } from '../../core/rest/rest-request';
import { ALLOWED_MIME_TYPES, fileNameOfDisposition, mimeOfName, SCRIPTABLE_MIME_TYPES } from './file-names';

/** Types that are text, with no signature to sniff: their extension decides. */
const SIGNATURELESS = new Set(['image/svg+xml', 'application/javascript', 'application/xml']);

/** The md5 of a file, hex, read as a stream. */
async function md5OfFile(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** An uploaded file, received into a temporary file. */
export interface ReceivedUpload {
  /** The name the client gave it. */
  name: string;
  path: string;
  size: number;
  /** The type the client declared (the part's, or the body's `Content-Type`). */
  declaredType: string;
  /** Sent as a multipart `file` (`wp_handle_upload()`), else as the raw body (`wp_handle_sideload()`). */
  multipart: boolean;
}

/**
 * The uploaded file of a request, received into a temporary file: the multipart `file` part, or the raw body
 * named by `Content-Disposition`.
 */
export async function receiveUpload(req: RestRequest): Promise<ReceivedUpload> {
  const part: UploadedFile | undefined = req.files.find((f) => f.fieldName === 'file') ?? req.files[0];
  const md5 = req.header('content-md5');
  if (part) {
    if (!part.size) throw new RestException('rest_upload_no_data', 'No data supplied.', 400);
    if (md5 && (await md5OfFile(part.path)) !== md5.trim())
      throw new RestException('rest_upload_hash_mismatch', 'Content hash did not match expected.', 412);
    return {
      name: part.originalName,
      path: part.path,
      size: part.size,
      declaredType: part.mimeType,
      multipart: true,
    };
  }
  const body = req.rawFile;
  // A body without a Content-Type is read as parameters: it arrives here as the raw bytes of a form.
  if (!body && req.rawBody?.length && !req.header('content-type'))
    throw new RestException('rest_upload_no_content_type', 'No Content-Type supplied.', 400);
  if (!body || !body.size) throw new RestException('rest_upload_no_data', 'No data supplied.', 400);
  const contentType = req.header('content-type');
  if (!contentType) throw new RestException('rest_upload_no_content_type', 'No Content-Type supplied.', 400);
  const disposition = req.header('content-disposition');
  if (!disposition)
    throw new RestException('rest_upload_no_content_disposition', 'No Content-Disposition supplied.', 400);
  const name = fileNameOfDisposition(disposition);
  if (!name) {
    throw new RestException(
      'rest_upload_invalid_disposition',
      'Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename="image.png"` or similar.',
      400,
    );
  }
  if (md5 && (await md5OfFile(body.path)) !== md5.trim()) {
    throw new RestException('rest_upload_hash_mismatch', 'Content hash did not match expected.', 412);
  }
  return {
    name,
    path: body.path,
    size: body.size,
    declaredType: contentType.split(';')[0].trim().toLowerCase(),
    multipart: false,
  };
}

/**
 * The file's type: its extension must be an allowed one (`types`), and its bytes must say the same (`file-type`), as
 * must the type the client declared (`application/octet-stream` says nothing). Text formats have no signature.
 */
export async function checkUploadType(
  name: string,
  file: string,
  declaredType: string,
  types: Readonly<Record<string, string>>,
): Promise<{ ext: string; mime: string }> {
  const refused = () =>
    new RestException('rest_upload_sideload_error', 'Sorry, you are not allowed to upload this file type.', 400);
  const byName = mimeOfName(name, types);
  if (!byName) throw refused();
  // A file cut short or lying inside its signature (file-type gives up on it with an error) is of no known type.
  const sniffed = await sniffFile(file).catch(() => undefined);
  if (sniffed) {
    const bySniff = mimeOfName(`x.${sniffed.ext}`, { ...ALLOWED_MIME_TYPES, ...SCRIPTABLE_MIME_TYPES, ...types });
    if (bySniff?.mime !== byName.mime && sniffed.mime !== byName.mime) {
      throw new RestException(
        'rest_upload_sideload_error',
        `The file's content (${sniffed.mime}) does not match its name (${byName.mime}).`,
        400,
      );
    }
  } else if (!byName.mime.startsWith('text/') && !SIGNATURELESS.has(byName.mime)) {
    throw new RestException(
      'rest_upload_sideload_error',
      `The file's content does not match its name (${byName.mime}).`,
      400,
    );
  }
  if (
    declaredType &&
    declaredType !== 'application/octet-stream' &&
    declaredType !== byName.mime &&
    declaredType !== sniffed?.mime
  ) {
    throw new RestException(
      'rest_upload_sideload_error',
      `The file's type (${declaredType}) does not match its content (${byName.mime}).`,
      400,
    );
  }
  return byName;
}
