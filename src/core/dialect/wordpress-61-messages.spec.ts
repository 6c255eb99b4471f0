import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORDPRESS_61_MESSAGES, type MessageTranslation } from './wordpress-61-messages';

/** Where the WordPress 6.1 source is installed (the tests that read it are skipped without it). */
const WORDPRESS = '/usr/share/wordpress/wp-includes';
const SRC = join(__dirname, '..', '..');

const GROUPS = ['post', 'comment', 'term', 'user', 'type', 'status', 'taxonomy', 'revision', 'settings'];

/**
 * WordPress 6.1's error codes this table may name (read off wp-includes: the REST controllers, rest-api.php, the
 * REST server and the functions they call); checked against the source below when it is installed.
 */
const WORDPRESS_CODES = new Set([
  'internal_server_error',
  'invalid_username',
  'rest_cannot_assign_sticky',
  'rest_cannot_create',
  'rest_cannot_create_user',
  'rest_cannot_delete',
  'rest_cannot_edit',
  'rest_cannot_edit_others',
  'rest_cannot_edit_roles',
  'rest_cannot_read',
  'rest_cannot_read_post',
  'rest_cannot_read_status',
  'rest_cannot_read_type',
  'rest_cannot_update',
  'rest_cannot_view',
  'rest_comment_closed',
  'rest_comment_invalid_author',
  'rest_comment_invalid_id',
  'rest_comment_invalid_post_id',
  'rest_comment_invalid_status',
  'rest_comment_invalid_type',
  'rest_cookie_invalid_nonce',
  'rest_forbidden_context',
  'rest_forbidden_orderby',
  'rest_invalid_author',
  'rest_invalid_handler',
  'rest_no_route',
  'rest_post_invalid_id',
  'rest_post_invalid_parent',
  'rest_status_invalid',
  'rest_taxonomy_invalid',
  'rest_taxonomy_not_hierarchical',
  'rest_term_invalid',
  'rest_trash_not_supported',
  'rest_type_invalid',
  'rest_user_cannot_delete',
  'rest_user_cannot_view',
  'rest_user_exists',
  'rest_user_invalid_argument',
  'rest_user_invalid_email',
  'rest_user_invalid_id',
  'rest_user_invalid_reassign',
  'rest_user_invalid_role',
  'rest_user_invalid_slug',
]);

/** Every (code, spec message, group or '*', WordPress message) of the table. */
function entries(): Array<[string, string, string, string]> {
  const out: Array<[string, string, string, string]> = [];
  for (const [code, messages] of Object.entries(WORDPRESS_61_MESSAGES)) {
    for (const [spec, translation] of Object.entries(messages as Record<string, MessageTranslation>)) {
      if (typeof translation === 'string') out.push([code, spec, '*', translation]);
      else for (const [group, text] of Object.entries(translation)) out.push([code, spec, group, text]);
    }
  }
  return out;
}

function filesUnder(dir: string, ext: string, skip: (name: string) => boolean = () => false): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? filesUnder(join(dir, e.name), ext, skip)
      : e.name.endsWith(ext) && !skip(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** The string literals of a source text ('…', "…" and, with `${…}` as a wildcard, `…`), unescaped. */
function literals(text: string, templates: boolean): string[] {
  const out: string[] = [];
  const unescape = (s: string) => s.replace(/\\(.)/g, '$1');
  for (const m of text.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g)) out.push(unescape(m[1] ?? m[2]));
  if (templates) for (const m of text.matchAll(/`((?:[^`\\]|\\.)*)`/g)) out.push(m[1]);
  return out;
}

const PLACEHOLDER = /%\d*\$?[sdl]|\$\{[^}]*\}/;

/** Whether a text has placeholders and enough words of its own to tell what it says (not `%s`, `${a}: ${b}`). */
function isTemplate(text: string): boolean {
  return PLACEHOLDER.test(text) && text.split(PLACEHOLDER).join('').replace(/\W/g, '').length >= 10;
}

/** A matcher for a text with placeholders (`%s`, `%1$s`, `%d` in PHP; `${…}` in templates). */
function pattern(text: string): RegExp {
  const parts = text.split(PLACEHOLDER);
  return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`, 's');
}

describe('WORDPRESS_61_MESSAGES', () => {
  it('names only WordPress 6.1 codes, sorted', () => {
    const codes = Object.keys(WORDPRESS_61_MESSAGES);
    expect(codes.filter((code) => !WORDPRESS_CODES.has(code))).toEqual([]);
    expect(codes).toEqual([...codes].sort());
  });

  it('has no entry that leaves the message as it is, nor an empty one', () => {
    const list = entries();
    expect(list.length).toBeGreaterThan(40);
    expect(list.filter(([, spec, , text]) => text === spec || !text.trim())).toEqual([]);
  });

  it('translates per group only into known text groups, and not into one text for every group', () => {
    for (const messages of Object.values(WORDPRESS_61_MESSAGES)) {
      for (const translation of Object.values(messages)) {
        if (typeof translation === 'string') continue;
        const groups = Object.keys(translation);
        expect(groups.length).toBeGreaterThan(0);
        expect(groups.filter((g) => !GROUPS.includes(g))).toEqual([]);
      }
    }
  });

  it('keys spec messages the code still produces (a literal or a template of src)', () => {
    const texts = filesUnder(SRC, '.ts', (name) => name.endsWith('.spec.ts') || name.startsWith('wordpress-61-'))
      .flatMap((file) => literals(readFileSync(file, 'utf8'), true))
      .filter((text) => text.length > 8);
    const exact = new Set(texts);
    const templates = texts.filter(isTemplate).map(pattern);
    const stale = entries()
      .map(([, spec]) => spec)
      .filter((spec) => !exact.has(spec) && !templates.some((re) => re.test(spec)));
    expect(stale).toEqual([]);
  });
});

(existsSync(WORDPRESS) ? describe : describe.skip)('WORDPRESS_61_MESSAGES against the WordPress 6.1 source', () => {
  const files = existsSync(WORDPRESS)
    ? [...filesUnder(join(WORDPRESS, 'rest-api'), '.php'), ...readdirSync(WORDPRESS).filter((f) => f.endsWith('.php'))]
    : [];
  const source = files.map((f) => readFileSync(f.startsWith('/') ? f : join(WORDPRESS, f), 'utf8')).join('\n');
  const php = existsSync(WORDPRESS) ? literals(source, false) : [];

  it('knows codes that WordPress 6.1 uses', () => {
    const used = new Set(php);
    expect([...WORDPRESS_CODES].filter((code) => !used.has(code))).toEqual([]);
  });

  it("translates into WordPress 6.1's own messages (its literals, placeholders filled in)", () => {
    const exact = new Set(php);
    const templates = php.filter(isTemplate).map(pattern);
    const composed = entries().filter(([, , , text]) => !exact.has(text) && !templates.some((re) => re.test(text)));
    expect(composed.map(([code, , , text]) => `${code}: ${text}`)).toEqual([]);
  });

  it('makes each translated message next to its code in WordPress 6.1', () => {
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const misplaced = entries().filter(([code, , , text]) => {
      // The fatal error handler makes its message in a variable, away from the code.
      if (code === 'internal_server_error') return false;
      const own = php.filter((l) => l.length > 8 && (l === text || (isTemplate(l) && pattern(l).test(text))));
      return !own.some((l) => new RegExp(`'${code}',[\\s\\S]{0,300}?${escape(l)}`).test(source));
    });
    expect(misplaced.map(([code, , , text]) => `${code}: ${text}`)).toEqual([]);
  });
});
