import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { PostMetaEntity } from '../../src/core/database/entities/post-meta.entity';
import { LocalDiskStorage } from '../../src/resources/media/media-storage';
import { createPost } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';

/** A PNG of the given size, made here. */
function png(width = 640, height = 480): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();
}

/** A JPEG with an IPTC record (APP13, Photoshop 3.0 / 8BIM 0x0404): object name (2:05) and caption (2:120). */
async function jpegWithIptc(title: string, caption: string, orientation?: number): Promise<Buffer> {
  let image = sharp({ create: { width: 400, height: 200, channels: 3, background: { r: 10, g: 120, b: 200 } } }).jpeg();
  if (orientation) image = image.withMetadata({ orientation });
  const jpeg = await image.toBuffer();
  const record = (dataset: number, value: string) => {
    const data = Buffer.from(value, 'utf8');
    return Buffer.concat([Buffer.from([0x1c, 0x02, dataset, data.length >> 8, data.length & 0xff]), data]);
  };
  let iptc = Buffer.concat([record(5, title), record(120, caption)]);
  if (iptc.length % 2) iptc = Buffer.concat([iptc, Buffer.from([0])]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(iptc.length - (iptc.length % 2 ? 1 : 0));
  const resource = Buffer.concat([Buffer.from('8BIM'), Buffer.from([0x04, 0x04, 0x00, 0x00]), size, iptc]);
  const payload = Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource]);
  const header = Buffer.from([0xff, 0xed, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]);
  // Right after SOI (FF D8).
  return Buffer.concat([jpeg.subarray(0, 2), header, payload, jpeg.subarray(2)]);
}

