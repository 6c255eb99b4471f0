import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { In } from 'typeorm';
import { CmsExtensionRegistry, HookRegistry, OptionEntity, OptionsService } from '../../src';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** Settings controller (`/cms/v2/settings`), reference 3.10 and 6.15, with WordPress 6.1's settings. */

type Role = keyof TestApp['users'];

/** The settings WordPress 6.1 exposes, in its order (GET body keys, schema properties, update arguments). */
const WP_KEYS = [
  'title',
  'description',
  'url',
  'email',
  'timezone',
  'date_format',
  'time_format',
  'start_of_week',
  'language',
  'use_smilies',
  'default_category',
  'default_post_format',
  'posts_per_page',
  'show_on_front',
  'page_on_front',
  'page_for_posts',
  'default_ping_status',
  'default_comment_status',
  'site_logo',
  'site_icon',
];

/** WordPress 6.1's schema properties of its settings, as its OPTIONS answers them. */
const WP_SCHEMA_PROPERTIES = {
  title: { type: 'string', description: 'Site title.', default: null },
  description: { type: 'string', description: 'Site tagline.', default: null },
  url: { type: 'string', description: 'Site URL.', default: null, format: 'uri' },
  email: {
    type: 'string',
    description: 'This address is used for admin purposes, like new user notification.',
    default: null,
    format: 'email',
  },
  timezone: { type: 'string', description: 'A city in the same timezone as you.', default: null },
  date_format: { type: 'string', description: 'A date format for all date strings.', default: null },
  time_format: { type: 'string', description: 'A time format for all time strings.', default: null },
  start_of_week: {
    type: 'integer',
    description: 'A day number of the week that the week should start on.',
    default: null,
  },
  language: { type: 'string', description: 'WordPress locale code.', default: 'en_US' },
  use_smilies: {
    type: 'boolean',
    description: 'Convert emoticons like :-) and :-P to graphics on display.',
    default: true,
  },
  default_category: { type: 'integer', description: 'Default post category.', default: null },
  default_post_format: { type: 'string', description: 'Default post format.', default: null },
  posts_per_page: { type: 'integer', description: 'Blog pages show at most.', default: 10 },
  show_on_front: { type: 'string', description: 'What to show on the front page', default: null },
  page_on_front: {
    type: 'integer',
    description: 'The ID of the page that should be displayed on the front page',
    default: null,
  },
  page_for_posts: {
    type: 'integer',
    description: 'The ID of the page that should display the latest posts',
    default: null,
  },
  default_ping_status: {
    type: 'string',
    description: 'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.',
    default: null,
    enum: ['open', 'closed'],
  },
  default_comment_status: {
    type: 'string',
    description: 'Allow people to submit comments on new posts.',
    default: null,
    enum: ['open', 'closed'],
  },
  site_logo: { type: 'integer', description: 'Site logo.', default: null },
  site_icon: { type: 'integer', description: 'Site icon.', default: null },
};

/** The settings of a fresh site (`installSite()` defaults, base URL http://example.org). */
const FRESH_SITE = {
  title: 'My CMS Site',
  description: '',
  url: 'http://example.org',
  email: 'you@example.com',
  timezone: '',
  date_format: 'F j, Y',
  time_format: 'g:i a',
  start_of_week: 1,
  // Like WordPress 6.1's installer, ours stores no WPLANG row, so the default 'en_US' shows.
  language: 'en_US',
  use_smilies: true,
  default_category: 1,
  default_post_format: '0',
  posts_per_page: 10,
  show_on_front: 'posts',
  page_on_front: 0,
  page_for_posts: 0,
  default_ping_status: 'open',
  default_comment_status: 'open',
  site_logo: null,
  site_icon: 0,
};

/** Settings registered by the fixture extension, and the values they show on a fresh site. */
const FIXTURE_KEYS = ['mycustomsettinginrest', 'fixture_color', 'fixture_ratio', 'fixture_tags'];
const FIXTURE_FRESH = {
  mycustomsettinginrest: 'validvalue1',
  fixture_color: 'blue',
  fixture_ratio: 1.5,
  fixture_tags: ['news'],
};

