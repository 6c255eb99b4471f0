import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CapabilityService, CmsExtensionRegistry } from '../../src';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { PostMetaEntity } from '../../src/core/database/entities/post-meta.entity';
import { createPost, setPostMeta } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';

/** Registers post meta the way the reference's post meta tests do in setUp, plus a few typed keys. */
@Injectable()
class PostMetaExtension implements OnModuleInit {
  constructor(
    private readonly cms: CmsExtensionRegistry,
    private readonly caps: CapabilityService,
  ) {}

  onModuleInit(): void {
    const meta = (key: string, definition: Parameters<CmsExtensionRegistry['registerMeta']>[2]) =>
      this.cms.registerMeta('post', key, definition);
    meta('test_single', { type: 'string', single: true, showInRest: true });
    meta('test_multi', { type: 'string', single: false, showInRest: true });
    meta('test_bad_auth', { type: 'string', single: true, showInRest: true });
    meta('test_bad_auth_multi', { type: 'string', single: false, showInRest: true });
    meta('test_no_rest', { type: 'string', single: true });
    meta('test_rest_disabled', { type: 'string', single: true, showInRest: false });
    meta('test_custom_schema', { type: 'integer', single: true, showInRest: { schema: { type: 'number' } } });
    meta('_private_key', { type: 'string', single: true, showInRest: true });
    meta('test_string', { type: 'string', single: true, showInRest: true });
    meta('test_number', { type: 'number', single: true, showInRest: true });
    meta('test_bool', { type: 'boolean', single: true, showInRest: true });
    meta('test_list', {
      type: 'array',
      single: true,
      showInRest: { schema: { type: 'array', items: { type: 'string' } } },
    });
    this.caps.registerMetaAuth('post', 'test_bad_auth', () => false);
    this.caps.registerMetaAuth('post', 'test_bad_auth_multi', () => false);
  }
}

@Module({ providers: [PostMetaExtension] })
class PostMetaModule {}

