import { AddressInfo } from 'node:net';
import { createTestApp, TestApp } from '../utils/test-app';

// The `wpapi` npm client, as a real consumer of the API would use it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const WPAPI = require('wpapi');

describe('the wpapi client against a running server', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp('wpapi_client', { cms: { serveSiteRoot: true, baseUrl: undefined } });
    await t.app.listen(0, '127.0.0.1');
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => t.close());

  it('discovers the API from the site Link header and manages users with an application password', async () => {
    const admin = t.users.administrator;
    const site = await WPAPI.discover(`${base}/`);
    expect(site._options.endpoint).toMatch(/\/cms-json\/$/);
    site.auth({ username: admin.login, password: admin.appPassword });
    const api = site.namespace('cms/v2');

    const listed = await api.users().context('edit').perPage(100);
    expect(listed.map((u: { username: string }) => u.username)).toEqual(
      expect.arrayContaining(['administrator', 'editor', 'subscriber']),
    );
    expect(listed).toHaveLength(5);

    const created = await api
      .users()
      .create({ username: 'wpapi-user', email: 'wpapi@example.org', password: 'correct horse', roles: ['author'] });
    expect(created).toMatchObject({ username: 'wpapi-user', roles: ['author'] });

    const updated = await api.users().id(created.id).update({ name: 'Written by wpapi', description: 'hello' });
    expect(updated).toMatchObject({ id: created.id, name: 'Written by wpapi', description: 'hello' });

    const fetched = await api.users().id(created.id).context('edit');
    expect(fetched.name).toBe('Written by wpapi');

    const me = await api.users().me();
    expect(me.id).toBe(admin.id);

    const deleted = await api.users().id(created.id).delete({ force: true, reassign: admin.id });
    expect(deleted.id).toBe(created.id);
    await expect(api.users().id(created.id)).rejects.toMatchObject({ code: 'rest_user_invalid_id' });
  });
});
