import sharp from 'sharp';
import { S3MediaStorage } from '../../src/resources/media/s3-storage';
import { MediaResources } from '../../src/resources/media/media-resources.service';
import { UPLOAD_JOURNAL_STALE_MS } from '../../src/resources/media/upload-journal';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl } from '../utils/test-db';
import { startTestS3, TestS3 } from '../utils/s3-server';
import { assertBuilt, serverDatabase, StandaloneServer, startServer, stopServer } from '../utils/standalone-server';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const API = '/cms-json/cms/v2';

/** A PNG of the given size, made here. */
function png(width = 640, height = 480): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 160, b: 60 } } })
    .png()
    .toBuffer();
}

/**
 * Media in an S3-compatible bucket (a real S3 API, s3rver): every file of an upload goes to the bucket, URLs point at
 * the bucket's public address, deletion empties it, and what a crashed node left is settled by another node — the
 * journal is in the database they share.
 */
describe('media in object storage (S3 API)', () => {
  let s3: TestS3;
  let bucket: S3MediaStorage;
  let t: TestApp;
  let databaseUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'cms-media-s3-'));
  const auth = () => t.users.author.authorization;
  const upload = (app: TestApp, body: Buffer, name: string, type = 'image/png') =>
    app.http
      .post(`${API}/media`)
      .set('Authorization', auth())
      .set('Content-Type', type)
      .set('Content-Disposition', `attachment; filename="${name}"`)
      .send(body);

  beforeAll(async () => {
    s3 = await startTestS3();
    bucket = new S3MediaStorage(s3.options('site'));
    // Nodes of one fleet share one database: a file on SQLite.
    databaseUrl =
      testDatabaseKind() === 'sqlite' ? `sqlite:${join(dir, 'cms.sqlite')}` : await testDatabaseUrl('media_s3');
    t = await createTestApp('media_s3', {
      databaseUrl,
      cms: {
        objectStorage: s3.options('site'),
        uploadsUrl: `${s3.publicUrl}/site`,
        uploadDir: join(dir, 'never-used'),
      },
    });
  });
  afterAll(async () => {
    await t.close();
    bucket.close();
    await s3.close();
    await dropTestDatabase('media_s3');
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores the original and every image size in the bucket, with URLs at the bucket, and nothing on the disk', async () => {
    const res = await upload(t, await png(), 'Green Box.png').expect(201);
    const month = res.body.media_details.file.slice(0, 7);
    const names = Object.values(res.body.media_details.sizes as Record<string, { file: string; source_url: string }>)
      .filter((size) => size.file !== 'Green-Box.png')
      .map((size) => `${month}/${size.file}`);
    expect(names.length).toBeGreaterThanOrEqual(2);
    expect(await bucket.list()).toEqual([`${month}/Green-Box.png`, ...names].sort());
    expect(res.body.source_url).toBe(`${s3.publicUrl}/site/${month}/Green-Box.png`);
    for (const size of Object.values(res.body.media_details.sizes as Record<string, { source_url: string }>))
      expect(size.source_url.startsWith(`${s3.publicUrl}/site/${month}/`)).toBe(true);
    // The bucket serves the files at those URLs.
    const fetched = await fetch(res.body.source_url);
    expect(fetched.status).toBe(200);
    expect((await sharp(Buffer.from(await fetched.arrayBuffer())).metadata()).width).toBe(640);
    const thumb = await fetch(res.body.media_details.sizes.thumbnail.source_url);
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(150);
    expect(existsSync(join(dir, 'never-used'))).toBe(false);
  });

  it('picks another name when the name is taken in the bucket (never replacing a file)', async () => {
    const first = await upload(t, await png(100, 100), 'same.png').expect(201);
    const second = await upload(t, await png(120, 100), 'same.png').expect(201);
    expect(first.body.media_details.file.endsWith('/same.png')).toBe(true);
    expect(second.body.media_details.file.endsWith('/same-1.png')).toBe(true);
  });

  it('deletes the original and every size from the bucket', async () => {
    const res = await upload(t, await png(400, 300), 'to-delete.png').expect(201);
    const month = res.body.media_details.file.slice(0, 7);
    expect((await bucket.list()).filter((key) => key.startsWith(`${month}/to-delete`)).length).toBeGreaterThanOrEqual(
      2,
    );
    await t.http
      .delete(`${API}/media/${res.body.id}?force=true`)
      .set('Authorization', t.users.editor.authorization)
      .expect(200);
    expect((await bucket.list()).filter((key) => key.startsWith(`${month}/to-delete`))).toEqual([]);
    expect(Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${TEST_PREFIX}cms_upload_journal`))[0].n)).toBe(
      0,
    );
  });

  it('stores a file that is not an image as it is', async () => {
    const res = await upload(t, Buffer.from('a,b\n1,2\n'), 'table.csv', 'text/csv').expect(201);
    const stored = await bucket.open(res.body.media_details.file ?? `${res.body.source_url.split('/site/')[1]}`);
    expect(stored?.size).toBe(8);
    stored?.body.destroy();
  });

  it('answers a JSON 500 storage error and writes no attachment when the bucket cannot be reached', async () => {
    const before = Number(
      (await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${TEST_PREFIX}posts WHERE post_type = 'attachment'`))[0].n,
    );
    await s3.stop();
    try {
      const res = await upload(t, await png(50, 50), 'offline.png');
      expectRestError(res, 'rest_upload_sideload_error', 500);
    } finally {
      await s3.start();
    }
    expect(
      Number(
        (await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${TEST_PREFIX}posts WHERE post_type = 'attachment'`))[0].n,
      ),
    ).toBe(before);
    expect((await bucket.list()).filter((key) => key.includes('offline'))).toEqual([]);
  });

  it('settles, from another node, the files of an upload whose node died before its row; keeps files a row owns', async () => {
    // A node stored two files and noted them, then died before its row (another host: only age makes it stale).
    await bucket.put('2020/01/orphan.png', await png(10, 10), 'image/png');
    await bucket.put('2020/01/orphan-150x150.png', await png(10, 10), 'image/png');
    const old = Date.now() - UPLOAD_JOURNAL_STALE_MS - 60_000;
    const journal = `${TEST_PREFIX}cms_upload_journal`;
    await t.dataSource.query(`INSERT INTO ${journal} (main, files, owner, created_at) VALUES (?, ?, ?, ?)`, [
      '2020/01/orphan.png',
      JSON.stringify(['2020/01/orphan.png', '2020/01/orphan-150x150.png']),
      'node-gone:77:ab',
      old,
    ]);
    // And one whose row committed before the node died: its files stay.
    const kept = await upload(t, await png(30, 30), 'kept.png').expect(201);
    const keptFile = kept.body.media_details.file as string;
    await t.dataSource.query(`INSERT INTO ${journal} (main, files, owner, created_at) VALUES (?, ?, ?, ?)`, [
      keptFile,
      JSON.stringify([keptFile]),
      'node-gone:77:ab',
      old,
    ]);
    // Another node of the fleet: same database and bucket.
    const other = await createTestApp('media_s3', {
      databaseUrl,
      users: t.users,
      cms: { objectStorage: s3.options('site'), uploadsUrl: `${s3.publicUrl}/site` },
    });
    try {
      // It settled them when it started.
      const keys = await bucket.list();
      expect(keys.filter((key) => key.startsWith('2020/01/orphan'))).toEqual([]);
      expect(keys).toContain(keptFile);
      expect(Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${journal}`))[0].n)).toBe(0);
      expect(await other.app.get(MediaResources).settle()).toBe(0);
      // And what one node uploads, the other serves.
      const item = await other.http.get(`${API}/media/${kept.body.id}`).expect(200);
      expect(item.body.source_url).toBe(kept.body.source_url);
    } finally {
      await other.app.close();
    }
  });
});

