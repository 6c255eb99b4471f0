import type * as mysql2 from 'mysql2';

/** The code of the error a command gets when the database did not answer it in time. */
export const COMMAND_TIMEOUT_CODE = 'PROTOCOL_SEQUENCE_TIMEOUT';

interface Command {
  onResult?: (error: Error | null, ...rest: unknown[]) => unknown;
}

interface RawConnection {
  addCommand(command: Command): unknown;
  stream?: { destroy(error?: Error): void };
}

/**
 * Bounds every command of a pool's connections (queries, prepared statements, transactions' BEGIN and COMMIT, the
 * time queued behind others included) to `ms`: past it, the connection is failed as a network error would fail it,
 * so that every command on it gets the error at once and the pool drops it. mysql2's own query `timeout` answers
 * the late command only, and leaves it at the head of the connection's queue: everything after it on that connection
 * would wait forever (a network that went silent), and the connection would go back to the pool.
 */
export function boundCommands(pool: mysql2.Pool, ms: number): void {
  pool.on('connection', (connection) => {
    const raw = connection as unknown as RawConnection;
    const add = raw.addCommand.bind(raw);
    raw.addCommand = function (this: RawConnection, command: Command) {
      const done = command.onResult;
      if (typeof done === 'function') {
        const timer = setTimeout(() => {
          const error = Object.assign(new Error(`The database did not answer within ${ms} ms`), {
            code: COMMAND_TIMEOUT_CODE,
          });
          raw.stream?.destroy(error);
        }, ms);
        timer.unref();
        command.onResult = function (this: unknown, error, ...rest) {
          clearTimeout(timer);
          return done.call(this, error, ...rest);
        };
      }
      return add.call(this, command);
    };
  });
}
