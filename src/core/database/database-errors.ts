/**
 * Errors of the database itself, told apart from the API's own faults: the database unreachable, its connection
 * lost or timed out, or (SQLite) its file locked by another process past the wait — answered `503`, since trying
 * again later succeeds — and the lock conflicts a MySQL transaction is tried again for.
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
]);

/** mysql2's messages of a pool or connection it gave up on (these come without a code). */
const CONNECTION_MESSAGES = [/Can't add new command when connection is in closed state/i, /Pool is closed/i, /Connection lost/i, /connect ETIMEDOUT/i];

/** SQLite's codes of a database that cannot be used now: locked past the wait, unreadable or not writable. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|READONLY|FULL|PROTOCOL)(_|$)/;

/** The driver error inside an error (TypeORM wraps it in `QueryFailedError.driverError`). */
function driverError(error: unknown): { code?: unknown; errno?: unknown; message?: unknown; fatal?: unknown } | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as { driverError?: unknown };
  return (e.driverError && typeof e.driverError === 'object' ? e.driverError : error) as { code?: unknown; errno?: unknown; message?: unknown };
}

/** Whether an error says that the database cannot be reached or used just now (a `503`, not a fault of the API). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of [driverError(error), error as { code?: unknown; message?: unknown } | null]) {
    if (!e || typeof e !== 'object') continue;
    const code = typeof e.code === 'string' ? e.code : '';
    if (CONNECTION_CODES.has(code) || SQLITE_UNAVAILABLE.test(code)) return true;
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
