/**
 * The request fuzzer shared by the in-suite sample (test/e2e/fuzz.e2e-spec.ts) and the full campaign
 * (`npm run fuzz`, scripts/reliability/fuzz.ts): requests generated with fast-check from each route's own argument
 * schema (valid, boundary and hostile values), sent over real HTTP, and the invariants every answer must keep.
 */
import * as fc from 'fast-check';
import { request as httpRequest, Agent } from 'node:http';
import { unescape } from 'node:querystring';
import { mediaCorpus, rawDisposition } from './fuzz-media';

/** An argument as a route declares it (JSON Schema plus options); only the schema part is read. */
export interface FuzzArg {
  type?: string | string[];
  enum?: readonly unknown[];
  items?: FuzzArg;
  properties?: Record<string, FuzzArg>;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  [key: string]: unknown;
}

/** One route with its endpoints, as the route registry holds it and the index (`/cms-json/`) lists it. */
export interface FuzzRoute {
  route: string;
  endpoints: Array<{ methods: readonly string[]; args: Record<string, FuzzArg>; acceptsFiles?: boolean }>;
}

/** What a request was made to try. */
export const KINDS = [
  'valid',
  'boundary',
  'hostile',
  'shape',
  'encoding',
  'injection',
  'brackets',
  'undeclared',
  'content-type',
  'multipart',
  'media',
] as const;
export type FuzzKind = (typeof KINDS)[number];

/** One generated request: everything needed to send it again. */
export interface FuzzRequest {
  kind: FuzzKind;
  /** The route key (`/cms/v2/posts/(?P<id>[\d]+)`). */
  route: string;
  method: string;
  /** Path and query, relative to the server (percent-encoded as sent). */
  url: string;
  admin: boolean;
  headers: Record<string, string>;
  body?: Buffer;
  /** What the body is, when the kind does not say it all (the media file sent). */
  label?: string;
}

/** What the generator needs to know of the site: ids that exist, per path group, and the path prefix. */
export interface FuzzContext {
  prefix: string;
  /** Values for named path groups (`id`, `parent`, `type`, …) that reach real items. */
  groups: Record<string, string[]>;
  /**
   * Whether a request may be sent as the administrator: writes that would take the fuzzer's own access away (its
   * user, its application passwords) are left out.
   */
  protect?: (method: string, path: string) => boolean;
}

const MiB = 1024 * 1024;

/** SQL payloads. None holds the table prefix or the error markers checked in answers, so an echo is not a leak. */
export const SQL_PAYLOADS = [
  "' OR '1'='1",
  "1' OR 1=1 -- ",
  '1) OR (1=1',
  '1 UNION SELECT 1,2,3 -- ',
  "'; DROP TABLE wp_posts; --",
  "1' AND SLEEP(3)#",
  '1 AND (SELECT 1 FROM (SELECT SLEEP(3))x)',
  "\\'; SELECT load_extension('x'); --",
  '%27%20OR%201%3D1',
  '`id`',
  'ID DESC, (SELECT 1)',
  "x' COLLATE nocase --",
];

export const HTML_PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg onload=alert(1)>',
  'javascript:alert(1)',
  '<!--',
  ']]><![CDATA[',
  '{{7*7}}${7*7}',
];

const ENCODING_PAYLOADS = [
  '%00',
  'a%00b',
  '%FF%FE',
  '%C0%AF',
  '%ED%A0%80',
  '%E2%82',
  '%F4%90%80%80',
  '%EF%BF%BF',
  '%25%00',
  '..%2F..%2Fetc%2Fpasswd',
];

/** Numbers that break naive parsing: huge, negative, not numbers. */
const BAD_NUMBERS = [
  '-1',
  '0',
  '-99999999999999999999',
  '99999999999999999999',
  '2147483648',
  '9223372036854775808',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  '0x10',
  '1.5',
  ' 1',
  '1 ',
  '١٢',
  '',
  '9'.repeat(400),
];

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'];

/** A JSON text nested `depth` arrays deep. */
export function deepJson(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** Percent-encodes a string's UTF-8 bytes (lone surrogates, which encodeURIComponent refuses, as WTF-8 bytes). */
function enc(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff && !(code < 0xdc00 && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00)) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else if (code >= 0xd800 && code < 0xdc00) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i++;
    } else out += encodeURIComponent(value[i]);
  }
  return out;
}