describe('posts: registered meta fields', () => {
  let t: TestApp;
  let post: number;

  beforeAll(async () => {
    t = await createTestApp('post_meta', { extensions: [PostMetaModule] });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    post = (await createPost(t.dataSource, { author: t.users.author.id, title: 'Meta holder' })).id;
  });

  /** Stored values of a key, oldest first. */
  const stored = async (key: string, id = post): Promise<Array<string | null>> =>
    (await t.dataSource.getRepository(PostMetaEntity).find({ where: { postId: id, key }, order: { id: 'ASC' } })).map(
      (r) => r.value,
    );
  const get = (id = post) => t.http.get(`${API}/posts/${id}`).expect(200);
  const write = (
    meta: Record<string, unknown>,
    auth: string | null = t.users.editor.authorization,
    extra: Record<string, unknown> = {},
  ) => {
    const req = t.http.post(`${API}/posts/${post}`);
    if (auth) req.set('Authorization', auth);
    return req.send({ ...extra, meta });
  };

  describe('reading', () => {
    it('serves a single value', async () => {
      await setPostMeta(t.dataSource, post, 'test_single', 'testvalue');
      expect((await get()).body.meta.test_single).toBe('testvalue');
    });

    it('serves every value of a multi-valued key', async () => {
      await setPostMeta(t.dataSource, post, 'test_multi', 'value1');
      expect((await get()).body.meta.test_multi).toEqual(['value1']);
      await setPostMeta(t.dataSource, post, 'test_multi', 'value2');
      expect((await get()).body.meta.test_multi).toEqual(['value1', 'value2']);
    });

    it('serves the default (null) for a single key without a value and [] for a multi-valued one', async () => {
      const { meta } = (await get()).body;
      expect(meta.test_single).toBeNull();
      expect(meta.test_multi).toEqual([]);
    });

    it('leaves out unregistered keys and keys not shown in the API', async () => {
      await setPostMeta(t.dataSource, post, 'test_unregistered', 'value');
      await setPostMeta(t.dataSource, post, 'test_no_rest', 'value');
      await setPostMeta(t.dataSource, post, 'test_rest_disabled', 'value');
      const { meta } = (await get()).body;
      expect(meta).not.toHaveProperty('test_unregistered');
      expect(meta).not.toHaveProperty('test_no_rest');
      expect(meta).not.toHaveProperty('test_rest_disabled');
    });

    it('serves a protected key registered with showInRest', async () => {
      await setPostMeta(t.dataSource, post, '_private_key', 'hidden');
      expect((await get()).body.meta._private_key).toBe('hidden');
    });

    it('casts stored values to the type of their schema', async () => {
      await setPostMeta(t.dataSource, post, 'test_string', '42');
      await setPostMeta(t.dataSource, post, 'test_number', '42');
      await setPostMeta(t.dataSource, post, 'test_bool', '1');
      await setPostMeta(t.dataSource, post, 'test_custom_schema', '3.5');
      const { meta } = (await get()).body;
      expect(meta.test_string).toBe('42');
      expect(meta.test_number).toBe(42);
      expect(meta.test_bool).toBe(true);
      expect(meta.test_custom_schema).toBe(3.5);
    });

    it('reads an empty stored boolean as false', async () => {
      await setPostMeta(t.dataSource, post, 'test_bool', '');
      expect((await get()).body.meta.test_bool).toBe(false);
    });

    it('unserializes PHP-serialized values', async () => {
      await setPostMeta(t.dataSource, post, 'test_list', 'a:2:{i:0;s:3:"one";i:1;s:3:"two";}');
      expect((await get()).body.meta.test_list).toEqual(['one', 'two']);
    });
  });

  describe('writing single values', () => {
    it('stores one value and answers with it', async () => {
      const res = await write({ test_single: 'test_value' }).expect(200);
      expect(await stored('test_single')).toEqual(['test_value']);
      expect(res.body.meta.test_single).toBe('test_value');
    });

    it('replaces the stored value', async () => {
      await setPostMeta(t.dataSource, post, 'test_single', 'old');
      await write({ test_single: 'new' }).expect(200);
      expect(await stored('test_single')).toEqual(['new']);
    });

    it('accepts a value equal to the stored one', async () => {
      await setPostMeta(t.dataSource, post, 'test_single', 'same');
      const res = await write({ test_single: 'same' }).expect(200);
      expect(res.body.meta.test_single).toBe('same');
      expect(await stored('test_single')).toEqual(['same']);
    });

    it('refuses anonymous callers with rest_cannot_edit and stores nothing', async () => {
      expectRestError(await write({ test_single: 'test_value' }, null), 'rest_cannot_edit', 401);
      expect(await stored('test_single')).toEqual([]);
    });

    it('refuses a key whose auth callback says no with rest_cannot_update and stores nothing', async () => {
      const res = await write({ test_bad_auth: 'test_value' });
      expectRestError(res, 'rest_cannot_update', 403);
      expect(res.body.message).toBe('You do not have permission to edit the test_bad_auth custom field.');
      expect(res.body.data.key).toBe('test_bad_auth');
      expect(await stored('test_bad_auth')).toEqual([]);
    });

    it('refuses protected keys by default', async () => {
      const res = await write({ _private_key: 'mine' });
      expectRestError(res, 'rest_cannot_update', 403);
      expect(res.body.message).toBe('You do not have permission to edit the _private_key custom field.');
      expect(await stored('_private_key')).toEqual([]);
    });

    it('stores nothing of a request with a refused key, neither other keys nor post fields', async () => {
      const res = await write(
        { test_single: 'allowed', test_multi: ['a'], test_bad_auth: 'refused' },
        t.users.editor.authorization,
        { title: 'Changed' },
      );
      expectRestError(res, 'rest_cannot_update', 403);
      expect(await stored('test_single')).toEqual([]);
      expect(await stored('test_multi')).toEqual([]);
      const row = await t.dataSource.getRepository(PostEntity).findOneByOrFail({ id: post });
      expect(row.title).toBe('Meta holder');
    });

    it('ignores unregistered keys and keys not shown in the API', async () => {
      await write({ test_unregistered: 'x', test_no_rest: 'x', test_rest_disabled: 'x', test_single: 'kept' }).expect(
        200,
      );
      expect(await stored('test_unregistered')).toEqual([]);
      expect(await stored('test_no_rest')).toEqual([]);
      expect(await stored('test_rest_disabled')).toEqual([]);
      expect(await stored('test_single')).toEqual(['kept']);
    });
  });

  describe('writing multiple values', () => {
    it('stores a list, then adds to it', async () => {
      await write({ test_multi: ['val1'] }).expect(200);
      expect(await stored('test_multi')).toEqual(['val1']);
      const res = await write({ test_multi: ['val1', 'val2'] }).expect(200);
      expect((await stored('test_multi')).sort()).toEqual(['val1', 'val2']);
      expect([...res.body.meta.test_multi].sort()).toEqual(['val1', 'val2']);
    });

    it('removes values no longer sent and one of duplicated values', async () => {
      await setPostMeta(t.dataSource, post, 'test_multi', 'c');
      await setPostMeta(t.dataSource, post, 'test_multi', 'n');
      await setPostMeta(t.dataSource, post, 'test_multi', 'n');
      await write({ test_multi: ['c', 'n'] }).expect(200);
      expect((await stored('test_multi')).sort()).toEqual(['c', 'n']);
    });

    it('removes every value for an empty list', async () => {
      await setPostMeta(t.dataSource, post, 'test_multi', 'val1');
      await write({ test_multi: [] }).expect(200);
      expect(await stored('test_multi')).toEqual([]);
    });

    it('refuses anonymous callers with rest_cannot_edit and stores nothing', async () => {
      expectRestError(await write({ test_multi: ['val1'] }, null), 'rest_cannot_edit', 401);
      expect(await stored('test_multi')).toEqual([]);
    });

    it('refuses a key whose auth callback says no with rest_cannot_update', async () => {
      const res = await write({ test_bad_auth_multi: ['test_value'] });
      expectRestError(res, 'rest_cannot_update', 403);
      expect(res.body.message).toBe('You do not have permission to edit the test_bad_auth_multi custom field.');
      expect(await stored('test_bad_auth_multi')).toEqual([]);
    });
  });

  describe('deleting', () => {
    it('deletes a value sent as null', async () => {
      await setPostMeta(t.dataSource, post, 'test_single', 'test_value');
      const res = await write({ test_single: null }).expect(200);
      expect(await stored('test_single')).toEqual([]);
      expect(res.body.meta.test_single).toBeNull();
    });

    it('accepts deleting a key that has no value', async () => {
      await write({ test_single: null }).expect(200);
      expect(await stored('test_single')).toEqual([]);
    });

    it('refuses a key whose auth callback says no with rest_cannot_delete and keeps the value', async () => {
      await setPostMeta(t.dataSource, post, 'test_bad_auth', 'test_value');
      const res = await write({ test_bad_auth: null });
      expectRestError(res, 'rest_cannot_delete', 403);
      expect(res.body.message).toBe('You do not have permission to edit the test_bad_auth custom field.');
      expect(await stored('test_bad_auth')).toEqual(['test_value']);
    });
  });

  describe('stored form', () => {
    it('stores an array in a single key PHP-serialized and serves it back as an array', async () => {
      const res = await write({ test_list: ['x', 'yz'] }).expect(200);
      expect(await stored('test_list')).toEqual(['a:2:{i:0;s:1:"x";i:1;s:2:"yz";}']);
      expect(res.body.meta.test_list).toEqual(['x', 'yz']);
    });

    it('stores booleans as "1" and "" and numbers as their digits, casting them back on read', async () => {
      let res = await write({ test_bool: true, test_number: 2.5 }).expect(200);
      expect(await stored('test_bool')).toEqual(['1']);
      expect(await stored('test_number')).toEqual(['2.5']);
      expect(res.body.meta).toMatchObject({ test_bool: true, test_number: 2.5 });
      res = await write({ test_bool: false }).expect(200);
      expect(await stored('test_bool')).toEqual(['']);
      expect(res.body.meta.test_bool).toBe(false);
    });
  });

  describe('creating', () => {
    it('stores the meta sent with a new post', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', t.users.editor.authorization)
        .send({ title: 'Born with meta', status: 'publish', meta: { test_single: 'first', test_multi: ['a', 'b'] } })
        .expect(201);
      expect(await stored('test_single', res.body.id)).toEqual(['first']);
      expect((await stored('test_multi', res.body.id)).sort()).toEqual(['a', 'b']);
      expect(res.body.meta).toMatchObject({ test_single: 'first', test_multi: ['a', 'b'] });
    });

    it('creates nothing when a key is refused', async () => {
      const posts = t.dataSource.getRepository(PostEntity);
      const before = await posts.countBy({ title: 'Refused at birth' });
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', t.users.editor.authorization)
        .send({ title: 'Refused at birth', status: 'publish', meta: { test_single: 'x', test_bad_auth: 'y' } });
      expectRestError(res, 'rest_cannot_update', 403);
      expect(await posts.countBy({ title: 'Refused at birth' })).toBe(before);
    });
  });

  describe('schema', () => {
    it('describes the exposed keys in the meta property, with their types', async () => {
      const res = await t.http.options(`${API}/posts/${post}`).expect(200);
      const meta = res.body.schema.properties.meta;
      expect(meta).toMatchObject({ type: 'object', context: ['view', 'edit'] });
      expect(meta.properties.test_single.type).toBe('string');
      expect(meta.properties.test_multi).toMatchObject({ type: 'array', items: { type: 'string' } });
      expect(meta.properties.test_custom_schema.type).toBe('number');
      expect(meta.properties.test_bool.type).toBe('boolean');
      expect(meta.properties._private_key.type).toBe('string');
      expect(meta.properties).not.toHaveProperty('test_no_rest');
      expect(meta.properties).not.toHaveProperty('test_rest_disabled');
    });

    it('describes the same meta on the collection route', async () => {
      const res = await t.http.options(`${API}/posts`).expect(200);
      expect(Object.keys(res.body.schema.properties.meta.properties).sort()).toEqual([
        '_private_key',
        'test_bad_auth',
        'test_bad_auth_multi',
        'test_bool',
        'test_custom_schema',
        'test_list',
        'test_multi',
        'test_number',
        'test_single',
        'test_string',
      ]);
    });
  });
});
