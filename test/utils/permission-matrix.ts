import { ApplicationPasswords } from '../../src/core/auth/application-passwords.service';
import { RouteRegistry } from '../../src/core/rest/route-registry.service';
import { RouteDefinition } from '../../src/core/rest/route-types';
import { insertComment, unflood } from '../factories/comment.factory';
import { assignTerms, createPost, createTerm, setPostMeta } from '../factories/post.factory';
import { createUser, TestUser } from '../factories/user.factory';
import { Caller, CALLERS, FreshKind, MatrixRow, Method, Outcome } from '../fixtures/permission-matrix';
import { TEST_PREFIX, TestApp } from './test-app';

/**
 * The engine of the permission matrix (test/fixtures/permission-matrix.ts): the fixtures, the cells (row × method ×
 * context × caller), the requests, the comparison with the expected outcome and the scan of every answer for what a
 * caller without edit rights must not see.
 */

/** In the content of the password-protected post only: an answer holding it leaks that content. */
export const PROTECTED_MARKER = 'matrix-protected-7f3a9c';
/** Who may read the protected post's content: who may edit it (its author, the editor, and the administrator). */
const PROTECTED_READERS: readonly Caller[] = ['editor', 'administrator'];

/** Property names only callers with edit rights may see. */
const PRIVATE_KEYS = new Set([
  'raw',
  'email',
  'password',
  'capabilities',
  'extra_capabilities',
  'author_email',
  'author_ip',
]);
/** Password and application-password hashes (phpass, WordPress 6.8 bcrypt, bcrypt, argon2) and the columns that hold them. */
const SECRETS =
  /\$P\$[./0-9A-Za-z]{8}|\$H\$[./0-9A-Za-z]{8}|\$wp\$2|\$2[aby]\$\d\d\$|\$argon2|user_pass|user_activation_key/;

export type Fixtures = Record<string, string | number>;

export interface MatrixCell {
  row: MatrixRow;
  method: Method;
  /** `view`, `embed`, `edit`, `help`, or `null` where the endpoint takes no context. */
  context: string | null;
  /** With `_embed`. */
  embed: boolean;
  caller: Caller;
  expected: Outcome;
}

export interface CellResult {
  cell: MatrixCell;
  url: string;
  actual: Outcome;
  leaks: string[];
}

export interface MatrixRun {
  cells: number;
  routes: number;
  /** Route × method × context combinations of the registry (each has at least one row). */
  combinations: number;
  mismatches: CellResult[];
  leaks: CellResult[];
  /** Cells whose answer was 2xx where a refusal was expected. */
  unexpectedSuccesses: number;
  /** Answers with a 5xx status. */
  serverErrors: number;
}

/** The contexts a route's GET endpoint declares (`null`: it takes none). */
function contextsOf(route: RouteDefinition, method: string): (string | null)[] {
  const endpoint = route.endpoints.find((e) => e.methods.includes(method));
  const arg = endpoint?.args.context as { enum?: string[] } | undefined;
  return arg?.enum?.length ? arg.enum : [null];
}

/**
 * Every route, method and context of the registry that no row of the matrix covers, as `METHOD route [context]`:
 * a route added without its rows is reported here.
 */
export function uncovered(registry: RouteRegistry, rows: readonly MatrixRow[]): string[] {
  const missing: string[] = [];
  for (const route of registry.all()) {
    for (const endpoint of route.endpoints) {
      for (const method of endpoint.methods) {
        const matching = rows.filter((r) => r.route === route.route && r.methods.includes(method as Method));
        if (!matching.length) {
          missing.push(`${method} ${route.route}`);
          continue;
        }
        if (method !== 'GET') continue;
        for (const context of contextsOf(route, method)) {
          if (context === 'edit' && !matching.some((r) => r.edit))
            missing.push(`${method} ${route.route} context=edit`);
        }
      }
    }
  }
  return missing;
}

/** Rows naming a route the registry does not have (a stale table). */
export function unknownRows(registry: RouteRegistry, rows: readonly MatrixRow[]): string[] {
  const routes = new Map(registry.all().map((r) => [r.route, r]));
  return rows
    .filter((r) => !r.methods.every((m) => routes.get(r.route)?.endpoints.some((e) => e.methods.includes(m))))
    .map((r) => `${r.methods.join(',')} ${r.route} (${r.path})`);
}

