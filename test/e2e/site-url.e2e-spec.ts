import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { OptionEntity } from '../../src/core/database/entities/option.entity';
import { PostMetaEntity } from '../../src/core/database/entities/post-meta.entity';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { phpSerialize, phpUnserialize } from '../../src/core/formatting/php-serialize';
import { createPost } from '../factories/post.factory';
import { dropTestDatabase, withTestDataSource } from '../utils/test-db';
import { serverDatabase, startServer, stopServer, StandaloneServer } from '../utils/standalone-server';
import { runCliInProcess } from '../utils/cli-in-process';

/**
 * The site's address as a setting: `site-url get|set`, the start-up warning when the stored address is not
 * CMS_BASE_URL, and `search-replace` over content and meta (serialized values rewritten with their new lengths),
 * with the CLI's commands (run in this process) and the server (`node dist/main.js`) on one real database.
 */

const PREFIX = 'cms_';
const OLD = 'http://old.example';
const NEW = 'https://new.example';
const NAME = 'site_url';

let databaseUrl: string;
let cleanup: () => void = () => undefined;

/** Runs a CLI command (`npm run cms -- <args>`) on the test database, in this process (see runCliInProcess). */
const cli = (args: string[], extra: Record<string, string> = {}) =>
  runCliInProcess(args, {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: databaseUrl,
    CMS_TABLE_PREFIX: PREFIX,
    ...extra,
  });

const withDataSource = <T>(work: (ds: DataSource) => Promise<T>) => withTestDataSource(databaseUrl, PREFIX, work);

/** Starts the server with a CMS_BASE_URL, reads `path`, stops it; its answer and log lines. */
async function serve(baseUrl: string, path: string) {
  let server: StandaloneServer | undefined;
  try {
    server = await startServer({ DATABASE_URL: databaseUrl, CMS_TABLE_PREFIX: PREFIX, CMS_BASE_URL: baseUrl });
    const body = (await (await fetch(`${server.base}${path}`)).json()) as Record<string, any>;
    return { body, lines: server.lines() };
  } finally {
    await stopServer(server);
  }
}

const warnings = (lines: Array<Record<string, any>>) =>
  lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('site-url set'));

let postId: number;
let attachmentId: number;
/** Meta rows: the serialized one with the old address, one without it, a malformed serialized one. */
const meta: Record<'serialized' | 'other' | 'malformed' | 'nested', number> = {
  serialized: 0,
  other: 0,
  malformed: 0,
  nested: 0,
};
const SERIALIZED = { url: `${OLD}/wp-content/uploads/2024/01/a.jpg`, sizes: [`${OLD}/é`, 7, 1.5], label: 'Café' };
const NESTED = phpSerialize({ inner: phpSerialize([`${OLD}/x`]) });
const MALFORMED = `a:1:{i:0;s:99:"${OLD}/broken";}`;

beforeAll(async () => {
  ({ url: databaseUrl, cleanup } = await serverDatabase(NAME));
  // The site installed by the CLI with the old address, as after an import.
  expect((await cli(['migrate'], { CMS_BASE_URL: OLD })).code).toBe(0);
  await withDataSource(async (ds) => {
    const post = await createPost(ds, {
      guid: `${OLD}/?p=1`,
      content: `<a href="${OLD}/about/">About</a> and <img src="${OLD}/wp-content/uploads/2024/01/a.jpg">`,
      excerpt: `See ${OLD}.`,
      title: `Title keeps ${OLD}`,
    });
    postId = post.id;
    const attachment = await createPost(ds, {
      type: 'attachment',
      status: 'inherit',
      mimeType: 'image/jpeg',
      guid: `${OLD}/wp-content/uploads/2024/01/a.jpg`,
    });
    attachmentId = attachment.id;
    const repo = ds.getRepository(PostMetaEntity);
    await repo.save({ postId: attachment.id, key: '_wp_attached_file', value: '2024/01/a.jpg' });
    meta.serialized = (await repo.save({ postId, key: 'gallery', value: phpSerialize(SERIALIZED) })).id;
    meta.other = (await repo.save({ postId, key: 'other', value: 'HTTP://OLD.EXAMPLE is not the same case' })).id;
    meta.malformed = (await repo.save({ postId, key: 'broken', value: MALFORMED })).id;
    meta.nested = (await repo.save({ postId, key: 'nested', value: NESTED })).id;
  });
}, 120000);