/** A small extension registering settings in `onModuleInit`, exposed or not, renamed or not, with a sanitiser. */
@Injectable()
class FixtureSettingsExtension implements OnModuleInit {
  constructor(private readonly cms: CmsExtensionRegistry) {}

  onModuleInit(): void {
    // The reference's test_get_item_with_custom_setting.
    this.cms.registerSetting('mycustomsetting', {
      type: 'string',
      default: 'validvalue1',
      showInRest: { name: 'mycustomsettinginrest', schema: { enum: ['validvalue1', 'validvalue2'] } },
    });
    this.cms.registerSetting('fixture_color', {
      type: 'string',
      description: 'Favourite colour.',
      default: 'blue',
      showInRest: { schema: { maxLength: 12 } },
      sanitize: (value) => String(value).trim().toLowerCase(),
    });
    this.cms.registerSetting('fixture_ratio', {
      type: 'number',
      description: 'A ratio.',
      default: 1.5,
      showInRest: true,
    });
    this.cms.registerSetting('fixture_tags', {
      type: 'array',
      description: 'Tags.',
      default: ['news'],
      showInRest: { schema: { items: { type: 'string' } } },
    });
    this.cms.registerSetting('fixture_hidden', { type: 'string', default: 'secret' });
    this.cms.registerSetting('fixture_not_rest', { type: 'string', default: 'x', showInRest: false });
  }
}

@Module({ providers: [FixtureSettingsExtension] })
class FixtureSettingsModule {}

let t: TestApp;
/** Option rows of a fresh site, restored after the tests that write. */
let snapshot: OptionEntity[];
const OPTION_NAMES = [
  'blogname',
  'blogdescription',
  'siteurl',
  'admin_email',
  'timezone_string',
  'date_format',
  'time_format',
  'start_of_week',
  'WPLANG',
  'use_smilies',
  'default_category',
  'default_post_format',
  'posts_per_page',
  'show_on_front',
  'page_on_front',
  'page_for_posts',
  'default_ping_status',
  'default_comment_status',
  'site_logo',
  'site_icon',
  'mycustomsetting',
  'fixture_color',
  'fixture_ratio',
  'fixture_tags',
  'fixture_hidden',
];

beforeAll(async () => {
  t = await createTestApp('settings_controller', { extensions: [FixtureSettingsModule] });
  snapshot = await optionRepo().findBy({ name: In(OPTION_NAMES) });
});

afterAll(() => t.close());

function optionRepo() {
  return t.dataSource.getRepository(OptionEntity);
}

/** The stored (serialized) value of an option, or `null` when it has no row. */
async function storedOption(name: string): Promise<string | null> {
  return (await optionRepo().findOneBy({ name }))?.value ?? null;
}

/** Writes an option row directly (as another process would) and forgets the cached options. */
async function storeOption(name: string, value: string): Promise<void> {
  await optionRepo().delete({ name });
  await optionRepo().insert({ name, value, autoload: 'yes' });
  t.app.get(OptionsService).invalidate();
}

async function restoreSnapshot(): Promise<void> {
  await optionRepo().delete({ name: In(OPTION_NAMES) });
  await optionRepo().insert(snapshot.map(({ name, value, autoload }) => ({ name, value, autoload })));
  t.app.get(OptionsService).invalidate();
}

const ROUTE = '/cms-json/cms/v2/settings';

function get(as?: Role) {
  const req = t.http.get(ROUTE);
  return as ? req.set('Authorization', t.users[as].authorization) : req;
}

/** An update request, by an administrator unless `as` says otherwise (`null`: anonymous). */
function update(
  body: Record<string, unknown>,
  as: Role | null = 'administrator',
  method: 'post' | 'put' | 'patch' = 'put',
) {
  const req = t.http[method](ROUTE).send(body);
  return as ? req.set('Authorization', t.users[as].authorization) : req;
}

