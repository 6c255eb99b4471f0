import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, parseArgs, parseInvocation } from './command-line';
import { COMMANDS, USAGE } from './commands';
import { cdata, rfc822, xmlText } from './wxr-xml';
import { readWxr, WxrRecord } from './wxr-reader';
import { parseAuthorMode } from './wxr-authors';
import { UrlRemap } from './wxr-url-remap';
import { ImportReport } from './wxr-report';

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'cms-wxr-unit-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(xml: string, name = 'f.xml'): Promise<WxrRecord[]> {
  const file = join(dir, name);
  writeFileSync(file, xml);
  const out: WxrRecord[] = [];
  for await (const record of readWxr(file)) out.push(record);
  return out;
}

const wrap = (body: string, version = '1.2') =>
  `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:wp="http://wordpress.org/export/${version}/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:excerpt="http://wordpress.org/export/${version}/excerpt/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><wp:wxr_version>${version}</wp:wxr_version>${body}</channel></rss>`;

describe('readWxr', () => {
  it('gives the site, then terms and items in file order, with CDATA text as written', async () => {
    const records = await read(
      wrap(
        '<wp:base_site_url>http://a.example</wp:base_site_url>' +
          '<wp:term><wp:term_id>4</wp:term_id><wp:term_taxonomy>genre</wp:term_taxonomy><wp:term_slug>sf</wp:term_slug><wp:term_parent><![CDATA[fiction]]></wp:term_parent><wp:term_name>SF</wp:term_name></wp:term>' +
          '<item><title>A &amp; B</title><content:encoded><![CDATA[x ]]]]><![CDATA[> y <b>é</b>]]></content:encoded><wp:post_id>7</wp:post_id><wp:post_parent>3</wp:post_parent>' +
          '<wp:is_sticky>1</wp:is_sticky><category domain="post_tag" nicename="t"><![CDATA[T]]></category>' +
          '<wp:postmeta><wp:meta_key>k</wp:meta_key><wp:meta_value><![CDATA[a:1:{i:0;s:1:"v";}]]></wp:meta_value></wp:postmeta>' +
          '<wp:comment><wp:comment_id>2</wp:comment_id><wp:comment_parent>1</wp:comment_parent><wp:commentmeta><wp:meta_key>r</wp:meta_key><wp:meta_value>5</wp:meta_value></wp:commentmeta></wp:comment></item>',
      ),
    );
    expect(records.map((r) => r.kind)).toEqual(['term', 'site', 'item']);
    expect(records[0]).toEqual({
      kind: 'term',
      term: { id: 4, taxonomy: 'genre', slug: 'sf', name: 'SF', parent: 'fiction', description: '', meta: [] },
    });
    expect(records[1]).toMatchObject({ kind: 'site', version: '1.2', baseSiteUrl: 'http://a.example' });
    const item = (records[2] as Extract<WxrRecord, { kind: 'item' }>).item;
    expect(item).toMatchObject({
      title: 'A & B',
      content: 'x ]]> y <b>é</b>',
      id: 7,
      parent: 3,
      sticky: true,
      type: 'post',
    });
    expect(item.terms).toEqual([{ taxonomy: 'post_tag', slug: 't', name: 'T' }]);
    expect(item.meta).toEqual([{ key: 'k', value: 'a:1:{i:0;s:1:"v";}' }]);
    expect(item.comments).toEqual([expect.objectContaining({ id: 2, parent: 1, meta: [{ key: 'r', value: '5' }] })]);
  });

  it('reads WXR 1.0 categories without a slug as no terms', async () => {
    const records = await read(
      wrap(
        '<item><title>x</title><category><![CDATA[Old]]></category><category domain="category" nicename="old"><![CDATA[Old]]></category></item>',
        '1.0',
      ),
    );
    const item = (records.find((r) => r.kind === 'item') as Extract<WxrRecord, { kind: 'item' }>).item;
    expect(item.terms).toEqual([{ taxonomy: 'category', slug: 'old', name: 'Old' }]);
  });

  it('reads a multi-byte character split across chunks', async () => {
    // The file is read in 64 KiB chunks: put the two bytes of "é" on either side of the first boundary.
    const template = wrap('<item><title>PAD</title><content:encoded>été</content:encoded></item>');
    const before =
      Buffer.byteLength(template.slice(0, template.indexOf('PAD'))) + Buffer.byteLength('</title><content:encoded>');
    const pad = 'a'.repeat(65535 - before);
    const xml = template.replace('PAD', pad);
    expect(Buffer.from(xml).subarray(65535, 65537).toString('utf8')).toBe('é');
    const records = await read(xml, 'big.xml');
    const item = (records.find((r) => r.kind === 'item') as Extract<WxrRecord, { kind: 'item' }>).item;
    expect(item.content).toBe('été');
    expect(item.title).toBe(pad);
  });

  it('refuses a file that is not XML or not WXR', async () => {
    await expect(read('<rss><channel><item></channel></rss>', 'bad.xml')).rejects.toThrow(/Unexpected close tag/);
    await expect(read('<html></html>', 'html.xml')).rejects.toThrow('This is not a WXR file');
  });
});