/** The cells of the matrix: each row × method × context the endpoint declares × caller, plus `_embed` variants. */
export function cellsOf(registry: RouteRegistry, rows: readonly MatrixRow[]): MatrixCell[] {
  const cells: MatrixCell[] = [];
  for (const row of rows) {
    const route = registry.get(row.route);
    if (!route) continue;
    for (const method of row.methods) {
      const contexts = method === 'GET' ? contextsOf(route, method) : [null];
      for (const context of contexts) {
        for (const caller of CALLERS) {
          const expected = context === 'edit' ? row.edit?.[caller] : row.expect[caller];
          if (expected === undefined) continue;
          cells.push({ row, method, context, embed: false, caller, expected });
          if (row.embed && context === 'view') cells.push({ row, method, context, embed: true, caller, expected });
        }
      }
    }
  }
  return cells;
}

/** The fixtures: posts of each status by different authors, a protected post, pages, media, comments, terms, users. */
export async function makeFixtures(t: TestApp): Promise<{ fixtures: Fixtures; other: TestUser }> {
  const ds = t.dataSource;
  const { author, contributor, editor, subscriber } = t.users;
  const other = await createUser(ds, TEST_PREFIX, 'matrix-other', 'subscriber');
  const post = async (fields: Parameters<typeof createPost>[1]) => (await createPost(ds, fields)).id;
  const future = '2099-01-01 10:00:00';
  const f: Fixtures = {
    pubByAuthor: await post({ author: author.id, status: 'publish' }),
    draftByAuthor: await post({ author: author.id, status: 'draft' }),
    futureByAuthor: await post({ author: author.id, status: 'future', date: future, dateGmt: future }),
    trashByAuthor: await post({ author: author.id, status: 'trash' }),
    draftByContributor: await post({ author: contributor.id, status: 'draft' }),
    pendingByContributor: await post({ author: contributor.id, status: 'pending' }),
    privateByEditor: await post({ author: editor.id, status: 'private' }),
    protectedByEditor: await post({
      author: editor.id,
      status: 'publish',
      password: 'secret',
      content: `<p>${PROTECTED_MARKER}</p>`,
      excerpt: `${PROTECTED_MARKER} excerpt`,
    }),
    pubPageByEditor: await post({ author: editor.id, status: 'publish', type: 'page' }),
    draftPageByEditor: await post({ author: editor.id, status: 'draft', type: 'page' }),
  };
  f.revisionOfPubByAuthor = await post({
    author: author.id,
    status: 'inherit',
    type: 'revision',
    parent: Number(f.pubByAuthor),
    name: `${f.pubByAuthor}-revision-v1`,
  });
  f.revisionOfPubPage = await post({
    author: editor.id,
    status: 'inherit',
    type: 'revision',
    parent: Number(f.pubPageByEditor),
    name: `${f.pubPageByEditor}-revision-v1`,
  });
  f.blockByAuthor = await post({ author: author.id, status: 'publish', type: 'wp_block' });
  f.revisionOfBlock = await post({
    author: author.id,
    status: 'inherit',
    type: 'revision',
    parent: Number(f.blockByAuthor),
    name: `${f.blockByAuthor}-revision-v1`,
  });
  f.mediaByAuthor = await attachment(t, author.id, 0);
  f.mediaOnDraftPage = await attachment(t, editor.id, Number(f.draftPageByEditor));
  f.approvedComment = (
    await insertComment(ds, {
      postId: Number(f.pubByAuthor),
      approved: '1',
      authorEmail: 'guest@example.net',
      authorIp: '192.0.2.7',
    })
  ).id;
  f.heldBySubscriber = (
    await insertComment(ds, {
      postId: Number(f.pubByAuthor),
      approved: '0',
      userId: subscriber.id,
      authorEmail: `${subscriber.login}@example.org`,
    })
  ).id;
  f.spamComment = (
    await insertComment(ds, { postId: Number(f.pubByAuthor), approved: 'spam', authorIp: '192.0.2.9' })
  ).id;
  f.categoriesTerm = await createTerm(ds, 'category', 'Matrix category');
  f.menu = await createTerm(ds, 'nav_menu', 'Matrix menu');
  f.menuItem = await menuItem(t, Number(f.menu));
  f.tagsTerm = await createTerm(ds, 'post_tag', 'Matrix tag');
  Object.assign(f, {
    otherId: other.id,
    otherUuid: `uuid-${other.login}`,
    otherLogin: other.login,
    otherPassword: other.password,
    authorId: author.id,
    subscriberId: subscriber.id,
  });
  return { fixtures: f, other };
}

