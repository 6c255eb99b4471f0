import { Inject, Injectable, Optional } from '@nestjs/common';
import { recountTerms } from '../terms';
import { DataSource, EntityManager } from 'typeorm';
import { VersionStamps } from '../../core/database/version-stamps';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { PostEntity } from '../../core/database/entities/post.entity';
import { sanitizeTitle } from '../../core/formatting';
import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject } from '../../core/registry/content-types';
import { MetaOp } from '../../core/rest/meta-fields';
import { EMPTY_COLUMNS, FLOATING, guidPermalink, GUID_LENGTH, postRow } from './post-insert-rules';
import { applyRelations, PostWriteServices, stickyIds } from './post-relations';
import { saveRevision } from './post-revision-save';
import { lockedWithin, MissingPost, postWithin, storedRow, wellFormed } from './post-rows-within';
import { recordOldSlug, uniquePostSlug } from './post-slugs';
import { postTermTaxonomyIds } from './post-terms';
import { deletePost, deletePostRows, trashPost } from './post-trash';
import { keepsPlace, NeedsTurn, samePlace, staysInPlace } from './post-write-turn';
import { takeWriteTurn, writeTransaction } from '../../core/database/write-transaction';
import { insertRow, isMySql, updateRow } from '../../core/database/query-helpers';
import { recordEvent } from '../../core/webhooks/outbox';
import { postEvents } from '../../core/webhooks/webhook-events';

/** Columns of a post a request may set (already validated and sanitised). */
export interface PostFields {
  title?: string;
  content?: string;
  excerpt?: string;
  status?: string;
  /** `[local, gmt]`; `null` resets the date (a draft's date floats again). */
  date?: [string, string] | null;
  name?: string;
  author?: number;
  password?: string;
  parent?: number;
  menuOrder?: number;
  commentStatus?: string;
  pingStatus?: string;
  /** An attachment's MIME type. */
  mimeType?: string;
  /** The `guid` to store instead of the permalink (an attachment's file URL). */
  guid?: string;
  /** The id to create the post with when no post has it (`wp_insert_post()`'s `import_id`); else a new one. */
  importId?: number;
}

/** What else a write changes besides the row (`undefined`: leave as it is). */
export interface PostRelations {
  sticky?: boolean;
  featuredMedia?: number;
  /** A format slug; `standard` removes the format. */
  format?: string;
  template?: string;
  /** Term ids by taxonomy; replaces the post's terms of each taxonomy listed. */
  terms?: Map<string, number[]>;
  meta?: MetaOp[];
}

/**
 * Facts about the write that depend on the caller and the site, read before the transaction starts (work inside
 * a transaction uses its own connection only).
 */
export interface WriteContext {
  actor: number;
  clock: SiteClock;
  /** Whether the caller may publish (a contributor's pending post gets no slug, as in WordPress). */
  canPublish: boolean;
  /** The site's home URL, without a trailing slash. */
  home: string;
  defaultCategory: number;
  defaultCommentStatus: string;
  defaultPingStatus: string;
  permalinkStructure: string;
}

/**
 * Writes posts the way WordPress's `wp_insert_post()`, `wp_trash_post()` and `wp_delete_post()` do — dates in both
 * columns, unique slugs, default comment statuses, the default category, sticky posts, formats, featured images,
 * page templates, terms with their counts, meta and revisions — each write in one transaction, so that a failure
 * leaves nothing half-written.
 */
