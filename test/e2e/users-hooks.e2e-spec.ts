import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CmsExtensionRegistry, HookRegistry, RestRequest, RestResponse } from '../../src';
import { createTestApp, TestApp } from '../utils/test-app';

const calls: Array<{ hook: string; id: number; extra?: unknown }> = [];

/** Records the users hooks as an extension would use them. */
@Injectable()
class UserHooksRecorder implements OnModuleInit {
  constructor(
    private readonly hooks: HookRegistry,
    private readonly cms: CmsExtensionRegistry,
  ) {}

  onModuleInit(): void {
    this.cms.registerMeta('user', 'favourite_colour', {
      type: 'string',
      single: true,
      default: 'blue',
      description: 'Favourite colour.',
      showInRest: { name: 'colour' },
      sanitize: (value) => String(value).trim().toLowerCase(),
    });
    this.cms.registerMeta('user', 'badges', { type: 'string', showInRest: true });
    this.hooks.addAction('rest_insert_user', (user: { id: number }, _req: RestRequest, creating: boolean) => {
      calls.push({ hook: 'rest_insert_user', id: user.id, extra: creating });
    });
    this.hooks.addAction('rest_delete_user', (user: { id: number }, previous: RestResponse) => {
      calls.push({ hook: 'rest_delete_user', id: user.id, extra: (previous.data as { id: number }).id });
    });
    this.hooks.addFilter('rest_prepare_user', (response: RestResponse, user: { id: number }) => {
      (response.data as Record<string, unknown>).prepared_by_hook = true;
      calls.push({ hook: 'rest_prepare_user', id: user.id });
      return response;
    });
    this.hooks.addFilter('rest_user_query', (query: { exclude: number[] }) => ({
      ...query,
      exclude: [...query.exclude, 1],
    }));
  }
}

@Module({ providers: [UserHooksRecorder] })
class UserHooksModule {}

describe('users: hooks and registered meta', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('users_hooks', { extensions: [UserHooksModule] });
  });
  afterAll(() => t.close());
  beforeEach(() => (calls.length = 0));

  it('fires rest_insert_user on create (creating=true) and update (creating=false)', async () => {
    const admin = t.users.administrator.authorization;
    const created = await t.http
      .post('/cms-json/cms/v2/users')
      .set('Authorization', admin)
      .send({ username: 'hooked', email: 'hooked@example.org', password: 'pw-hooked' })
      .expect(201);
    await t.http
      .put(`/cms-json/cms/v2/users/${created.body.id}`)
      .set('Authorization', admin)
      .send({ name: 'Hooked' })
      .expect(200);
    expect(calls.filter((c) => c.hook === 'rest_insert_user')).toEqual([
      { hook: 'rest_insert_user', id: created.body.id, extra: true },
      { hook: 'rest_insert_user', id: created.body.id, extra: false },
    ]);
  });

  it('passes every prepared user through rest_prepare_user', async () => {
    const res = await t.http
      .get(`/cms-json/cms/v2/users/${t.users.editor.id}`)
      .set('Authorization', t.users.administrator.authorization)
      .expect(200);
    expect(res.body.prepared_by_hook).toBe(true);
    expect(calls).toEqual([{ hook: 'rest_prepare_user', id: t.users.editor.id }]);
  });

  it('lets rest_user_query change the collection query', async () => {
    const res = await t.http
      .get('/cms-json/cms/v2/users?per_page=100')
      .set('Authorization', t.users.administrator.authorization)
      .expect(200);
    expect(res.body.map((u: { id: number }) => u.id)).not.toContain(1);
  });

  it('fires rest_delete_user with the deleted user and the prepared response', async () => {
    const admin = t.users.administrator.authorization;
    const created = await t.http
      .post('/cms-json/cms/v2/users')
      .set('Authorization', admin)
      .send({ username: 'doomed', email: 'doomed@example.org', password: 'pw-doomed' })
      .expect(201);
    calls.length = 0;
    await t.http
      .delete(`/cms-json/cms/v2/users/${created.body.id}?force=true&reassign=false`)
      .set('Authorization', admin)
      .expect(200);
    expect(calls.filter((c) => c.hook === 'rest_delete_user')).toEqual([
      { hook: 'rest_delete_user', id: created.body.id, extra: created.body.id },
    ]);
  });

  it('exposes registered user meta in the schema and the response, and stores sanitised values sent in meta', async () => {
    const admin = t.users.administrator.authorization;
    const options = await t.http.options('/cms-json/cms/v2/users').set('Authorization', admin).expect(200);
    expect(options.body.schema.properties.meta.properties).toEqual({
      colour: { type: 'string', description: 'Favourite colour.', default: 'blue', context: ['view', 'edit'] },
      badges: { type: 'array', items: { type: 'string' }, description: '', default: null, context: ['view', 'edit'] },
    });
    const before = await t.http
      .get(`/cms-json/cms/v2/users/${t.users.editor.id}?context=edit`)
      .set('Authorization', admin)
      .expect(200);
    expect(before.body.meta).toEqual({ colour: 'blue', badges: [] });
    const after = await t.http
      .put(`/cms-json/cms/v2/users/${t.users.editor.id}`)
      .set('Authorization', admin)
      .send({ meta: { colour: '  GREEN ', unknown_key: 'ignored' } })
      .expect(200);
    expect(after.body.meta).toEqual({ colour: 'green', badges: [] });
  });
});
