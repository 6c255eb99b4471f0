import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import multer from 'multer';
import { parse as parseQuery } from 'qs';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { CoreErrors } from '../errors/error-codes';
import type { UploadedFile } from '../rest/rest-request';
import { RestException } from '../errors/rest.exception';
import { simpleQuery } from '../rest/simple-query';

// PHP's reading: a repeated name without brackets keeps its last value (`a=1&a=2` is `a=2`); `a[]=1&a[]=2` is a list.
const QUERY_OPTIONS = { depth: 5, arrayLimit: 1000, parameterLimit: 2000, duplicates: 'last' as const };
/**
 * Bounds of a multipart body, besides its total size (the body limit): files, text fields, parts, and the length of
 * a field's name. A body beyond any of them is refused with 413 as soon as the bound is passed.
 */
export const MULTIPART_LIMITS = { files: 10, fields: 200, parts: 210, fieldNameSize: 200 } as const;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Content types whose body is parameters, not a file: read into memory within the body limit. */
const PARAMETER_TYPES = new Set(['', 'application/json', 'application/x-www-form-urlencoded']);

/** A request's body as read: parameters, JSON, files, or a raw upload. */
export interface ParsedBody {
  body: Record<string, unknown>;
  json: Record<string, unknown> | null;
  files: UploadedFile[];
  raw: Buffer | null;
  /** A raw upload streamed to a temporary file (routes that take files). */
  rawFile?: { path: string; size: number } | null;
}

/** How a body is read for one request: whether its route takes files, and who the caller is. */
export interface BodyAdmission<User> {
  /** Whether the request's route takes files (asked only for bodies that may be files). */
  takesFiles(): boolean;
  /** Authenticates the caller with the body's parameters (`{}` before a file is read). */
  authenticate(body: Record<string, unknown>): Promise<User>;
}

/** A request's body, its caller, and the temporary files to remove once the request is answered. */
export interface AdmittedBody<User> {
  parsed: ParsedBody;
  user: User;
  temporary: string[];
}

/**
 * Request reading: the query string (PHP's bracket keys), the method override, and the body (JSON, urlencoded,
 * multipart, raw upload) within the body and upload limits. Files go to temporary files as they arrive, never
 * whole into memory, and only for a caller already known.
 */
@Injectable()
export class RequestReader {
  private readonly upload: ReturnType<typeof multer>;

  constructor(@Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions) {
    this.upload = multer({
      storage: multer.diskStorage({ destination: (_req, _file, done) => done(null, uploadTempDir()) }),
      limits: { ...MULTIPART_LIMITS, fileSize: options.uploadLimit, fieldSize: options.bodyLimit },
    });
  }

  /** The parameters of a query string (`?a=1&b=2`, or without its `?`). */
  query(search: string): Record<string, unknown> {
    const text = search.charCodeAt(0) === 0x3f ? search.slice(1) : search;
    return simpleQuery(text) ?? parseQuery(text, QUERY_OPTIONS);
  }

  /** The request's method: `_method` in the query wins, then `X-HTTP-Method-Override`. */
  method(req: IncomingMessage, query: Record<string, unknown>): string {
    const header = req.headers['x-http-method-override'];
    const override = typeof query._method === 'string' ? query._method : Array.isArray(header) ? header[0] : header;
    return (override || req.method || 'GET').toUpperCase();
  }