/** A query-string pair for a value: arrays as `name[]=`, objects with brackets, scalars as they are. */
function queryPairs(name: string, value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push(`${enc(name)}[]=`);
    for (const item of value) queryPairs(`${name}[]`, item, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) queryPairs(`${name}[${k}]`, v, out);
  } else {
    out.push(`${enc(name).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${enc(String(value))}`);
  }
  return out;
}

function types(arg: FuzzArg): string[] {
  const type = arg.type ?? 'string';
  return Array.isArray(type) ? type : [type];
}

/** Values the schema accepts. */
function validValue(arg: FuzzArg, depth = 0): fc.Arbitrary<unknown> {
  if (arg.enum && arg.enum.length) return fc.constantFrom(...arg.enum);
  const options: fc.Arbitrary<unknown>[] = [];
  for (const type of types(arg)) {
    switch (type) {
      case 'integer':
        options.push(fc.integer({ min: arg.minimum ?? 0, max: Math.min(arg.maximum ?? 50, (arg.minimum ?? 0) + 50) }));
        break;
      case 'number':
        options.push(fc.double({ min: arg.minimum ?? -1000, max: arg.maximum ?? 1000, noNaN: true }));
        break;
      case 'boolean':
        options.push(fc.boolean());
        break;
      case 'null':
        options.push(fc.constant(null));
        break;
      case 'array':
        options.push(
          depth > 2
            ? fc.constant([])
            : fc.array(validValue(arg.items ?? { type: 'string' }, depth + 1), { maxLength: 3 }),
        );
        break;
      case 'object':
        if (depth > 2 || !arg.properties)
          options.push(fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }));
        else {
          const props = Object.fromEntries(
            Object.entries(arg.properties).map(([k, v]) => [k, validValue(v, depth + 1)]),
          );
          options.push(fc.record(props, { requiredKeys: [] }));
        }
        break;
      default:
        if (arg.format === 'date-time')
          options.push(
            fc
              .date({ min: new Date('1971-01-01'), max: new Date('2037-12-31'), noInvalidDate: true })
              .map((d) => d.toISOString().slice(0, 19)),
          );
        else if (arg.format === 'email') options.push(fc.emailAddress());
        else if (arg.format === 'uri') options.push(fc.webUrl());
        else if (arg.format === 'uuid') options.push(fc.uuid());
        else if (arg.format === 'hex-color') options.push(fc.constantFrom('#fff', '#a0b1c2'));
        else
          options.push(
            fc.string({
              minLength: arg.minLength ?? 0,
              maxLength: Math.max(arg.minLength ?? 0, Math.min(arg.maxLength ?? 24, 24)),
            }),
          );
    }
  }
  return options.length === 1 ? options[0] : fc.oneof(...options);
}

/** Values at and just past the schema's edges. */
function boundaryValue(arg: FuzzArg): fc.Arbitrary<unknown> {
  const values: unknown[] = ['', 0, -1, [], {}, null, true, 'false'];
  for (const type of types(arg)) {
    if (type === 'integer' || type === 'number') {
      for (const edge of [arg.minimum, arg.maximum])
        if (typeof edge === 'number') values.push(edge, edge - 1, edge + 1);
      values.push(
        2147483647,
        2147483648,
        4294967296,
        Number.MAX_SAFE_INTEGER,
        -Number.MAX_SAFE_INTEGER,
        0.5,
        '18446744073709551616',
        '99999999999999999999',
        '1e21',
      );
    }
    if (type === 'string') {
      if (typeof arg.maxLength === 'number') values.push('x'.repeat(arg.maxLength), 'x'.repeat(arg.maxLength + 1));
      if (arg.format === 'date-time')
        values.push(
          '0000-00-00T00:00:00',
          '9999-12-31T23:59:59',
          '1970-01-01T00:00:00Z',
          '2024-02-30T25:61:61',
          '2024-01-01T00:00:00+99:99',
        );
      values.push(' ', 'x'.repeat(255), 'x'.repeat(256));
    }
    if (type === 'array')
      values.push(
        [[]],
        ['', ''],
        Array.from({ length: 200 }, (_, i) => i),
      );
  }
  return fc.constantFrom(...values);
}

/** Values no schema accepts, and values meant to break what reads them. */
function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...BAD_NUMBERS),
    fc.constantFrom(-1, -2147483649, 1e308, -1e308, 2 ** 64, 1.7976931348623157e308),
    fc.constantFrom(...SQL_PAYLOADS, ...HTML_PAYLOADS),
    fc.constantFrom('x'.repeat(8000), '\u0000', 'a\u0000b', '\uD800', '\uDFFF\uD800', '\u202E', '\uFEFF'),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );
}

