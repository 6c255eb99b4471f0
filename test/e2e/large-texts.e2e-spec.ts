import type { Server } from 'node:http';
import sharp from 'sharp';
import { AddressInfo } from 'node:net';
import { DESCRIPTION_BYTES, POST_CONTENT_BYTES, TEXT_COLUMN_BYTES } from '../../src/core/text/text-limits';
import { MAX_PASSWORD_BYTES } from '../../src/core/auth/password-hash';
import { closeTextFilterPool } from '../../src/core/text/text-filter-pool';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** How long a cheap read may wait, whatever the size of the post written meanwhile. */
const READ_BOUND_MS = 1500;

/**
 * Large texts do not hold up other requests: their length is checked before any filter runs, and a large text is
 * filtered and rendered in a worker thread while the server goes on answering (on a real HTTP server).
 */
describe('large texts', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp('large_texts');
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cms-json/cms/v2`;
  });
  afterAll(async () => {
    await t.close();
    await closeTextFilterPool();
  });

  function write(path: string, authorization: string, body: unknown): Promise<Response> {
    return fetch(`${base}/${path}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  it('a cheap read keeps being answered within a fixed bound while a large post is filtered and rendered', async () => {
    // 1.9 MB of markup, under the content limit: kses for a contributor, then content and excerpt rendered.
    const content = '<p>a <b>b</b> [gallery] <!-- x --> &amp;</p>'.repeat(42_000);
    expect(Buffer.byteLength(content)).toBeLessThan(POST_CONTENT_BYTES);
    const started = Date.now();
    let done = false;
    const writing = write('posts', t.users.contributor.authorization, { title: 'A large post', content }).finally(
      () => (done = true),
    );
    const waits: number[] = [];
    while (!done) {
      const sent = Date.now();
      const res = await fetch(`${base}/types`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      waits.push(Date.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const res = await writing;
    const took = Date.now() - started;
    const post = (await res.json()) as {
      id: number;
      content: { raw: string; rendered: string };
      excerpt: { rendered: string };
    };
    expect(res.status).toBe(201);
    expect(post.content.raw.length).toBeGreaterThan(1_000_000);
    expect(post.content.rendered).toContain('<p>a <b>b</b> [gallery]');
    expect(post.excerpt.rendered).toMatch(/^<p>a b/);
    // The write takes longer than the bound (so the reads did overlap it), and no read waited as long.
    expect(took).toBeGreaterThan(READ_BOUND_MS);
    expect(waits.length).toBeGreaterThan(3);
    expect(Math.max(...waits)).toBeLessThan(READ_BOUND_MS);

    // Read back by its author (a draft).
    const read = await fetch(`${base}/posts/${post.id}`, {
      headers: { authorization: t.users.contributor.authorization },
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { content: { rendered: string } }).content.rendered).toBe(post.content.rendered);
  });

  it('answers 400 for a content over the limit before filtering it, and stores nothing', async () => {
    const before = await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${'cms_'}posts`);
    const content = '<p>a</p>'.repeat(Math.ceil((POST_CONTENT_BYTES + 1) / 8));
    const started = Date.now();
    const res = await write('posts', t.users.contributor.authorization, { title: 'Too large', content });
    const body = (await res.json()) as { code: string; data: { status: number; params: Record<string, string> } };
    expectRestError({ status: res.status, body }, 'rest_invalid_param', 400);
    expect(body.data.params.content).toBe(`content must be at most ${POST_CONTENT_BYTES} bytes long.`);
    // Refused on its length: far less than filtering 2 MB of markup takes (several seconds).
    expect(Date.now() - started).toBeLessThan(READ_BOUND_MS);
    const after = await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${'cms_'}posts`);
    expect(Number(after[0].n)).toBe(Number(before[0].n));
  });

  it('bounds titles and excerpts by bytes (a TEXT column), counting multi-byte characters', async () => {
    const admin = t.users.administrator.authorization;
    // 32,768 × 'é' is 65,536 bytes: one over.
    const over = await write('posts', admin, { title: 'é'.repeat(32_768) });
    expectRestError({ status: over.status, body: await over.json() }, 'rest_invalid_param', 400);
    const excerpt = await write('posts', admin, { title: 'x', excerpt: { raw: 'a'.repeat(TEXT_COLUMN_BYTES + 1) } });
    const excerptBody = (await excerpt.json()) as { data: { params: Record<string, string> } };
    expect(excerpt.status).toBe(400);
    expect(Object.keys(excerptBody.data.params)).toEqual(['excerpt']);
    const slug = await write('posts', admin, { title: 'x', slug: 's'.repeat(TEXT_COLUMN_BYTES + 1) });
    expect(Object.keys(((await slug.json()) as { data: { params: Record<string, string> } }).data.params)).toEqual([
      'slug',
    ]);
    const fits = await write('posts', admin, { title: 'é'.repeat(32_767) });
    expect(fits.status).toBe(201);
  });

  it('bounds the same way on update, pages included', async () => {
    const admin = t.users.administrator.authorization;
    const page = (await (await write('pages', admin, { title: 'A page' })).json()) as { id: number };
    const res = await write(`pages/${page.id}`, admin, { content: 'x'.repeat(POST_CONTENT_BYTES + 1) });
    expectRestError({ status: res.status, body: await res.json() }, 'rest_invalid_param', 400);
  });

  it("bounds a term's description and name before kses runs", async () => {
    const admin = t.users.administrator.authorization;
    const res = await write('categories', admin, {
      name: 'Large',
      description: '<b>a</b>'.repeat(DESCRIPTION_BYTES / 8 + 1),
    });
    const body = (await res.json()) as { code: string; data: { status: number; params: Record<string, string> } };
    expectRestError({ status: res.status, body }, 'rest_invalid_param', 400);
    expect(Object.keys(body.data.params)).toEqual(['description']);
    const name = await write('tags', admin, { name: 'n'.repeat(TEXT_COLUMN_BYTES + 1) });
    expectRestError({ status: name.status, body: await name.json() }, 'rest_invalid_param', 400);
    const slug = await write('tags', admin, { name: 'Slugged', slug: 's'.repeat(TEXT_COLUMN_BYTES + 1) });
    expectRestError({ status: slug.status, body: await slug.json() }, 'rest_invalid_param', 400);
    const fits = await write('categories', admin, {
      name: 'Fits',
      description: '<b>a</b>'.repeat(DESCRIPTION_BYTES / 8 - 1),
    });
    expect(fits.status).toBe(201);
  });

  it("bounds a comment's fields before any filter, and checks WordPress's lengths in bytes before filtering an edit", async () => {
    const post = (await (
      await write('posts', t.users.administrator.authorization, { title: 'Open', status: 'publish' })
    ).json()) as { id: number };
    const anonymous = (body: unknown) =>
      fetch(`${base}/comments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // 9 MB of markup as the author's name, anonymously: refused on its size, not after sanitize_text_field.
    const huge = await anonymous({
      post: post.id,
      author_name: '<b>x</b>'.repeat(1_200_000),
      author_email: 'a@example.org',
      content: 'Hello',
    });
    const hugeBody = (await huge.json()) as { code: string; data: { status: number; params: Record<string, string> } };
    expectRestError({ status: huge.status, body: hugeBody }, 'rest_invalid_param', 400);
    expect(Object.keys(hugeBody.data.params)).toEqual(['author_name']);
    // Over WordPress's column length (245 bytes; 123 × 'é' is 246) but under the argument's bound: WordPress's code.
    const long = await anonymous({
      post: post.id,
      author_name: 'é'.repeat(123),
      author_email: 'a@example.org',
      content: 'Hello',
    });
    expectRestError({ status: long.status, body: await long.json() }, 'comment_author_column_length', 400);
    const made = await anonymous({
      post: post.id,
      author_name: 'é'.repeat(122),
      author_email: 'a@example.org',
      content: 'Hello',
    });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: number };
    // An edit over the content's column length (65,525 bytes; this is 65,528) is refused before kses.
    const edit = await write(`comments/${id}`, t.users.administrator.authorization, {
      content: '<b>x</b>'.repeat(8191),
    });
    expectRestError({ status: edit.status, body: await edit.json() }, 'comment_content_column_length', 400);
  });

  it("bounds a user's texts and password before they are filtered or hashed", async () => {
    const admin = t.users.administrator.authorization;
    const bio = await write('users/me', admin, { description: '<b>a</b>'.repeat(DESCRIPTION_BYTES / 8 + 1) });
    expectRestError({ status: bio.status, body: await bio.json() }, 'rest_invalid_param', 400);
    const name = await write('users/me', admin, { first_name: 'n'.repeat(TEXT_COLUMN_BYTES + 1) });
    expectRestError({ status: name.status, body: await name.json() }, 'rest_invalid_param', 400);
    const password = await write('users', admin, {
      username: 'longpass',
      email: 'longpass@example.org',
      password: 'p'.repeat(MAX_PASSWORD_BYTES + 1),
    });
    const passwordBody = (await password.json()) as { data: { params: Record<string, string> } };
    expect(password.status).toBe(400);
    expect(Object.keys(passwordBody.data.params)).toEqual(['password']);
  });

  it('refuses a 1 MB password at login without hashing it', async () => {
    const started = Date.now();
    const res = await fetch(`${base.replace('/cms/v2', '')}/cms-auth/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: t.users.editor.login, password: 'x'.repeat(1_000_000) }),
    });
    expect([400, 401, 403]).toContain(res.status);
    expect(Date.now() - started).toBeLessThan(READ_BOUND_MS);
  });

  it("bounds a medium's caption, description and alternative text before kses", async () => {
    const admin = t.users.administrator.authorization;
    const image = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    const uploaded = await fetch(`${base}/media`, {
      method: 'POST',
      headers: {
        authorization: admin,
        'content-type': 'image/png',
        'content-disposition': 'attachment; filename=small.png',
      },
      body: image,
    });
    expect(uploaded.status).toBe(201);
    const { id } = (await uploaded.json()) as { id: number };
    for (const field of ['caption', 'description', 'alt_text']) {
      const res = await write(`media/${id}`, admin, { [field]: '<b>a</b>'.repeat(DESCRIPTION_BYTES / 8 + 1) });
      const body = (await res.json()) as { code: string; data: { status: number; params: Record<string, string> } };
      expectRestError({ status: res.status, body }, 'rest_invalid_param', 400);
      expect(Object.keys(body.data.params)).toEqual([field]);
    }
  });
});
