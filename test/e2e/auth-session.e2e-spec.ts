import { UserEntity } from '../../src/core/database/entities/user.entity';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** phpass hash of "secret", as WordPress before 6.8 wrote it. */
const PHPASS_SECRET = '$P$BPLAGMZ05mpb2najKCJl3TrZ2esp5w0';

describe('authentication: cookie sessions, nonces, application passwords and rate limits', () => {
  let t: TestApp;
  const editOnly = '/cms-json/cms/v2/types?context=edit';

  beforeAll(async () => {
    t = await createTestApp('auth_session', { cms: { rateLimit: { max: 3, windowSeconds: 60 } } });
  });
  afterAll(() => t.close());

  function login(username: string, password: string) {
    return t.http.post('/cms-json/cms-auth/v1/login').send({ username, password });
  }

  function sessionCookie(res: { headers: Record<string, unknown> }): string {
    const header = res.headers['set-cookie'] as string[] | string;
    const first = Array.isArray(header) ? header[0] : header;
    return first.split(';')[0];
  }

  it('treats a request without credentials as anonymous', async () => {
    expectRestError(await t.http.get(editOnly), 'rest_cannot_view', 401);
  });

  it('authenticates HTTP Basic with an application password, and refuses wrong ones with 401', async () => {
    await t.http.get(editOnly).set('Authorization', t.users.editor.authorization).expect(200);
    const wrong = `Basic ${Buffer.from('editor:not-the-password').toString('base64')}`;
    expectRestError(await t.http.get(editOnly).set('Authorization', wrong), 'incorrect_password', 401);
    const unknown = `Basic ${Buffer.from('nobody:whatever').toString('base64')}`;
    expectRestError(await t.http.get(editOnly).set('Authorization', unknown), 'invalid_username', 401);
  });

  it('logs in with a password and sets an HttpOnly SameSite session cookie, answering a nonce', async () => {
    const res = await login('author', t.users.author.password).expect(200);
    expect(res.body).toMatchObject({ id: t.users.author.id, username: 'author', roles: ['author'] });
    expect(res.body.nonce).toMatch(/^[0-9a-f]{10}$/);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^cms_logged_in=/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
  });

  it('refuses a wrong password with 401 invalid_credentials', async () => {
    expectRestError(await login('subscriber', 'wrong'), 'invalid_credentials', 401);
  });

  it('uses the cookie only with a valid nonce, from the header or _cmsnonce', async () => {
    const res = await login('editor', t.users.editor.password).expect(200);
    const cookie = sessionCookie(res);
    const nonce = res.body.nonce as string;
    // Cookie alone: anonymous.
    expectRestError(await t.http.get(editOnly).set('Cookie', cookie), 'rest_cannot_view', 401);
    const ok = await t.http.get(editOnly).set('Cookie', cookie).set('X-CMS-Nonce', nonce).expect(200);
    expect(ok.headers['x-cms-nonce']).toMatch(/^[0-9a-f]{10}$/);
    await t.http.get(`${editOnly}&_cmsnonce=${nonce}`).set('Cookie', cookie).expect(200);
    expectRestError(
      await t.http.get(editOnly).set('Cookie', cookie).set('X-CMS-Nonce', '0123456789'),
      'rest_cookie_invalid_nonce',
      403,
    );
  });

  it('never authenticates a cross-origin request through the cookie', async () => {
    const res = await login('editor', t.users.editor.password).expect(200);
    const cookie = sessionCookie(res);
    const foreign = await t.http
      .get(editOnly)
      .set('Cookie', cookie)
      .set('X-CMS-Nonce', res.body.nonce)
      .set('Origin', 'https://evil.example');
    expectRestError(foreign, 'rest_cannot_view', 401);
    await t.http
      .get(editOnly)
      .set('Cookie', cookie)
      .set('X-CMS-Nonce', res.body.nonce)
      .set('Origin', 'http://example.org')
      .expect(200);
  });

  it('ends the session on logout', async () => {
    const res = await login('administrator', t.users.administrator.password).expect(200);
    const cookie = sessionCookie(res);
    const out = await t.http
      .post('/cms-json/cms-auth/v1/logout')
      .set('Cookie', cookie)
      .set('X-CMS-Nonce', res.body.nonce)
      .expect(200);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expectRestError(
      await t.http.get(editOnly).set('Cookie', cookie).set('X-CMS-Nonce', res.body.nonce),
      'rest_cannot_view',
      401,
    );
    expectRestError(await t.http.post('/cms-json/cms-auth/v1/logout'), 'rest_not_logged_in', 401);
  });

  it('verifies WordPress phpass hashes and upgrades them to the current format on login', async () => {
    const repo = t.dataSource.getRepository(UserEntity);
    await repo.update({ id: t.users.contributor.id }, { pass: PHPASS_SECRET });
    await login('contributor', 'secret').expect(200);
    const after = await repo.findOneByOrFail({ id: t.users.contributor.id });
    expect(after.pass).toMatch(/^\$wp\$2y\$/);
    await login('contributor', 'secret').expect(200);
  });

  it('accepts the e-mail address as the login name', async () => {
    await login('subscriber@example.org', t.users.subscriber.password).expect(200);
  });

  it('rate-limits failed logins per user and answers 429 with Retry-After', async () => {
    const victim = 'ratelimited';
    for (let i = 0; i < 3; i++) expectRestError(await login(victim, 'nope'), 'invalid_credentials', 401);
    const blocked = await login(victim, 'nope');
    expectRestError(blocked, 'rest_too_many_attempts', 429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});
