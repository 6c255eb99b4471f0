import { INestApplicationContext } from '@nestjs/common';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { CMS_DATA_SOURCE } from '../core/database/cms-data-source';
import { CommentMetaEntity } from '../core/database/entities/comment-meta.entity';
import { CommentEntity } from '../core/database/entities/comment.entity';
import { OptionEntity } from '../core/database/entities/option.entity';
import { PostMetaEntity } from '../core/database/entities/post-meta.entity';
import { PostEntity } from '../core/database/entities/post.entity';
import { TermMetaEntity } from '../core/database/entities/term-meta.entity';
import { UserMetaEntity } from '../core/database/entities/user-meta.entity';
import { writeTransaction } from '../core/database/write-transaction';
import { CliError, table } from './command-line';
import { replaceInValue } from './search-replace-value';

/** A table `search-replace` rewrites: its name in the CLI, its entity, and the text columns it looks in. */
interface ReplaceTable {
  name: string;
  entity: EntityTarget<ObjectLiteral>;
  columns: string[];
}

/** The tables and columns rewritten (`wp search-replace` on the content and meta tables), in this order. */
export const SEARCH_REPLACE_TABLES: readonly ReplaceTable[] = [
  { name: 'posts', entity: PostEntity, columns: ['post_content', 'post_excerpt', 'guid'] },
  { name: 'postmeta', entity: PostMetaEntity, columns: ['meta_value'] },
  { name: 'options', entity: OptionEntity, columns: ['option_value'] },
  { name: 'comments', entity: CommentEntity, columns: ['comment_content', 'comment_author_url'] },
  { name: 'commentmeta', entity: CommentMetaEntity, columns: ['meta_value'] },
  { name: 'termmeta', entity: TermMetaEntity, columns: ['meta_value'] },
  { name: 'usermeta', entity: UserMetaEntity, columns: ['meta_value'] },
];

/** Rows read and written per transaction: a batch holds its locks briefly, and its rows in memory. */
const BATCH_ROWS = 200;

/** Longest search text (a URL, a path, a word: not a document). */
const SEARCH_MAX_CHARS = 2048;

/** What `search-replace` did (or, with `dryRun`, would do) to one table. */
export interface TableReport {
  table: string;
  /** Rows in which at least one occurrence was (or would be) replaced. */
  rows: number;
  /** Occurrences replaced. */
  replacements: number;
  /** Values that look PHP-serialized but could not be read: left as they are. */
  malformed: number;
}

export interface SearchReplaceOptions {
  /** Count only; write nothing. */
  dryRun?: boolean;
  /** Table names (of {@link SEARCH_REPLACE_TABLES}); default: all of them. */
  tables?: readonly string[];
}

/** The tables named by `--tables` (comma-separated), or a {@link CliError} naming the unknown ones. */
export function tablesOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const known = SEARCH_REPLACE_TABLES.map((t) => t.name);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length || !names.length)
    throw new CliError(`Unknown table(s) "${unknown.join(', ') || value}". Tables: ${known.join(', ')}.`);
  return names;
}

