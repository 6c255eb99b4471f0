import { createReadStream, promises as fs } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ObjectStorageOptions } from '../../core/config/cms-options';
import type { MediaStorage, StoredFile } from '../../core/config/media-storage';
import { safeRelativePath } from './media-storage';

/** Files up to this size are sent in one request; larger ones in parts (multipart upload). */
export const SINGLE_PUT_BYTES = 16 * 1024 * 1024;
/** The size of a part of a multipart upload, and how many are sent at once: at most 16 MiB of a file in memory. */
export const PART_BYTES = 8 * 1024 * 1024;
export const PARTS_AT_ONCE = 2;

/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1000;

/** The error a store gives when the name is taken: the caller picks another name (as for the local disk's `EEXIST`). */
function taken(relativePath: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${relativePath} is already stored`), { code: 'EEXIST' });
}

function statusOf(error: unknown): number | undefined {
  return (error as S3ServiceException | undefined)?.$metadata?.httpStatusCode;
}

/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, ...), under an optional key prefix, at the same relative
 * paths as on a disk (`2026/11/photo.jpg`): every node of a fleet stores and serves the same files.
 *
 * - Uploads stream from the temporary file the request was received into: one request up to
 *   {@link SINGLE_PUT_BYTES}, else a multipart upload of {@link PART_BYTES} parts, {@link PARTS_AT_ONCE} at a time —
 *   memory per upload stays bounded whatever the file's size.
 * - A stored file is never replaced: `put` asks for the key only if it is absent (`If-None-Match: *`, which S3 and
 *   most compatible servers honour) after checking that it is free, and answers `EEXIST` when it is taken, so that
 *   the caller picks another name.
 * - Checksums are sent and checked only where the API requires them (`WHEN_REQUIRED`): S3-compatible servers refuse
 *   the SDK's newer default ones.
 */
export class S3MediaStorage implements MediaStorage {
  readonly client: S3Client;
  readonly bucket: string;
  private readonly prefix: string;

  constructor(options: ObjectStorageOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix ? `${options.prefix.replace(/^\/+|\/+$/g, '')}/` : '';
    this.client = new S3Client({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? Boolean(options.endpoint),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  }

  /** The object key of a relative path. */
  key(relativePath: string): string {
    return `${this.prefix}${safeRelativePath(relativePath)}`;
  }

  async put(relativePath: string, source: Buffer | { path: string }, mimeType: string): Promise<void> {
    const key = this.key(relativePath);
    if (await this.exists(relativePath)) throw taken(relativePath);
    const size = Buffer.isBuffer(source) ? source.length : (await fs.stat(source.path)).size;
    const body = () => (Buffer.isBuffer(source) ? source : createReadStream(source.path));
    try {
      if (size <= SINGLE_PUT_BYTES) {
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: key,
            Body: body(),
            ContentLength: size,
            ContentType: mimeType,
            IfNoneMatch: '*',
          }),
        );
      } else {
        const upload = new Upload({
          client: this.client,
          params: { Bucket: this.bucket, Key: key, Body: body(), ContentType: mimeType, IfNoneMatch: '*' },
          partSize: PART_BYTES,
          queueSize: PARTS_AT_ONCE,
          leavePartsOnError: false,
        });
        await upload.done();
      }
    } catch (error) {
      // Stored meanwhile by another request (412 Precondition Failed, or 409 while another write of it is under way).
      if (statusOf(error) === 412 || statusOf(error) === 409) throw taken(relativePath);
      throw error;
    }
  }

  async exists(relativePath: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(relativePath) }));
      return true;
    } catch (error) {
      // Only a missing key is free: a refused or unreachable bucket is the error it is.
      if (statusOf(error) === 404) return false;
      throw error;
    }
  }

  async remove(relativePaths: readonly string[]): Promise<void> {
    const keys = [...new Set(relativePaths.map((p) => this.key(p)))];
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const result = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      // A missing key is not an error (S3 reports it deleted); anything else is.
      const failed = (result.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length)
        throw new Error(
          `Could not delete ${failed.map((e) => `${e.Key} (${e.Code}: ${e.Message})`).join(', ')} from the bucket ${this.bucket}`,
        );
    }
  }

  read(relativePath: string): NodeJS.ReadableStream {
    const out = new PassThrough();
    this.open(relativePath).then(
      (file) =>
        file
          ? file.body.pipe(out)
          : out.destroy(Object.assign(new Error(`${relativePath} is not stored`), { code: 'ENOENT' })),
      (error: unknown) => out.destroy(error as Error),
    );
    return out;
  }

  async open(relativePath: string, range?: string): Promise<StoredFile | null> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.key(relativePath), ...(range ? { Range: range } : {}) }),
      );
      return {
        body: object.Body as Readable,
        size: Number(object.ContentLength ?? 0),
        contentType: object.ContentType,
        etag: object.ETag,
        lastModified: object.LastModified,
        contentRange: object.ContentRange,
      };
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }

  /** Every stored relative path (for tests and tools; pages through the bucket). */
  async list(): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix || undefined, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) out.push(object.Key.slice(this.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }
}