@Injectable()
export class PostWriter {
  /** The services the writes around a row use (see {@link applyRelations}). */
  private readonly services: PostWriteServices;

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly content: ContentRegistry,
    private readonly options: OptionsService,
    @Optional() private readonly stamps?: VersionStamps,
  ) {
    this.services = { content, options };
  }

  /**
   * Post writes take turns across every node: a slug must be checked against what other writers have committed,
   * and term counts are counted from the transaction's snapshot (MySQL: a row lock on the `sticky_posts` option,
   * held until commit; a read snapshot taken after it sees their rows). On SQLite, write transactions already take
   * turns. It is the first lock a writer takes, so that locks are always taken in one order.
   */
  private takeTurn(em: EntityManager): Promise<void> {
    return takeWriteTurn(em);
  }

  /** Creates a post; returns it as stored. */
  async create(
    type: PostTypeObject,
    fields: PostFields,
    relations: PostRelations,
    ctx: WriteContext,
  ): Promise<PostEntity> {
    const created = await writeTransaction(this.dataSource, async (em) => {
      await this.takeTurn(em);
      const row = await postRow(em, type, null, fields, ctx);
      // `import_id`: the id asked for, when it is free.
      const id =
        fields.importId && !(await em.getRepository(PostEntity).existsBy({ id: fields.importId }))
          ? { id: fields.importId }
          : {};
      const postId = await insertRow(em, PostEntity, { ...EMPTY_COLUMNS, ...row, ...id });
      const post = await postWithin(em, postId);
      // The slug of a published post without one comes from its title, once the id is known.
      if (!post.name && !FLOATING.includes(post.status) && post.title) {
        post.name = await uniquePostSlug(
          em,
          sanitizeTitle(post.title, String(postId)),
          post,
          type,
          ctx.permalinkStructure,
        );
      }
      post.guid = fields.guid ?? (await guidPermalink(em, type, post, ctx.home));
      await updateRow(em, PostEntity, postId, { name: post.name, guid: post.guid });
      // A permalink longer than the column is stored cut (MySQL with WordPress's sql_mode): answered as stored.
      if (post.guid.length > GUID_LENGTH) post.guid = (await postWithin(em, postId)).guid;
      const terms = new Map(relations.terms ?? []);
      if (this.taxonomiesOf(type).includes('category') && !terms.has('category') && post.status !== 'auto-draft') {
        if (ctx.defaultCategory > 0) terms.set('category', [ctx.defaultCategory]);
      }
      await applyRelations(
        em,
        this.services,
        post,
        null,
        { ...relations, sticky: relations.sticky ?? false, terms },
        ctx,
      );
      await recordEvent(em, ...postEvents(type.name, postId, 'created', [null, post.status]));
      return post;
    });
    this.optionsWritten();
    // The row as this transaction stored it (read back within it, its slug and guid written since).
    return created;
  }

  /**
   * Updates a post; returns it as stored. A change to its title, content or excerpt stores a revision.
   *
   * On MySQL an update that keeps the post's slug, status, date, parent and terms — an edit of its text, meta,
   * featured image — runs without taking the posts' turn, beside other writers: it reads nothing another writer
   * could make stale. Should it turn out to need the turn after all (its slug comes out different, a term count
   * must be recounted, the default category is given back), it is rolled back and run again with the turn.
   *
   * The post returned is the row as the transaction stored it: read under its lock, with the values written (read
   * back instead when the database may have stored one otherwise, see {@link updateRow}).
   */
  async update(
    type: PostTypeObject,
    before: PostEntity,
    fields: PostFields,
    relations: PostRelations,
    ctx: WriteContext,
  ): Promise<PostEntity> {
    const run = (turn: boolean) =>
      writeTransaction(this.dataSource, async (em) => {
        if (turn) await this.takeTurn(em);
        // The row as it is now (another writer may have changed it since the request read it): what the term
        // counts and the old slug are measured against. Locked until commit, so it stays so.
        const categories = this.taxonomiesOf(type).includes('category');
        const locked = await lockedWithin(em, type, before.id, categories).catch((error: unknown) => {
          throw error instanceof MissingPost
            ? new RestException('rest_post_invalid_id', 'Invalid post ID.', 404)
            : error;
        });
        const current = locked.post;
        const row = await postRow(em, type, before, fields, ctx);
        if (!turn && (row.name !== current.name || row.status !== current.status || row.parent !== current.parent))
          throw new NeedsTurn();
        // The row as stored: what was read under the lock with what was written, unless the database may have
        // stored a value otherwise than given (then read back).
        const post =
          (await updateRow(em, PostEntity, before.id, row)) && wellFormed(row)
            ? storedRow(current, row)
            : await postWithin(em, before.id);
        const terms = new Map(relations.terms ?? []);
        // A post left without categories goes back to the default one, as every save in WordPress does. (The
        // update wrote no terms: whether it has any was read with its row.)
        if (categories && !terms.has('category') && post.status !== 'auto-draft') {
          if (!locked.hasCategory && ctx.defaultCategory > 0) {
            if (!turn) throw new NeedsTurn();
            terms.set('category', [ctx.defaultCategory]);
          }
        }
        // An edit that leaves the post where it was among the others moves its own version, not every post's.
        if (!terms.size && staysInPlace(before, fields, relations) && samePlace(current, post))
          this.stamps?.narrow(em.queryRunner, [post.id]);
        await recordOldSlug(em, type, current, post);
        await applyRelations(em, this.services, post, current, { ...relations, terms }, ctx, turn);
        await saveRevision(em, type, post, ctx, locked.latestRevision);
        await recordEvent(em, ...postEvents(type.name, post.id, 'updated', [current.status, post.status]));
        return post;
      });
    let post: PostEntity;
    if (this.isMySql && keepsPlace(before, fields, relations)) {
      try {
        post = await run(false);
      } catch (error) {
        if (!(error instanceof NeedsTurn)) throw error;
        post = await run(true);
      }
    } else {
      post = await run(true);
    }
    this.optionsWritten();
    return post;
  }

  /**
   * The sticky list may have been written: the options read by this process are read again. With the version
   * stamps on, the write moved the options' version if it did, which cleared them already.
   */
  private optionsWritten(): void {
    if (!this.stamps?.enabled) this.options.invalidate();
  }

  private get isMySql(): boolean {
    return isMySql(this.dataSource);
  }

  /** Moves a post to the trash (`wp_trash_post()`, see {@link trashPost}). */
  async trash(type: PostTypeObject, post: PostEntity, ctx: WriteContext): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      // Its terms are recounted: counts are read after the turn (see takeTurn).
      await this.takeTurn(em);
      await trashPost(em, this.services, type, post, ctx);
      await recordEvent(em, { event: 'post.trashed', objectType: 'post', id: post.id, subtype: type.name });
    });
    this.optionsWritten();
  }

  /** Deletes a post for good (`wp_delete_post()`, see {@link deletePost}). */
  async delete(type: PostTypeObject, post: PostEntity): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      await this.takeTurn(em);
      await deletePost(em, this.services, type, post);
      await recordEvent(em, ...postEvents(type.name, post.id, 'deleted'));
    });
    this.optionsWritten();
  }

  /** Publishes a scheduled post whose time has come (`wp_publish_post()`); `false` when another node did it first. */
  async publishScheduled(post: PostEntity): Promise<boolean> {
    return writeTransaction(this.dataSource, async (em) => {
      const result = await em
        .getRepository(PostEntity)
        .update({ id: post.id, status: 'future' }, { status: 'publish' });
      if (!result.affected) return false;
      await recountTerms(em, this.content, await postTermTaxonomyIds(em, post.id));
      await recordEvent(em, { event: 'post.published', objectType: 'post', id: post.id, subtype: post.type });
      return true;
    });
  }

  /** Deletes a revision (`wp_delete_post_revision()`). */
  async deleteRevision(revision: PostEntity): Promise<void> {
    await writeTransaction(this.dataSource, (em) => deletePostRows(em, [revision.id]));
  }

  find(id: number): Promise<PostEntity | null> {
    return this.dataSource.getRepository(PostEntity).findOneBy({ id });
  }

  /** Whether the post is in the sticky list. */
  async isSticky(id: number): Promise<boolean> {
    return stickyIds(await this.options.get('sticky_posts', [])).includes(id);
  }

  /** Whether `id` is an image attachment (what a featured image must be). */
  async isImage(id: number): Promise<boolean> {
    const row = await this.dataSource
      .getRepository(PostEntity)
      .findOne({ select: { id: true, mimeType: true }, where: { id, type: 'attachment' } });
    return Boolean(row && row.mimeType.startsWith('image/'));
  }

  private taxonomiesOf(type: PostTypeObject): string[] {
    return this.content
      .allTaxonomies()
      .filter((t) => t.object_type.includes(type.name))
      .map((t) => t.name);
  }
}
