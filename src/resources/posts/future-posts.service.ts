import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { ResponseCache } from '../../core/cache/response-cache';
import { VersionStamps } from '../../core/cache/version-stamps';
import { DataSource, In, LessThanOrEqual } from 'typeorm';
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

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly content: ContentRegistry,
    private readonly writer: PostWriter,
    private readonly hooks: HookRegistry,
    @Optional() stamps?: VersionStamps,
    @Optional() cache?: ResponseCache,
  ) {
    // A post scheduled on any node moves the posts' version: look for the next due one again.
    stamps?.onChange('posts', () => {
      this.nextDue = 0;
    });
    // A cached answer is never served after a scheduled post's time: what is due is published first.
    cache?.addFreshnessCheck(async () => Date.now() >= this.nextDue && (await this.sweep()) > 0);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep().catch((e: Error) => this.logger.error(e.message)), SWEEP_INTERVAL_MS);
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
    const types = this.content.allPostTypes().map((t) => t.name);
    const repo = this.dataSource.getRepository(PostEntity);
    const now = formatMysqlDate(new Date(Date.now()));
    const due = await repo.find({ where: { type: In(types), status: 'future', dateGmt: LessThanOrEqual(now) }, order: { dateGmt: 'ASC' } });
    let published = 0;
    for (const post of due) {
      if (await this.writer.publishScheduled(post)) {
        published++;
        await this.hooks.doAction('publish_future_post', post.id);
      }
    }
    const next = await repo
      .createQueryBuilder('p')
      .select('MIN(p.dateGmt)', 'next')
      .where('p.type IN (:...types)', { types })
      .andWhere("p.status = 'future'")
      .getRawOne<{ next: string | null }>();
    this.nextDue = next?.next ? Date.parse(`${String(next.next).replace(' ', 'T')}Z`) : Infinity;
    return published;
  }
}
