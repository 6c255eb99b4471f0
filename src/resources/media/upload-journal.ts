import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { NO_STAMP } from '../../core/database/version-stamps';
import { isMySql } from '../../core/database/query-helpers';
import { writeTransaction } from '../../core/database/write-transaction';
import type { MediaStorage } from '../../core/config/media-storage';

/** `{prefix}cms_upload_journal`: the files of uploads and deletions whose attachment row is being written. */
export const UPLOAD_JOURNAL_TABLE = 'cms_upload_journal';

/**
 * How old an entry of another process must be before any node settles it: an upload's files and row are written
 * within its request, which the server bounds (`CMS_REQUEST_TIMEOUT`, 300 s by default, and the database's timeout
 * for the row), so an entry this old belongs to a process that died or lost its database.
 */
export const UPLOAD_JOURNAL_STALE_MS = 15 * 60_000;

/** A row of the journal. */
interface Entry {
  id: number | string;
  main: string;
  files: string;
  owner: string;
  created_at: number | string;
}

/** What {@link UploadJournal.recover} did. */
export interface RecoveryReport {
  /** Entries settled. */
  entries: number;
  /** Files removed (entries whose row was never written, or was deleted). */
  removed: number;
}

/**
 * Notes, in the database, the files of an upload or an attachment's deletion while its row is written: an upload
 * stores its files before its row commits, a deletion removes them after. A process killed in between (kill -9, a
 * crash, a node lost) leaves files no row points at. Any node settles such entries — removing their files unless a
 * row owns them — once they are {@link UPLOAD_JOURNAL_STALE_MS} old, or at once when they belong to a process of the
 * same host that is gone; the files may be on a shared store (a bucket) that every node reaches. Two nodes settling
 * at once each claim an entry by deleting its row: only the one whose delete took it removes the files.
 */
export class UploadJournal {
  /** This process: host, pid and a random part (a pid is reused across restarts of a container). */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

  constructor(
    private readonly dataSource: DataSource,
    private readonly storage: MediaStorage,
  ) {}

  private get table(): string {
    const name = `${this.dataSource.options.entityPrefix ?? ''}${UPLOAD_JOURNAL_TABLE}`;
    return isMySql(this.dataSource) ? `\`${name}\`` : `"${name}"`;
  }

  /** Notes the files before they are stored or their row deleted; returns what forgets them once all is done. */
  async begin(main: string, files: string[]): Promise<() => Promise<void>> {
    const result = await this.run(
      `${NO_STAMP} INSERT INTO ${this.table} (main, files, owner, created_at) VALUES (?, ?, ?, ?)`,
      [main, JSON.stringify(files), this.owner, Date.now()],
    );
    const id = result.insertId;
    return async () => {
      await this.run(`${NO_STAMP} DELETE FROM ${this.table} WHERE id = ?`, [id]);
    };
  }

  /**
   * Settles the entries of processes that are gone (see the class): their files are removed unless `owned(main)`
   * says a row holds them.
   */
  async recover(owned: (main: string) => Promise<boolean>, now = Date.now()): Promise<RecoveryReport> {
    const rows = await this.dataSource.query<Entry[]>(
      `SELECT id, main, files, owner, created_at FROM ${this.table} WHERE created_at < ? OR owner LIKE ? ESCAPE '!' ORDER BY id LIMIT 500`,
      [now - UPLOAD_JOURNAL_STALE_MS, `${hostname().replace(/[!%_]/g, (c) => `!${c}`)}:%`],
    );
    const report: RecoveryReport = { entries: 0, removed: 0 };
    for (const entry of rows) {
      const fresh = Number(entry.created_at) >= now - UPLOAD_JOURNAL_STALE_MS;
      // A recent entry of this host is settled only when its process is gone.
      if (fresh && (entry.owner === this.owner || processAlive(entry.owner))) continue;
      // The claim: whoever deletes the row settles the entry.
      const claimed = await this.run(`${NO_STAMP} DELETE FROM ${this.table} WHERE id = ?`, [entry.id]);
      if (claimed.affected !== 1) continue;
      report.entries++;
      let files: string[] = [];
      try {
        const parsed: unknown = JSON.parse(entry.files);
        if (Array.isArray(parsed)) files = parsed.filter((f): f is string => typeof f === 'string');
      } catch {
        // Not JSON: nothing can be known of its files.
      }
      if (!files.length || (await owned(entry.main))) continue;
      try {
        await this.storage.remove(files);
        report.removed += files.length;
      } catch (error) {
        // Put back, to be tried again at the next settling.
        await this.run(`${NO_STAMP} INSERT INTO ${this.table} (main, files, owner, created_at) VALUES (?, ?, ?, ?)`, [
          entry.main,
          entry.files,
          entry.owner,
          Number(entry.created_at),
        ]);
        throw error;
      }
    }
    return report;
  }

  /**
   * A statement's affected rows and inserted id, on either database, in a write transaction of its own (on SQLite
   * the process's one connection is shared: a statement outside one would join another request's transaction).
   */
  private run(sql: string, params: unknown[]): Promise<{ affected: number; insertId: number }> {
    return writeTransaction(this.dataSource, async (em) => {
      // MySQL's raw result is mysql2's header ({ insertId }); SQLite's the last row id itself.
      const result = (await em.queryRunner!.query(sql, params, true)) as {
        affected?: number;
        raw?: { insertId?: number } | number | bigint;
      };
      const raw = result.raw;
      return {
        affected: Number(result.affected ?? 0),
        insertId: Number(typeof raw === 'object' && raw !== null ? raw.insertId : (raw ?? 0)),
      };
    });
  }
}

/** Whether the process an owner (`host:pid:…`) names is alive on this host. */
function processAlive(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  if (host !== hostname()) return true;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
