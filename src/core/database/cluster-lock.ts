import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { NO_STAMP } from './version-stamps';
import { isMySql, quotedName } from './query-helpers';

/** `{prefix}cms_locks`: named locks and turns shared by every node through the database itself. */
export const LOCKS_TABLE = 'cms_locks';

/** The row whose counter every write turn moves (see {@link takeWriteTurnRow}). */
export const WRITERS_LOCK = 'writers';

/** The row held while a node runs the migrations and the first-start set-up. */
export const MIGRATIONS_LOCK = 'migrations';

/** The locks table's DDL, for SQLite and for MySQL/MariaDB (InnoDB, with a primary key, as Galera needs). */
export function locksTableDdl(table: string, mysql: boolean): string {
  return mysql
    ? `CREATE TABLE IF NOT EXISTS \`${table}\` (\`name\` varchar(64) NOT NULL, \`holder\` varchar(191) NOT NULL DEFAULT '', \`expires_at\` bigint(20) NOT NULL DEFAULT 0, \`turns\` bigint(20) unsigned NOT NULL DEFAULT 0, PRIMARY KEY (\`name\`)) ENGINE=InnoDB DEFAULT CHARSET=ascii`
    : `CREATE TABLE IF NOT EXISTS "${table}" ("name" varchar(64) PRIMARY KEY NOT NULL, "holder" varchar(191) NOT NULL DEFAULT '', "expires_at" bigint NOT NULL DEFAULT 0, "turns" bigint NOT NULL DEFAULT 0)`;
}

function tableOf(dataSource: DataSource): string {
  return `${dataSource.options.entityPrefix ?? ''}${LOCKS_TABLE}`;
}

/** Creates the locks table when it is missing (it is needed before the migrations run: see {@link MigrationLock}). */
export async function ensureLocksTable(dataSource: DataSource): Promise<void> {
  await dataSource.query(`${NO_STAMP} ${locksTableDdl(tableOf(dataSource), isMySql(dataSource))}`);
}

/**
 * The writers' turn as a write (MySQL/MariaDB): moves the counter of the `writers` row in the open transaction. On
 * one server the row lock orders writers like `SELECT … FOR UPDATE`; on a Galera cluster with several writable nodes,
 * where row locks are per node, two transactions that both took the turn on two nodes wrote the same row, so the
 * cluster's certification lets only the first commit and fails the other with a deadlock (1213), which
 * {@link writeTransaction} runs again: it then sees what the first committed. Answers whether the row existed.
 */
export async function takeWriteTurnRow(em: EntityManager): Promise<boolean> {
  const table = `\`${em.connection.options.entityPrefix ?? ''}${LOCKS_TABLE}\``;
  const result = await em.query<{ affectedRows?: number }>(
    `${NO_STAMP} UPDATE ${table} SET turns = turns + 1 WHERE name = ?`,
    [WRITERS_LOCK],
  );
  if (Number(result?.affectedRows) > 0) return true;
  await em.query(`${NO_STAMP} INSERT IGNORE INTO ${table} (name, holder, expires_at, turns) VALUES (?, '', 0, 0)`, [
    WRITERS_LOCK,
  ]);
  await em.query(`${NO_STAMP} UPDATE ${table} SET turns = turns + 1 WHERE name = ?`, [WRITERS_LOCK]);
  return false;
}

/** Options of {@link MigrationLock.run}. */
export interface MigrationLockOptions {
  /** Milliseconds a holder's claim lasts unless renewed (it is renewed at a third of it); default 60 s. */
  leaseMs?: number;
  /** Milliseconds to wait for another holder before giving up; default 10 minutes. */
  waitMs?: number;
  /** Milliseconds between two looks at a held lock; default 500. */
  pollMs?: number;
  /** Told once when the lock is found held by another node, with its holder. */
  onWait?: (holder: string) => void;
  /** Told when the lock is taken from a holder on this machine whose process is gone. */
  onTakeOver?: (holder: string) => void;
}

/**
 * Where a process id means one process: the host name, and on Linux the PID namespace (containers given one host
 * name share no process ids).
 */
function processScope(): string {
  try {
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return namespace ? `${hostname()}/${namespace}` : hostname();
  } catch {
    return hostname();
  }
}