/** The wrong shape: arrays where scalars go, objects where arrays go, nested deep. */
function shapeValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom<unknown>(
      [1, 2],
      [[1]],
      { a: 1 },
      { 0: 'x' },
      [{ a: [1] }],
      { raw: { raw: { raw: 'x' } } },
      { __proto__: { polluted: 1 } },
    ),
    fc.jsonValue({ maxDepth: 4 }),
    fc.integer({ min: 20, max: 200 }).map((depth) => JSON.parse(deepJson(depth)) as unknown),
  );
}

function valueFor(kind: FuzzKind, arg: FuzzArg): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'valid':
      return validValue(arg);
    case 'boundary':
      return fc.oneof(boundaryValue(arg), validValue(arg));
    case 'hostile':
      return hostileValue();
    case 'shape':
      return shapeValue();
    case 'injection':
      return fc.constantFrom(...SQL_PAYLOADS, ...HTML_PAYLOADS);
    default:
      return fc.oneof(validValue(arg), hostileValue());
  }
}

/** The requests one endpoint method can take, as an arbitrary. */
interface Target {
  route: string;
  method: string;
  args: Record<string, FuzzArg>;
  acceptsFiles: boolean;
}

export function targets(routes: readonly FuzzRoute[]): Target[] {
  const out: Target[] = [];
  for (const route of routes) {
    for (const endpoint of route.endpoints) {
      for (const method of endpoint.methods) {
        out.push({
          route: route.route,
          method,
          args: endpoint.args ?? {},
          acceptsFiles: endpoint.acceptsFiles ?? (route.route.endsWith('/media') && method === 'POST'),
        });
      }
    }
  }
  return out;
}

/** Fills the route's named groups: real ids mostly, edge values sometimes, hostile segments for `encoding`. */
function pathFor(target: Target, ctx: FuzzContext, kind: FuzzKind): fc.Arbitrary<string> {
  const groups = [...target.route.matchAll(/\(\?P<(\w+)>((?:[^()]|\((?:[^()])*\))*)\)/g)];
  if (groups.length === 0) return fc.constant(target.route);
  const parts = groups.map((m) => {
    const name = m[1];
    const numeric = m[2].startsWith('[\\d]') && !m[2].includes('me');
    const real = ctx.groups[name] ?? (numeric ? (ctx.groups.id ?? ['1']) : ['x']);
    const edge = numeric ? ['0', '999999', '2147483648', '9'.repeat(30)] : ['me', '0', 'x-y_z', 'A'.repeat(200)];
    const hostile = kind === 'encoding' ? ENCODING_PAYLOADS : [];
    return fc.oneof(
      { arbitrary: fc.constantFrom(...real), weight: 6 },
      { arbitrary: fc.constantFrom(...edge, ...hostile), weight: 1 },
    );
  });
  return fc.tuple(...parts).map((values) => {
    let i = 0;
    return target.route.replace(/\(\?P<(\w+)>((?:[^()]|\((?:[^()])*\))*)\)/g, () => values[i++]);
  });
}

const UNDECLARED = fc.constantFrom(
  'foo',
  'filter[post_status]',
  'author_name',
  'orderby]',
  '_method',
  'rest_route',
  '_envelope',
  '_jsonp',
  '_fields',
  '_embed',
  'p',
  ...PROTO_KEYS,
);

const BOUNDARY = 'fuzzboundary';