describe('export helpers', () => {
  it('cdata() splits a "]]>" inside, as wxr_cdata() does', () => {
    expect(cdata('a]]>b')).toBe('<![CDATA[a]]]]><![CDATA[>b]]>');
    expect(cdata(null)).toBe('<![CDATA[]]>');
  });

  it('xmlText() escapes markup and quotes', () => {
    expect(xmlText('<a href="x">&</a>')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
  });

  it("rfc822() writes RSS dates, and PHP's answer for the zero date", () => {
    expect(rfc822('2024-05-02 09:30:00')).toBe('Thu, 02 May 2024 09:30:00 +0000');
    expect(rfc822('0000-00-00 00:00:00')).toBe('Mon, 30 Nov -0001 00:00:00 +0000');
  });
});

describe('command line', () => {
  it('parseArgs takes options with values, flags without, and positionals after --', () => {
    expect(parseArgs(['a', '--role=editor', '--json', '--', '--x'], ['role'], ['json'])).toEqual({
      positionals: ['a', '--x'],
      options: { role: 'editor' },
      flags: new Set(['json']),
    });
    expect(() => parseArgs(['--json=1'], [], ['json'])).toThrow('Option --json takes no value.');
  });

  it('parseInvocation names the positionals of the matched command', () => {
    const parsed = parseInvocation(['user', 'delete', 'alice', '--reassign', 'bob'], COMMANDS, USAGE);
    expect(parsed).toMatchObject({
      kind: 'run',
      invocation: { spec: { name: 'user delete' }, values: { user: 'alice' }, options: { reassign: 'bob' } },
    });
    expect(parseInvocation(['export', '--help', '--output', 'x'], COMMANDS, USAGE)).toMatchObject({ kind: 'help' });
    expect(() => parseInvocation(['option', 'get'], COMMANDS, USAGE)).toThrow(CliError);
    expect(() => parseInvocation(['option', 'get', 'a', 'b'], COMMANDS, USAGE)).toThrow('Unexpected argument "b"');
  });
});

describe('readWxr menu locations', () => {
  it('reads <wp:nav_menu_location> of the channel (this server adds it to its export)', async () => {
    const records = await read(
      wrap(
        '<wp:nav_menu_location><wp:location><![CDATA[primary]]></wp:location><wp:menu_slug><![CDATA[main]]></wp:menu_slug></wp:nav_menu_location>' +
          '<wp:nav_menu_location><wp:menu_slug>no-location</wp:menu_slug></wp:nav_menu_location>',
      ),
      'locations.xml',
    );
    expect(records.filter((r) => r.kind === 'menuLocation')).toEqual([
      { kind: 'menuLocation', location: 'primary', menu: 'main' },
    ]);
  });
});

describe('UrlRemap', () => {
  it('rewrites old attachment URLs and their size variants once, the longest first', () => {
    const urls = new UrlRemap();
    urls.remember('http://old.example/up/2024/01/photo.png', 'http://new.example/up/2024/01/photo-1.png');
    urls.remember('http://old.example/up/2024/01/a.jpg', 'http://old.example/up/2024/01/a.jpg');
    expect(
      urls.rewrite(
        '<a href="http://old.example/up/2024/01/photo.png"><img src="http://old.example/up/2024/01/photo-150x150.png"></a> http://old.example/up/2024/01/a.jpg',
      ),
    ).toBe(
      '<a href="http://new.example/up/2024/01/photo-1.png"><img src="http://new.example/up/2024/01/photo-1-150x150.png"></a> http://old.example/up/2024/01/a.jpg',
    );
    // A new URL that contains an old one is not rewritten again.
    const same = new UrlRemap();
    same.remember('http://s.example/photo.png', 'http://s.example/photo-1.png');
    expect(same.rewrite('http://s.example/photo.png http://s.example/photo-150x150.png')).toBe(
      'http://s.example/photo-1.png http://s.example/photo-1-150x150.png',
    );
    expect(new UrlRemap().rewrite('a (b) [c]')).toBe('a (b) [c]');
  });
});

describe('ImportReport', () => {
  it('lists every record with its outcome and reason, and counts per kind in a fixed order', () => {
    const failures: string[] = [];
    const report = new ImportReport((line) => failures.push(line));
    report.created('post', '"A"', { fileId: 5, id: 7 }, 'the id 5 was taken: created as 7');
    report.skipped('comment', 'by "x" on 2024-01-01 00:00:00', 'already there', { id: 3 });
    report.failed('attachment', '"b"', 'cannot download', { fileId: 9 });
    report.created('author', '"alice"', { fileId: 1, id: 2 });
    report.skipped('term', 'category "news"', 'a term with this slug is already there', { fileId: 2, id: -4 });
    expect(report.ok).toBe(false);
    expect(failures).toEqual(['Failed: attachment "b" (file id 9): cannot download']);
    expect(report.itemLines()).toEqual([
      'created  post "A" (file id 5, id 7): the id 5 was taken: created as 7',
      'skipped  comment by "x" on 2024-01-01 00:00:00 (id 3): already there',
      'failed   attachment "b" (file id 9): cannot download',
      'created  author "alice" (file id 1, id 2)',
      'skipped  term category "news" (file id 2): a term with this slug is already there',
    ]);
    expect(report.countLines()).toEqual([
      'author: 1 created, 0 skipped, 0 failed',
      'term: 0 created, 1 skipped, 0 failed',
      'post: 1 created, 0 skipped, 0 failed',
      'attachment: 0 created, 0 skipped, 1 failed',
      'comment: 0 created, 1 skipped, 0 failed',
    ]);
    expect(report.toJSON('f.xml')).toMatchObject({ file: 'f.xml', dryRun: false, ok: false });
    const dry = new ImportReport(undefined, true);
    dry.created('post', '"A"', { id: -1 });
    expect(dry.countLines()).toEqual(['post: 1 to create, 0 skipped, 0 failed']);
    expect(dry.toJSON('f.xml').items).toEqual([{ kind: 'post', label: '"A"', outcome: 'created' }]);
  });
});

describe('parseAuthorMode', () => {
  it('reads create, admin and map:<file.json>, and refuses anything else with a clear message', () => {
    expect(parseAuthorMode(undefined)).toEqual({ kind: 'create' });
    expect(parseAuthorMode('create')).toEqual({ kind: 'create' });
    expect(parseAuthorMode('admin')).toEqual({ kind: 'admin' });
    const file = join(dir, 'map.json');
    writeFileSync(file, '{"alice":"admin","bob":"carol"}');
    expect(parseAuthorMode(`map:${file}`)).toEqual({
      kind: 'map',
      map: new Map([
        ['alice', 'admin'],
        ['bob', 'carol'],
      ]),
    });
    expect(() => parseAuthorMode('everyone')).toThrow(
      'Invalid --authors "everyone": create, admin or map:<file.json>.',
    );
    expect(() => parseAuthorMode('map:')).toThrow(CliError);
    expect(() => parseAuthorMode(`map:${join(dir, 'none.json')}`)).toThrow(/Cannot read the author map/);
    writeFileSync(file, '["alice"]');
    expect(() => parseAuthorMode(`map:${file}`)).toThrow('must be a JSON object');
    writeFileSync(file, '{"alice": 3}');
    expect(() => parseAuthorMode(`map:${file}`)).toThrow('sends "alice" to 3: a login is needed');
  });
});