describe('media', () => {
  let t: TestApp;
  let uploads: string;
  let failNext = 0;
  const auth = (role: keyof TestApp['users']) => t.users[role].authorization;
  const files = (): string[] => {
    const out: string[] = [];
    const walk = (dir: string, prefix: string) => {
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
        else out.push(`${prefix}${entry.name}`);
      }
    };
    walk(uploads, '');
    return out.sort();
  };
  const upload = (body: Buffer, name: string, type = 'image/png', role: keyof TestApp['users'] = 'author') =>
    t.http
      .post(`${API}/media`)
      .set('Authorization', auth(role))
      .set('Content-Type', type)
      .set('Content-Disposition', `attachment; filename="${name}"`)
      .send(body);

  beforeAll(async () => {
    uploads = mkdtempSync(join(tmpdir(), 'cms-uploads-'));
    // The local disk, failing on demand (the nth next write), to see that a failed upload leaves nothing behind.
    const disk = new LocalDiskStorage(uploads);
    const storage = {
      put: async (path: string, data: Buffer, _mime: string) => {
        if (failNext > 0 && --failNext === 0) throw new Error('disk full');
        return disk.put(path, data);
      },
      exists: (path: string) => disk.exists(path),
      remove: (paths: readonly string[]) => disk.remove(paths),
    };
    t = await createTestApp('media', { cms: { uploadDir: uploads, mediaStorage: storage } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(uploads, { recursive: true, force: true });
  });

  describe('uploading', () => {
    it('stores a raw PNG body: 201, Location, the file and its sizes under uploads/YYYY/MM, media fields', async () => {
      const res = await upload(await png(), 'Red Box.png').expect(201);
      const month = new Date().toISOString().slice(0, 7).replace('-', '/');
      expect(res.headers.location).toBe(`http://example.org${API}/media/${res.body.id}`);
      expect(res.body).toMatchObject({
        type: 'attachment',
        status: 'inherit',
        title: { raw: 'Red Box' },
        media_type: 'image',
        mime_type: 'image/png',
        post: null,
        alt_text: '',
        source_url: `http://example.org/wp-content/uploads/${month}/Red-Box.png`,
      });
      const details = res.body.media_details;
      expect(details).toMatchObject({ width: 640, height: 480, file: `${month}/Red-Box.png` });
      expect(Object.keys(details.sizes).sort()).toEqual(['full', 'medium', 'thumbnail']);
      expect(details.sizes.thumbnail).toMatchObject({
        file: 'Red-Box-150x150.png',
        width: 150,
        height: 150,
        mime_type: 'image/png',
      });
      expect(details.sizes.medium).toMatchObject({
        file: 'Red-Box-300x225.png',
        width: 300,
        height: 225,
        source_url: `http://example.org/wp-content/uploads/${month}/Red-Box-300x225.png`,
      });
      expect(details.sizes.full).toMatchObject({ file: 'Red-Box.png', width: 640, height: 480 });
      expect(files()).toEqual(
        expect.arrayContaining([
          `${month}/Red-Box.png`,
          `${month}/Red-Box-150x150.png`,
          `${month}/Red-Box-300x225.png`,
        ]),
      );
      const thumb = await sharp(join(uploads, month, 'Red-Box-150x150.png')).metadata();
      expect([thumb.width, thumb.height]).toEqual([150, 150]);
      // The same name again is made unique.
      const again = await upload(await png(), 'Red Box.png').expect(201);
      expect(again.body.media_details.file).toBe(`${month}/Red-Box-1.png`);
    });

    it('makes medium_large and large sizes of a large image, never larger sizes than the image', async () => {
      const res = await upload(await png(2000, 1000), 'wide.png').expect(201);
      const sizes = res.body.media_details.sizes;
      expect(Object.keys(sizes).sort()).toEqual(['full', 'large', 'medium', 'medium_large', 'thumbnail']);
      expect([sizes.large.width, sizes.large.height]).toEqual([1024, 512]);
      expect([sizes.medium_large.width, sizes.medium_large.height]).toEqual([768, 384]);
      const small = await upload(await png(100, 80), 'small.png').expect(201);
      expect(Object.keys(small.body.media_details.sizes)).toEqual(['full']);
    });

    it('takes a multipart file with the writable fields of the same form', async () => {
      const res = await t.http
        .post(`${API}/media`)
        .set('Authorization', auth('author'))
        .field('title', 'From a form')
        .field('alt_text', 'A red box')
        .field('caption', 'The caption')
        .field('description', 'The <b>description</b>')
        .attach('file', await png(), 'form.png')
        .expect(201);
      expect(res.body).toMatchObject({
        title: { raw: 'From a form' },
        alt_text: 'A red box',
        caption: { raw: 'The caption', rendered: '<p>The caption</p>\n' },
        description: { raw: 'The <b>description</b>' },
      });
      // The image before the description, as WordPress's prepend_attachment puts it.
      expect(res.body.description.rendered).toMatch(
        /^<p class="attachment"><a href='[^']+\/form\.png'><img [^>]+ \/><\/a><\/p>\n<p>The <b>description<\/b><\/p>\n$/,
      );
    });

    it("renders the description after the attachment, as WordPress's prepend_attachment does: the medium image with its srcset, a link for other files", async () => {
      const image = await t.http
        .post(`${API}/media`)
        .set('Authorization', auth('author'))
        .field('alt_text', 'A <i>red</i> box')
        .field('description', 'Below the picture.')
        .attach('file', await png(640, 480), 'gradient.png')
        .expect(201);
      const file = (name: string) => image.body.media_details.sizes[name].source_url;
      expect(image.body.description.rendered).toBe(
        `<p class="attachment"><a href='${file('full')}'><img width="300" height="225" src="${file('medium')}" class="attachment-medium size-medium" alt="A red box" decoding="async" loading="lazy" srcset="${file('medium')} 300w, ${file('full')} 640w" sizes="(max-width: 300px) 100vw, 300px" /></a></p>\n<p>Below the picture.</p>\n`,
      );
      // A small image has no medium size: the file itself, no srcset.
      const small = await upload(await png(100, 80), 'tiny.png').expect(201);
      expect(small.body.description.rendered).toBe(
        `<p class="attachment"><a href='${small.body.source_url}'><img width="100" height="80" src="${small.body.source_url}" class="attachment-medium size-medium" alt="" decoding="async" loading="lazy" /></a></p>\n`,
      );
      const csv = await t.http
        .post(`${API}/media`)
        .set('Authorization', auth('author'))
        .set('Content-Type', 'text/csv')
        .set('Content-Disposition', 'attachment; filename="table.csv"')
        .send('a,b\n')
        .expect(201);
      expect(csv.body.description.rendered).toBe(
        `<p class="attachment"><a href='${csv.body.source_url}'>table</a></p>\n`,
      );
    });

    it('reads the forms of Content-Disposition real clients send', async () => {
      const body = await png(20, 20);
      const send = (disposition: string) =>
        t.http
          .post(`${API}/media`)
          .set('Authorization', auth('author'))
          .set('Content-Type', 'image/png')
          .set('Content-Disposition', disposition)
          .send(body);
      expect((await send('attachment; filename=unquoted.png').expect(201)).body.title.raw).toBe('unquoted');
      expect((await send('attachment;filename = "spaced.png"').expect(201)).body.title.raw).toBe('spaced');
      expect(
        (await send('form-data; name="file"; filename="form-data.png"; other="x"').expect(201)).body.title.raw,
      ).toBe('form-data');
      const utf8 = await send(
        `attachment; filename="fallback.png"; filename*=UTF-8''na%C3%AFve%20caf%C3%A9.png`,
      ).expect(201);
      expect(utf8.body.title.raw).toBe('naïve café');
      expect(utf8.body.media_details.file).toMatch(/\/naïve-café\.png$/);
    });

    it('refuses uploads without data, a Content-Disposition or a file name in it, and a wrong Content-MD5', async () => {
      const body = await png(20, 20);
      expectRestError(
        await t.http
          .post(`${API}/media`)
          .set('Authorization', auth('author'))
          .set('Content-Type', 'image/png')
          .set('Content-Disposition', 'attachment; filename="x.png"'),
        'rest_upload_no_data',
        400,
      );
      expectRestError(
        await t.http
          .post(`${API}/media`)
          .set('Authorization', auth('author'))
          .set('Content-Type', 'image/png')
          .send(body),
        'rest_upload_no_content_disposition',
        400,
      );
      for (const bad of ['filename="x.png"', 'attachment; name="x.png"', 'x.png']) {
        expectRestError(
          await t.http
            .post(`${API}/media`)
            .set('Authorization', auth('author'))
            .set('Content-Type', 'image/png')
            .set('Content-Disposition', bad)
            .send(body),
          'rest_upload_invalid_disposition',
          400,
        );
      }
      expectRestError(await upload(body, 'x.png').set('Content-MD5', 'abc'), 'rest_upload_hash_mismatch', 412);
      const md5 = createHash('md5').update(body).digest('hex');
      await upload(body, 'hashed.png').set('Content-MD5', md5).expect(201);
      expectRestError(
        await t.http
          .post(`${API}/media`)
          .set('Authorization', auth('author'))
          .set('Content-MD5', 'abc')
          .attach('file', body, 'x.png'),
        'rest_upload_hash_mismatch',
        412,
      );
      // No Content-Type at all (a raw request; HTTP clients add one).
      const noType = await new Promise<{ status: number; body: { code?: string } }>((resolve, reject) => {
        const server = t.app.getHttpServer();
        const listening = server.listening
          ? Promise.resolve()
          : new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
        void listening.then(() => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port: (server.address() as AddressInfo).port,
              method: 'POST',
              path: `${API}/media`,
              headers: {
                Authorization: auth('author'),
                'Content-Disposition': 'attachment; filename="x.png"',
                'Content-Length': body.length,
              },
            },
            (res) => {
              let text = '';
              res.on('data', (c) => (text += String(c)));
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { code?: string } }),
              );
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      });
      expect([noType.status, noType.body.code]).toEqual([400, 'rest_upload_no_content_type']);
    });

    it('sniffs the bytes: a file whose content disagrees with its name or its Content-Type is refused', async () => {
      expectRestError(
        await upload(Buffer.from('<?php system($_GET["c"]); ?>'), 'evil.png'),
        'rest_upload_sideload_error',
        400,
      );
      const jpeg = await sharp(await png(20, 20))
        .jpeg()
        .toBuffer();
      expectRestError(await upload(jpeg, 'photo.png'), 'rest_upload_sideload_error', 400);
      expectRestError(await upload(await png(20, 20), 'box.png', 'image/gif'), 'rest_upload_sideload_error', 400);
      // Names and types that are not allowed at all.
      expectRestError(
        await upload(
          Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
          'logo.svg',
          'image/svg+xml',
        ),
        'rest_upload_sideload_error',
        400,
      );
      expectRestError(
        await upload(Buffer.from('<?php echo 1;'), 'shell.php', 'application/x-php'),
        'rest_upload_sideload_error',
        400,
      );
      // Text has no signature: its extension decides.
      const text = await upload(Buffer.from('a,b\n1,2\n'), 'table.csv', 'text/csv').expect(201);
      expect(text.body).toMatchObject({ media_type: 'file', mime_type: 'text/csv', media_details: { filesize: 8 } });
    });

    it('sanitizes file names: no path traversal, no control characters, extra extensions neutralized', async () => {
      const body = await png(20, 20);
      const month = new Date().toISOString().slice(0, 7).replace('-', '/');
      const traversal = await upload(body, '../../../etc/passwd.png').expect(201);
      expect(traversal.body.media_details.file).toBe(`${month}/etcpasswd.png`);
      const nul = await t.http
        .post(`${API}/media`)
        .set('Authorization', auth('author'))
        .set('Content-Type', 'image/png')
        .set('Content-Disposition', `attachment; filename*=UTF-8''bad%01na%09me.png`)
        .send(body)
        .expect(201);
      expect(nul.body.media_details.file).toBe(`${month}/badna-me.png`);
      const double = await upload(body, 'shell.php.png').expect(201);
      expect(double.body.media_details.file).toBe(`${month}/shell.php_.png`);
      expect(files().every((f) => !f.includes('..'))).toBe(true);
    });

    it('takes title and caption from IPTC metadata, the request winning, and honours EXIF orientation', async () => {
      const jpeg = await jpegWithIptc('Harbour at dawn', 'Boats leaving before sunrise');
      const res = await upload(jpeg, 'IMG_0001.jpg', 'image/jpeg').expect(201);
      expect(res.body.title.raw).toBe('Harbour at dawn');
      expect(res.body.caption.raw).toBe('Boats leaving before sunrise');
      expect(res.body.media_details.image_meta).toMatchObject({
        title: 'Harbour at dawn',
        caption: 'Boats leaving before sunrise',
      });
      const sent = await t.http
        .post(`${API}/media?title=${encodeURIComponent('My title')}&caption=${encodeURIComponent('My caption')}`)
        .set('Authorization', auth('author'))
        .set('Content-Type', 'image/jpeg')
        .set('Content-Disposition', 'attachment; filename="IMG_0002.jpg"')
        .send(jpeg)
        .expect(201);
      expect([sent.body.title.raw, sent.body.caption.raw]).toEqual(['My title', 'My caption']);
      // Orientation 6 (turned 90°): stored as shown, 200 wide and 400 high.
      const turned = await upload(await jpegWithIptc('Turned', '', 6), 'turned.jpg', 'image/jpeg').expect(201);
      expect([turned.body.media_details.width, turned.body.media_details.height]).toEqual([200, 400]);
      expect(turned.body.media_details.sizes.medium).toMatchObject({ width: 150, height: 300 });
    });

    it('takes a short EXIF ImageDescription as title and caption when there is no IPTC, as WordPress reads it', async () => {
      const jpeg = await sharp({
        create: { width: 300, height: 200, channels: 3, background: { r: 90, g: 90, b: 90 } },
      })
        .jpeg()
        .withExif({
          IFD0: { ImageDescription: 'Sunset over the bay', Model: 'Camera X100', Copyright: 'Jo Photographer' },
        })
        .toBuffer();
      const res = await upload(jpeg, 'DSC_0042.jpg', 'image/jpeg').expect(201);
      expect([res.body.title.raw, res.body.caption.raw]).toEqual(['Sunset over the bay', 'Sunset over the bay']);
      expect(res.body.media_details.image_meta).toMatchObject({
        title: 'Sunset over the bay',
        caption: 'Sunset over the bay',
        camera: 'Camera X100',
        copyright: 'Jo Photographer',
      });
      // A long description is a caption only; the title falls back to the file name.
      const long = 'A very long description of the picture that goes on and on, well past eighty bytes of text.';
      const described = await sharp({
        create: { width: 300, height: 200, channels: 3, background: { r: 90, g: 90, b: 90 } },
      })
        .jpeg()
        .withExif({ IFD0: { ImageDescription: long } })
        .toBuffer();
      const res2 = await upload(described, 'DSC_0043.jpg', 'image/jpeg').expect(201);
      expect([res2.body.title.raw, res2.body.caption.raw]).toEqual(['DSC_0043', long]);
    });

    it('reads the length and format of audio', async () => {
      // Two seconds of silence: 8 kHz, mono, 16-bit PCM in a RIFF/WAVE file.
      const rate = 8000;
      const data = Buffer.alloc(rate * 2 * 2);
      const header = Buffer.alloc(44);
      header.write('RIFF', 0);
      header.writeUInt32LE(36 + data.length, 4);
      header.write('WAVEfmt ', 8);
      header.writeUInt32LE(16, 16);
      header.writeUInt16LE(1, 20);
      header.writeUInt16LE(1, 22);
      header.writeUInt32LE(rate, 24);
      header.writeUInt32LE(rate * 2, 28);
      header.writeUInt16LE(2, 32);
      header.writeUInt16LE(16, 34);
      header.write('data', 36);
      header.writeUInt32LE(data.length, 40);
      const res = await upload(Buffer.concat([header, data]), 'silence.wav', 'audio/wav').expect(201);
      expect(res.body).toMatchObject({ media_type: 'file', mime_type: 'audio/wav' });
      expect(res.body.media_details).toMatchObject({
        length: 2,
        length_formatted: '0:02',
        sample_rate: 8000,
        channels: 1,
        filesize: 44 + data.length,
      });
    });

    it('falls back to the file name for the title when neither request nor metadata has one', async () => {
      const res = await upload(
        await sharp(await png(20, 20))
          .jpeg()
          .toBuffer(),
        'Summer-Party 2024.jpg',
        'image/jpeg',
      ).expect(201);
      expect(res.body.title.raw).toBe('Summer-Party 2024');
    });
  });

  describe('permissions and parents', () => {
    it('needs upload_files: 401 anonymous, 403 for a contributor or subscriber', async () => {
      const body = await png(20, 20);
      expectRestError(
        await t.http
          .post(`${API}/media`)
          .set('Content-Type', 'image/png')
          .set('Content-Disposition', 'attachment; filename="a.png"')
          .send(body),
        'rest_cannot_create',
        401,
      );
      for (const role of ['contributor', 'subscriber'] as const)
        expectRestError(await upload(body, 'a.png', 'image/png', role), 'rest_cannot_create', 403);
      await upload(body, 'a.png', 'image/png', 'editor').expect(201);
    });

    it('attaches to a post the caller can edit, never to an attachment or a revision', async () => {
      const body = await png(20, 20);
      const own = await createPost(t.dataSource, { author: t.users.author.id, title: 'Own post' });
      const other = await createPost(t.dataSource, { author: t.users.editor.id, title: 'Editor post' });
      const attached = await t.http
        .post(`${API}/media?post=${own.id}`)
        .set('Authorization', auth('author'))
        .set('Content-Type', 'image/png')
        .set('Content-Disposition', 'attachment; filename="attached.png"')
        .send(body)
        .expect(201);
      expect(attached.body.post).toBe(own.id);
      expect(attached.body.link).toBe(`http://example.org/${own.name}/attached/`);
      expectRestError(
        await t.http
          .post(`${API}/media?post=${other.id}`)
          .set('Authorization', auth('author'))
          .set('Content-Type', 'image/png')
          .set('Content-Disposition', 'attachment; filename="a.png"')
          .send(body),
        'rest_cannot_edit',
        403,
      );
      expectRestError(
        await t.http
          .post(`${API}/media?post=${attached.body.id}`)
          .set('Authorization', auth('editor'))
          .set('Content-Type', 'image/png')
          .set('Content-Disposition', 'attachment; filename="a.png"')
          .send(body),
        'rest_invalid_param',
        400,
      );
      const revision = await createPost(t.dataSource, {
        author: t.users.editor.id,
        type: 'revision',
        status: 'inherit',
        parent: other.id,
      });
      expectRestError(
        await t.http
          .post(`${API}/media?post=${revision.id}`)
          .set('Authorization', auth('editor'))
          .set('Content-Type', 'image/png')
          .set('Content-Disposition', 'attachment; filename="a.png"')
          .send(body),
        'rest_invalid_param',
        400,
      );
    });
  });

  describe('updating and deleting', () => {
    it('updates alt text, caption, description and parent', async () => {
      const created = await upload(await png(20, 20), 'edit-me.png').expect(201);
      const post = await createPost(t.dataSource, { author: t.users.author.id, title: 'Parent' });
      const res = await t.http
        .post(`${API}/media/${created.body.id}`)
        .set('Authorization', auth('author'))
        .send({
          alt_text: 'New <script>x</script>alt',
          caption: 'New caption',
          description: { raw: 'New description' },
          post: post.id,
        })
        .expect(200);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toMatchObject({
        alt_text: 'New alt',
        caption: { raw: 'New caption' },
        description: { raw: 'New description' },
        post: post.id,
      });
      expect((await t.http.get(`${API}/media/${created.body.id}`).expect(200)).body.alt_text).toBe('New alt');
    });

    it('has no trash: DELETE without force is refused and keeps everything; force deletes the row, meta and every file', async () => {
      const created = await upload(await png(), 'doomed.png').expect(201);
      const id = created.body.id;
      const before = files().filter((f) => f.includes('doomed'));
      expect(before).toHaveLength(3);
      expectRestError(
        await t.http.delete(`${API}/media/${id}`).set('Authorization', auth('author')),
        'rest_trash_not_supported',
        501,
      );
      expect(files().filter((f) => f.includes('doomed'))).toEqual(before);
      expectRestError(
        await t.http.delete(`${API}/media/${id}?force=true`).set('Authorization', auth('contributor')),
        'rest_cannot_delete',
        403,
      );
      const res = await t.http.delete(`${API}/media/${id}?force=true`).set('Authorization', auth('author')).expect(200);
      expect(res.body).toMatchObject({ id, title: { raw: 'doomed' } });
      expect(files().filter((f) => f.includes('doomed'))).toEqual([]);
      expect(await t.dataSource.getRepository(PostEntity).countBy({ id })).toBe(0);
      expect(await t.dataSource.getRepository(PostMetaEntity).countBy({ postId: id })).toBe(0);
    });

    it('leaves no file and no row behind when the database refuses the attachment (db_update_error 500)', async () => {
      const rows = await t.dataSource.getRepository(PostEntity).countBy({ type: 'attachment' });
      const before = files();
      // The database layer fails the attachment's insert, after its files were stored.
      const failing = {
        beforeInsert: (event: { entity?: { type?: string } }) => {
          if (event.entity?.type === 'attachment') throw new Error('database unavailable');
        },
      };
      t.dataSource.subscribers.push(failing as never);
      try {
        expectRestError(await upload(await png(), 'no-database.png'), 'db_update_error', 500);
      } finally {
        t.dataSource.subscribers.splice(t.dataSource.subscribers.indexOf(failing as never), 1);
      }
      expect(files()).toEqual(before);
      expect(await t.dataSource.getRepository(PostEntity).countBy({ type: 'attachment' })).toBe(rows);
    });

    it('leaves no file and no row behind when storing fails (rest_upload_sideload_error 500)', async () => {
      const rows = await t.dataSource.getRepository(PostEntity).countBy({ type: 'attachment' });
      const before = files();
      failNext = 2; // the original is written, its first size fails
      expectRestError(await upload(await png(), 'unlucky.png'), 'rest_upload_sideload_error', 500);
      expect(files()).toEqual(before);
      expect(await t.dataSource.getRepository(PostEntity).countBy({ type: 'attachment' })).toBe(rows);
    });
  });

  describe('collection', () => {
    it('filters by media_type, mime_type, parent and parent_exclude, and lists inherit only by default', async () => {
      const post = await createPost(t.dataSource, { author: t.users.editor.id, title: 'Gallery' });
      const image = await t.http
        .post(`${API}/media?post=${post.id}`)
        .set('Authorization', auth('editor'))
        .set('Content-Type', 'image/png')
        .set('Content-Disposition', 'attachment; filename="in-gallery.png"')
        .send(await png(20, 20))
        .expect(201);
      const text = await upload(Buffer.from('x,y\n'), 'numbers.csv', 'text/csv').expect(201);
      const ids = async (query: string, role?: keyof TestApp['users']) => {
        let req = t.http.get(`${API}/media?per_page=100&${query}`);
        if (role) req = req.set('Authorization', auth(role));
        return (await req.expect(200)).body.map((m: { id: number }) => m.id);
      };
      expect(await ids('media_type=image')).toContain(image.body.id);
      expect(await ids('media_type=image')).not.toContain(text.body.id);
      const texts = await ids('media_type=text');
      expect(texts).toContain(text.body.id);
      expect(texts).not.toContain(image.body.id);
      expect(await ids('mime_type=text/csv')).toContain(text.body.id);
      expect(await ids('mime_type=image/png')).not.toContain(text.body.id);
      expect(await ids(`parent=${post.id}`)).toEqual([image.body.id]);
      expect(await ids(`parent_exclude=${post.id}`)).not.toContain(image.body.id);
      expectRestError(await t.http.get(`${API}/media?status=private`), 'rest_invalid_param', 400);
      expectRestError(
        await t.http.get(`${API}/media?status=publish`).set('Authorization', auth('editor')),
        'rest_invalid_param',
        400,
      );
      expect(await ids('status=private', 'editor')).toEqual([]);
      expectRestError(await t.http.get(`${API}/media?media_type=spreadsheet`), 'rest_invalid_param', 400);
    });

    it('describes the 24 media properties in OPTIONS', async () => {
      const res = await t.http.options(`${API}/media`).expect(200);
      expect(Object.keys(res.body.schema.properties).sort()).toEqual(
        [
          'alt_text',
          'author',
          'caption',
          'comment_status',
          'date',
          'date_gmt',
          'description',
          'guid',
          'id',
          'link',
          'media_details',
          'media_type',
          'meta',
          'mime_type',
          'missing_image_sizes',
          'modified',
          'modified_gmt',
          'ping_status',
          'post',
          'slug',
          'source_url',
          'status',
          'title',
          'type',
        ].sort(),
      );
    });
  });

  describe('featured media', () => {
    it('embeds the featured image of posts with its media_details, in the same number of queries for 2 and 10 posts', async () => {
      const make = async (n: number) => {
        for (let i = 0; i < n; i++) {
          const media = await upload(await png(320, 240), `featured-${n}-${i}.png`).expect(201);
          await t.http
            .post(`${API}/posts`)
            .set('Authorization', auth('author'))
            .send({ title: `Featured ${n} ${i}`, status: 'publish', featured_media: media.body.id })
            .expect(201);
        }
      };
      await make(2);
      const first = await t.http.get(`${API}/posts?per_page=2&_embed`).expect(200);
      const embedded = first.body[0]._embedded['cms:featuredmedia'][0];
      expect(embedded).toMatchObject({ media_type: 'image', media_details: { width: 320, height: 240 } });
      expect(embedded.media_details.sizes.thumbnail.source_url).toMatch(/featured-2-1-150x150\.png$/);
      // Each measured after the same request once (collection totals and options are cached for a moment).
      const two = await t.queries.during(() => t.http.get(`${API}/posts?per_page=2&_embed`).expect(200));
      await make(10);
      await t.http.get(`${API}/posts?per_page=10&_embed`).expect(200);
      const ten = await t.queries.during(() => t.http.get(`${API}/posts?per_page=10&_embed`).expect(200));
      expect(ten).toBe(two);
    });
  });
});
