import { Inject, Injectable, Optional } from '@nestjs/common';
import { recountTerms } from '../terms';
import { DataSource, EntityManager, In } from 'typeorm';
import { VersionStamps } from '../../core/database/version-stamps';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { CommentMetaEntity } from '../../core/database/entities/comment-meta.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { ZERO_DATE } from '../../core/database/mysql-date';
import { maybeSerialize } from '../../core/formatting/php-serialize';
import { normalizeWhitespace, sanitizeTitle } from '../../core/formatting';
import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject } from '../../core/registry/content-types';
import { applyMetaWrites, MetaOp } from '../../core/rest/meta-fields';
import { permalink, PLAIN_LINK_STATUSES } from './permalink';
import { isOwnAncestor, recordOldSlug, truncateSlug, uniquePostSlug } from './post-slugs';
import { ensureTerm, postTermsFrom, postTermTaxonomyIds, replacePostTerms } from './post-terms';
import { takeWriteTurn, writeTransaction } from '../../core/database/write-transaction';
import { insertRow, isMySql, updateRow } from '../../core/database/query-helpers';
import { hydrate, rawEntities, rawQuery } from '../../core/database/raw-query';

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
  /** Page templates the type offers (`file → name`). */
  templates: Record<string, string>;
  /** The site's home URL, without a trailing slash. */
  home: string;
  defaultCategory: number;
  defaultCommentStatus: string;
  defaultPingStatus: string;
  permalinkStructure: string;
}

const FLOATING = ['draft', 'pending', 'auto-draft'];
/** The length of the `guid` column (`varchar(255)`). */
const GUID_LENGTH = 255;
/** Columns without a default in WordPress's schema, written explicitly on insert. */
const EMPTY_COLUMNS: Partial<PostEntity> = {
  toPing: '',
  pinged: '',
  contentFiltered: '',
  guid: '',
  mimeType: '',
  commentCount: 0,
};

/**
 * Writes posts the way WordPress's `wp_insert_post()`, `wp_trash_post()` and `wp_delete_post()` do — dates in both
 * columns, unique slugs, default comment statuses, the default category, sticky posts, formats, featured images,
 * page templates, terms with their counts, meta and revisions — each write in one transaction, so that a failure
 * leaves nothing half-written.
 */