async function attachment(t: TestApp, author: number, parent: number): Promise<number> {
  const file = `2024/01/matrix-${author}-${parent}.png`;
  const id = (
    await createPost(t.dataSource, {
      author,
      parent,
      status: 'inherit',
      type: 'attachment',
      mimeType: 'image/png',
      guid: `http://example.org/wp-content/uploads/${file}`,
    })
  ).id;
  await setPostMeta(t.dataSource, id, '_wp_attached_file', file);
  return id;
}

/** A published custom-link menu item of `menu`. */
async function menuItem(t: TestApp, menu: number): Promise<number> {
  const id = (
    await createPost(t.dataSource, {
      author: t.users.editor.id,
      status: 'publish',
      type: 'nav_menu_item',
      title: 'Matrix link',
    })
  ).id;
  await setPostMeta(t.dataSource, id, '_menu_item_type', 'custom');
  await setPostMeta(t.dataSource, id, '_menu_item_url', 'https://example.org/');
  await assignTerms(t.dataSource, id, 'nav_menu', [menu]);
  return id;
}

let freshSerial = 0;

/** An object made for one cell (one that the cell changes or deletes), by kind. */
async function makeFresh(t: TestApp, kind: FreshKind, caller: Caller, f: Fixtures): Promise<string | number> {
  const ds = t.dataSource;
  const n = ++freshSerial;
  switch (kind) {
    case 'postByAuthor':
      return (await createPost(ds, { author: t.users.author.id, status: 'publish' })).id;
    case 'draftByContributor':
      return (await createPost(ds, { author: t.users.contributor.id, status: 'draft' })).id;
    case 'pageByEditor':
      return (await createPost(ds, { author: t.users.editor.id, status: 'publish', type: 'page' })).id;
    case 'blockByAuthor':
      return (await createPost(ds, { author: t.users.author.id, status: 'publish', type: 'wp_block' })).id;
    case 'revisionOfPubByAuthor':
    case 'revisionOfPubPage':
    case 'revisionOfBlock': {
      const parents = { revisionOfPubByAuthor: f.pubByAuthor, revisionOfPubPage: f.pubPageByEditor };
      const parent = Number(kind === 'revisionOfBlock' ? f.blockByAuthor : parents[kind]);
      return (
        await createPost(ds, {
          author: t.users.author.id,
          status: 'inherit',
          type: 'revision',
          parent,
          name: `${parent}-revision-v${n + 1}`,
        })
      ).id;
    }
    case 'comment':
      return (await insertComment(ds, { postId: Number(f.pubByAuthor), approved: '1' })).id;
    case 'category':
      return createTerm(ds, 'category', `Fresh category ${n}`);
    case 'tag':
      return createTerm(ds, 'post_tag', `Fresh tag ${n}`);
    case 'menu':
      return createTerm(ds, 'nav_menu', `Fresh menu ${n}`);
    case 'menuItem':
      return menuItem(t, Number(f.menu));
    case 'user':
      return (await createUser(ds, TEST_PREFIX, `matrix-fresh-${n}`, 'subscriber')).id;
    case 'ownAppPassword':
    case 'othersAppPassword': {
      const owner =
        kind === 'othersAppPassword'
          ? Number(f.otherId)
          : caller === 'anonymous'
            ? Number(f.otherId)
            : t.users[caller].id;
      return (await t.app.get(ApplicationPasswords).createApplicationPassword(owner, `Fresh ${n}`)).item.uuid;
    }
  }
}

function fill(template: string, values: Fixtures): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!(name in values)) throw new Error(`The matrix names an unknown fixture: ${whole}`);
    return String(values[name]);
  });
}

/** A body with fixture names filled in (a value that is only a name takes the fixture's type). */
function fillBody(body: Record<string, unknown>, values: Fixtures): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const whole = typeof value === 'string' ? /^\{(\w+)\}$/.exec(value) : null;
    out[key] = whole && whole[1] in values ? values[whole[1]] : typeof value === 'string' ? fill(value, values) : value;
  }
  return out;
}

/** What must not be in an answer to this cell's caller. */
export function scan(cell: MatrixCell, status: number, body: unknown, text: string, privileged: boolean): string[] {
  const found: string[] = [];
  const secret = SECRETS.exec(text);
  if (secret) found.push(`secret ${JSON.stringify(secret[0])}`);
  if (text.includes(PROTECTED_MARKER) && !PROTECTED_READERS.includes(cell.caller)) found.push('protected content');
  // Answers that describe the API (index, OPTIONS-like documents, context=help) name properties without values.
  const describes = cell.row.describes || cell.context === 'help';
  if (!describes && (!privileged || status >= 300)) {
    const keys = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          // Reusable blocks show their raw texts to every reader (WordPress's blocks controller): not a leak.
          if (PRIVATE_KEYS.has(k) && !(k === 'raw' && cell.row.rawForReaders)) keys.add(k);
          walk(v);
        }
      }
    };
    walk(body);
    for (const k of keys) found.push(`"${k}"`);
  }
  return found;
}