  /**
   * Reads the body and authenticates its caller. Files are read only by a route that takes them, and only once the
   * caller is known: anything else is refused before a byte of the body is read (the connection is closed rather
   * than drained).
   */
  async admit<User>(
    req: IncomingMessage,
    res: ServerResponse,
    admission: BodyAdmission<User>,
  ): Promise<AdmittedBody<User>> {
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (isMultipart(req) && !isPreParsed(req)) {
      let user: User;
      try {
        const files = admission.takesFiles();
        this.refuseDeclaredOverLimit(req, res, files);
        user = await admission.authenticate({});
        if (!files) throw new RestException(...CoreErrors.multipartNotAccepted);
      } catch (error) {
        closeAfterResponse(req, res);
        throw error;
      }
      const parsed = await this.parseMultipart(req, res);
      return { parsed, user, temporary: parsed.files.map((f) => f.path) };
    }
    if (
      !PARAMETER_TYPES.has(contentType) &&
      BODY_METHODS.has((req.method ?? '').toUpperCase()) &&
      !isPreParsed(req) &&
      admission.takesFiles()
    ) {
      // A raw upload: the caller first, then the body streamed to a temporary file within the upload limit.
      let user: User;
      try {
        this.refuseDeclaredOverLimit(req, res, true);
        user = await admission.authenticate({});
      } catch (error) {
        closeAfterResponse(req, res);
        throw error;
      }
      const file = await streamToTempFile(req, this.options.uploadLimit, () => closeAfterResponse(req, res));
      const parsed = { body: {}, json: null, files: [], raw: null, rawFile: file.size ? file : null };
      return { parsed, user, temporary: [file.path] };
    }
    const parsed = await this.parseBody(req, res);
    return { parsed, user: await admission.authenticate(parsed.json ?? parsed.body), temporary: [] };
  }

  private async parseBody(
    req: IncomingMessage & { body?: unknown; files?: unknown },
    res: ServerResponse,
  ): Promise<ParsedBody> {
    if (!BODY_METHODS.has((req.method ?? 'GET').toUpperCase()) && !Number(req.headers['content-length']))
      return { body: {}, json: null, files: [], raw: null };
    const empty: ParsedBody = { body: {}, json: null, files: [], raw: null };
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    // A host app's body parser may have consumed the body already (the stream has ended).
    const preParsed = isPreParsed(req);
    if (type === 'multipart/form-data' && preParsed)
      return { ...empty, body: (req.body as Record<string, unknown>) ?? {} };
    if (preParsed) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      return type === 'application/json' ? { ...empty, json: body } : { ...empty, body };
    }
    this.refuseDeclaredOverLimit(req, res);
    const raw = await readBody(req, this.options.bodyLimit, () => closeAfterResponse(req, res));
    if (!raw.length) return empty;
    if (type === 'application/json') {
      try {
        const json: unknown = JSON.parse(raw.toString('utf8'));
        return {
          ...empty,
          raw,
          json: json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {},
        };
      } catch {
        throw new RestException(...CoreErrors.invalidJson);
      }
    }
    if (type === '' || type === 'application/x-www-form-urlencoded') {
      return { ...empty, raw, body: parseQuery(raw.toString('utf8'), QUERY_OPTIONS) };
    }
    return { ...empty, raw };
  }

  /** A body whose declared length passes the limit is refused before it is read. */
  private refuseDeclaredOverLimit(req: IncomingMessage, res: ServerResponse, upload = false): void {
    const limit = upload ? this.options.uploadLimit : this.options.bodyLimit;
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      closeAfterResponse(req, res);
      throw upload ? uploadTooLarge(this.options.uploadLimit) : new RestException(...CoreErrors.tooLarge);
    }
  }

  /**
   * Reads a multipart body within the body limit (counted on the wire, whatever the parts declare) and
   * {@link MULTIPART_LIMITS}; past any of them the read stops and the request is refused with 413.
   */
  private async parseMultipart(
    req: IncomingMessage & { body?: unknown; files?: unknown },
    res: ServerResponse,
  ): Promise<ParsedBody> {
    // An upload and the fields that come with it, counted on the wire.
    const limit = this.options.uploadLimit;
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      let received = 0;
      const fail = (error: RestException) => {
        if (settled) return;
        settled = true;
        closeAfterResponse(req, res);
        req.unpipe();
        reject(error);
      };
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit) {
          req.off('data', count);
          fail(uploadTooLarge(this.options.uploadLimit));
        }
      };
      req.on('data', count);
      this.upload.any()(req as Request, res as never, (err: unknown) => {
        req.off('data', count);
        if (err) {
          // Parts written before the failure are removed.
          for (const f of (req.files as Express.Multer.File[] | undefined) ?? [])
            void rm(f.path, { force: true }).catch(() => undefined);
          return fail(
            (err as { code?: string }).code === 'LIMIT_FILE_SIZE'
              ? uploadTooLarge(this.options.uploadLimit)
              : multipartError(err),
          );
        }
        if (!settled) {
          settled = true;
          resolve();
        }
      });
    });
    const files = ((req.files as Express.Multer.File[] | undefined) ?? []).map((f) => ({
      fieldName: f.fieldname,
      originalName: f.originalname,
      mimeType: f.mimetype,
      size: f.size,
      path: f.path,
    }));
    // Multer reads bracketed field names (`categories[]`, `meta[key]`) into nested values itself.
    return { body: { ...((req.body as Record<string, unknown>) ?? {}) }, json: null, files, raw: null };
  }
}