@Injectable()
export class PostWriter {
  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly content: ContentRegistry,
    private readonly options: OptionsService,
    @Optional() private readonly stamps?: VersionStamps,
  ) {}

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
      const row = await this.prepareRow(em, type, null, fields, ctx);
      const postId = await insertRow(em, PostEntity, { ...EMPTY_COLUMNS, ...row });
      const post = await this.postWithin(em, postId);
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
      post.guid = fields.guid ?? (await this.permalinkWithin(em, type, post, ctx.home));
      await updateRow(em, PostEntity, postId, { name: post.name, guid: post.guid });
      // A permalink longer than the column is stored cut (MySQL with WordPress's sql_mode): answered as stored.
      if (post.guid.length > GUID_LENGTH) post.guid = (await this.postWithin(em, postId)).guid;
      const terms = new Map(relations.terms ?? []);
      if (this.taxonomiesOf(type).includes('category') && !terms.has('category') && post.status !== 'auto-draft') {
        if (ctx.defaultCategory > 0) terms.set('category', [ctx.defaultCategory]);
      }
      await this.applyRelations(em, post, null, { ...relations, sticky: relations.sticky ?? false, terms }, ctx);
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
        const locked = await this.lockedWithin(em, type, before.id, categories).catch((error: unknown) => {
          throw error instanceof MissingPost
            ? new RestException('rest_post_invalid_id', 'Invalid post ID.', 404)
            : error;
        });
        const current = locked.post;
        const row = await this.prepareRow(em, type, before, fields, ctx);
        if (!turn && (row.name !== current.name || row.status !== current.status || row.parent !== current.parent))
          throw new NeedsTurn();
        // The row as stored: what was read under the lock with what was written, unless the database may have
        // stored a value otherwise than given (then read back).
        const post =
          (await updateRow(em, PostEntity, before.id, row)) && wellFormed(row)
            ? storedRow(current, row)
            : await this.postWithin(em, before.id);
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
        await this.applyRelations(em, post, current, { ...relations, terms }, ctx, turn);
        await this.saveRevision(em, type, post, ctx, locked.latestRevision);
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

  /**
   * A post's row read through the transaction, as plain SQL (TypeORM's query building was a good part of a save's
   * CPU). An update locks its row with {@link lockedWithin}.
   */
  private async postWithin(em: EntityManager, id: number): Promise<PostEntity> {
    const metadata = em.connection.getMetadata(PostEntity);
    const [post] = await rawEntities<PostEntity>(em, metadata, `SELECT * FROM ${metadata.tableName} WHERE ID = ?`, [
      id,
    ]);
    if (!post) throw new MissingPost();
    return post;
  }

  /**
   * A post's row locked for an update (on MySQL, until the commit), read in one statement with what its save needs
   * to know besides: whether it has categories (`categories`: of a type that has them), and its latest revision when
   * its type keeps revisions (see {@link latestRevisionSql}). Neither changes before the save looks at them: the
   * update writes no terms unless asked, and a post's revisions are written by saves of the post, which wait for
   * its lock.
   */
  private async lockedWithin(
    em: EntityManager,
    type: PostTypeObject,
    id: number,
    categories: boolean,
  ): Promise<LockedPost> {
    const metadata = em.connection.getMetadata(PostEntity);
    const posts = metadata.tableName;
    const extra: string[] = [];
    const params: unknown[] = [];
    if (categories) extra.push(`EXISTS (SELECT 1 ${postTermsFrom(em, 'p.ID', "'category'")}) AS x_has_category`);
    const revisions = keepsRevisions(type);
    let join = '';
    if (revisions) {
      extra.push(
        'lr.ID AS x_revision_id',
        'lr.post_title AS x_revision_title',
        'lr.post_content AS x_revision_content',
        'lr.post_excerpt AS x_revision_excerpt',
      );
      join = ` LEFT JOIN ${posts} lr ON lr.ID = (${latestRevisionSql(posts, 'p.ID')})`;
      params.push(`${id}-autosave-v1`);
    }
    params.push(id);
    const rows = await rawQuery(
      em,
      `SELECT p.*${extra.map((e) => `, ${e}`).join('')} FROM ${posts} p${join} WHERE p.ID = ?${this.isMySql ? ' FOR UPDATE' : ''}`,
      params,
    );
    const [found] = rows;
    if (!found) throw new MissingPost();
    const [post] = hydrate<PostEntity>(metadata, rows);
    const latestRevision =
      !revisions || found.x_revision_id === null || found.x_revision_id === undefined
        ? null
        : ({
            id: Number(found.x_revision_id),
            title: found.x_revision_title,
            content: found.x_revision_content,
            excerpt: found.x_revision_excerpt,
          } as PostEntity);
    return {
      post,
      hasCategory: categories ? Number(found.x_has_category) > 0 : false,
      latestRevision: revisions ? latestRevision : undefined,
    };
  }

  /** Moves a post to the trash (`wp_trash_post()`): remembers its status and slug, and hides its comments. */
  async trash(type: PostTypeObject, post: PostEntity, ctx: WriteContext): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      // Its terms are recounted: counts are read after the turn (see takeTurn).
      await this.takeTurn(em);
      const meta = em.getRepository(PostMetaEntity);
      await meta.insert([
        { postId: post.id, key: '_wp_trash_meta_status', value: post.status },
        { postId: post.id, key: '_wp_trash_meta_time', value: String(Math.floor(Date.now() / 1000)) },
      ]);
      const now = ctx.clock.now();
      let name = post.name;
      if (!name.endsWith('__trashed')) {
        await meta.insert({ postId: post.id, key: '_wp_desired_post_slug', value: name });
        name = `${truncateSlug(name, 191)}__trashed`;
      }
      // A draft whose date floated takes the time it was trashed, as any update of it would.
      const dates =
        FLOATING.includes(post.status) && post.dateGmt === ZERO_DATE ? { date: now.local, dateGmt: now.gmt } : {};
      await em
        .getRepository(PostEntity)
        .update({ id: post.id }, { status: 'trash', name, modified: now.local, modifiedGmt: now.gmt, ...dates });
      const trashed = await this.postWithin(em, post.id);
      await this.unstick(em, post.id);
      await recountTerms(em, this.content, await postTermTaxonomyIds(em, post.id));
      await this.saveRevision(em, type, trashed, ctx);
      // wp_trash_post_comments(): comments wait in `post-trashed`, their statuses kept on the post.
      const comments = await em
        .getRepository(CommentEntity)
        .find({ select: { id: true, approved: true }, where: { postId: post.id } });
      if (comments.length) {
        const statuses = Object.fromEntries(comments.map((c) => [c.id, c.approved]));
        await meta.insert({ postId: post.id, key: '_wp_trash_meta_comments_status', value: maybeSerialize(statuses) });
        await em.getRepository(CommentEntity).update({ postId: post.id }, { approved: 'post-trashed' });
      }
    });
    this.optionsWritten();
  }

  /**
   * Deletes a post for good (`wp_delete_post()`): its terms (recounted), revisions, comments and meta; children of a
   * hierarchical type and attachments move up to its parent; it leaves the sticky list.
   */
  async delete(type: PostTypeObject, post: PostEntity): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      await this.takeTurn(em);
      const posts = em.getRepository(PostEntity);
      const ttIds = await postTermTaxonomyIds(em, post.id);
      await em.getRepository(TermRelationshipEntity).delete({ objectId: post.id });
      await recountTerms(em, this.content, ttIds);
      if (type.hierarchical) await posts.update({ parent: post.id, type: type.name }, { parent: post.parent });
      const revisions = await posts.find({ select: { id: true }, where: { parent: post.id, type: 'revision' } });
      await this.deletePostRows(em, [post.id, ...revisions.map((r) => r.id)]);
      await posts.update({ parent: post.id, type: 'attachment' }, { parent: post.parent });
      await this.unstick(em, post.id);
    });
    this.optionsWritten();
  }

  private async unstick(em: EntityManager, postId: number): Promise<void> {
    await this.options.updateWithin(em, 'sticky_posts', (current) => {
      const ids = stickyIds(current);
      return ids.includes(postId) ? ids.filter((id) => id !== postId) : undefined;
    });
  }

  /** Publishes a scheduled post whose time has come (`wp_publish_post()`); `false` when another node did it first. */
  async publishScheduled(post: PostEntity): Promise<boolean> {
    return writeTransaction(this.dataSource, async (em) => {
      const result = await em
        .getRepository(PostEntity)
        .update({ id: post.id, status: 'future' }, { status: 'publish' });
      if (!result.affected) return false;
      await recountTerms(em, this.content, await postTermTaxonomyIds(em, post.id));
      return true;
    });
  }

  /** Deletes a revision (`wp_delete_post_revision()`). */
  async deleteRevision(revision: PostEntity): Promise<void> {
    await writeTransaction(this.dataSource, (em) => this.deletePostRows(em, [revision.id]));
  }

  private async deletePostRows(em: EntityManager, ids: number[]): Promise<void> {
    if (!ids.length) return;
    const comments = await em.getRepository(CommentEntity).find({ select: { id: true }, where: { postId: In(ids) } });
    if (comments.length) await em.getRepository(CommentMetaEntity).delete({ commentId: In(comments.map((c) => c.id)) });
    await em.getRepository(CommentEntity).delete({ postId: In(ids) });
    await em.getRepository(PostMetaEntity).delete({ postId: In(ids) });
    await em.getRepository(TermRelationshipEntity).delete({ objectId: In(ids) });
    await em.getRepository(PostEntity).delete({ id: In(ids) });
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

  // --- the row (wp_insert_post) ---

  private async prepareRow(
    em: EntityManager,
    type: PostTypeObject,
    before: PostEntity | null,
    f: PostFields,
    ctx: WriteContext,
  ): Promise<Partial<PostEntity>> {
    const now = ctx.clock.now();
    const title = f.title ?? before?.title ?? '';
    const contentText = f.content ?? before?.content ?? '';
    const excerpt = f.excerpt ?? before?.excerpt ?? '';
    const supports = (feature: string) => type.supports[feature] !== undefined;
    if (!contentText && !title && !excerpt && supports('editor') && supports('title') && supports('excerpt')) {
      throw new RestException('empty_content', 'Content, title, and excerpt are empty.', 400);
    }
    let status = f.status || before?.status || 'draft';
    let parent = f.parent ?? before?.parent ?? 0;
    // wp_check_post_hierarchy_for_loops(): a post cannot become its own ancestor.
    if (before && f.parent !== undefined && parent > 0 && (await isOwnAncestor(em, before.id, parent))) parent = 0;

    // Dates: a draft that never had a GMT date keeps floating at "now" until it is given one.
    let date: string;
    let dateGmt: string;
    if (f.date) {
      [date, dateGmt] = f.date;
    } else if (before && !(f.date === null) && !(FLOATING.includes(before.status) && before.dateGmt === ZERO_DATE)) {
      [date, dateGmt] = [before.date, before.dateGmt];
    } else {
      date = now.local;
      dateGmt = '';
    }
    if (!dateGmt || dateGmt === ZERO_DATE)
      dateGmt = FLOATING.includes(status) ? ZERO_DATE : ctx.clock.gmtFromLocal(date);
    const modified = before || date === ZERO_DATE ? now : { local: date, gmt: dateGmt };

    // Scheduling: a post published with a date at least a minute ahead waits as `future`, and the other way round.
    if (dateGmt !== ZERO_DATE) {
      const ahead = Date.parse(`${dateGmt.replace(' ', 'T')}Z`) - Date.parse(`${now.gmt.replace(' ', 'T')}Z`);
      if (status === 'publish' && ahead >= 60_000) status = 'future';
      else if (status === 'future' && ahead < 60_000) status = 'publish';
    }

    // Slug: sanitised when sent, generated from the title when published, unique among its siblings.
    let name = f.name !== undefined ? sanitizeTitle(f.name) : (before?.name ?? '');
    if (status === 'pending' && !ctx.canPublish) name = '';
    if (!name) name = FLOATING.includes(status) ? '' : sanitizeTitle(title);
    if (before?.status === 'trash' && status !== 'trash') {
      const desired = await em
        .getRepository(PostMetaEntity)
        .findOne({ where: { postId: before.id, key: '_wp_desired_post_slug' } });
      if (desired) {
        await em.getRepository(PostMetaEntity).delete({ postId: before.id, key: '_wp_desired_post_slug' });
        name = desired.value ?? name;
      }
    }
    const draft = { id: before?.id ?? 0, type: type.name, parent, status, name } as PostEntity;
    // A slug sent for a draft is made unique as if it were published (the reference's REST rule).
    const uniqueAs =
      f.name !== undefined && name && ['draft', 'pending'].includes(status) ? { ...draft, status: 'publish' } : draft;
    if (name) name = await uniquePostSlug(em, name, uniqueAs, type, ctx.permalinkStructure);

    const commentDefault = (kind: 'comment' | 'ping'): string => {
      if (before) return 'closed';
      if (type.name === 'page') return 'closed';
      return supports(kind === 'comment' ? 'comments' : 'trackbacks') ? '' : 'closed';
    };
    const commentStatus =
      f.commentStatus || before?.commentStatus || commentDefault('comment') || ctx.defaultCommentStatus;
    const pingStatus = f.pingStatus || before?.pingStatus || commentDefault('ping') || ctx.defaultPingStatus;

    return {
      author: f.author ?? before?.author ?? ctx.actor,
      date,
      dateGmt,
      content: contentText,
      title,
      excerpt,
      status,
      type: type.name,
      commentStatus,
      pingStatus,
      password: status === 'private' ? '' : (f.password ?? before?.password ?? ''),
      name,
      modified: modified.local,
      modifiedGmt: modified.gmt,
      parent,
      menuOrder: f.menuOrder ?? before?.menuOrder ?? 0,
      ...(f.mimeType !== undefined ? { mimeType: f.mimeType } : {}),
    };
  }

  /** The permalink a new post gets as its `guid`, its ancestors read through the transaction. */
  private async permalinkWithin(
    em: EntityManager,
    type: PostTypeObject,
    post: PostEntity,
    home: string,
  ): Promise<string> {
    const pretty = !PLAIN_LINK_STATUSES.includes(post.status) && Boolean(post.name);
    const parents = new Map<number, PostEntity>();
    for (
      let id = post.parent, depth = 0;
      pretty && type.hierarchical && id > 0 && depth < 20 && !parents.has(id);
      depth++
    ) {
      const parent = await em.getRepository(PostEntity).findOne({ where: { id } });
      if (!parent) break;
      parents.set(id, parent);
      id = parent.parent;
    }
    return permalink(post, type, home, parents, pretty);
  }

  // --- everything around the row ---

  private async applyRelations(
    em: EntityManager,
    post: PostEntity,
    before: PostEntity | null,
    r: PostRelations,
    ctx: WriteContext,
    turn = true,
  ): Promise<void> {
    const meta = em.getRepository(PostMetaEntity);
    if (r.sticky !== undefined && post.type === 'post') {
      await this.options.updateWithin(em, 'sticky_posts', (current) => {
        const ids = stickyIds(current);
        const has = ids.includes(post.id);
        if (r.sticky && !has) return [...ids, post.id];
        if (!r.sticky && has) return ids.filter((id) => id !== post.id);
        return undefined;
      });
    }
    if (r.featuredMedia !== undefined) {
      if (r.featuredMedia === 0) await meta.delete({ postId: post.id, key: '_thumbnail_id' });
      else {
        // set_post_thumbnail(): an image is kept, another existing post removes the featured image, a missing id changes nothing.
        const media = await em
          .getRepository(PostEntity)
          .findOne({ select: { id: true, type: true, mimeType: true }, where: { id: r.featuredMedia } });
        if (media?.type === 'attachment' && media.mimeType.startsWith('image/'))
          await this.setSingleMeta(em, post.id, '_thumbnail_id', String(r.featuredMedia));
        else if (media) await meta.delete({ postId: post.id, key: '_thumbnail_id' });
      }
    }
    if (r.template !== undefined) {
      await this.setSingleMeta(em, post.id, '_wp_page_template', r.template in ctx.templates ? r.template : '');
    }
    const changed = new Set<number>();
    if (r.format) {
      const slug = r.format === 'standard' ? null : `post-format-${r.format}`;
      const ids = slug ? [await ensureTerm(em, 'post_format', slug)] : [];
      for (const id of await replacePostTerms(em, post.id, 'post_format', ids)) changed.add(id);
    }
    for (const [taxonomy, termIds] of r.terms ?? []) {
      for (const id of await replacePostTerms(em, post.id, taxonomy, termIds)) changed.add(id);
    }
    if (before && before.status !== post.status)
      for (const id of await postTermTaxonomyIds(em, post.id)) changed.add(id);
    // Counts are read from the transaction's snapshot: only a writer that took the turn first may write them.
    if (changed.size && !turn) throw new NeedsTurn();
    await recountTerms(em, this.content, [...changed]);
    if (r.meta?.length) await applyMetaWrites(em, PostMetaEntity, 'postId', post.id, r.meta);
  }

  private async setSingleMeta(em: EntityManager, postId: number, key: string, value: string): Promise<void> {
    await applyMetaWrites(em, PostMetaEntity, 'postId', postId, [{ key, action: 'single', value }]);
  }

  private taxonomiesOf(type: PostTypeObject): string[] {
    return this.content
      .allTaxonomies()
      .filter((t) => t.object_type.includes(type.name))
      .map((t) => t.name);
  }

  // --- revisions ---

  /**
   * `wp_save_post_revision()`: after an update, stores the post's title, content and excerpt as a revision when they
   * differ from the latest revision (`wp_get_post_revisions()`: status `inherit`, newest first), or when there is none yet.
   */
  private async saveRevision(
    em: EntityManager,
    type: PostTypeObject,
    post: PostEntity,
    ctx: WriteContext,
    known?: PostEntity | null,
  ): Promise<void> {
    if (!keepsRevisions(type) || post.status === 'auto-draft') return;
    // The latest revision (not the autosave), unless read with the post's row.
    const metadata = em.connection.getMetadata(PostEntity);
    const latest =
      known !== undefined
        ? known
        : (
            await rawEntities<PostEntity>(
              em,
              metadata,
              `SELECT ID, post_title, post_content, post_excerpt FROM ${metadata.tableName} WHERE ID = (${latestRevisionSql(metadata.tableName, '?')})`,
              [post.id, `${post.id}-autosave-v1`],
            )
          )[0];
    if (latest) {
      const same = (['title', 'content', 'excerpt'] as const).every(
        (k) => normalizeWhitespace(post[k]) === normalizeWhitespace(latest[k]),
      );
      if (same) return;
    }
    const id = await insertRow(em, PostEntity, {
      ...EMPTY_COLUMNS,
      author: ctx.actor,
      date: post.modified,
      dateGmt: post.modifiedGmt,
      content: post.content,
      title: post.title,
      excerpt: post.excerpt,
      status: 'inherit',
      type: 'revision',
      commentStatus: 'closed',
      pingStatus: 'closed',
      name: `${post.id}-revision-v1`,
      modified: post.modified,
      modifiedGmt: post.modifiedGmt,
      parent: post.id,
    });
    await updateRow(em, PostEntity, id, { guid: `${ctx.home}/?p=${id}` });
  }
}

