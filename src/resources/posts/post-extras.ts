import { DataSource } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../core/database/entities/term.entity';
import { UserEntity } from '../../core/database/entities/user.entity';
import { maybeUnserialize, textOf } from '../../core/formatting/php-serialize';
import { placeholders, rawQuery } from '../../core/database/raw-query';

/** What preparing a post needs besides its row. */
export interface PostExtras {
  authorExists: boolean;
  thumbnail: unknown;
  template: unknown;
  revisions: { count: number; last: number } | undefined;
  /** Taxonomy → term ids, by term name. */
  terms: Record<string, number[]>;
  /** The post format (`aside`, ...) when asked and set. */
  format: string | undefined;
}

/** Which terms to read with the extras: the type's taxonomies, and its post format when it supports formats. */
export interface ExtrasWanted {
  taxonomies: string[];
  formats: boolean;
}

export const NO_EXTRAS: PostExtras = {
  authorExists: false,
  thumbnail: undefined,
  template: undefined,
  revisions: undefined,
  terms: {},
  format: undefined,
};

const FORMAT_TAXONOMY = 'post_format';

/**
 * A post's extras as columns (`x_…`) of any query over posts aliased `p`, one row per post, so that they come with
 * the page's rows in the same query: whether the author exists, the featured image and page template (first stored
 * values), the revision count and latest revision id, and the terms — one `position:term_id` list per post, ordered
 * by term name like get_the_terms(), with the slug added for post formats (`position:term_id:slug`). Turning rows
 * into JavaScript values costs more than the lookups themselves, so one row per post beats one row per term.
 */
export function extrasColumns(ds: DataSource, wanted: ExtrasWanted): { sql: string; params: unknown[] } {
  let built = COLUMNS.get(ds);
  if (!built) COLUMNS.set(ds, (built = new Map<string, { sql: string; params: unknown[] }>()));
  const key = `${wanted.formats}\0${wanted.taxonomies.join('\0')}`;
  let columns = built.get(key);
  if (!columns) built.set(key, (columns = buildExtrasColumns(ds, wanted)));
  return columns;
}

/** The columns of {@link extrasColumns}, by data source and wanted terms: the SQL is the same for every request. */
const COLUMNS = new WeakMap<DataSource, Map<string, { sql: string; params: unknown[] }>>();

