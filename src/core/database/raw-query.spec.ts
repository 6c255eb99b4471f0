import { DataSource } from 'typeorm';
import { memoryDatabase } from '../../../test/utils/memory-database';
import { TermEntity } from './entities/term.entity';
import { cacheUsage } from '../memory/byte-lru';
import { SQLITE_STATEMENTS } from '../memory/cache-limits';
import {
  hydrate,
  limitClause,
  mysqlStatementBytes,
  placeholders,
  rawEntities,
  rawQuery,
  sqliteStatementBytes,
} from './raw-query';

/** Rows and entities read straight from the driver (compiled row builders) on an in-memory SQLite database. */
describe('raw queries', () => {
  let ds: DataSource;
  let table: string;

  beforeAll(async () => {
    ({ ds, table } = await memoryDatabase(
      TermEntity,
      'CREATE TABLE {table} (term_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, slug TEXT NOT NULL, term_group INTEGER NOT NULL)',
    ));
    await ds.query(
      `INSERT INTO ${table} (name, slug, term_group) VALUES ('Café "quoted"', 'cafe', 3), ('Second', 'second', 0)`,
    );
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
  });

  const metadata = () => ds.getMetadata(TermEntity);

  it('builds entities of the entity class from a statement’s columns, by property name', async () => {
    const terms = await rawEntities<TermEntity>(ds, metadata(), `SELECT * FROM ${table} ORDER BY term_id`);
    expect(terms).toHaveLength(2);
    expect(terms[0]).toBeInstanceOf(TermEntity);
    expect({ ...terms[0] }).toEqual({ id: 1, name: 'Café "quoted"', slug: 'cafe', group: 3 });
    expect(terms[1].name).toBe('Second');
  });

  it('sets only the entity columns a statement selects, and ignores the others', async () => {
    const [term] = await rawEntities<TermEntity>(
      ds,
      metadata(),
      `SELECT slug, 'x' AS extra, term_id FROM ${table} WHERE term_id = ?`,
      [2],
    );
    expect(Object.keys(term).sort()).toEqual(['id', 'slug']);
    expect(term).toMatchObject({ id: 2, slug: 'second' });
  });

  it('gives rows as plain objects under any column name, the last of a repeated name winning', async () => {
    const rows = await rawQuery(
      ds,
      `SELECT COUNT(*), 'a' AS "we""ird", 1 AS dup, 2 AS dup, name FROM ${table} WHERE term_id = ?`,
      [1],
    );
    expect(rows).toEqual([{ 'COUNT(*)': 1, 'we"ird': 'a', dup: 2, name: 'Café "quoted"' }]);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(await rawQuery(ds, `SELECT * FROM ${table} WHERE term_id = ?`, [99])).toEqual([]);
  });

  it('keeps one builder per statement: the same SQL gives the same shape each time, another SQL its own', async () => {
    const sql = `SELECT term_id, name FROM ${table} WHERE term_id = ?`;
    const first = await rawEntities<TermEntity>(ds, metadata(), sql, [1]);
    const again = await rawEntities<TermEntity>(ds, metadata(), sql, [2]);
    expect(first.map((t) => ({ ...t }))).toEqual([{ id: 1, name: 'Café "quoted"' }]);
    expect(again.map((t) => ({ ...t }))).toEqual([{ id: 2, name: 'Second' }]);
    const other = await rawEntities<TermEntity>(
      ds,
      metadata(),
      `SELECT term_group, term_id FROM ${table} WHERE term_id = ?`,
      [1],
    );
    expect({ ...other[0] }).toEqual({ group: 3, id: 1 });
  });

  it('hydrates row objects (as MySQL gives them): numeric columns as numbers, nulls kept, absent columns unset', () => {
    const rows = [
      { term_id: '7', name: 'Seven', slug: 'seven', term_group: '12' },
      { term_id: 8, name: null, term_group: null },
    ];
    const [seven, eight] = hydrate<TermEntity>(metadata(), rows);
    expect(seven).toBeInstanceOf(TermEntity);
    expect({ ...seven }).toEqual({ id: 7, name: 'Seven', slug: 'seven', group: 12 });
    expect({ ...eight }).toEqual({ id: 8, name: null, group: null });
    expect('slug' in eight).toBe(false);
    expect(hydrate(metadata(), [])).toEqual([]);
  });

  describe('prepared statements kept', () => {
    const statements = () => cacheUsage().find((c) => c.name === 'sqlite-statements')!;

    it('keeps at most SQLITE_STATEMENTS.entries statements, the least recently used dropped', async () => {
      for (let i = 0; i < SQLITE_STATEMENTS.entries + 100; i++) {
        expect(await rawQuery(ds, `SELECT ${i} AS n, name FROM ${table} WHERE term_id = ?`, [1])).toEqual([
          { n: i, name: 'Café "quoted"' },
        ]);
      }
      expect(statements()).toMatchObject({ entries: SQLITE_STATEMENTS.entries, maxBytes: SQLITE_STATEMENTS.bytes });
    });

    it('keeps statements within SQLITE_STATEMENTS.bytes, counting their SQL and parameters', async () => {
      const ids = Array.from({ length: 500 }, (_, i) => i + 1);
      const sql = (i: number) =>
        `SELECT ${i} AS n, COUNT(*) AS c FROM ${table} WHERE term_id IN (${placeholders(ids.length)})`;
      expect(sqliteStatementBytes(sql(0), ids.length)).toBeGreaterThan(100_000);
      for (let i = 0; i < 200; i++) expect(await rawQuery(ds, sql(i), ids)).toEqual([{ n: i, c: 2 }]);
      const { bytes, entries } = statements();
      expect(bytes).toBeLessThanOrEqual(SQLITE_STATEMENTS.bytes);
      expect(bytes).toBeGreaterThan(SQLITE_STATEMENTS.bytes / 2);
      expect(entries).toBeLessThan(100);
    });

    it('runs a statement too large to keep without keeping it', async () => {
      const ids = Array.from({ length: 6000 }, (_, i) => i + 1);
      const sql = `SELECT COUNT(*) AS c FROM ${table} WHERE term_id IN (${placeholders(ids.length)})`;
      expect(sqliteStatementBytes(sql, ids.length)).toBeGreaterThan(SQLITE_STATEMENTS.bytes / 8);
      const before = statements();
      expect(await rawQuery(ds, sql, ids)).toEqual([{ c: 2 }]);
      expect(await rawQuery(ds, sql, ids)).toEqual([{ c: 2 }]);
      expect(statements()).toEqual(before);
    });

    it('estimates what mysql2 keeps for a prepared statement (larger ones are sent as plain queries)', () => {
      expect(mysqlStatementBytes('SELECT 1', 0)).toBe(3072 + 16);
      expect(mysqlStatementBytes(`SELECT ${placeholders(100)}`, 100)).toBeGreaterThan(16 * 1024);
    });
  });

  describe('limitClause', () => {
    it('writes whole numbers from 0 to 2^53 - 1 only, which SQLite takes (a larger one was a float: "datatype mismatch")', async () => {
      expect(limitClause(10, 20)).toBe('LIMIT 10 OFFSET 20');
      expect(limitClause(10.7, -5)).toBe('LIMIT 10 OFFSET 0');
      expect(limitClause(NaN, 1e21)).toBe('LIMIT 0 OFFSET 9007199254740991');
      expect(limitClause(100, (1e20 - 1) * 100)).toBe('LIMIT 100 OFFSET 9007199254740991');
      await expect(
        rawQuery(ds, `SELECT name FROM ${table} ORDER BY term_id ${limitClause(100, 1e22)}`),
      ).resolves.toEqual([]);
      await expect(rawQuery(ds, `SELECT name FROM ${table} ORDER BY term_id ${limitClause(1, 1)}`)).resolves.toEqual([
        { name: 'Second' },
      ]);
    });
  });
});
