import { AddressInfo } from 'node:net';
import { createTerm } from '../factories/post.factory';
import { createTestApp, TestApp } from '../utils/test-app';

// `@wordpress/api-fetch` (7.x), set up as a WordPress page sets it up, against a listening server.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const apiFetch = require('@wordpress/api-fetch').default;

const MODES = [
  { mode: 'cms', root: 'cms-json', namespace: 'cms/v2', nonceHeader: 'x-cms-nonce' },
  { mode: 'wordpress', root: 'wp-json', namespace: 'wp/v2', nonceHeader: 'x-wp-nonce' },
] as const;

interface Sent {
  method: string;
  url: string;
  headers: Headers;
}

/**
 * A browser's cookie handling around the global `fetch` (which api-fetch calls): cookies the server sets are kept
 * and sent back, as a page of the site would. Each request is recorded.
 */
function installCookieFetch(): { sent: Sent[]; restore(): void } {
  const original = globalThis.fetch;
  const jar = new Map<string, string>();
  const sent: Sent[] = [];
  globalThis.fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set('Cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    sent.push({ method: init.method ?? 'GET', url: input instanceof Request ? input.url : input.toString(), headers });
    const response = await original(input, { ...init, headers });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      if (/;\s*Max-Age=0/i.test(cookie)) jar.delete(pair.slice(0, at));
      else jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  return { sent, restore: () => (globalThis.fetch = original) };
}

type Item = { id: number; [key: string]: any };

describe.each(MODES)('@wordpress/api-fetch against the server with $mode wire names', (names) => {
  let t: TestApp;
  let root: string;
  let browser: ReturnType<typeof installCookieFetch>;
  let nonceMiddleware: ((options: unknown, next: unknown) => unknown) & { nonce: string };
  let rootMiddleware: (options: unknown, next: unknown) => unknown;
  const ns = `/${names.namespace}`;

  beforeAll(async () => {
    t = await createTestApp(`clients_api_fetch_${names.mode}`, { cms: { baseUrl: undefined, wireNames: names.mode } });
    await t.app.listen(0, '127.0.0.1');
    root = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/${names.root}/`;
    browser = installCookieFetch();
    rootMiddleware = apiFetch.createRootURLMiddleware(root);
    apiFetch.use(rootMiddleware);

    // The page logs in with the session route (the cookie goes into the jar), then sets up the nonce as
    // WordPress's inline script does.
    const login = await apiFetch({
      path: '/cms-auth/v1/login',
      method: 'POST',
      data: { username: 'editor', password: t.users.editor.password },
    });
    nonceMiddleware = apiFetch.createNonceMiddleware(login.nonce);
    apiFetch.use(nonceMiddleware);
    apiFetch.nonceMiddleware = nonceMiddleware;
    apiFetch.nonceEndpoint = `${root}cms-auth/v1/nonce`;
  });
  afterAll(async () => {
    apiFetch.unregister(nonceMiddleware);
    apiFetch.unregister(rootMiddleware);
    delete apiFetch.nonceMiddleware;
    delete apiFetch.nonceEndpoint;
    browser.restore();
    await t.close();
  });

  it('sends the cookie with the nonce (X-WP-Nonce) and acts as the logged-in user', async () => {
    const sentBefore = browser.sent.length;
    const me: Item = await apiFetch({ path: `${ns}/users/me?context=edit` });
    expect(me).toMatchObject({ id: t.users.editor.id, roles: ['editor'] });
    const [request] = browser.sent.slice(sentBefore);
    expect(request.url).toBe(`${root}${names.namespace}/users/me?context=edit&_locale=user`);
    expect(request.headers.get('X-WP-Nonce')).toBe(nonceMiddleware.nonce);
    expect(request.headers.get('Cookie')).toMatch(/^cms_logged_in=/);

    // The response carries a fresh nonce in the wire names' header.
    const response: Response = await apiFetch({ path: `${ns}/users/me`, parse: false });
    expect(response.headers.get(names.nonceHeader)).toMatch(/^[0-9a-f]{10}$/);
    const draft: Item = await apiFetch({
      path: `${ns}/posts`,
      method: 'POST',
      data: { title: 'Written through api-fetch' },
    });
    expect(draft).toMatchObject({
      status: 'draft',
      author: t.users.editor.id,
      title: { raw: 'Written through api-fetch' },
    });
  });

  it('fetches every page of per_page=-1, following the Link header', async () => {
    const created: number[] = [];
    for (let i = 0; i < 104; i++)
      created.push(await createTerm(t.dataSource, 'post_tag', `Tag ${String(i).padStart(3, '0')}`));
    const sentBefore = browser.sent.length;
    const tags: Item[] = await apiFetch({ path: `${ns}/tags?per_page=-1&orderby=id` });
    expect(tags.map((tag) => tag.id)).toEqual(created);
    const requests = browser.sent.slice(sentBefore).map((r) => r.url);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toBe(`${root}${names.namespace}/tags?per_page=100&orderby=id&_locale=user`);
    expect(requests[1]).toBe(`${root}${names.namespace}/tags?per_page=100&orderby=id&_locale=user&page=2`);
  });

  it('sends PUT and DELETE as POST with X-HTTP-Method-Override (httpV1Middleware)', async () => {
    const post: Item = await apiFetch({
      path: `${ns}/posts`,
      method: 'POST',
      data: { title: 'Override me', status: 'publish' },
    });
    const sentBefore = browser.sent.length;
    const updated: Item = await apiFetch({
      path: `${ns}/posts/${post.id}`,
      method: 'PUT',
      data: { title: 'Overridden' },
    });
    expect(updated).toMatchObject({ id: post.id, title: { raw: 'Overridden' } });
    const deleted: Item = await apiFetch({ path: `${ns}/posts/${post.id}?force=true`, method: 'DELETE' });
    // WordPress names: WordPress's `{ deleted, previous }`; the spec's names: the post as it was.
    expect(names.mode === 'cms' ? deleted.id : (deleted.previous as Item).id).toBe(post.id);
    const sent = browser.sent.slice(sentBefore);
    expect(sent.map((r) => [r.method, r.headers.get('X-HTTP-Method-Override')])).toEqual([
      ['POST', 'PUT'],
      ['POST', 'DELETE'],
    ]);
    await expect(apiFetch({ path: `${ns}/posts/${post.id}?context=edit` })).rejects.toMatchObject({
      code: 'rest_post_invalid_id',
      data: { status: 404 },
    });
  });

  it('refreshes an invalid nonce from apiFetch.nonceEndpoint and retries', async () => {
    nonceMiddleware.nonce = '0123456789';
    const sentBefore = browser.sent.length;
    const me: Item = await apiFetch({ path: `${ns}/users/me` });
    expect(me.id).toBe(t.users.editor.id);
    expect(nonceMiddleware.nonce).toMatch(/^[0-9a-f]{10}$/);
    expect(nonceMiddleware.nonce).not.toBe('0123456789');
    const sent = browser.sent.slice(sentBefore);
    expect(sent.map((r) => r.url)).toEqual([
      `${root}${names.namespace}/users/me?_locale=user`,
      `${root}cms-auth/v1/nonce`,
      `${root}${names.namespace}/users/me?_locale=user`,
    ]);
    expect(sent[0].headers.get('X-WP-Nonce')).toBe('0123456789');
    expect(sent[2].headers.get('X-WP-Nonce')).toBe(nonceMiddleware.nonce);
  });

  it('answers 401 from the nonce endpoint after logout, and the cookie no longer authenticates', async () => {
    await apiFetch({ path: '/cms-auth/v1/logout', method: 'POST' });
    const refreshed = await fetch(apiFetch.nonceEndpoint);
    expect(refreshed.status).toBe(401);
    expect(await refreshed.json()).toMatchObject({ code: 'rest_not_logged_in', data: { status: 401 } });
    // Without a session the cookie is not read, so the request is anonymous (no nonce check).
    await expect(apiFetch({ path: `${ns}/users/me` })).rejects.toMatchObject({
      code: 'rest_not_logged_in',
      data: { status: 401 },
    });
  });
});
