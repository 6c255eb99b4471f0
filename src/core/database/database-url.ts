/** A parsed `DATABASE_URL`. */
export type ParsedDatabaseUrl =
  | { type: 'sqlite'; path: string }
  | {
      type: 'mysql';
      host: string;
      port: number;
      username: string;
      password: string;
      database: string;
      socketPath?: string;
    };

const ALLOWED_FORMS =
  'sqlite:<path>, sqlite::memory:, mysql://user:password@host:port/database ' +
  'or mariadb://user:password@host:port/database (?socket=/path/to/mysqld.sock for a Unix socket)';

/** Hides the password of a URL for error messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z0-9+]+:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}

/**
 * Parses a `DATABASE_URL`.
 *
 * - `sqlite:<path>` (relative or absolute; `sqlite://<path>` also works) and `sqlite::memory:`;
 * - `mysql://user:password@host:port/database` or `mariadb://...` (port defaults to 3306; user, password and
 *   database are URL-decoded); `?socket=/run/mysqld/mysqld.sock` connects through that Unix socket instead of TCP,
 *   as WordPress's `DB_HOST` of `localhost:/path/to/socket` does (a server without TCP, `skip-networking`).
 *
 * @throws Error naming `DATABASE_URL` and the allowed forms when the URL is not one of them.
 */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const invalid = (why: string): Error =>
    new Error(`Invalid DATABASE_URL "${redactUrl(url)}": ${why}. Allowed forms: ${ALLOWED_FORMS}`);
  const text = url.trim();
  if (/^sqlite:/i.test(text)) {
    let file = text.slice('sqlite:'.length);
    if (file.startsWith('//')) file = file.slice(2);
    if (!file) throw invalid('missing file path');
    return { type: 'sqlite', path: file };
  }
  if (/^(mysql|mariadb):\/\//i.test(text)) {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw invalid('malformed URL');
    }
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    if (!parsed.hostname) throw invalid('missing host');
    if (!database || database.includes('/')) throw invalid('missing or invalid database name');
    const socket = parsed.searchParams.get('socket');
    if (socket !== null && !socket.startsWith('/')) throw invalid('socket must be an absolute path');
    return {
      type: 'mysql',
      host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: parsed.port ? Number(parsed.port) : 3306,
      username: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database,
      ...(socket ? { socketPath: socket } : {}),
    };
  }
  throw invalid('unsupported scheme');
}