/** One part of a multipart body (`--fuzzboundary`). */
function part(disposition: string, type: string, data: string | Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${type}\r\n\r\n`),
    Buffer.from(data),
    Buffer.from('\r\n'),
  ]);
}

/** One multipart body: well-formed or broken in one place. */
function multipart(): fc.Arbitrary<{ headers: Record<string, string>; body: Buffer; label: string }> {
  const boundary = BOUNDARY;
  const end = Buffer.from(`--${boundary}--\r\n`);
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  const cases: Array<[string, string, () => Buffer]> = [
    [
      'well-formed text file',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; name="file"; filename="a.txt"', 'text/plain', 'hello'), end]),
    ],
    [
      'truncated PNG',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; name="file"; filename="a.png"', 'image/png', png), end]),
    ],
    [
      'no closing boundary',
      `multipart/form-data; boundary=${boundary}`,
      () => part('form-data; name="file"; filename="a.txt"', 'text/plain', 'hello'),
    ],
    [
      'no boundary parameter',
      'multipart/form-data',
      () => Buffer.concat([part('form-data; name="file"; filename="a.txt"', 'text/plain', 'x'), end]),
    ],
    ['empty body', `multipart/form-data; boundary=${boundary}`, () => Buffer.alloc(0)],
    ['garbage body', `multipart/form-data; boundary=${boundary}`, () => Buffer.from('\u0000\u00ff--fuzz\r\n\r\n--')],
    [
      'path traversal filename',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; name="file"; filename="../../../etc/passwd"', 'text/plain', 'x'), end]),
    ],
    [
      'null byte filename',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; name="file"; filename="a\u0000.php.txt"', 'text/plain', 'x'), end]),
    ],
    [
      'invalid UTF-8 filename*',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; name="file"; filename*=UTF-8\'\'%FF%FE.txt', 'text/plain', 'x'), end]),
    ],
    [
      'disposition without name',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; filename="a.txt"', 'text/plain', 'x'), end]),
    ],
    [
      'unterminated quoted filename',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; name="file"; filename="a.txt', 'text/plain', 'x'), end]),
    ],
    [
      'two files',
      `multipart/form-data; boundary=${boundary}`,
      () =>
        Buffer.concat([
          part('form-data; name="file"; filename="a.txt"', 'text/plain', 'x'),
          part('form-data; name="file2"; filename="b.txt"', 'text/plain', 'y'),
          end,
        ]),
    ],
    [
      'fields only',
      `multipart/form-data; boundary=${boundary}`,
      () =>
        Buffer.concat([
          part('form-data; name="title"', 'text/plain', 'T'),
          part('form-data; name="title"', 'text/plain', 'U'),
          end,
        ]),
    ],
    [
      'thousand fields',
      `multipart/form-data; boundary=${boundary}`,
      () =>
        Buffer.concat([
          ...Array.from({ length: 1200 }, (_, i) => part(`form-data; name="f${i}"`, 'text/plain', 'v')),
          end,
        ]),
    ],
    [
      '1 MiB field',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; name="caption"', 'text/plain', 'c'.repeat(MiB)), end]),
    ],
    [
      'bracket field names',
      `multipart/form-data; boundary=${boundary}`,
      () => Buffer.concat([part('form-data; name="meta[a][b][c][d][e]"', 'text/plain', 'x'), end]),
    ],
  ];
  return fc
    .constantFrom(...cases)
    .map(([label, type, body]) => ({ label, headers: { 'content-type': type }, body: body() }));
}

/**
 * One file of the media corpus (scripts/reliability/fuzz-media.ts: corrupt, cut short, lying headers, bombs, names
 * over 255 bytes), sent as a raw upload (the body is the file, its name in `Content-Disposition`) or as the file part
 * of a multipart body (the name as sent, UTF-8).
 */
function mediaUpload(): fc.Arbitrary<{ headers: Record<string, string>; body: Buffer; label: string }> {
  return fc
    .record({ file: fc.constantFrom(...mediaCorpus()), multipart: fc.boolean() })
    .map(({ file, multipart: asPart }): { headers: Record<string, string>; body: Buffer; label: string } => {
      if (!asPart)
        return {
          label: `${file.label} (raw)`,
          headers: { 'content-type': file.type, 'content-disposition': rawDisposition(file.filename) },
          body: file.bytes,
        };
      // The part's head is written as UTF-8: a name that is not ASCII goes as its UTF-8 bytes, as browsers send it.
      const body = Buffer.concat([
        part(`form-data; name="file"; filename="${file.filename.replace(/["\\]/g, '')}"`, file.type, file.bytes),
        Buffer.from(`--${BOUNDARY}--\r\n`),
      ]);
      return {
        label: `${file.label} (multipart)`,
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body,
      };
    });
}