/** Whether `holder` (`scope:pid:nonce`) names a process of this machine that no longer runs. */
function holderProcessGone(holder: string, scope: string): boolean {
  const match = /^(.*):(\d+):[^:]*$/.exec(holder);
  if (!match || match[1] !== scope) return false;
  const pid = Number(match[2]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * A lock row in `{prefix}cms_locks` that exactly one node of a fleet holds at a time — unlike MySQL's `GET_LOCK`,
 * which each node of a Galera cluster grants on its own. A holder claims the row with a conditional update (free,
 * or its lease ended: the holder died), renews the lease while it works and frees the row at the end; the others
 * look again every `pollMs` until it is free. A holder on the same machine whose process is gone (a worker killed
 * while it started) is taken over at once rather than after its lease. Used around the migrations and the
 * first-start set-up.
 */
export class MigrationLock {
  private readonly scope = processScope();
  readonly holder = `${this.scope}:${process.pid}:${randomBytes(6).toString('hex')}`;

  constructor(
    private readonly dataSource: DataSource,
    private readonly name = MIGRATIONS_LOCK,
  ) {}

  /** Runs `work` while holding the lock; throws when the lock stays held by others for `waitMs`. */
  async run<T>(work: () => Promise<T>, options: MigrationLockOptions = {}): Promise<T> {
    const leaseMs = options.leaseMs ?? 60_000;
    const waitMs = options.waitMs ?? 10 * 60_000;
    const pollMs = options.pollMs ?? 500;
    await ensureLocksTable(this.dataSource);
    const started = Date.now();
    let told = false;
    for (;;) {
      const other = await this.claim(leaseMs);
      if (other === null) break;
      if (holderProcessGone(other, this.scope) && (await this.takeOver(other, leaseMs))) {
        options.onTakeOver?.(other);
        break;
      }
      if (!told) {
        told = true;
        options.onWait?.(other);
      }
      if (Date.now() - started >= waitMs) {
        throw new Error(
          `Gave up waiting ${Math.round(waitMs / 1000)} s for the ${this.name} lock held by ${other} (${tableOf(this.dataSource)}); if that process is gone, its lease ends within ${Math.round(leaseMs / 1000)} s`,
        );
      }
      await sleep(pollMs);
    }
    const renew = setInterval(
      () => void this.renew(leaseMs).catch(() => undefined),
      Math.max(1000, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await this.release().catch(() => undefined);
    }
  }

  /** Tries to take the row: `null` when taken, else the other holder. */
  async claim(leaseMs: number): Promise<string | null> {
    const table = quotedName(this.dataSource, tableOf(this.dataSource));
    const now = Date.now();
    const insert = isMySql(this.dataSource) ? 'INSERT IGNORE INTO' : 'INSERT OR IGNORE INTO';
    await this.dataSource.query(
      `${NO_STAMP} ${insert} ${table} (name, holder, expires_at, turns) VALUES (?, '', 0, 0)`,
      [this.name],
    );
    await this.dataSource.query(
      `${NO_STAMP} UPDATE ${table} SET holder = ?, expires_at = ? WHERE name = ? AND (holder = '' OR holder = ? OR expires_at < ?)`,
      [this.holder, now + leaseMs, this.name, this.holder, now],
    );
    const [row] = await this.dataSource.query<
      Array<{
        holder: string;
      }>
    >(`SELECT holder FROM ${table} WHERE name = ?`, [this.name]);
    return row?.holder === this.holder ? null : String(row?.holder ?? '');
  }

  /** Takes the row from `dead` if it still holds it; answers whether it did. */
  private async takeOver(dead: string, leaseMs: number): Promise<boolean> {
    const table = quotedName(this.dataSource, tableOf(this.dataSource));
    await this.dataSource.query(
      `${NO_STAMP} UPDATE ${table} SET holder = ?, expires_at = ? WHERE name = ? AND holder = ?`,
      [this.holder, Date.now() + leaseMs, this.name, dead],
    );
    const [row] = await this.dataSource.query<Array<{ holder: string }>>(`SELECT holder FROM ${table} WHERE name = ?`, [
      this.name,
    ]);
    return row?.holder === this.holder;
  }

  private async renew(leaseMs: number): Promise<void> {
    const table = quotedName(this.dataSource, tableOf(this.dataSource));
    await this.dataSource.query(`${NO_STAMP} UPDATE ${table} SET expires_at = ? WHERE name = ? AND holder = ?`, [
      Date.now() + leaseMs,
      this.name,
      this.holder,
    ]);
  }

  /** Frees the row if this holder has it. */
  async release(): Promise<void> {
    const table = quotedName(this.dataSource, tableOf(this.dataSource));
    await this.dataSource.query(
      `${NO_STAMP} UPDATE ${table} SET holder = '', expires_at = 0 WHERE name = ? AND holder = ?`,
      [this.name, this.holder],
    );
  }
}