function options(as?: Role) {
  const req = t.http.options(ROUTE);
  return as ? req.set('Authorization', t.users[as].authorization) : req;
}

describe('route and permissions', () => {
  it('registers /cms/v2/settings in the namespace index with GET, POST, PUT, PATCH', async () => {
    const res = await t.http.get('/cms-json/cms/v2').expect(200);
    expect(res.body.routes['/cms/v2/settings']).toMatchObject({
      namespace: 'cms/v2',
      methods: ['GET', 'POST', 'PUT', 'PATCH'],
      _links: { self: [{ href: 'http://example.org/cms-json/cms/v2/settings' }] },
    });
  });

  it('refuses an anonymous GET with rest_forbidden 401 (test_get_item_is_not_public)', async () => {
    const res = await get();
    expectRestError(res, 'rest_forbidden', 401);
    expect(res.body.message).toBe('Sorry, you are not allowed to do that.');
  });

  it.each<Role>(['subscriber', 'contributor', 'author', 'editor'])(
    'refuses GET to the %s role with rest_forbidden 403',
    async (role) => {
      expectRestError(await get(role), 'rest_forbidden', 403);
    },
  );

  it.each<[string, number, Role | null]>([
    ['an anonymous caller', 401, null],
    ['an editor', 403, 'editor'],
  ])('refuses an update by %s with rest_forbidden %i and writes nothing', async (_who, status, role) => {
    expectRestError(await update({ title: 'Hacked' }, role), 'rest_forbidden', status);
    expect(await storedOption('blogname')).toBe('My CMS Site');
  });
});

describe('GET', () => {
  it("answers WordPress's settings in WordPress's order, then the extensions', with a fresh site's values (test_get_item)", async () => {
    const res = await get('administrator').expect(200);
    expect(Object.keys(res.body)).toEqual([...WP_KEYS, ...FIXTURE_KEYS]);
    expect(res.body).toEqual({ ...FRESH_SITE, ...FIXTURE_FRESH });
    expect(res.body).not.toHaveProperty('_links');
  });

  it('shows the registered default while the option has no row, and a stored value cast to its type', async () => {
    try {
      await optionRepo().delete({
        name: In(['posts_per_page', 'use_smilies', 'start_of_week', 'default_post_format']),
      });
      await storeOption('site_logo', '12');
      await storeOption('fixture_ratio', '2.25');
      await storeOption('mycustomsetting', 'validvalue2');
      const res = await get('administrator').expect(200);
      expect(res.body).toMatchObject({
        posts_per_page: 10, // registered default
        use_smilies: true, // registered default
        start_of_week: null, // no default
        default_post_format: null,
        site_logo: 12,
        fixture_ratio: 2.25,
        mycustomsettinginrest: 'validvalue2', // test_get_item_with_custom_setting
      });
    } finally {
      await restoreSnapshot();
    }
  });

  it('answers null for a stored value that does not fit the schema, and false for a boolean stored as ""', async () => {
    try {
      await storeOption('start_of_week', 'monday');
      await storeOption('mycustomsetting', 'invalid');
      await storeOption('default_ping_status', 'maybe');
      await storeOption('use_smilies', '');
      await storeOption('blogname', 'a:1:{i:0;s:1:"x";}');
      const res = await get('administrator').expect(200);
      expect(res.body).toMatchObject({
        start_of_week: null,
        mycustomsettinginrest: null,
        default_ping_status: null,
        use_smilies: false,
        title: null,
      });
    } finally {
      await restoreSnapshot();
    }
  });
});