/** Raw request bodies with wrong or lying content types. */
function contentTypeBody(
  fields: Record<string, unknown>,
): fc.Arbitrary<{ headers: Record<string, string>; body: Buffer }> {
  const json = () => JSON.stringify(fields);
  const cases: Array<[string, () => string | Buffer]> = [
    ['text/plain', json],
    ['application/xml', () => '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'],
    ['application/json', () => '{"title": '],
    ['application/json', () => '{"a":1,"a":2,'],
    ['application/json', () => 'null'],
    ['application/json', () => '"string"'],
    ['application/json', () => '[1,2,3]'],
    ['application/json', () => deepJson(100_000)],
    [
      'application/json',
      () => Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')]),
    ],
    ['application/json', () => '{"title":"\\u0000\\ud800"}'],
    ['application/json; charset=utf-16', json],
    ['application/json; charset=latin1', json],
    [
      'application/x-www-form-urlencoded',
      () => 'title=%FF%FE&content[raw][raw]=x&status[]=publish&a[b][c][d][e][f][g][h]=1',
    ],
    ['application/x-www-form-urlencoded', json],
    ['application/octet-stream', () => Buffer.from([0, 1, 2, 255])],
    ['', json],
    ['application/json', () => JSON.stringify({ ...fields, big: 'b'.repeat(MiB) })],
  ];
  const headersOf = (type: string): Record<string, string> => (type ? { 'content-type': type } : {});
  return fc.constantFrom(...cases).map(([type, body]) => ({
    headers: headersOf(type),
    body: Buffer.from(body()),
  }));
}

/** The arbitrary of all requests to the given routes. */
export function requestArbitrary(routes: readonly FuzzRoute[], ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const all = targets(routes);
  const uploads = all.filter((t) => t.acceptsFiles);
  return fc
    .record({
      target: fc.constantFrom(...all),
      kind: fc.constantFrom(...KINDS),
      admin: fc.boolean(),
      upload: uploads.length ? fc.constantFrom(...uploads) : fc.constant(undefined),
    })
    .chain(({ target: drawn, kind, admin: asAdmin, upload }) => {
      // Media goes to a route that takes files, as the administrator: an anonymous upload is refused unread.
      const target = kind === 'media' && upload ? upload : drawn;
      const admin = asAdmin || (kind === 'media' && upload !== undefined);
      const names = Object.keys(target.args);
      const picked = names.length
        ? fc.subarray(names, { maxLength: Math.min(names.length, 6) })
        : fc.constant([] as string[]);
      return fc
        .record({
          path: pathFor(target, ctx, kind),
          values: picked.chain((keys) =>
            fc.tuple(...keys.map((k) => valueFor(kind, target.args[k]).map((v) => [k, v] as [string, unknown]))),
          ),
          extra: fc.array(fc.tuple(UNDECLARED, hostileValue()), { maxLength: kind === 'undeclared' ? 6 : 0 }),
          raw:
            kind === 'encoding'
              ? fc.array(fc.tuple(fc.constantFrom(...names, 'x'), fc.constantFrom(...ENCODING_PAYLOADS)), {
                  minLength: 1,
                  maxLength: 3,
                })
              : fc.constant([] as Array<[string, string]>),
          brackets:
            kind === 'brackets' ? fc.constantFrom('deep', 'many', 'array-index', 'proto', 'mixed') : fc.constant(''),
          multipart: kind === 'multipart' ? multipart() : fc.constant(null),
          media: kind === 'media' ? mediaUpload() : fc.constant(null),
          inBody: fc.boolean(),
        })
        .chain((parts) => {
          const fields: Record<string, unknown> = Object.fromEntries([...parts.values, ...parts.extra]);
          return (kind === 'content-type' ? contentTypeBody(fields) : fc.constant(null)).map((contentType) => ({
            parts,
            fields,
            contentType,
          }));
        })
        .map(({ parts, fields, contentType }) => buildRequest(target, kind, admin, parts, fields, contentType, ctx));
    })
    .filter((req) => !(req.admin && ctx.protect?.(req.method, req.url.split('?')[0])));
}