/** The standalone server configured by the environment (CMS_S3_*), serving its default upload URLs from the bucket. */
describe('the standalone server with CMS_S3_BUCKET', () => {
  let s3: TestS3;
  let server: StandaloneServer | undefined;
  let db: { url: string; cleanup: () => void };

  beforeAll(async () => {
    assertBuilt();
    s3 = await startTestS3();
    db = await serverDatabase('media_s3_standalone');
    server = await startServer({
      DATABASE_URL: db.url,
      CMS_ADMIN_USER: 'admin',
      CMS_ADMIN_PASSWORD: 'admin-password-1',
      CMS_S3_BUCKET: s3.bucket,
      CMS_S3_ENDPOINT: s3.endpoint,
      CMS_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      CMS_REQUEST_LOG: 'off',
      CMS_UPLOAD_DIR: join(tmpdir(), `cms-never-${process.pid}`),
    });
  });
  afterAll(async () => {
    await stopServer(server);
    await s3.close();
    db.cleanup();
    await dropTestDatabase('media_s3_standalone');
  });

  it('uploads to the bucket and serves /wp-content/uploads/ from it (type, length, ranges, 404 for a missing file)', async () => {
    const login = await fetch(`${server!.base}/cms-json/cms-auth/v1/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin-password-1' }),
    });
    expect(login.status).toBe(200);
    const cookie = String(login.headers.get('set-cookie')).split(';')[0];
    const nonce = String(((await login.json()) as { nonce: string }).nonce);
    const body = await png(300, 200);
    const res = await fetch(`${server!.base}${API}/media`, {
      method: 'POST',
      headers: {
        Cookie: cookie,
        'X-CMS-Nonce': nonce,
        'Content-Type': 'image/png',
        'Content-Disposition': 'attachment; filename="served.png"',
      },
      body,
    });
    expect(res.status).toBe(201);
    const item = (await res.json()) as { source_url: string; media_details: { file: string } };
    // The site URL written on first start: localhost at the server's port.
    expect(item.source_url).toBe(`http://localhost:${server!.port}/wp-content/uploads/${item.media_details.file}`);
    const listed = new S3MediaStorage({ ...s3.options() });
    try {
      expect(await listed.list()).toContain(item.media_details.file);
    } finally {
      listed.close();
    }
    const url = `${server!.base}/wp-content/uploads/${item.media_details.file}`;
    const served = await fetch(url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toContain('immutable');
    expect(Buffer.from(await served.arrayBuffer()).equals(body)).toBe(true);
    const part = await fetch(url, { headers: { Range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(body.subarray(0, 10))).toBe(true);
    expect((await fetch(`${server!.base}/wp-content/uploads/2001/01/missing.png`)).status).toBe(404);
    expect((await fetch(`${server!.base}/wp-content/uploads/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
  });
});
