import { createUser, TestUser } from '../factories/user.factory';
import { createTestApp, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * The permission matrix of the users routes (and the other capability-gated reads): every route × every role ×
 * anonymous → expected HTTP status. Expectations follow WordPress's capability sets — administrator: list_users,
 * create_users, edit_users, delete_users, promote_users, manage_options, manage_categories, edit_posts; editor:
 * edit_posts, manage_categories (no user capabilities); author and contributor: edit_posts; subscriber: read — and
 * the rule that a refusal is 401 for anonymous callers and 403 for logged-in ones (rest_authorization_required_code).
 *
 * "other" is a subscriber without published posts (so the public-user rule does not open it); destructive rows get a
 * fresh one per cell.
 */

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
type Who = 'anonymous' | Role;
type Method = 'get' | 'post' | 'put' | 'delete';

const WHO: Who[] = ['anonymous', 'administrator', 'editor', 'author', 'contributor', 'subscriber'];

interface Row {
  /** `METHOD path`; `<other>` is the target user's id. */
  route: string;
  body?: (who: Who) => object;
  /** A new target user for each cell (the row changes or deletes it). */
  fresh?: boolean;
  /** Expected status for: anonymous, administrator, editor, author, contributor, subscriber. */
  expected: [number, number, number, number, number, number];
}

const ROWS: Row[] = [
  { route: 'GET /users', expected: [200, 200, 200, 200, 200, 200] },
  { route: 'GET /users?context=edit', expected: [401, 200, 403, 403, 403, 403] },
  { route: 'GET /users?roles=subscriber', expected: [401, 200, 403, 403, 403, 403] },
  { route: 'GET /users?orderby=email', expected: [401, 200, 403, 403, 403, 403] },
  { route: 'GET /users?who=authors', expected: [401, 200, 200, 200, 200, 403] },
  // The spec's error table gives rest_cannot_create_user 401 for every caller (the one exception to the rule above).
  {
    route: 'POST /users',
    body: (who) => ({ username: `made-by-${who}`, email: `made-by-${who}@example.com`, password: 'pw' }),
    expected: [401, 201, 401, 401, 401, 401],
  },
  { route: 'GET /users/<other>', expected: [401, 200, 403, 403, 403, 403] },
  { route: 'GET /users/<other>?context=edit', expected: [401, 200, 403, 403, 403, 403] },
  { route: 'GET /users/<other>?context=embed', expected: [401, 200, 403, 403, 403, 403] },
  {
    route: 'PUT /users/<other>',
    body: () => ({ first_name: 'Changed' }),
    fresh: true,
    expected: [401, 200, 403, 403, 403, 403],
  },
  {
    route: 'PUT /users/<other>',
    body: () => ({ roles: ['author'] }),
    fresh: true,
    expected: [401, 200, 403, 403, 403, 403],
  },
  { route: 'DELETE /users/<other>?force=true&reassign=false', fresh: true, expected: [401, 200, 403, 403, 403, 403] },
  { route: 'GET /users/me', expected: [401, 200, 200, 200, 200, 200] },
  { route: 'GET /users/me?context=edit', expected: [401, 200, 200, 200, 200, 200] },
  { route: 'PUT /users/me', body: () => ({ description: 'About me.' }), expected: [401, 200, 200, 200, 200, 200] },
  { route: 'GET /users/<other>/application-passwords', expected: [401, 200, 403, 403, 403, 403] },
  {
    route: 'POST /users/<other>/application-passwords',
    body: (who) => ({ name: `made-by-${who}` }),
    expected: [401, 201, 403, 403, 403, 403],
  },
  { route: 'DELETE /users/<other>/application-passwords', fresh: true, expected: [401, 200, 403, 403, 403, 403] },
  { route: 'GET /users/<other>/application-passwords/uuid-<login>', expected: [401, 200, 403, 403, 403, 403] },
  {
    route: 'DELETE /users/<other>/application-passwords/uuid-<login>',
    fresh: true,
    expected: [401, 200, 403, 403, 403, 403],
  },
  { route: 'GET /users/me/application-passwords', expected: [401, 200, 200, 200, 200, 200] },
  { route: 'GET /settings', expected: [401, 200, 403, 403, 403, 403] },
  { route: 'PUT /settings', body: () => ({ description: 'Matrix' }), expected: [401, 200, 403, 403, 403, 403] },
  { route: 'GET /types?context=edit', expected: [401, 200, 200, 200, 200, 403] },
  { route: 'GET /taxonomies?context=edit', expected: [401, 200, 200, 403, 403, 403] },
  { route: 'GET /statuses?context=edit', expected: [401, 200, 200, 200, 200, 403] },
];

const CELLS = ROWS.flatMap((row) => WHO.map((who, i) => ({ row, who, status: row.expected[i] })));

let t: TestApp;
let other: TestUser;
let serial = 0;

beforeAll(async () => {
  t = await createTestApp('users_permissions');
  other = await createUser(t.dataSource, TEST_PREFIX, 'other', 'subscriber');
});

afterAll(() => t.close());

it('covers every route of the matrix for anonymous callers and all five roles', () => {
  expect(CELLS).toHaveLength(ROWS.length * 6);
  expect(new Set(ROWS.map((r) => `${r.route} ${JSON.stringify(r.body?.('anonymous') ?? {})}`)).size).toBe(ROWS.length);
});

it.each(
  CELLS.map((c) => [c.row.route, c.row.body ? JSON.stringify(c.row.body(c.who)) : '', c.who, c.status, c.row] as const),
)('%s %s as %s → %i', async (route, _body, who, status, row) => {
  const target = row.fresh ? await createUser(t.dataSource, TEST_PREFIX, `target${++serial}`, 'subscriber') : other;
  const [method, path] = route.split(' ') as [string, string];
  const url = `/cms-json/cms/v2${path.replace('<other>', String(target.id)).replace('<login>', target.login)}`;
  let req = t.http[method.toLowerCase() as Method](url);
  if (who !== 'anonymous') req = req.set('Authorization', t.users[who].authorization);
  const res = await (row.body ? req.send(row.body(who)) : req);
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code: res.body?.code });
  if (status >= 400) {
    // Errors keep the API's shape, with the same status in data.
    expect({ code: typeof res.body.code, dataStatus: res.body.data?.status }).toEqual({
      code: 'string',
      dataStatus: status,
    });
  }
});