afterAll(async () => {
  await dropTestDatabase(NAME);
  cleanup();
});

describe('start-up check', () => {
  it('logs one warning naming "site-url set" when the stored address is not CMS_BASE_URL, and links show why', async () => {
    const { body, lines } = await serve(NEW, `/cms-json/cms/v2/posts/${postId}`);
    const found = warnings(lines);
    expect(found).toHaveLength(1);
    expect(found[0].level).toBe('warn');
    expect(found[0].msg).toContain(`npm run cms -- site-url set ${NEW}`);
    expect(found[0].msg).toContain(`home ${OLD}`);
    // The mismatch the warning is about: the post's link keeps the stored address, its _links follow CMS_BASE_URL.
    expect(body.link).toBe(`${OLD}/${body.slug}/`);
    expect(body._links.self[0].href).toMatch(new RegExp(`^${NEW}/`));
  });

  it('logs nothing when the stored address is CMS_BASE_URL (trailing slash aside)', async () => {
    const { lines } = await serve(`${OLD}/`, '/cms-json/');
    expect(warnings(lines)).toHaveLength(0);
  });
});

describe('site-url get|set', () => {
  it('get prints home and siteurl', async () => {
    const run = await cli(['site-url', 'get']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`home: ${OLD}\nsiteurl: ${OLD}\n`);
  });

  it.each([
    ['ftp://new.example', 'the scheme must be http or https'],
    ['new.example', 'an http(s) URL such as https://example.com'],
    ['https://user:pw@new.example', 'no user name or password'],
    ['https://new.example/?a=1', 'no query string or fragment'],
  ])('set refuses %s, naming why, and changes nothing', async (url, message) => {
    const run = await cli(['site-url', 'set', url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    await withDataSource(async (ds) =>
      expect((await ds.getRepository(OptionEntity).findOneByOrFail({ name: 'home' })).value).toBe(OLD),
    );
  });

  it('set --dry-run prints the change and writes nothing', async () => {
    const run = await cli(['site-url', 'set', NEW, '--dry-run']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Would set home: ${OLD} → ${NEW}`);
    expect((await cli(['site-url', 'get'])).stdout).toBe(`home: ${OLD}\nsiteurl: ${OLD}\n`);
  });

  it('set stores the address (trailing slash dropped), prints old → new, and the API links follow', async () => {
    const run = await cli(['site-url', 'set', `${NEW}/`]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Set home: ${OLD} → ${NEW}\n`);
    expect(run.stdout).toContain(`Set siteurl: ${OLD} → ${NEW}\n`);
    expect(run.stdout).toContain(`npm run cms -- search-replace ${OLD} ${NEW} --dry-run`);
    expect((await cli(['site-url', 'get'])).stdout).toBe(`home: ${NEW}\nsiteurl: ${NEW}\n`);
    const { body, lines } = await serve(NEW, `/cms-json/cms/v2/posts/${postId}`);
    expect(warnings(lines)).toHaveLength(0);
    expect(body.link).toBe(`${NEW}/${body.slug}/`);
    // Stored content still holds the old address until search-replace.
    expect(body.guid.rendered).toBe(`${OLD}/?p=1`);
    const media = await serve(NEW, `/cms-json/cms/v2/media/${attachmentId}`);
    expect(media.body.source_url).toBe(`${NEW}/wp-content/uploads/2024/01/a.jpg`);
  });
});

describe('search-replace', () => {
  /** Every row search-replace may touch, as stored. */
  const snapshot = () =>
    withDataSource(async (ds) => ({
      posts: await ds.getRepository(PostEntity).find({ order: { id: 'ASC' } }),
      meta: await ds.getRepository(PostMetaEntity).find({ order: { id: 'ASC' } }),
      options: await ds.getRepository(OptionEntity).find({ order: { id: 'ASC' } }),
    }));

  it('--dry-run counts per table and writes nothing', async () => {
    const before = await snapshot();
    const run = await cli(['search-replace', OLD, NEW, '--dry-run']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    // posts: the post (content ×2, excerpt, guid) and the attachment's guid; postmeta: the serialized and nested rows.
    expect(run.stdout).toMatch(/^posts\s+2\s+5\s+0$/m);
    expect(run.stdout).toMatch(/^postmeta\s+2\s+3\s+1$/m);
    expect(run.stdout).toContain('nothing was written');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown table, naming the known ones', async () => {
    const run = await cli(['search-replace', OLD, NEW, '--tables', 'posts,wp_secrets']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Unknown table(s) "wp_secrets"');
    expect(run.stderr).toContain('postmeta');
  });

  it('rewrites content and serialized meta with their lengths recomputed, and leaves other rows alone', async () => {
    const before = await snapshot();
    const run = await cli(['search-replace', OLD, NEW, '--tables', 'posts,postmeta']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^posts\s+2\s+5\s+0$/m);
    expect(run.stdout).toMatch(/^postmeta\s+2\s+3\s+1$/m);
    expect(run.stdout).toContain('Made 8 replacement(s) in 4 row(s).');
    expect(run.stdout).not.toMatch(/^options/m);
    const after = await snapshot();
    const value = (id: number) => after.meta.find((m) => m.id === id)!.value!;
    // The serialized value reads back with the new address, each string's length counted anew in bytes.
    const expected = { url: `${NEW}/wp-content/uploads/2024/01/a.jpg`, sizes: [`${NEW}/é`, 7, 1.5], label: 'Café' };
    expect(value(meta.serialized)).toBe(phpSerialize(expected));
    expect(phpUnserialize(value(meta.serialized))).toEqual(expected);
    expect(value(meta.serialized)).toContain(`s:${Buffer.byteLength(`${NEW}/é`)}:"${NEW}/é";`);
    // A value serialized twice: the inner one is rewritten too.
    expect(value(meta.nested)).toBe(phpSerialize({ inner: phpSerialize([`${NEW}/x`]) }));
    // Untouched: another case, a malformed serialized value, every row without the address, the options table.
    expect(value(meta.other)).toBe('HTTP://OLD.EXAMPLE is not the same case');
    expect(value(meta.malformed)).toBe(MALFORMED);
    const changedMeta = after.meta.filter((m, i) => m.value !== before.meta[i].value).map((m) => m.id);
    expect(changedMeta.sort()).toEqual([meta.serialized, meta.nested].sort());
    expect(after.options).toEqual(before.options);
    const post = after.posts.find((p) => p.id === postId)!;
    expect(post.content).toBe(
      `<a href="${NEW}/about/">About</a> and <img src="${NEW}/wp-content/uploads/2024/01/a.jpg">`,
    );
    expect(post.excerpt).toBe(`See ${NEW}.`);
    expect(post.title).toBe(`Title keeps ${OLD}`);
    const { body } = await serve(NEW, `/cms-json/cms/v2/posts/${postId}`);
    expect(body.guid.rendered).toBe(`${NEW}/?p=1`);
    expect(body.content.rendered).toContain(`href="${NEW}/about/"`);
    // Run again: nothing left to replace.
    expect((await cli(['search-replace', OLD, NEW])).stdout).toContain('Made 0 replacement(s) in 0 row(s).');
  });

  it('site-url set --search-replace moves the address and rewrites the stored one in one command', async () => {
    const other = 'https://moved.example/blog';
    const run = await cli(['site-url', 'set', other, '--search-replace']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Set home: ${NEW} → ${other}`);
    expect(run.stdout).toContain(`Replacing ${NEW} with ${other}:`);
    const { body } = await serve(other.replace('/blog', ''), `/cms-json/cms/v2/posts/${postId}`);
    expect(body.link).toBe(`${other}/${body.slug}/`);
    expect(body.guid.rendered).toBe(`${other}/?p=1`);
    await withDataSource(async (ds) => {
      const value = (await ds.getRepository(PostMetaEntity).findOneByOrFail({ id: meta.serialized })).value!;
      expect(phpUnserialize(value)).toMatchObject({ url: `${other}/wp-content/uploads/2024/01/a.jpg` });
    });
  });
});
