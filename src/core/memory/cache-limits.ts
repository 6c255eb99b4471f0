/**
 * The bounds of every in-memory cache of the server, in one place. Sizes are approximate bytes, counted when an entry
 * is stored (O(1): string length × 2 for JavaScript strings, buffer lengths, a fixed estimate for the small objects
 * around them — never by serializing anything). Each cache drops its least recently used entries past its bound,
 * and does not keep an entry larger than {@link CACHE_ENTRY_SHARE} of its bound at all (it is built again when
 * needed). See `cacheUsage()` in `./byte-lru` for the bytes each cache holds.
 *
 * Caches keyed by a small fixed set (per route, per entity class, per schema, per data source) are not listed here:
 * they cannot grow with request data.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** An entry larger than this share of its cache's bytes is not kept. */
export const CACHE_ENTRY_SHARE = 1 / 8;

/**
 * Rendered HTML of post titles, contents and excerpts (`render-cache.ts`): one cache per process. An entry
 * holds its source text and its HTML, so contents over about 500,000 characters are rendered on every read.
 */
export const RENDERED_HTML_CACHE = { bytes: 16 * MiB, entries: 4000 } as const;

/**
 * JSON of posts, users and terms prepared by earlier requests (`ItemMemo`, `json-text.ts`): one budget per
 * process, shared by every resource's memo. An entry holds the JSON text, its UTF-8 bytes once written, and its
 * inputs (the row's columns, among them the content), so items over about 4 MiB of those are never kept.
 */
export const PREPARED_JSON_CACHE = { bytes: 32 * MiB } as const;

/**
 * Posts' extras (author's existence, featured image, template, revisions, term ids) kept between requests while
 * the version stamps allow (`posts.service.ts`): one cache per process, about 400 bytes a post.
 */
export const POST_EXTRAS_CACHE = { bytes: 4 * MiB } as const;

/**
 * Application-password callers verified by a process (`verified-callers.ts`), kept while the users' and options'
 * version stamps allow: about 6 KiB a caller with an administrator's capabilities.
 */
export const VERIFIED_CALLERS_CACHE = { bytes: 1 * MiB, entries: 10_000 } as const;

/** Collection totals and similar values kept for a moment (`ShortCache`), per cache (posts, terms, users). */
export const SHORT_CACHE = { bytes: 2 * MiB, entries: 500 } as const;

/** The totals of term and post-format searches (`search?type=term|post-format`): small numbers by search text. */
export const SEARCH_COUNTS_CACHE = { bytes: 256 * KiB, entries: 500 } as const;

/**
 * Autoloaded site options kept in memory between reloads (`OptionsService`), per service: values (with their
 * unserialized form, estimated at twice the text) up to `bytes`, the smallest first, no one option over `bytes` ×
 * {@link CACHE_ENTRY_SHARE} — the others are read when asked for; and at most `missingNames` names of options known
 * not to exist (names over 191 characters are not remembered).
 */
export const OPTIONS_CACHE = { bytes: 8 * MiB, missingNames: 1000 } as const;

/** Prepared SQLite statements (`raw-query.ts`), per database: the SQL text and an estimate of SQLite's own memory. */
export const SQLITE_STATEMENTS = { bytes: 8 * MiB, entries: 500 } as const;

/**
 * Statements TypeORM prepares on SQLite (its entity reads and writes, on its one query runner), kept up to these
 * estimated bytes and count, the oldest dropped first. TypeORM's own bound is 100 statements of any length, fewer
 * than a write and the reads around it use: they were prepared again and again.
 */
export const SQLITE_RUNNER_STATEMENTS = { bytes: 8 * MiB, entries: 1000 } as const;

/**
 * MySQL/MariaDB: statements estimated larger than this (SQL text, parameters) are sent as plain queries instead of
 * server-side prepared statements, which mysql2 keeps per pooled connection (at most `maxPreparedStatements`, 256:
 * so at most 4 MiB per connection).
 */
export const MYSQL_PREPARED_STATEMENT_MAX_BYTES = 16 * KiB;

/** Time-zone formatters (`site-clock.ts`), one per time-zone name seen. */
export const TIME_ZONE_FORMATTERS = { bytes: 1 * MiB, entries: 64 } as const;
