import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { CmsExtensionRegistry, HookRegistry } from '../../src';
import { createPost } from '../factories/post.factory';
import { createTestApp, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';

/** An extension that adds a square size, changes `medium`, and serves files from a CDN. */
@Injectable()
class MediaFixtureExtension implements OnModuleInit {
  constructor(
    private readonly cms: CmsExtensionRegistry,
    private readonly hooks: HookRegistry,
  ) {}

  onModuleInit(): void {
    this.cms.registerImageSize('square', { width: 64, height: 64, crop: true });
    this.cms.registerImageSize('medium', { width: 200, height: 200 });
    this.hooks.addFilter(
      'wp_get_attachment_url',
      (url: string, relative: string) => `https://cdn.example.net/media/${relative}`,
    );
  }
}

@Module({ providers: [MediaFixtureExtension] })
class MediaFixtureModule {}

type Who = 'anonymous' | 'subscriber' | 'contributor' | 'author' | 'editor' | 'administrator';
const WHO: Who[] = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator'];

describe('media: extensions, privacy and the permission matrix', () => {
  let t: TestApp;
  let uploads: string;
  const png = (w = 400, h = 300) =>
    sharp({ create: { width: w, height: h, channels: 3, background: { r: 1, g: 2, b: 3 } } })
      .png()
      .toBuffer();
  const as = (req: import('supertest').Test, who: Who) =>
    who === 'anonymous' ? req : req.set('Authorization', t.users[who].authorization);
  let small: Buffer;
  const uploadAs = (who: Who, name: string, post?: number) =>
    as(t.http.post(`${API}/media${post ? `?post=${post}` : ''}`), who)
      .set('Content-Type', 'image/png')
      .set('Content-Disposition', `attachment; filename="${name}"`)
      .send(small);

  beforeAll(async () => {
    uploads = mkdtempSync(join(tmpdir(), 'cms-uploads-'));
    small = await png(40, 30);
    t = await createTestApp('media_rules', { cms: { uploadDir: uploads }, extensions: [MediaFixtureModule] });
  });
  afterAll(async () => {
    await t.close();
    rmSync(uploads, { recursive: true, force: true });
  });

  it('makes the sizes extensions register, replacing a default one of the same name, and builds URLs through wp_get_attachment_url', async () => {
    const res = await as(t.http.post(`${API}/media`), 'author')
      .set('Content-Type', 'image/png')
      .set('Content-Disposition', 'attachment; filename="sized.png"')
      .send(await png())
      .expect(201);
    const sizes = res.body.media_details.sizes;
    expect(Object.keys(sizes).sort()).toEqual(['full', 'medium', 'square', 'thumbnail']);
    expect(sizes.square).toMatchObject({ width: 64, height: 64 });
    expect(sizes.medium).toMatchObject({ width: 200, height: 150 });
    expect(res.body.source_url).toMatch(/^https:\/\/cdn\.example\.net\/media\/\d{4}\/\d{2}\/sized\.png$/);
    expect(sizes.square.source_url).toMatch(/^https:\/\/cdn\.example\.net\/media\/\d{4}\/\d{2}\/sized-64x64\.png$/);
  });

  it('keeps media attached to a private or draft post private', async () => {
    const draft = await createPost(t.dataSource, { author: t.users.author.id, status: 'draft', title: 'Draft' });
    const secret = await createPost(t.dataSource, { author: t.users.editor.id, status: 'private', title: 'Private' });
    const onDraft = (await uploadAs('author', 'on-draft.png', draft.id).expect(201)).body.id;
    const onPrivate = (await uploadAs('editor', 'on-private.png', secret.id).expect(201)).body.id;
    const status = async (id: number, who: Who) => (await as(t.http.get(`${API}/media/${id}`), who)).status;
    expect(await status(onDraft, 'anonymous')).toBe(401);
    expect(await status(onDraft, 'subscriber')).toBe(403);
    expect(await status(onDraft, 'author')).toBe(200);
    expect(await status(onPrivate, 'anonymous')).toBe(401);
    expect(await status(onPrivate, 'author')).toBe(403);
    expect(await status(onPrivate, 'editor')).toBe(200);
    const listed = (await t.http.get(`${API}/media?per_page=100`).expect(200)).body.map((m: { id: number }) => m.id);
    expect(listed).not.toContain(onDraft);
    expect(listed).not.toContain(onPrivate);
  });

  it('answers every role as the capabilities say: create, read, update and delete', async () => {
    const ownByAuthor = (await uploadAs('author', 'authors.png').expect(201)).body.id;
    const results: Record<string, Record<Who, number>> = {
      create: {} as Record<Who, number>,
      update: {} as Record<Who, number>,
      'list private': {} as Record<Who, number>,
      delete: {} as Record<Who, number>,
    };
    for (const who of WHO) {
      results.create[who] = (await uploadAs(who, `by-${who}.png`)).status;
      results.update[who] = (
        await as(t.http.post(`${API}/media/${ownByAuthor}`), who).send({ alt_text: `by ${who}` })
      ).status;
      results['list private'][who] = (await as(t.http.get(`${API}/media?status=private`), who)).status;
    }
    for (const who of WHO) {
      const victim = (await uploadAs('author', `victim-${who}.png`).expect(201)).body.id;
      results.delete[who] = (await as(t.http.delete(`${API}/media/${victim}?force=true`), who)).status;
    }
    expect(results).toEqual({
      create: { anonymous: 401, subscriber: 403, contributor: 403, author: 201, editor: 201, administrator: 201 },
      update: { anonymous: 401, subscriber: 403, contributor: 403, author: 200, editor: 200, administrator: 200 },
      'list private': {
        anonymous: 400,
        subscriber: 400,
        contributor: 200,
        author: 200,
        editor: 200,
        administrator: 200,
      },
      delete: { anonymous: 401, subscriber: 403, contributor: 403, author: 200, editor: 200, administrator: 200 },
    });
  });

  it('takes scriptable types only when the site allows them', async () => {
    const allowed = await createTestApp('media_scriptable', {
      cms: { uploadDir: uploads, allowScriptableUploads: true },
    });
    try {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
      const res = await allowed.http
        .post(`${API}/media`)
        .set('Authorization', allowed.users.editor.authorization)
        .set('Content-Type', 'image/svg+xml')
        .set('Content-Disposition', 'attachment; filename="logo.svg"')
        .send(Buffer.from(svg))
        .expect(201);
      expect(res.body).toMatchObject({ mime_type: 'image/svg+xml', media_type: 'image' });
    } finally {
      await allowed.close();
    }
    const refused = await as(t.http.post(`${API}/media`), 'administrator')
      .set('Content-Type', 'image/svg+xml')
      .set('Content-Disposition', 'attachment; filename="logo.svg"')
      .send(Buffer.from('<svg/>'));
    expect([refused.status, refused.body.code]).toEqual([400, 'rest_upload_sideload_error']);
  });
});
