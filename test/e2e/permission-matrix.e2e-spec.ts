import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { writeFileSync } from 'node:fs';
import { CmsExtensionRegistry } from '../../src/extensions/extension-registry.service';
import { RouteRegistry } from '../../src/core/rest/route-registry.service';
import { OptionEntity } from '../../src/core/database/entities/option.entity';
import { OptionsService } from '../../src/core/options/options.service';
import { PERMISSION_MATRIX } from '../fixtures/permission-matrix';
import {
  CellResult,
  describeCells,
  Fixtures,
  makeFixtures,
  MatrixRun,
  PROTECTED_MARKER,
  runMatrix,
  scan,
  uncovered,
  unknownRows,
} from '../utils/permission-matrix';
import { createTestApp, TestApp } from '../utils/test-app';

/**
 * The permission matrix (test/fixtures/permission-matrix.ts) over every route, method and context of the route table,
 * for anonymous callers and each role, against fixtures made once; every answer is scanned for what its caller may
 * not see. `npm run matrix` runs this file and writes its figures (CMS_MATRIX_REPORT) into docs/reliability.md.
 */

let t: TestApp;
let fixtures: Fixtures;
let results: CellResult[];
let run: MatrixRun;

beforeAll(async () => {
  t = await createTestApp('permission_matrix');
  ({ fixtures } = await makeFixtures(t));
  ({ results, run } = await runMatrix(t, PERMISSION_MATRIX, fixtures));
  if (process.env.CMS_MATRIX_REPORT) {
    const summary = {
      ...run,
      mismatches: describeCells(run.mismatches),
      leaks: describeCells(run.leaks),
      rows: PERMISSION_MATRIX.length,
    };
    writeFileSync(process.env.CMS_MATRIX_REPORT, JSON.stringify(summary, null, 2));
  }
}, 300_000);

afterAll(() => t.close());

it('has a row for every route, method and context of the route table, and no row for a route it lacks', () => {
  const registry = t.app.get(RouteRegistry);
  expect(uncovered(registry, PERMISSION_MATRIX)).toEqual([]);
  expect(unknownRows(registry, PERMISSION_MATRIX)).toEqual([]);
});

it('checks every caller on every row', () => {
  // 6 callers × at least one cell per row, and every route of the table is asked.
  expect(run.cells).toBeGreaterThanOrEqual(PERMISSION_MATRIX.length * 6);
  const asked = new Set(results.map((r) => r.cell.row.route));
  expect([...t.app.get(RouteRegistry).all()].filter((r) => !asked.has(r.route)).map((r) => r.route)).toEqual([]);
});

it('answers each cell with the status and error code the matrix expects', () => {
  expect(describeCells(run.mismatches)).toBe('');
});

it('answers no 2xx where a refusal is expected and no 5xx', () => {
  expect({ unexpectedSuccesses: run.unexpectedSuccesses, serverErrors: run.serverErrors }).toEqual({
    unexpectedSuccesses: 0,
    serverErrors: 0,
  });
});

it('leaks no private field, hash or protected content to a caller without edit rights', () => {
  expect(describeCells(run.leaks)).toBe('');
});

it('the scan can fail: it reports private fields, hashes and protected content in an answer', () => {
  const cell = results.find((r) => r.cell.caller === 'anonymous' && r.url === 'GET /cms/v2/posts?context=view')!.cell;
  expect(scan(cell, 200, [{ id: 1, author_email: 'a@example.net' }], '', false)).toEqual(['"author_email"']);
  expect(scan(cell, 200, {}, '{"note":"$P$BaBcDeFgHiJkLmNoPqRsTuVwXyZ012345"}', false)).toEqual([
    'secret "$P$BaBcDeFg"',
  ]);
  expect(scan(cell, 200, {}, `<p>${PROTECTED_MARKER}</p>`, false)).toEqual(['protected content']);
});

it("shows the protected post's text to whom may edit it, and withholds it from a collection in the edit context for others", async () => {
  const own = await t.http
    .get(`/cms-json/cms/v2/posts/${fixtures.protectedByEditor}?context=edit`)
    .set('Authorization', t.users.editor.authorization)
    .expect(200);
  expect(own.body).toMatchObject({
    password: 'secret',
    content: { raw: `<p>${PROTECTED_MARKER}</p>`, protected: true },
  });
  // A contributor lists posts in the edit context (edit_posts), the editor's protected post among them.
  const list = await t.http
    .get('/cms-json/cms/v2/posts?context=edit&per_page=100')
    .set('Authorization', t.users.contributor.authorization)
    .expect(200);
  const item = (list.body as Array<Record<string, unknown>>).find((p) => p.id === fixtures.protectedByEditor);
  expect(item).toMatchObject({
    content: { raw: '', rendered: '', protected: true },
    excerpt: { raw: '', rendered: '', protected: true },
  });
  expect(item).not.toHaveProperty('password');
  expect(list.text).not.toContain(PROTECTED_MARKER);
});

describe('first writes of an option from concurrent requests (500s the matrix met on MariaDB)', () => {
  it('add() keeps the first value for every caller, and set() writes one row, without a duplicate-key error', async () => {
    const options = t.app.get(OptionsService);
    const added = await Promise.all(
      Array.from({ length: 8 }, (_, i) => options.add<string>('matrix_race_add', `value ${i}`, false)),
    );
    expect(new Set(added).size).toBe(1);
    await Promise.all(Array.from({ length: 8 }, (_, i) => options.set('matrix_race_set', `value ${i}`, false)));
    const rows = await t.dataSource
      .getRepository(OptionEntity)
      .find({ where: [{ name: 'matrix_race_add' }, { name: 'matrix_race_set' }] });
    expect(rows.map((r) => r.name).sort()).toEqual(['matrix_race_add', 'matrix_race_set']);
  });
});

describe('a route registered without a row', () => {
  @Injectable()
  class StrayRoute implements OnModuleInit {
    constructor(private readonly cms: CmsExtensionRegistry) {}
    onModuleInit(): void {
      this.cms.registerRoute('stray/v1', '/things', [
        { methods: 'GET', permission: () => true, handler: () => [] },
        { methods: 'DELETE', permission: () => false, handler: () => ({}) },
      ]);
    }
  }
  @Module({ providers: [StrayRoute] })
  class StrayRouteModule {}

  it('is reported by the coverage check, with each of its methods', async () => {
    const stray = await createTestApp('permission_matrix_stray', { extensions: [StrayRouteModule] });
    try {
      const missing = uncovered(stray.app.get(RouteRegistry), PERMISSION_MATRIX);
      // The namespace index the registry adds for a new namespace needs its row too.
      expect(missing).toEqual(['GET /stray/v1', 'GET /stray/v1/things', 'DELETE /stray/v1/things']);
    } finally {
      await stray.close();
    }
  }, 120_000);
});