/** A post's row read under its lock for an update, with what the save needs besides (see `PostWriter.lockedWithin`). */
interface LockedPost {
  post: PostEntity;
  /** Whether it has categories (`false` for a type without them). */
  hasCategory: boolean;
  /** Its latest revision's id, title, content and excerpt (`null`: none); `undefined` for a type without revisions. */
  latestRevision: PostEntity | null | undefined;
}

/** Whether posts of `type` keep revisions. */
function keepsRevisions(type: PostTypeObject): boolean {
  return type.supports.revisions !== undefined;
}

/**
 * The id of a post's latest revision (not its autosave), as `wp_get_post_revisions()` orders them, through the
 * revisions' key: a subquery of the post's id (`parent`: a column or `?`) and then the autosave's slug (`?`).
 */
function latestRevisionSql(posts: string, parent: string): string {
  return `SELECT r.ID FROM ${posts} r WHERE r.post_parent = ${parent} AND r.post_type = 'revision' AND r.post_status = 'inherit' AND r.post_name <> ? ORDER BY r.post_date DESC, r.ID DESC LIMIT 1`;
}

/**
 * Whether every text written is well-formed UTF-16: both drivers store a lone surrogate as replacement characters,
 * without a warning, so a row written with one is read back.
 */
function wellFormed(written: Partial<PostEntity>): boolean {
  for (const value of Object.values(written)) if (typeof value === 'string' && LONE_SURROGATE.test(value)) return false;
  return true;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A post's row as an update stored it: the row read under its lock, with the columns written. */
function storedRow(current: PostEntity, written: Partial<PostEntity>): PostEntity {
  const post = Object.assign(Object.create(Object.getPrototypeOf(current) as object) as PostEntity, current);
  for (const [key, value] of Object.entries(written))
    if (value !== undefined) (post as unknown as Record<string, unknown>)[key] = value;
  return post;
}

/** An update begun without the posts' turn found it needs it: rolled back, and run again with it. */
class NeedsTurn extends Error {}

/** The post a save reads within its transaction is gone. */
class MissingPost extends Error {}

/**
 * Whether an update is likely to keep the post where it is among other posts — its slug, status, date, parent,
 * terms, format and stickiness — so that it may run without the posts' turn ({@link PostWriter.update} checks it still).
 */
function keepsPlace(before: PostEntity, f: PostFields, r: PostRelations): boolean {
  return (
    f.name === undefined &&
    (f.status === undefined || f.status === before.status) &&
    f.date === undefined &&
    f.parent === undefined &&
    before.status !== 'trash' &&
    !r.terms?.size &&
    r.format === undefined &&
    // The sticky list is the turn's own row: taken first, as every writer takes it, never after the post's.
    r.sticky === undefined
  );
}

/**
 * Whether an update leaves the post in its place for every list and filter but those on its content (search, title,
 * modification date): {@link keepsPlace}, and its author, order, password and MIME type are not written.
 */
function staysInPlace(before: PostEntity, f: PostFields, r: PostRelations): boolean {
  return (
    keepsPlace(before, f, r) &&
    f.author === undefined &&
    f.menuOrder === undefined &&
    f.password === undefined &&
    f.mimeType === undefined
  );
}

/** The columns lists filter and order posts by (but their content), unchanged between two versions of a row. */
function samePlace(a: PostEntity, b: PostEntity): boolean {
  return (
    a.name === b.name &&
    a.status === b.status &&
    a.date === b.date &&
    a.dateGmt === b.dateGmt &&
    a.parent === b.parent &&
    a.author === b.author &&
    a.menuOrder === b.menuOrder &&
    a.password === b.password &&
    a.type === b.type &&
    a.mimeType === b.mimeType
  );
}

/** The ids in the `sticky_posts` option. */
export function stickyIds(value: unknown): number[] {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : [];
  return list.map(Number).filter((n) => Number.isInteger(n) && n > 0);
}