function isSuccess(outcome: Outcome): boolean {
  return /^2\d\d$/.test(outcome.split(' ')[0]);
}

/** Whether the cell's caller has edit rights over what it asks: the row's edit context (GET), or the write succeeding. */
function privileged(cell: MatrixCell): boolean {
  if (cell.method !== 'GET') return isSuccess(cell.expected);
  return cell.row.edit ? isSuccess(cell.row.edit[cell.caller]) : false;
}

async function runCell(t: TestApp, cell: MatrixCell, fixtures: Fixtures): Promise<CellResult> {
  const { row, method, caller } = cell;
  const values: Fixtures = {
    ...fixtures,
    self: caller === 'anonymous' ? 0 : t.users[caller].id,
    selfUuid: caller === 'anonymous' ? 'none' : `uuid-${t.users[caller].login}`,
  };
  if (row.fresh) values.fresh = await makeFresh(t, row.fresh, caller, fixtures);
  const params: string[] = [];
  if (cell.context) params.push(`context=${cell.context}`);
  if (cell.embed) params.push('_embed=1');
  const path = fill(row.path, values);
  const url = params.length ? `${path}${path.includes('?') ? '&' : '?'}${params.join('&')}` : path;
  const full = `/cms-json${url}`;
  let req = t.http[method.toLowerCase() as 'get'](full);
  if (caller !== 'anonymous') req = req.set('Authorization', t.users[caller].authorization);
  if (row.body) req = req.send(fillBody(row.body(caller, method), values));
  const res = await req;
  const code = (res.body as { code?: unknown } | undefined)?.code;
  const actual =
    res.status >= 200 && res.status < 300
      ? String(res.status)
      : `${res.status}${typeof code === 'string' ? ` ${code}` : ''}`;
  const leaks = scan(cell, res.status, res.body, res.text ?? '', privileged(cell));
  return { cell, url: `${method} ${url}`, actual, leaks };
}

/** Runs every cell: the ones that do not change shared fixtures in small parallel batches, comment writes one by one. */
export async function runMatrix(
  t: TestApp,
  rows: readonly MatrixRow[],
  fixtures: Fixtures,
  batch = 8,
): Promise<{ results: CellResult[]; run: MatrixRun }> {
  const registry = t.app.get(RouteRegistry);
  const cells = cellsOf(registry, rows);
  const results: CellResult[] = [];
  const parallel = cells.filter((c) => !c.row.serial);
  for (let i = 0; i < parallel.length; i += batch) {
    results.push(...(await Promise.all(parallel.slice(i, i + batch).map((c) => runCell(t, c, fixtures)))));
  }
  for (const cell of cells.filter((c) => c.row.serial)) {
    // WordPress refuses a second comment from the same address within 15 s: each comment is its own visitor's.
    await unflood(t.dataSource);
    results.push(await runCell(t, cell, fixtures));
  }
  const combinations = registry
    .all()
    .flatMap((r) => r.endpoints.flatMap((e) => e.methods.map((m) => (m === 'GET' ? contextsOf(r, m).length : 1))))
    .reduce((a, b) => a + b, 0);
  const mismatches = results.filter((r) => r.actual !== r.cell.expected);
  return {
    results,
    run: {
      cells: results.length,
      routes: registry.all().length,
      combinations,
      mismatches,
      leaks: results.filter((r) => r.leaks.length),
      unexpectedSuccesses: mismatches.filter((r) => isSuccess(r.actual) && !isSuccess(r.cell.expected)).length,
      serverErrors: results.filter((r) => r.actual.startsWith('5') && !r.cell.expected.startsWith('5')).length,
    },
  };
}

/** One line per failed cell, for a failure message. */
export function describeCells(results: readonly CellResult[]): string {
  return results
    .map(
      (r) =>
        `${r.cell.caller.padEnd(13)} ${r.url}  expected ${r.cell.expected}, got ${r.actual}${r.leaks.length ? `; leaks ${r.leaks.join(', ')}` : ''}`,
    )
    .join('\n');
}