function buildRequest(
  target: Target,
  kind: FuzzKind,
  admin: boolean,
  parts: {
    path: string;
    values: Array<[string, unknown]>;
    extra: Array<[string, unknown]>;
    raw: ReadonlyArray<readonly [string, string]>;
    brackets: string;
    multipart: { headers: Record<string, string>; body: Buffer; label: string } | null;
    media: { headers: Record<string, string>; body: Buffer; label: string } | null;
    inBody: boolean;
  },
  fields: Record<string, unknown>,
  contentType: { headers: Record<string, string>; body: Buffer } | null,
  ctx: FuzzContext,
): FuzzRequest {
  const write = target.method !== 'GET' && target.method !== 'DELETE';
  const query: string[] = [];
  let headers: Record<string, string> = {};
  let body: Buffer | undefined;
  if (write && (parts.inBody || kind === 'shape')) {
    headers = { 'content-type': 'application/json' };
    body = Buffer.from(JSON.stringify(fields));
  } else {
    for (const [k, v] of Object.entries(fields)) queryPairs(k, v, query);
  }
  for (const [k, v] of parts.raw) {
    query.push(`${enc(k)}=${v}`);
    if (write && kind === 'encoding') {
      headers = { 'content-type': 'application/json' };
      body = Buffer.concat([
        Buffer.from(`{"${k.replace(/["\\]/g, '')}":"`),
        Buffer.from(decodeLoose(v)),
        Buffer.from('","x\\u0000":"\\u0000"}'),
      ]);
    }
  }
  switch (parts.brackets) {
    case 'deep':
      query.push(`a${'[b]'.repeat(60)}=1`, `filter${'[x]'.repeat(30)}=1`);
      break;
    case 'many':
      query.push(...Array.from({ length: 1100 }, (_, i) => `p${i}=1`));
      break;
    case 'array-index':
      query.push('include[999999999]=1', 'exclude[]=1&exclude[][]=2', 'per_page[]=1&per_page[]=2', 'orderby[a]=id');
      break;
    case 'proto':
      query.push('__proto__[x]=1', 'constructor[prototype][x]=1', 'filter[__proto__][y]=1', 'meta[__proto__]=1');
      break;
    case 'mixed':
      query.push(...Array.from({ length: 1100 }, () => 'x[]=1'), 'x[a]=2', 'x=3');
      break;
  }
  if (contentType && write) ({ headers, body } = contentType);
  if (parts.multipart && (write || target.acceptsFiles)) ({ headers, body } = parts.multipart);
  const label = parts.media && (write || target.acceptsFiles) ? parts.media.label : undefined;
  if (label) ({ headers, body } = parts.media!);
  // Node's HTTP parser answers a request line and headers over 16 KiB itself (431, no body), before the app: the
  // query is kept under 12 KiB so that every request reaches the API.
  while (query.length > 1 && query.join('&').length > 12_000) query.pop();
  const path = `${ctx.prefix}${parts.path}`;
  return {
    kind,
    route: target.route,
    method: target.method,
    url: query.length ? `${path}?${query.join('&')}` : path,
    admin,
    headers,
    body,
    ...(label ? { label } : {}),
  };
}

/** Bytes a percent-encoded payload stands for (invalid UTF-8 kept as bytes). */
function decodeLoose(value: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) {
      bytes.push(parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(value.charCodeAt(i) & 0xff);
  }
  return Buffer.from(bytes.filter((b) => b !== 0x22 && b !== 0x5c));
}

/** Requests are generated in chunks of this many, each from a seed derived from the run's seed and its number. */
export const CHUNK = 500;

/** The seed of chunk `k` of a run. */
function chunkSeed(seed: number, k: number): number {
  return (Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + Math.imul(k, 0x85ebca6b)) | 0;
}

/**
 * The requests of a run, deterministic for a seed: request `i` is the same in every run with that seed, however
 * many requests the run makes, so a finding is reproduced by its seed and number alone. Made one chunk at a time.
 */
export function* streamRequests(
  routes: readonly FuzzRoute[],
  ctx: FuzzContext,
  seed: number,
  count: number,
  from = 0,
): Generator<FuzzRequest> {
  const arbitrary = requestArbitrary(routes, ctx);
  for (let k = Math.floor(from / CHUNK); k * CHUNK < count; k++) {
    const chunk = fc.sample(arbitrary, { seed: chunkSeed(seed, k), numRuns: Math.min(CHUNK, count - k * CHUNK) });
    for (let j = Math.max(0, from - k * CHUNK); j < chunk.length; j++) yield chunk[j];
  }
}

/** A deterministic sample of `count` requests for a seed. */
export function sampleRequests(
  routes: readonly FuzzRoute[],
  ctx: FuzzContext,
  seed: number,
  count: number,
): FuzzRequest[] {
  return [...streamRequests(routes, ctx, seed, count)];
}

/** The answer to one request. */
export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends a request to `base` (http://host:port) and reads the whole answer; `authorization` is sent when admin. */
export function send(base: string, req: FuzzRequest, authorization: string, timeoutMs = 30_000): Promise<FuzzAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.admin) headers.authorization = authorization;
    if (req.body) headers['content-length'] = req.body.length;
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.url, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * Text that must never be in an answer: SQL, driver error codes, the database's own messages and table names. A
 * match that the request itself holds (a search echoed back) does not count.
 */
