import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObjectStorageOptions } from '../../src/core/config/cms-options';

/** A real S3 API on loopback (`s3rver`), with one bucket, its files in a temporary directory. */
export interface TestS3 {
  /** The server's address (`http://127.0.0.1:<port>`). */
  endpoint: string;
  bucket: string;
  /** The settings of a storage in that bucket. */
  options(prefix?: string): ObjectStorageOptions;
  /** The bucket's public base URL (path style), as `uploadsUrl`. */
  publicUrl: string;
  /** Stops the server (the files stay until {@link close}). */
  stop(): Promise<void>;
  /** Starts it again on the same port and files. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts `s3rver` with the bucket `bucket` (credentials S3RVER / S3RVER, as s3rver accepts them). */
export async function startTestS3(bucket = 'media'): Promise<TestS3> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const S3rver = require('s3rver');
  const directory = mkdtempSync(join(tmpdir(), 'cms-s3-'));
  let port = 0;
  let server: { run(): Promise<{ port: number }>; close(): Promise<void> } | null = null;
  const start = async () => {
    server = new S3rver({ port, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
    port = (await server!.run()).port;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    publicUrl: `${endpoint}/${bucket}`,
    options: (prefix?: string) => ({
      bucket,
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      ...(prefix ? { prefix } : {}),
    }),
    async stop() {
      await server?.close();
      server = null;
    },
    start,
    async close() {
      await server?.close();
      server = null;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