function isMultipart(req: IncomingMessage): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(req.headers['content-type'] ?? '');
}

/** Whether a host app's body parser consumed the body already (the stream has ended). */
function isPreParsed(req: IncomingMessage): boolean {
  return req.readableEnded || (req as { _body?: boolean })._body === true;
}

/**
 * Ends the connection once the response is sent, so the rest of a refused body is not read (Node would otherwise
 * read and discard it to keep the connection alive).
 */
export function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  if (res.getHeader('Connection') === 'close') return;
  res.shouldKeepAlive = false;
  res.setHeader('Connection', 'close');
  lingerOnClose(req);
}

/** How long, and how much, a refused body is still read and dropped after the answer went out. */
const LINGER_MS = 2000;
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * A lingering close, as Apache and nginx do it: once the answer is written the server closes its side for
 * writing, then reads and drops what the client is still sending, for at most {@link LINGER_MS} and
 * {@link LINGER_BYTES}, before it lets the socket go. Closing at once would answer the client's next bytes with a
 * TCP reset, and a reset makes the client's stack drop the answer it has not read yet: a client uploading a file
 * over the limit would see "connection reset" instead of the 413.
 */
function lingerOnClose(req: IncomingMessage): void {
  const socket = req.socket;
  // Node calls destroySoon() when a `Connection: close` answer has finished.
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end();
    let dropped = 0;
    const stop = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    this.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) stop();
    });
    this.once('end', stop);
    this.once('close', () => clearTimeout(timer));
    req.removeAllListeners('data');
    req.resume();
    this.resume();
  };
}

/** Reads a body of at most `limit` bytes; past it, stops reading, calls `refused` and rejects with 413. */
function readBody(req: IncomingMessage, limit: number, refused: () => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.pause();
        refused();
        reject(new RestException(...CoreErrors.tooLarge));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The directory of uploads being received (the system's temporary directory). */
function uploadTempDir(): string {
  const dir = join(tmpdir(), 'cms-api-uploads');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A body over the upload limit. */
function uploadTooLarge(limit: number): RestException {
  return new RestException(
    'rest_upload_too_large',
    `The file is larger than this site accepts (${limit} bytes).`,
    413,
    { max_bytes: limit },
  );
}

/**
 * Streams a request body to a new temporary file, counting bytes on the wire: past `limit` the read stops, the
 * partial file is removed and the request is refused with 413.
 */
function streamToTempFile(
  req: IncomingMessage,
  limit: number,
  refused: () => void,
): Promise<{ path: string; size: number }> {
  const path = join(uploadTempDir(), `${randomUUID()}.upload`);
  return new Promise((resolve, reject) => {
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    let size = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(out);
      out.destroy();
      void rm(path, { force: true }).catch(() => undefined);
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        refused();
        fail(uploadTooLarge(limit));
      }
    });
    req.on('error', fail);
    out.on('error', fail);
    out.on('finish', () => !failed && resolve({ path, size }));
    req.pipe(out);
  });
}

function multipartError(err: unknown): RestException {
  const code = (err as { code?: string }).code;
  if (code === 'LIMIT_FILE_SIZE') return new RestException(...CoreErrors.tooLarge);
  if (typeof code === 'string' && code.startsWith('LIMIT_')) return new RestException(...CoreErrors.multipartTooLarge);
  return new RestException(
    'rest_invalid_multipart',
    `The multipart body could not be read: ${(err as Error).message}`,
    400,
  );
}
