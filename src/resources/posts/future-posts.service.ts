import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { ResponseCache } from '../../core/cache/response-cache';
import { VersionStamps } from '../../core/database/version-stamps';
import { DataSource, LessThanOrEqual } from 'typeorm';
import { rawQuery } from '../../core/database/raw-query';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { PostEntity } from '../../core/database/entities/post.entity';
import { formatMysqlDate } from '../../core/database/mysql-date';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostWriter } from './post-writer.service';

/** How often every node looks for scheduled posts whose time has come. */
const SWEEP_INTERVAL_MS = 30_000;

/**
 * Publishes scheduled (`future`) posts when their time comes: a timer on every node sweeps the database, and reads
 * check first whether a post known to be due is waiting, so that a scheduled post is never served as scheduled
 * after its date. Publishing is an idempotent conditional update, safe with several nodes.
 */
@Injectable()
export class FuturePosts implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('FuturePosts');
  /** UTC milliseconds of the earliest scheduled post known to this node (Infinity: none). */
  private nextDue = 0;
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  /** Whether {@link nextDue} is known since the posts last changed (with version stamps). */
  private nextKnown = false;
  private refreshing?: Promise<void>;

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly content: ContentRegistry,
    private readonly writer: PostWriter,
    private readonly hooks: HookRegistry,
    @Optional() stamps?: VersionStamps,
    @Optional() cache?: ResponseCache,
  ) {
    // A post scheduled on any node moves the posts' version: the next due one is looked up again (one small query
    // per post type, on the type_status_date key), not swept for.
    stamps?.onChange('posts', () => {
      this.nextKnown = false;
    });
    // A cached answer is never served after a scheduled post's time: what is due is published first.
    cache?.addFreshnessCheck(() => {
      // Nothing due yet: answered at once (the check runs before every cacheable read).
      if (this.nextKnown && Date.now() < this.nextDue) return false;
      return (async () => {
        if (!this.nextKnown) await this.refreshNext();
        return Date.now() >= this.nextDue && (await this.sweep()) > 0;
      })();
    });
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(
      () => void this.sweep().catch((e: Error) => this.logger.error(e.message)),
      SWEEP_INTERVAL_MS,
    );
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Notes a post scheduled for `dateGmt` (MySQL UTC datetime). */
  scheduled(dateGmt: string): void {
    const at = Date.parse(`${dateGmt.replace(' ', 'T')}Z`);
    if (Number.isFinite(at) && at < this.nextDue) this.nextDue = at;
  }

  /** Before a read: publishes what is due, if anything known is. Costs nothing otherwise. */
  async catchUp(): Promise<void> {
    if (Date.now() >= this.nextDue) await this.sweep();
  }

  /** Publishes every scheduled post whose date has passed, then notes the next one; answers how many it published. */
  sweep(): Promise<number> {
    this.running ??= this.publishDue().finally(() => (this.running = undefined));
    return this.running;
  }

  private async publishDue(): Promise<number> {
    const repo = this.dataSource.getRepository(PostEntity);
    const now = formatMysqlDate(new Date(Date.now()));
    // One query per type: an equality on post_type lets both databases use the type_status_date key.
    const due: PostEntity[] = [];
    for (const type of this.types())
      due.push(...(await repo.find({ where: { type, status: 'future', dateGmt: LessThanOrEqual(now) } })));
    due.sort((a, b) => (a.dateGmt < b.dateGmt ? -1 : a.dateGmt > b.dateGmt ? 1 : a.id - b.id));
    let published = 0;
    for (const post of due) {
      if (await this.writer.publishScheduled(post)) {
        published++;
        await this.hooks.doAction('publish_future_post', post.id);
      }
    }
    await this.readNext();
    return published;
  }

  /** Looks the next scheduled post up again (shared by the requests that ask meanwhile). */
  private refreshNext(): Promise<void> {
    this.refreshing ??= this.readNext().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async readNext(): Promise<void> {
    this.nextKnown = true;
    const table = this.dataSource.getMetadata(PostEntity).tableName;
    let next = Infinity;
    for (const type of this.types()) {
      const [row] = await rawQuery<{ next: string | null }>(
        this.dataSource,
        `SELECT MIN(post_date_gmt) AS next FROM ${table} WHERE post_type = ? AND post_status = 'future'`,
        [type],
      );
      const at = row?.next ? Date.parse(`${String(row.next).replace(' ', 'T')}Z`) : Infinity;
      if (at < next) next = at;
    }
    this.nextDue = next;
  }

  private types(): string[] {
    return this.content.allPostTypes().map((t) => t.name);
  }
}
