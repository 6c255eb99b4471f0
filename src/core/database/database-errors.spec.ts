import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable, isLockConflict } from './database-errors';

const driver = (fields: Record<string, unknown>, message = 'failed') => Object.assign(new Error(message), fields);
const wrapped = (error: Error) => new QueryFailedError('SELECT 1', [], error);

describe('database errors', () => {
  it.each([
    ['a refused connection', driver({ code: 'ECONNREFUSED' })],
    ['a lost connection', wrapped(driver({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }))],
    ['a query past its timeout', wrapped(driver({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' }))],
    ['a connection attempt past its timeout', driver({ code: 'ETIMEDOUT' })],
    ['a closed connection', wrapped(new Error("Can't add new command when connection is in closed state"))],
    ['a SQLite file locked past the wait', wrapped(driver({ code: 'SQLITE_BUSY' }))],
    ['a SQLite file that cannot be written', driver({ code: 'SQLITE_READONLY_DBMOVED' })],
    ['a SQLite I/O error', driver({ code: 'SQLITE_IOERR_WRITE' })],
    [
      'a Galera node outside the primary component (1047)',
      wrapped(
        driver({ code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 }, 'WSREP has not yet prepared node for application use'),
      ),
    ],
    ['a Galera 1047 with its number alone', wrapped(driver({ errno: 1047 }))],
    [
      'a read-only cluster member (1290)',
      wrapped(
        driver(
          { code: 'ER_OPTION_PREVENTS_STATEMENT', errno: 1290 },
          'The MariaDB server is running with the --read-only option',
        ),
      ),
    ],
    ['a server in read-only mode (1836)', wrapped(driver({ code: 'ER_READ_ONLY_MODE', errno: 1836 }))],
  ])('takes %s for the database being unavailable', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a duplicate key', wrapped(driver({ code: 'ER_DUP_ENTRY', errno: 1062 }))],
    ['a SQL error', wrapped(driver({ code: 'ER_PARSE_ERROR', errno: 1064 }))],
    ['a SQLite constraint', wrapped(driver({ code: 'SQLITE_CONSTRAINT_UNIQUE' }))],
    ['a plain error', new TypeError('x is undefined')],
    ['nothing', undefined],
  ])('takes %s for a fault of its own', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('tells deadlocks and lock wait timeouts from other errors', () => {
    expect(isLockConflict(wrapped(driver({ code: 'ER_LOCK_DEADLOCK', errno: 1213 })))).toBe(true);
    expect(isLockConflict(wrapped(driver({ code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 })))).toBe(true);
    expect(isLockConflict(wrapped(driver({ code: 'ER_DUP_ENTRY', errno: 1062 })))).toBe(false);
    expect(isLockConflict(driver({ code: 'SQLITE_BUSY' }))).toBe(false);
    // Galera's certification failure at commit is reported as a deadlock.
    expect(
      isLockConflict(wrapped(driver({ code: 'ER_LOCK_DEADLOCK', errno: 1213 }, 'Deadlock: wsrep aborted transaction'))),
    ).toBe(true);
  });
});