/** `like` pattern for a text anywhere, with `!` as the escape character (the same on SQLite and MySQL). */
function containsPattern(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * Replaces `search` with `replace` in the content and meta tables (`wp search-replace`), PHP-serialized values
 * included (their string lengths recomputed, see {@link replaceInValue}). Each table is read in batches of
 * {@link BATCH_ROWS} rows in key order, each batch read and written in one write transaction; `LIKE` finds the
 * candidate rows, and only exact (case-sensitive) occurrences are replaced. With `dryRun` nothing is written and the
 * report says what would change. Returns one report per table.
 */
export async function searchReplace(
  dataSource: DataSource,
  search: string,
  replace: string,
  options: SearchReplaceOptions = {},
): Promise<TableReport[]> {
  if (!search) throw new CliError('The text to search for cannot be empty.');
  if (search.length > SEARCH_MAX_CHARS || replace.length > SEARCH_MAX_CHARS)
    throw new CliError(`The search and replacement texts are at most ${SEARCH_MAX_CHARS} characters.`);
  const wanted = options.tables ?? SEARCH_REPLACE_TABLES.map((t) => t.name);
  const reports: TableReport[] = [];
  for (const target of SEARCH_REPLACE_TABLES) {
    if (!wanted.includes(target.name)) continue;
    reports.push(await replaceInTable(dataSource, target, search, replace, options.dryRun === true));
  }
  return reports;
}

async function replaceInTable(
  dataSource: DataSource,
  target: ReplaceTable,
  search: string,
  replace: string,
  dryRun: boolean,
): Promise<TableReport> {
  const metadata = dataSource.getMetadata(target.entity);
  const q = (name: string) => dataSource.driver.escape(name);
  const key = metadata.primaryColumns[0].databaseName;
  const pattern = containsPattern(search);
  const where = target.columns.map((c) => `${q(c)} LIKE ? ESCAPE '!'`).join(' OR ');
  const select =
    `SELECT ${q(key)} AS k, ${target.columns.map((c, i) => `${q(c)} AS c${i}`).join(', ')} ` +
    `FROM ${q(metadata.tablePath)} WHERE ${q(key)} > ? AND (${where}) ORDER BY ${q(key)} LIMIT ${BATCH_ROWS}`;
  const update = `UPDATE ${q(metadata.tablePath)} SET ${target.columns.map((c) => `${q(c)} = ?`).join(', ')} WHERE ${q(key)} = ?`;
  const report: TableReport = { table: target.name, rows: 0, replacements: 0, malformed: 0 };
  let after = 0;
  for (;;) {
    const batch = async (em: EntityManager | DataSource) => {
      const rows = await em.query<Array<Record<string, unknown>>>(select, [
        after,
        ...target.columns.map(() => pattern),
      ]);
      const counts = { rows: 0, replacements: 0, malformed: 0 };
      for (const row of rows) {
        let changed = false;
        const values = target.columns.map((_, i) => {
          const text = row[`c${i}`] == null ? '' : String(row[`c${i}`]);
          const result = replaceInValue(text, search, replace);
          if (result.malformed) counts.malformed++;
          if (result.count) {
            changed = true;
            counts.replacements += result.count;
          }
          return result.value;
        });
        if (!changed) continue;
        counts.rows++;
        if (!dryRun) await em.query(update, [...values, Number(row.k)]);
      }
      return { counts, last: rows.length ? Number(rows[rows.length - 1].k) : null };
    };
    const { counts, last } = dryRun ? await batch(dataSource) : await writeTransaction(dataSource, batch);
    report.rows += counts.rows;
    report.replacements += counts.replacements;
    report.malformed += counts.malformed;
    if (last === null) break;
    after = last;
  }
  return report;
}

/** `search-replace <old> <new> [--dry-run] [--tables …]`: runs it and prints the counts per table. */
export async function runSearchReplace(
  app: INestApplicationContext,
  search: string,
  replace: string,
  options: SearchReplaceOptions,
  out: (text: string) => void,
): Promise<TableReport[]> {
  const dataSource = app.get<DataSource>(CMS_DATA_SOURCE, { strict: false });
  const reports = await searchReplace(dataSource, search, replace, options);
  out(describeReports(reports, options.dryRun === true));
  return reports;
}

/** The per-table counts as a table, and a total line. */
export function describeReports(reports: readonly TableReport[], dryRun: boolean): string {
  const rows = reports.map((r) => [r.table, String(r.rows), String(r.replacements), String(r.malformed)]);
  const total = reports.reduce((sum, r) => sum + r.replacements, 0);
  const changed = reports.reduce((sum, r) => sum + r.rows, 0);
  const malformed = reports.reduce((sum, r) => sum + r.malformed, 0);
  return (
    table(['TABLE', 'ROWS', 'REPLACEMENTS', 'MALFORMED'], rows) +
    (dryRun
      ? `Dry run: ${total} replacement(s) in ${changed} row(s) would be made; nothing was written.\n`
      : `Made ${total} replacement(s) in ${changed} row(s).\n`) +
    (malformed ? `${malformed} serialized value(s) could not be read and were left as they are.\n` : '')
  );
}