describe('update', () => {
  afterEach(() => restoreSnapshot());

  it('updates the title, answers the full settings and stores the option (test_update_item)', async () => {
    const res = await update({ title: 'The new title!' }).expect(200);
    expect(res.body).toEqual({ ...FRESH_SITE, ...FIXTURE_FRESH, title: 'The new title!' });
    expect(await storedOption('blogname')).toBe('The new title!');
  });

  it.each<'post' | 'put' | 'patch'>(['post', 'put', 'patch'])(
    'updates several settings with %s and keeps them',
    async (method) => {
      const changes = {
        description: 'Just another site',
        url: 'https://cms.example.com',
        email: 'owner@example.com',
        timezone: 'Europe/Paris',
        date_format: 'Y-m-d',
        time_format: 'H:i',
        start_of_week: 0,
        use_smilies: false,
        default_category: 5,
        default_post_format: 'aside',
        posts_per_page: 25,
        show_on_front: 'page',
        page_on_front: 7,
        page_for_posts: 8,
        default_ping_status: 'closed',
        default_comment_status: 'closed',
        site_logo: 11,
        site_icon: 12,
      };
      const res = await update(changes, 'administrator', method).expect(200);
      expect(res.body).toEqual({ ...FRESH_SITE, ...FIXTURE_FRESH, ...changes });
      expect((await get('administrator').expect(200)).body).toEqual(res.body);
      expect(await storedOption('blogdescription')).toBe('Just another site');
      expect(await storedOption('timezone_string')).toBe('Europe/Paris');
      expect(await storedOption('posts_per_page')).toBe('25');
      expect(await storedOption('use_smilies')).toBe(''); // false, stored as WordPress stores it
      expect(await storedOption('site_logo')).toBe('11');
    },
  );

  it('coerces values sent as strings (form body) to the setting types', async () => {
    const res = await t.http
      .post(ROUTE)
      .set('Authorization', t.users.administrator.authorization)
      .type('form')
      .send({ posts_per_page: '12', use_smilies: '0', start_of_week: '3', title: 'Form' })
      .expect(200);
    expect(res.body).toMatchObject({ posts_per_page: 12, use_smilies: false, start_of_week: 3, title: 'Form' });
  });

  it("applies WordPress's option sanitising before storing", async () => {
    const res = await update({
      title: 'Fish & Chips <b>"best"</b>',
      description: 'Tom &amp; Jerry',
      date_format: '<em>Y</em>-m-d',
      posts_per_page: 0,
      start_of_week: -3,
      page_on_front: -4,
    }).expect(200);
    expect(res.body).toMatchObject({
      title: 'Fish &amp; Chips &lt;b&gt;&quot;best&quot;&lt;/b&gt;',
      description: 'Tom &amp; Jerry',
      date_format: 'Y-m-d',
      posts_per_page: 1,
      start_of_week: 3,
      page_on_front: 4,
    });
    expect((await update({ posts_per_page: -7 }).expect(200)).body.posts_per_page).toBe(7);
    expect((await update({ posts_per_page: -1 }).expect(200)).body.posts_per_page).toBe(-1);
  });

  it('leaves an option unchanged when WordPress would refuse the value (time zone, language, non-http URL)', async () => {
    const res = await update({
      timezone: 'Nowhere/Atlantis',
      language: 'fr_FR',
      url: 'ftp://files.example.com',
      title: 'Kept',
    }).expect(200);
    expect(res.body).toMatchObject({ timezone: '', language: 'en_US', url: 'http://example.org', title: 'Kept' });
    expect(await storedOption('timezone_string')).toBe('');
    expect(await storedOption('WPLANG')).toBeNull();
  });

  it('deletes the option on null, so the default shows again (test_update_item_with_null)', async () => {
    await storeOption('posts_per_page', '9');
    await storeOption('WPLANG', '');
    expect((await get('administrator').expect(200)).body.posts_per_page).toBe(9);
    const res = await update({ posts_per_page: null, use_smilies: null, language: null }).expect(200);
    expect(res.body).toMatchObject({ posts_per_page: 10, use_smilies: true, language: 'en_US' });
    expect(await storedOption('posts_per_page')).toBeNull();
    expect(await storedOption('use_smilies')).toBeNull();
    expect(await storedOption('WPLANG')).toBeNull();
  });

  it('refuses null for a setting whose stored value does not fit its schema with rest_invalid_stored_value, writing nothing', async () => {
    await storeOption('start_of_week', 'monday');
    const res = await update({ title: 'Not written', start_of_week: null });
    expectRestError(res, 'rest_invalid_stored_value', 500);
    expect(res.body.message).toBe(
      'The start_of_week property has an invalid stored value, and cannot be updated to null.',
    );
    expect(await storedOption('start_of_week')).toBe('monday');
    expect(await storedOption('blogname')).toBe('My CMS Site');
    // Like WordPress, an option without a row counts as false: null is refused for a non-boolean setting.
    expectRestError(await update({ site_logo: null }), 'rest_invalid_stored_value', 500);
  });

  it('rejects invalid values with rest_invalid_param and data.params, writing nothing (test_update_item_with_invalid_type)', async () => {
    const res = await update({
      title: { rendered: 'x' },
      email: 'not-an-email',
      default_ping_status: 'maybe',
      posts_per_page: 'many',
      use_smilies: 'perhaps',
      mycustomsettinginrest: 'validvalue3',
      fixture_color: 'a colour name far too long',
      description: 'Would be valid',
    });
    expectRestError(res, 'rest_invalid_param', 400);
    expect(Object.keys(res.body.data.params).sort()).toEqual(
      [
        'default_ping_status',
        'email',
        'fixture_color',
        'mycustomsettinginrest',
        'posts_per_page',
        'title',
        'use_smilies',
      ].sort(),
    );
    expect(res.body.data.params.title).toMatch(/title is not of type string/);
    expect(await storedOption('blogdescription')).toBe('');
    expect(await storedOption('mycustomsetting')).toBeNull();
    expect((await get('administrator').expect(200)).body).toEqual({ ...FRESH_SITE, ...FIXTURE_FRESH });
  });

  it('ignores unknown keys and settings that are not exposed', async () => {
    const res = await update({
      not_a_setting: 'x',
      fixture_hidden: 'changed',
      fixture_not_rest: 'changed',
      blogname: 'raw',
    }).expect(200);
    expect(res.body).toEqual({ ...FRESH_SITE, ...FIXTURE_FRESH });
    expect(await storedOption('fixture_hidden')).toBeNull();
    expect(await storedOption('blogname')).toBe('My CMS Site');
  });

  it('runs the rest_pre_update_setting and rest_pre_get_setting filters', async () => {
    const hooks = t.app.get(HookRegistry);
    const handled: unknown[] = [];
    const preUpdate = (done: boolean, name: string, value: unknown) => {
      if (name !== 'time_format') return done;
      handled.push(value);
      return true;
    };
    const preGet = (value: unknown, name: string) => (name === 'date_format' ? 'filtered' : value);
    hooks.addFilter('rest_pre_update_setting', preUpdate);
    hooks.addFilter('rest_pre_get_setting', preGet);
    try {
      const res = await update({ time_format: 'H:i', title: 'Hooked' }).expect(200);
      expect(handled).toEqual(['H:i']);
      expect(res.body).toMatchObject({ time_format: 'g:i a', title: 'Hooked', date_format: 'filtered' });
    } finally {
      hooks.removeFilter('rest_pre_update_setting', preUpdate);
      hooks.removeFilter('rest_pre_get_setting', preGet);
    }
  });
});

