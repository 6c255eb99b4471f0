import {
  isSerialized,
  maybeSerialize,
  maybeUnserialize,
  phpSerialize,
  phpTrim,
  phpUnserialize,
  PhpUnserializeError,
} from './php-serialize';
import { DEFAULT_ROLES, type RoleDefinition } from '../database/site-install';

/** `wp_user_roles` option of a fresh WordPress 6.1 install (read from the wp_oracle database). */
const WP_USER_ROLES =
  'a:5:{s:13:"administrator";a:2:{s:4:"name";s:13:"Administrator";s:12:"capabilities";a:61:{s:13:"switc' +
  'h_themes";b:1;s:11:"edit_themes";b:1;s:16:"activate_plugins";b:1;s:12:"edit_plugins";b:1;s:10:"edit_' +
  'users";b:1;s:10:"edit_files";b:1;s:14:"manage_options";b:1;s:17:"moderate_comments";b:1;s:17:"manage' +
  '_categories";b:1;s:12:"manage_links";b:1;s:12:"upload_files";b:1;s:6:"import";b:1;s:15:"unfiltered_h' +
  'tml";b:1;s:10:"edit_posts";b:1;s:17:"edit_others_posts";b:1;s:20:"edit_published_posts";b:1;s:13:"pu' +
  'blish_posts";b:1;s:10:"edit_pages";b:1;s:4:"read";b:1;s:8:"level_10";b:1;s:7:"level_9";b:1;s:7:"leve' +
  'l_8";b:1;s:7:"level_7";b:1;s:7:"level_6";b:1;s:7:"level_5";b:1;s:7:"level_4";b:1;s:7:"level_3";b:1;s' +
  ':7:"level_2";b:1;s:7:"level_1";b:1;s:7:"level_0";b:1;s:17:"edit_others_pages";b:1;s:20:"edit_publish' +
  'ed_pages";b:1;s:13:"publish_pages";b:1;s:12:"delete_pages";b:1;s:19:"delete_others_pages";b:1;s:22:"' +
  'delete_published_pages";b:1;s:12:"delete_posts";b:1;s:19:"delete_others_posts";b:1;s:22:"delete_publ' +
  'ished_posts";b:1;s:20:"delete_private_posts";b:1;s:18:"edit_private_posts";b:1;s:18:"read_private_po' +
  'sts";b:1;s:20:"delete_private_pages";b:1;s:18:"edit_private_pages";b:1;s:18:"read_private_pages";b:1' +
  ';s:12:"delete_users";b:1;s:12:"create_users";b:1;s:17:"unfiltered_upload";b:1;s:14:"edit_dashboard";' +
  'b:1;s:14:"update_plugins";b:1;s:14:"delete_plugins";b:1;s:15:"install_plugins";b:1;s:13:"update_them' +
  'es";b:1;s:14:"install_themes";b:1;s:11:"update_core";b:1;s:10:"list_users";b:1;s:12:"remove_users";b' +
  ':1;s:13:"promote_users";b:1;s:18:"edit_theme_options";b:1;s:13:"delete_themes";b:1;s:6:"export";b:1;' +
  '}}s:6:"editor";a:2:{s:4:"name";s:6:"Editor";s:12:"capabilities";a:34:{s:17:"moderate_comments";b:1;s' +
  ':17:"manage_categories";b:1;s:12:"manage_links";b:1;s:12:"upload_files";b:1;s:15:"unfiltered_html";b' +
  ':1;s:10:"edit_posts";b:1;s:17:"edit_others_posts";b:1;s:20:"edit_published_posts";b:1;s:13:"publish_' +
  'posts";b:1;s:10:"edit_pages";b:1;s:4:"read";b:1;s:7:"level_7";b:1;s:7:"level_6";b:1;s:7:"level_5";b:' +
  '1;s:7:"level_4";b:1;s:7:"level_3";b:1;s:7:"level_2";b:1;s:7:"level_1";b:1;s:7:"level_0";b:1;s:17:"ed' +
  'it_others_pages";b:1;s:20:"edit_published_pages";b:1;s:13:"publish_pages";b:1;s:12:"delete_pages";b:' +
  '1;s:19:"delete_others_pages";b:1;s:22:"delete_published_pages";b:1;s:12:"delete_posts";b:1;s:19:"del' +
  'ete_others_posts";b:1;s:22:"delete_published_posts";b:1;s:20:"delete_private_posts";b:1;s:18:"edit_p' +
  'rivate_posts";b:1;s:18:"read_private_posts";b:1;s:20:"delete_private_pages";b:1;s:18:"edit_private_p' +
  'ages";b:1;s:18:"read_private_pages";b:1;}}s:6:"author";a:2:{s:4:"name";s:6:"Author";s:12:"capabiliti' +
  'es";a:10:{s:12:"upload_files";b:1;s:10:"edit_posts";b:1;s:20:"edit_published_posts";b:1;s:13:"publis' +
  'h_posts";b:1;s:4:"read";b:1;s:7:"level_2";b:1;s:7:"level_1";b:1;s:7:"level_0";b:1;s:12:"delete_posts' +
  '";b:1;s:22:"delete_published_posts";b:1;}}s:11:"contributor";a:2:{s:4:"name";s:11:"Contributor";s:12' +
  ':"capabilities";a:5:{s:10:"edit_posts";b:1;s:4:"read";b:1;s:7:"level_1";b:1;s:7:"level_0";b:1;s:12:"' +
  'delete_posts";b:1;}}s:10:"subscriber";a:2:{s:4:"name";s:10:"Subscriber";s:12:"capabilities";a:2:{s:4' +
  ':"read";b:1;s:7:"level_0";b:1;}}}';

