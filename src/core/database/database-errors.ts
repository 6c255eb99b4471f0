/**
 * Errors of the database itself, told apart from the API's own faults: the database unreachable, its connection
 * lost or timed out, a cluster node not ready or read-only, or (SQLite) its file locked by another process past
 * the wait — answered `503`, since trying again later (or on another node) succeeds — and the lock conflicts a
 * MySQL transaction is tried again for (a Galera certification failure is one: 1213).
 */

/** The seconds a client is told to wait (`Retry-After`) after a `503 rest_database_unavailable`. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Node's and mysql2's codes of a connection that could not be made, was lost, or timed out. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  // MySQL server errors of a server going away or refusing connections.
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_SERVER_GONE_ERROR',
  'ER_SERVER_LOST',
  // A cluster node that cannot serve now: Galera outside the primary component or not yet synced ("WSREP has not
  // yet prepared node for application use"), a read-only member (an InnoDB Cluster secondary, a demoted primary).
  'ER_UNKNOWN_COM_ERROR',
  'ER_OPTION_PREVENTS_STATEMENT',
  'ER_READ_ONLY_MODE',
  'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION',
]);

/**
 * MySQL's numbers of the same errors, for drivers or proxies that give the number alone: 1047 (Galera: the node is
 * not ready), 1290 (`--read-only` / `super_read_only`), 1836 (read-only mode), 1792 (a read-only transaction), 2006
 * and 2013 (the server went away or the connection was lost during a query), 1053 (shutting down), 1040 (too many
 * connections).
 */
const UNAVAILABLE_ERRNOS = new Set([1047, 1290, 1836, 1792, 2006, 2013, 1053, 1040]);

/** mysql2's messages of a pool or connection it gave up on (these come without a code). */
const CONNECTION_MESSAGES = [
  /Can't add new command when connection is in closed state/i,
  /Pool is closed/i,
  /Connection lost/i,
  /connect ETIMEDOUT/i,
];

/** SQLite's codes of a database that cannot be used now: locked past the wait, unreadable or not writable. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|READONLY|FULL|PROTOCOL)(_|$)/;

/** The driver error inside an error (TypeORM wraps it in `QueryFailedError.driverError`). */
function driverError(error: unknown): { code?: unknown; errno?: unknown; message?: unknown; fatal?: unknown } | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as { driverError?: unknown };
  return e.driverError && typeof e.driverError === 'object' ? e.driverError : error;
}

/** Whether an error says that the database cannot be reached or used just now (a `503`, not a fault of the API). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of [driverError(error), error as { code?: unknown; message?: unknown } | null]) {
    if (!e || typeof e !== 'object') continue;
    const code = typeof e.code === 'string' ? e.code : '';
    if (CONNECTION_CODES.has(code) || SQLITE_UNAVAILABLE.test(code)) return true;
    if (
      typeof (e as { errno?: unknown }).errno === 'number' &&
      !code.startsWith('SQLITE') &&
      UNAVAILABLE_ERRNOS.has((e as { errno: number }).errno)
    )
      return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/** MySQL's deadlock (1213, `ER_LOCK_DEADLOCK`) and lock wait timeout (1205, `ER_LOCK_WAIT_TIMEOUT`). */
export function isLockConflict(error: unknown): boolean {
  const e = driverError(error);
  if (!e) return false;
  return e.errno === 1213 || e.errno === 1205 || e.code === 'ER_LOCK_DEADLOCK' || e.code === 'ER_LOCK_WAIT_TIMEOUT';
}

/** mysql2's codes of a connection that went away under a statement (the server or a proxy closed it, or it reset). */
const LOST_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'ECONNRESET',
  'EPIPE',
  'ER_SERVER_SHUTDOWN',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
]);

/**
 * Whether a MySQL statement failed because its connection was lost (a database node killed or restarted, a proxy
 * failing over): whatever the connection had begun and not committed was rolled back by the server.
 */
export function isConnectionLost(error: unknown): boolean {
  for (const e of [driverError(error), error as { code?: unknown; errno?: unknown; message?: unknown } | null]) {
    if (!e || typeof e !== 'object') continue;
    if (typeof e.code === 'string' && LOST_CODES.has(e.code)) return true;
    if (e.errno === 2013 || e.errno === 2006) return true;
    if (typeof e.message === 'string' && /Connection lost|closed state/i.test(e.message)) return true;
  }
  return false;
}