describe('settings registered by an extension', () => {
  afterEach(() => restoreSnapshot());

  it('updates them through their sanitize callback and keeps them', async () => {
    const res = await update({
      fixture_color: '  GREEN ',
      fixture_ratio: '0.75',
      fixture_tags: ['a', 'b'],
      mycustomsettinginrest: 'validvalue2',
    }).expect(200);
    expect(res.body).toMatchObject({
      fixture_color: 'green',
      fixture_ratio: 0.75,
      fixture_tags: ['a', 'b'],
      mycustomsettinginrest: 'validvalue2',
    });
    expect(await storedOption('fixture_color')).toBe('green');
    expect(await storedOption('mycustomsetting')).toBe('validvalue2');
    expect(await storedOption('fixture_tags')).toBe('a:2:{i:0;s:1:"a";i:1;s:1:"b";}');
    expect((await get('administrator').expect(200)).body).toMatchObject({
      fixture_color: 'green',
      fixture_tags: ['a', 'b'],
    });
    const reset = await update({ fixture_color: null }).expect(200);
    expect(reset.body.fixture_color).toBe('blue');
  });
});

describe('OPTIONS', () => {
  it("publishes the settings schema: WordPress 6.1's properties, then the extensions'", async () => {
    const res = await options('administrator').expect(200);
    const schema = res.body.schema;
    expect(schema).toMatchObject({
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'settings',
      type: 'object',
    });
    expect(Object.keys(schema.properties)).toEqual([...WP_KEYS, ...FIXTURE_KEYS]);
    expect(Object.fromEntries(WP_KEYS.map((key) => [key, schema.properties[key]]))).toEqual(WP_SCHEMA_PROPERTIES);
    expect(Object.keys(schema.properties.email)).toEqual(['type', 'description', 'default', 'format']);
    expect(schema.properties.mycustomsettinginrest).toEqual({
      type: 'string',
      description: '',
      default: 'validvalue1',
      enum: ['validvalue1', 'validvalue2'],
    });
    expect(schema.properties.fixture_color).toEqual({
      type: 'string',
      description: 'Favourite colour.',
      default: 'blue',
      maxLength: 12,
    });
    expect(schema.properties.fixture_ratio).toEqual({ type: 'number', description: 'A ratio.', default: 1.5 });
    expect(schema.properties.fixture_tags).toEqual({
      type: 'array',
      description: 'Tags.',
      default: ['news'],
      items: { type: 'string' },
    });
    // Settings without showInRest are not exposed.
    expect(schema.properties).not.toHaveProperty('fixture_hidden');
    expect(schema.properties).not.toHaveProperty('fixture_not_rest');
  });

  it('describes GET with context only (the spec refuses an invalid context on every GET) and the update endpoint with one optional argument per setting', async () => {
    const res = await options('administrator').expect(200);
    expect(res.body.methods).toEqual(['GET', 'POST', 'PUT', 'PATCH']);
    expect(res.body.endpoints.map((e: { methods: string[] }) => e.methods)).toEqual([
      ['GET'],
      ['POST', 'PUT', 'PATCH'],
    ]);
    expect(Object.keys(res.body.endpoints[0].args)).toEqual(['context']);
    const args = res.body.endpoints[1].args;
    expect(Object.keys(args)).toEqual([...WP_KEYS, ...FIXTURE_KEYS]);
    expect(args.title).toEqual({ description: 'Site title.', type: 'string', required: false });
    expect(args.email).toEqual({
      description: 'This address is used for admin purposes, like new user notification.',
      type: 'string',
      format: 'email',
      required: false,
    });
    expect(args.default_ping_status).toEqual({
      description: 'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.',
      type: 'string',
      enum: ['open', 'closed'],
      required: false,
    });
    expect(args.fixture_color).toEqual({
      description: 'Favourite colour.',
      type: 'string',
      maxLength: 12,
      required: false,
    });
  });

  it('sends Allow: GET, POST, PUT, PATCH to administrators only', async () => {
    expect((await options('administrator').expect(200)).headers.allow).toBe('GET, POST, PUT, PATCH');
    for (const role of [undefined, 'subscriber', 'editor'] as const) {
      const res = await options(role).expect(200);
      expect(res.body.schema.title).toBe('settings');
      expect(res.headers.allow ?? '').not.toMatch(/GET|POST|PUT|PATCH/);
    }
    expect((await get('administrator').expect(200)).headers.allow).toBe('GET, POST, PUT, PATCH');
  });
});