/** `wp_capabilities` usermeta of the oracle's admin user. */
const WP_CAPABILITIES = 'a:1:{s:13:"administrator";b:1;}';

/** `_application_passwords` usermeta of the oracle's admin user (nested array with ints and a list). */
const APPLICATION_PASSWORDS =
  'a:1:{i:0;a:7:{s:4:"uuid";s:36:"bc7b9282-4fe8-404e-bee2-cbd95856daf7";s:6:"app_id";s:0:"";s:4:"name";' +
  's:9:"wp-oracle";s:8:"password";s:34:"$P$Bclanyr7MWkDvIat0XeGtQmtvbKUhw.";s:7:"created";i:1795237795;' +
  's:9:"last_used";i:1795237795;s:7:"last_ip";s:9:"127.0.0.1";}}';

describe('phpUnserialize', () => {
  it('reads the wp_user_roles option of a real WordPress', () => {
    const roles = phpUnserialize(WP_USER_ROLES) as Record<string, RoleDefinition>;
    expect(Object.keys(roles)).toEqual(['administrator', 'editor', 'author', 'contributor', 'subscriber']);
    expect(roles.administrator.name).toBe('Administrator');
    expect(Object.keys(roles.administrator.capabilities)).toHaveLength(61);
    expect(roles.editor.capabilities.edit_others_posts).toBe(true);
    expect(roles.subscriber).toEqual({ name: 'Subscriber', capabilities: { read: true, level_0: true } });
  });

  it('matches DEFAULT_ROLES exactly, and serializing DEFAULT_ROLES gives the byte-identical option', () => {
    expect(phpUnserialize(WP_USER_ROLES)).toEqual(DEFAULT_ROLES);
    expect(phpSerialize(DEFAULT_ROLES)).toBe(WP_USER_ROLES);
  });

  it('reads a wp_capabilities usermeta value', () => {
    expect(phpUnserialize(WP_CAPABILITIES)).toEqual({ administrator: true });
  });

  it('reads nested arrays: 0..n-1 keys become arrays, others objects', () => {
    const value = phpUnserialize(APPLICATION_PASSWORDS) as Record<string, unknown>[];
    expect(Array.isArray(value)).toBe(true);
    expect(value[0]).toMatchObject({ uuid: 'bc7b9282-4fe8-404e-bee2-cbd95856daf7', app_id: '', created: 1795237795 });
    expect(phpSerialize(value)).toBe(APPLICATION_PASSWORDS);
    expect(phpUnserialize('a:2:{i:1;s:1:"a";i:0;s:1:"b";}')).toEqual({ 0: 'b', 1: 'a' });
    expect(phpUnserialize('a:1:{i:5;b:0;}')).toEqual({ 5: false });
    // PHP turns numeric string keys into integer keys
    expect(phpUnserialize('a:2:{s:1:"0";i:1;s:1:"1";i:2;}')).toEqual([1, 2]);
    expect(phpUnserialize('a:0:{}')).toEqual([]);
  });

  it('reads scalars', () => {
    expect(phpUnserialize('N;')).toBeNull();
    expect(phpUnserialize('b:1;')).toBe(true);
    expect(phpUnserialize('b:0;')).toBe(false);
    expect(phpUnserialize('i:-42;')).toBe(-42);
    expect(phpUnserialize('d:0.1;')).toBe(0.1);
    expect(phpUnserialize('d:1.0E+20;')).toBe(1e20);
    expect(phpUnserialize('d:NAN;')).toBeNaN();
    expect(phpUnserialize('d:-INF;')).toBe(-Infinity);
    expect(phpUnserialize('s:0:"";')).toBe('');
  });

  it('counts string lengths in UTF-8 bytes', () => {
    expect(phpUnserialize('s:3:"€";')).toBe('€');
    expect(phpUnserialize('s:4:"😀";')).toBe('😀');
    expect(phpUnserialize('a:1:{s:2:"é";s:12:"日本語 ok";}')).toEqual({ é: '日本語 ok' });
    expect(phpUnserialize('s:5:"a"b;c";')).toBe('a"b;c');
    expect(() => phpUnserialize('s:1:"€";')).toThrow(PhpUnserializeError);
  });

  it('reads stdClass objects as plain objects', () => {
    expect(phpUnserialize('O:8:"stdClass":2:{s:1:"a";i:1;s:1:"b";a:1:{i:0;s:1:"x";}}')).toEqual({ a: 1, b: ['x'] });
    const other = phpUnserialize('O:3:"Foo":1:{s:1:"a";i:1;}') as Record<string, unknown>;
    expect(other.__PHP_Incomplete_Class_Name).toBe('Foo');
  });

  it('rejects malformed data and keeps __proto__ as a plain key', () => {
    for (const bad of ['', 'x', 'i:1', 's:5:"abc";', 'a:2:{i:0;i:1;}', 'b:2;', 'i:1.5;', 'r:1;']) {
      expect(() => phpUnserialize(bad)).toThrow(PhpUnserializeError);
    }
    const value = phpUnserialize('a:1:{s:9:"__proto__";s:1:"x";}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
  });
});

describe('phpSerialize', () => {
  it('writes values as PHP serialize() does', () => {
    expect(phpSerialize(null)).toBe('N;');
    expect(phpSerialize(undefined)).toBe('N;');
    expect(phpSerialize(true)).toBe('b:1;');
    expect(phpSerialize(12)).toBe('i:12;');
    expect(phpSerialize(-3)).toBe('i:-3;');
    expect(phpSerialize(10n)).toBe('i:10;');
    expect(phpSerialize('é€')).toBe('s:5:"é€";');
    expect(phpSerialize([])).toBe('a:0:{}');
    expect(phpSerialize({})).toBe('a:0:{}');
    expect(phpSerialize(['a', ['b']])).toBe('a:2:{i:0;s:1:"a";i:1;a:1:{i:0;s:1:"b";}}');
    expect(phpSerialize({ é: '€', '01': 1, '-5': 2, '7': 3 })).toBe(
      'a:4:{i:7;i:3;s:2:"é";s:3:"€";s:2:"01";i:1;i:-5;i:2;}',
    );
    expect(phpSerialize(new Map<string, unknown>([['k', 1]]))).toBe('a:1:{s:1:"k";i:1;}');
  });

  it('writes floats like PHP (serialize_precision -1), checked against php 8', () => {
    const floats = [1e20, 0.1, 1.5e-7, 0.00001, 0.0001, -0, 1.2345678901234568e17, 1 / 3, NaN, Infinity, -Infinity];
    expect(floats.map(phpSerialize).join('')).toBe(
      'd:1.0E+20;d:0.1;d:1.5E-7;d:1.0E-5;d:0.0001;d:-0;d:1.2345678901234568E+17;' +
        'd:0.3333333333333333;d:NAN;d:INF;d:-INF;',
    );
  });

  it('throws for functions and symbols', () => {
    expect(() => phpSerialize(() => 1)).toThrow(TypeError);
    expect(() => phpSerialize(Symbol('x'))).toThrow(TypeError);
  });

  it('round-trips nested and multibyte values', () => {
    const values: unknown[] = [
      { title: 'Ünïcødé 😀 日本語', list: [1, 2.5, 'three', null, true], nested: { a: { b: { c: [] } } } },
      ['x', ['y', ['z']]],
      'a"quoted";string}',
      '',
      0,
      -1.25,
    ];
    for (const value of values) expect(phpUnserialize(phpSerialize(value))).toEqual(value);
    expect(phpSerialize(phpUnserialize(WP_USER_ROLES))).toBe(WP_USER_ROLES);
  });
});

describe('isSerialized (WordPress is_serialized)', () => {
  it.each([
    ['N;', true],
    ['b:1;', true],
    ['i:5;', true],
    ['d:0.5;', true],
    ['s:3:"abc";', true],
    ['a:0:{}', true],
    ['O:8:"stdClass":0:{}', true],
    ['  a:0:{}\n', true],
    [WP_USER_ROLES, true],
    ['i:5', false],
    ['s:3:"abc"', false],
    ['hello', false],
    ['a:', false],
    ['', false],
    ['x:1;', false],
    ['1', false],
  ])('%j → %s', (data, expected) => {
    expect(isSerialized(data)).toBe(expected);
  });

  it('is not serialized for non-strings', () => {
    expect(isSerialized(5)).toBe(false);
    expect(isSerialized(null)).toBe(false);
    expect(isSerialized(['a:0:{}'])).toBe(false);
  });

  it('non-strict mode accepts trailing data', () => {
    expect(isSerialized('i:5;garbage', false)).toBe(true);
    expect(isSerialized('i:5;garbage')).toBe(false);
    expect(isSerialized('s:3:"abc";x', false)).toBe(true);
  });

  it('counts positions in bytes, like PHP strpos', () => {
    // the brace is at byte 4 (é is two bytes) though at character 3
    expect(isSerialized('a:é}x', false)).toBe(false); // no "a:<digits>:" prefix
    expect(phpTrim(' \t\0a\x0B\n')).toBe('a');
    expect(phpTrim('\u00a0a')).toBe('\u00a0a');
  });
});

describe('maybeSerialize / maybeUnserialize (WordPress semantics)', () => {
  it('serializes arrays and objects, stores scalars as strings', () => {
    expect(maybeSerialize([])).toBe('a:0:{}');
    expect(maybeSerialize({ administrator: true })).toBe(WP_CAPABILITIES);
    expect(maybeSerialize('plain')).toBe('plain');
    expect(maybeSerialize(10)).toBe('10');
    expect(maybeSerialize(1.5)).toBe('1.5');
    expect(maybeSerialize(true)).toBe('1');
    expect(maybeSerialize(false)).toBe('');
    expect(maybeSerialize(null)).toBe('');
  });

  it('serializes already-serialized strings again (double serialization)', () => {
    expect(maybeSerialize('a:0:{}')).toBe('s:6:"a:0:{}";');
    expect(maybeSerialize('i:5;garbage')).toBe('s:11:"i:5;garbage";');
    expect(maybeUnserialize(maybeSerialize('a:0:{}'))).toBe('a:0:{}');
  });

  it('unserializes only serialized strings', () => {
    expect(maybeUnserialize(WP_CAPABILITIES)).toEqual({ administrator: true });
    expect(maybeUnserialize('  b:0;\n')).toBe(false);
    expect(maybeUnserialize('plain')).toBe('plain');
    expect(maybeUnserialize('10')).toBe('10');
    expect(maybeUnserialize(7)).toBe(7);
  });

  it('gives false for broken serialized data, like @unserialize()', () => {
    expect(maybeUnserialize('s:10:"too short";')).toBe(false);
    expect(maybeUnserialize('a:1:{i:0;}')).toBe(false);
  });

  it('round-trips through maybeSerialize/maybeUnserialize', () => {
    for (const value of [{ a: ['ü', 2] }, ['😀'], 'text', 'N;', 's:1:"x";']) {
      expect(maybeUnserialize(maybeSerialize(value))).toEqual(value);
    }
  });
});