function buildExtrasColumns(ds: DataSource, wanted: ExtrasWanted): { sql: string; params: unknown[] } {
  const table = (entity: new () => unknown) => ds.getMetadata(entity).tableName;
  const mysql = ds.options.type !== 'better-sqlite3';
  const concat = (...parts: string[]) => (mysql ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
  const firstMeta = `SELECT m.meta_value FROM ${table(PostMetaEntity)} m WHERE m.post_id = p.ID AND m.meta_key = ? ORDER BY m.meta_id LIMIT 1`;
  const columns = [
    `EXISTS (SELECT 1 FROM ${table(UserEntity)} u WHERE u.ID = p.post_author) AS x_author`,
    `(${firstMeta}) AS x_thumbnail`,
    `(${firstMeta}) AS x_template`,
    // NULL without revisions (MAX is NULL then, and so is the whole text).
    `(SELECT ${concat('COUNT(*)', "':'", 'MAX(r.ID)')} FROM ${table(PostEntity)} r
      WHERE r.post_parent = p.ID AND r.post_type = 'revision' AND r.post_status = 'inherit') AS x_revisions`,
  ];
  const params: unknown[] = ['_thumbnail_id', '_wp_page_template'];
  const taxonomies = termTaxonomies(wanted);
  if (taxonomies.length) {
    // Taxonomies by position in the list, so that no name has to survive the separators.
    const position = `CASE tt.taxonomy ${taxonomies.map((_, i) => `WHEN ? THEN '${i}'`).join(' ')} END`;
    // A slug holding the list's separator comes as `?`, which sends the post to the row-by-row reading. (Escaping it
    // with REPLACE made MariaDB's ordered GROUP_CONCAT 40% slower: longer possible values, larger sort records.)
    const slug = `CASE WHEN tt.taxonomy = '${FORMAT_TAXONOMY}' THEN ${concat("':'", "CASE WHEN INSTR(t.slug, ',') > 0 THEN '?' ELSE t.slug END")} ELSE '' END`;
    const entry = concat(position, "':'", 'tt.term_id', wanted.formats ? slug : "''");
    const list = mysql
      ? `GROUP_CONCAT(${entry} ORDER BY t.name ASC, tt.term_id ASC SEPARATOR ',')`
      : `group_concat(${entry}, ',' ORDER BY t.name ASC, tt.term_id ASC)`;
    columns.push(`(SELECT ${list} FROM ${table(TermRelationshipEntity)} tr
      INNER JOIN ${table(TermTaxonomyEntity)} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id
      INNER JOIN ${table(TermEntity)} t ON t.term_id = tt.term_id
      WHERE tr.object_id = p.ID AND tt.taxonomy IN (${placeholders(taxonomies.length)})) AS x_terms`);
    params.push(...taxonomies, ...taxonomies);
  } else {
    columns.push('NULL AS x_terms');
  }
  return { sql: columns.join(', '), params };
}

/**
 * The extras of rows read with {@link extrasColumns} (and the post's `ID`), by post id. A term list MySQL has cut
 * (at `group_concat_max_len`) or one that does not parse (a format slug holding a separator) is read again, a row
 * per term.
 */
export async function readExtras(
  ds: DataSource,
  rows: Array<Record<string, unknown>>,
  wanted: ExtrasWanted,
): Promise<Map<number, PostExtras>> {
  const out = new Map<number, PostExtras>();
  const taxonomies = termTaxonomies(wanted);
  const again: number[] = [];
  for (const row of rows) {
    const id = Number(row.ID);
    const revisions = row.x_revisions === null ? '' : textOf(row.x_revisions);
    const colon = revisions.indexOf(':');
    const extras: PostExtras = {
      authorExists: Number(row.x_author) === 1,
      thumbnail: row.x_thumbnail === null ? undefined : maybeUnserialize(row.x_thumbnail),
      template: row.x_template === null ? undefined : maybeUnserialize(row.x_template),
      revisions:
        colon > 0 ? { count: Number(revisions.slice(0, colon)), last: Number(revisions.slice(colon + 1)) } : undefined,
      terms: emptyTerms(wanted.taxonomies),
      format: undefined,
    };
    const list = row.x_terms === null || row.x_terms === undefined ? '' : textOf(row.x_terms);
    // A list as long as MySQL's default group_concat_max_len may have been cut (on a connection that missed the
    // session setting, see GROUP_CONCAT_MAX_LEN).
    if (list.length >= 1024 || !parseTerms(list, taxonomies, extras)) again.push(id);
    out.set(id, extras);
  }
  if (again.length) {
    for (const [id, { terms, format }] of await termRows(ds, again, wanted))
      Object.assign(out.get(id)!, { terms, format });
  }
  return out;
}

/** Reads a `position:term_id[:slug],…` list into `extras`; false when it does not parse. */
function parseTerms(list: string, taxonomies: string[], extras: PostExtras): boolean {
  if (!list) return true;
  for (const entry of list.split(',')) {
    const first = entry.indexOf(':');
    const second = entry.indexOf(':', first + 1);
    const taxonomy = taxonomies[Number(entry.slice(0, first))];
    const termId = Number(second < 0 ? entry.slice(first + 1) : entry.slice(first + 1, second));
    if (first <= 0 || taxonomy === undefined || !Number.isInteger(termId)) return false;
    if (taxonomy === FORMAT_TAXONOMY && second > 0) {
      const slug = entry.slice(second + 1);
      if (slug === '?') return false;
      extras.format ??= slug.replace(/^post-format-/, '');
    }
    extras.terms[taxonomy]?.push(termId);
  }
  return true;
}

/** Terms and formats of the given posts, a row per term (the long way of {@link readExtras}). */
async function termRows(
  ds: DataSource,
  postIds: number[],
  wanted: ExtrasWanted,
): Promise<Map<number, Pick<PostExtras, 'terms' | 'format'>>> {
  const table = (entity: new () => unknown) => ds.getMetadata(entity).tableName;
  const out = new Map<number, Pick<PostExtras, 'terms' | 'format'>>(
    postIds.map((id) => [id, { terms: emptyTerms(wanted.taxonomies), format: undefined }]),
  );
  const taxonomies = termTaxonomies(wanted);
  const rows = await rawQuery<{ post_id: number; term_id: number; taxonomy: string; slug: string }>(
    ds,
    `SELECT r.object_id AS post_id, tt.term_id AS term_id, tt.taxonomy AS taxonomy, t.slug AS slug
     FROM ${table(TermRelationshipEntity)} r
     INNER JOIN ${table(TermTaxonomyEntity)} tt ON tt.term_taxonomy_id = r.term_taxonomy_id
     INNER JOIN ${table(TermEntity)} t ON t.term_id = tt.term_id
     WHERE r.object_id IN (${placeholders(postIds.length)}) AND tt.taxonomy IN (${placeholders(taxonomies.length)})
     ORDER BY t.name ASC, tt.term_id ASC`,
    [...postIds, ...taxonomies],
  );
  for (const row of rows) {
    const post = out.get(Number(row.post_id));
    if (!post) continue;
    if (wanted.formats && row.taxonomy === FORMAT_TAXONOMY)
      post.format ??= String(row.slug).replace(/^post-format-/, '');
    post.terms[row.taxonomy]?.push(Number(row.term_id));
  }
  return out;
}

/** The taxonomies whose terms are read: the type's, and post formats when asked. */
function termTaxonomies(wanted: ExtrasWanted): string[] {
  return wanted.formats && !wanted.taxonomies.includes(FORMAT_TAXONOMY)
    ? [...wanted.taxonomies, FORMAT_TAXONOMY]
    : wanted.taxonomies;
}

function emptyTerms(taxonomies: string[]): Record<string, number[]> {
  const terms: Record<string, number[]> = {};
  for (const taxonomy of taxonomies) terms[taxonomy] = [];
  return terms;
}