export function leakPatterns(tablePrefix: string): RegExp[] {
  const p = tablePrefix.replace(/[^\w]/g, '');
  return [
    ...SQL_STATEMENTS,
    /\bsqlite/i,
    /SQLITE_[A-Z]/,
    /\bER_[A-Z_]{3,}/,
    /syntax error/i,
    /You have an error in your SQL/i,
    /QueryFailedError|TypeORM|mysql2|better-sqlite3/i,
    /\bat [\w.<>]+ \((?:\/|node:)/, // a stack frame
    new RegExp(
      `\\b${p}(posts|postmeta|users|usermeta|options|terms|termmeta|term_taxonomy|term_relationships|comments|commentmeta|links)\\b`,
    ),
  ];
}

/**
 * SQL statements: looked for in error answers only, since a successful answer may hold the fuzzer's own SQL payloads
 * stored by an earlier request (a tag named `1 UNION SELECT 1,2,3`); a database error never comes with a 2xx.
 */
const SQL_STATEMENTS = [/\bSELECT [\w*`"]/, /\b(INSERT INTO|UPDATE \S+ SET|DELETE FROM) /];

/**
 * The 5xx answers the API owes its clients by contract (../shared/spec/reference.md, the WordPress REST API's own):
 * refusals with a fixed code, not faults, each on the routes where the reference answers it (whatever the method:
 * `_method` may turn a request into a DELETE). They are counted apart, not as findings; the same code and status on
 * another route is a finding.
 */
export const REFERENCE_5XX: Record<string, { status: number; where: RegExp }> = {
  // A DELETE without force of an item whose resource has no trash.
  rest_trash_not_supported: { status: 501, where: /\(\?P</ },
  // A status-only comment update to an unknown status or the current one (spec §5, quirk 8).
  rest_comment_failed_edit: { status: 500, where: /\/comments\/\(/ },
  // An application password UUID that names none (WordPress's own status for it).
  rest_application_password_not_found: { status: 500, where: /\/application-passwords\/\(/ },
};

/** Whether a 5xx answer is one the API owes by contract ({@link REFERENCE_5XX}). */
export function owedByContract(req: Pick<FuzzRequest, 'method' | 'route'>, status: number, code: unknown): boolean {
  const owed = Object.prototype.hasOwnProperty.call(REFERENCE_5XX, String(code))
    ? REFERENCE_5XX[String(code)]
    : undefined;
  return owed !== undefined && owed.status === status && owed.where.test(`${req.method} ${req.route}`);
}

/** The invariants every answer keeps; an empty list when it keeps them all. */
export function violations(req: FuzzRequest, answer: FuzzAnswer, patterns: RegExp[]): string[] {
  const out: string[] = [];
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status >= 400) {
    let body: { code?: unknown; message?: unknown; data?: { status?: unknown } } | undefined;
    try {
      body = JSON.parse(answer.body) as typeof body;
    } catch {
      out.push(`error body is not JSON (${type || 'no content type'}): ${answer.body.slice(0, 80)}`);
    }
    if (answer.status >= 500 && !owedByContract(req, answer.status, body?.code))
      out.push(
        `status ${answer.status}${typeof body?.code === 'string' ? ` ${body.code}: ${String(body.message).slice(0, 120)}` : ''}`,
      );
    if (
      body &&
      (typeof body.code !== 'string' || typeof body.message !== 'string' || body.data?.status !== answer.status)
    ) {
      out.push(`error body is not {code, message, data.status=${answer.status}}: ${answer.body.slice(0, 160)}`);
    }
  }
  const sent = (
    decodeSafe(req.url) +
    ' ' +
    (req.body ? req.body.toString('utf8', 0, Math.min(req.body.length, 200_000)) : '')
  ).toLowerCase();
  for (const pattern of patterns) {
    if (answer.status < 400 && SQL_STATEMENTS.includes(pattern)) continue;
    const match = pattern.exec(answer.body);
    if (match && !sent.includes(match[0].toLowerCase()))
      out.push(
        `answer holds ${JSON.stringify(match[0])}: …${answer.body.slice(Math.max(0, match.index - 60), match.index + 60)}…`,
      );
  }
  return out;
}

function decodeSafe(url: string): string {
  return unescape(url.replace(/\+/g, ' '));
}

/** How a request is shown so that it can be sent again by hand (curl), with its body cut at 300 bytes. */
export function reproduction(base: string, req: FuzzRequest): string {
  const headers = Object.entries(req.headers)
    .map(([k, v]) => ` -H '${k}: ${v}'`)
    .join('');
  const auth = req.admin ? " -u 'admin:<application password>'" : '';
  // A binary body (a media file) is named, not shown: its bytes would not survive a terminal or a Markdown report.
  // eslint-disable-next-line no-control-regex -- control characters are what marks a binary body
  const binary = req.body && /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(req.body.toString('latin1'));
  const body = !req.body
    ? ''
    : binary
      ? ` --data-binary @body.bin  # ${req.body.length} bytes${req.label ? ` (${req.label})` : ''}, sent again by --only`
      : ` --data-binary '${req.body.toString('latin1', 0, 300).replace(/'/g, "'\\''")}${req.body.length > 300 ? `…(${req.body.length} bytes)` : ''}'`;
  return `curl -X ${req.method}${auth}${headers} '${base}${req.url.length > 400 ? req.url.slice(0, 400) + '…' : req.url}'${body}`;
}

/** Sends a JSON request as the administrator and answers its JSON body; fails on a status other than `expect`. */
async function adminJson(
  base: string,
  authorization: string,
  method: string,
  path: string,
  body: unknown,
  expect: number,
): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * Makes the items the fuzzer's paths point at, through the API as the administrator: posts (one with a revision), a
 * page, terms, a comment, a media file, a second user with an application password. Answers the path groups.
 */
export async function seedSite(
  base: string,
  authorization: string,
  prefix = '/cms-json',
): Promise<Record<string, string[]>> {
  const api = `${prefix}/cms/v2`;
  const post = await adminJson(
    base,
    authorization,
    'POST',
    `${api}/posts`,
    { title: 'Fuzz one', content: 'First <b>post</b>', status: 'publish' },
    201,
  );
  await adminJson(base, authorization, 'POST', `${api}/posts/${post.id}`, { title: 'Fuzz one, again' }, 200);
  const draft = await adminJson(
    base,
    authorization,
    'POST',
    `${api}/posts`,
    { title: 'Fuzz draft', status: 'draft', password: 'secret' },
    201,
  );
  const page = await adminJson(
    base,
    authorization,
    'POST',
    `${api}/pages`,
    { title: 'Fuzz page', content: 'Page', status: 'publish' },
    201,
  );
  await adminJson(base, authorization, 'POST', `${api}/pages/${page.id}`, { content: 'Page, again' }, 200);
  const category = await adminJson(base, authorization, 'POST', `${api}/categories`, { name: 'Fuzz category' }, 201);
  const tag = await adminJson(base, authorization, 'POST', `${api}/tags`, { name: 'Fuzz tag' }, 201);
  const comment = await adminJson(
    base,
    authorization,
    'POST',
    `${api}/comments`,
    { post: post.id, content: 'A comment' },
    201,
  );
  const upload = await fetch(`${base}${api}/media`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="fuzz.txt"' },
    body: 'fuzz file',
  });
  if (upload.status !== 201) throw new Error(`media upload: ${upload.status} ${await upload.text()}`);
  const media = (await upload.json()) as { id: number };
  const user = await adminJson(
    base,
    authorization,
    'POST',
    `${api}/users`,
    { username: 'fuzzuser', email: 'fuzz@example.org', password: 'fuzz-password-1', roles: ['editor'] },
    201,
  );
  const app = await adminJson(
    base,
    authorization,
    'POST',
    `${api}/users/${user.id}/application-passwords`,
    { name: 'fuzz' },
    201,
  );
  const revisions = await adminJson(base, authorization, 'GET', `${api}/posts/${post.id}/revisions`, undefined, 200);
  const ids = [post.id, draft.id, page.id, category.id, tag.id, comment.id, media.id, user.id].map(String);
  return {
    id: [...ids, ...revisions.map((r: { id: number }) => String(r.id))],
    parent: [post.id, page.id].map(String),
    user_id: [String(user.id)],
    uuid: [app.uuid],
    type: ['post', 'page', 'attachment', 'nav_menu_item'],
    status: ['publish', 'draft', 'future', 'trash'],
    taxonomy: ['category', 'post_tag', 'nav_menu'],
  };
}
