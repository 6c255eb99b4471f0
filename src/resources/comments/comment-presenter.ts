import type { ResponseBuilders } from '../../core/rest/rest-resource';
import type { PostReads } from '../posts';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { mysqlToRfc3339 } from '../../core/database/mysql-date';
import { renderCommentText } from '../../core/formatting';
import { AvatarSettings, avatarUrls, showAvatars } from '../../core/formatting/avatar';
import { textOf } from '../../core/formatting/php-serialize';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { ItemMemo } from '../../core/rest/json-text';
import { PLAIN_LINK_STATUSES, permalink } from '../../core/rest/permalink';
import { ExposedMetaKey, metaResponse } from '../../core/rest/meta-fields';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { CommentsService } from './comments.service';

/** What preparing comments needs from the site's options, read once per request. */
export interface SiteFacts extends AvatarSettings {
  home: string;
  showAvatars: boolean;
  useSmilies: boolean;
  siteUrl: string;
}

/** What preparing a set of comments loads once for all of them. */
export interface CommentBatch {
  posts: Map<number, PostEntity>;
  /** Ancestors of hierarchical posts, for their links. */
  parents: Map<number, PostEntity>;
  withChildren: Set<number>;
  meta: Map<number, Record<string, unknown[]>>;
}

/** What the presenter is given by its resource: its route, its registered meta, and the base class's builders. */
export interface CommentView extends ResponseBuilders<CommentEntity> {
  namespace: string;
  restBase: string;
  registeredMeta: () => ExposedMetaKey[];
}

/**
 * Comments as the response gives them (made by CommentResource): the site's facts, what a set of comments needs
 * loaded at once (posts and their ancestors, replies, meta), each comment's fields, link and `_links`.
 */
export class CommentPresenter {
  /**
   * Whether the site shows avatars (on in a fresh install), as last read by this node with a comments request: the
   * published schema leaves `author_avatar_urls` out while it is off, as the reference does.
   */
  private shown = true;

  /** Collection items kept as JSON text, by comment and context (see {@link collectionItems}). */
  private readonly memo = new ItemMemo();

  constructor(
    private readonly deps: {
      comments: CommentsService;
      posts: PostReads;
      options: OptionsService;
      content: ContentRegistry;
    },
    private readonly view: CommentView,
  ) {}

  /** Whether the site showed avatars when this node last read its options (see {@link siteFacts}). */
  get avatarsShown(): boolean {
    return this.shown;
  }

  /** The options every comment of a request needs, read once (and whether avatars are shown, kept). */
  async siteFacts(req: RestRequest): Promise<SiteFacts> {
    const o = await this.deps.options.getMany([
      'home',
      'siteurl',
      'show_avatars',
      'avatar_default',
      'avatar_rating',
      'use_smilies',
    ]);
    const facts: SiteFacts = {
      home: textOf(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      siteUrl: textOf(o.siteurl ?? o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      showAvatars: showAvatars(o.show_avatars),
      avatarDefault: textOf(o.avatar_default ?? 'mystery'),
      avatarRating: textOf(o.avatar_rating ?? 'G'),
      useSmilies: o.use_smilies === undefined ? true : Boolean(Number(o.use_smilies)),
    };
    this.shown = facts.showAvatars;
    return facts;
  }

  /** One comment's response (`GET comments/<id>`, and what a write answers). */
  async prepareOne(comment: CommentEntity, req: RestRequest): Promise<RestResponse> {
    const batch = await this.batchOf([comment], req);
    return this.prepareItem(comment, req, batch, await this.siteFacts(req));
  }

  /** Everything preparing these comments needs, loaded for all of them at once. */
  async batchOf(comments: CommentEntity[], req: RestRequest): Promise<CommentBatch> {
    const postIds = [...new Set(comments.map((c) => c.postId).filter((id) => id > 0))];
    const posts = new Map<number, PostEntity>();
    const found = await this.deps.posts.loader(req).loadMany(postIds);
    found.forEach((p) => p && !(p instanceof Error) && posts.set(p.id, p));
    const parents = new Map<number, PostEntity>();
    let wanted = [...new Set([...posts.values()].map((p) => p.parent).filter((id) => id > 0))];
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = (await this.deps.posts.loader(req).loadMany(wanted)).filter(
        (r): r is PostEntity => Boolean(r) && !(r instanceof Error),
      );
      rows.forEach((r) => parents.set(r.id, r));
      wanted = [...new Set(rows.map((r) => r.parent).filter((id) => id > 0 && !parents.has(id)))];
    }
    const ids = comments.map((c) => c.id);
    const childLoader = req.ctx.loader<number, boolean>('comment-has-children', async (keys) => {
      const set = await this.deps.comments.withChildren(keys);
      return keys.map((k) => set.has(k));
    });
    const withChildren = new Set<number>();
    (await childLoader.loadMany(ids)).forEach((has, i) => has === true && withChildren.add(ids[i]));
    const metaKeys = this.view.registeredMeta().map((m) => m.key);
    const meta = new Map<number, Record<string, unknown[]>>();
    if (metaKeys.length && ids.length) {
      const metaLoader = req.ctx.loader<number, Record<string, unknown[]>>('comment-meta', async (keys) => {
        const values = await this.deps.comments.metaOf([...keys], metaKeys);
        return keys.map((k) => values.get(k) ?? {});
      });
      (await metaLoader.loadMany(ids)).forEach((v, i) => meta.set(ids[i], v instanceof Error ? {} : v));
    }
    return { posts, parents, withChildren, meta };
  }

  /**
   * Comments as collection items; as JSON text while nothing looks into them afterwards (`itemsAsText`), each reused
   * while everything it is made from is unchanged: the request's API URL, context and scheme, the site's facts, the
   * comment's row, its post's link and route, its replies, its meta.
   */
  collectionItems(
    comments: CommentEntity[],
    req: RestRequest,
    batch: CommentBatch,
    site: SiteFacts,
  ): Promise<unknown[]> {
    return this.view.reuse(this.memo, comments, req, {
      key: (c) => c.id,
      inputs: (c) => {
        const post = batch.posts.get(c.postId) ?? null;
        return [
          req.ctx.restUrl(''),
          req.ctx.baseUrl,
          req.context,
          site.siteUrl,
          site.showAvatars,
          site.avatarDefault,
          site.avatarRating,
          site.useSmilies,
          c.postId,
          c.parent,
          c.userId,
          c.author,
          c.authorEmail,
          c.authorUrl,
          c.authorIp,
          c.agent,
          c.date,
          c.dateGmt,
          c.content,
          c.karma,
          c.approved,
          c.type,
          this.commentLink(c, post, batch, site),
          post?.type ?? '',
          batch.withChildren.has(c.id),
          batch.meta.size ? JSON.stringify(batch.meta.get(c.id) ?? null) : '',
        ];
      },
      build: (c) => this.prepareItem(c, req, batch, site),
    });
  }

  /**
   * One comment's response. Whatever this and {@link links} read — of the request, the site, the row or the batch —
   * must be among {@link collectionItems}' inputs, or a reused item would miss the change.
   */
  private async prepareItem(
    comment: CommentEntity,
    req: RestRequest,
    batch: CommentBatch,
    site: SiteFacts,
  ): Promise<RestResponse> {
    const post = batch.posts.get(comment.postId) ?? null;
    const data: Record<string, unknown> = {
      id: comment.id,
      post: comment.postId,
      parent: comment.parent,
      author: comment.userId,
      author_name: comment.author,
      author_email: comment.authorEmail,
      author_url: comment.authorUrl,
      author_ip: comment.authorIp,
      author_user_agent: comment.agent,
      date: mysqlToRfc3339(comment.date),
      date_gmt: mysqlToRfc3339(comment.dateGmt),
      content: {
        rendered: renderCommentText(comment.content, { siteUrl: site.siteUrl, useSmilies: site.useSmilies }),
        raw: comment.content,
      },
      ...(req.ctx.wire.dialect.comments.karma ? { karma: comment.karma } : {}),
      link: this.commentLink(comment, post, batch, site),
      status: comment.approved === '1' ? 'approved' : comment.approved === '0' ? 'hold' : comment.approved,
      type: comment.type || 'comment',
    };
    if (site.showAvatars)
      data.author_avatar_urls = avatarUrls(comment.authorEmail, site, req.ctx.baseUrl.startsWith('https:'));
    data.meta = metaResponse(this.view.registeredMeta(), batch.meta.get(comment.id) ?? {});
    return this.view.respond(data, req, this.links(comment, post, batch, req), comment);
  }

  /** `get_comment_link()` with `/%postname%/` permalinks and comments not paged. */
  private commentLink(comment: CommentEntity, post: PostEntity | null, batch: CommentBatch, site: SiteFacts): string {
    const type = post ? this.deps.content.postType(post.type) : undefined;
    const base =
      post && type ? permalink(post, type, site.home, batch.parents, !PLAIN_LINK_STATUSES.includes(post.status)) : '';
    return `${base}#comment-${comment.id}`;
  }

  private links(comment: CommentEntity, post: PostEntity | null, batch: CommentBatch, req: RestRequest) {
    const ns = this.view.namespace;
    const url = (path: string) => req.ctx.restUrl(path);
    const links = linkMap({
      self: { href: url(`${ns}/${this.view.restBase}/${comment.id}`) },
      collection: { href: url(`${ns}/${this.view.restBase}`) },
    });
    if (comment.userId)
      links.set('author', [{ href: url(`${ns}/users/${comment.userId}`), attributes: { embeddable: true } }]);
    const type = post ? this.deps.content.postType(post.type) : undefined;
    if (post && type) {
      const base = type.rest_base || type.name;
      links.set('up', [
        {
          href: url(`${type.rest_namespace}/${base}/${post.id}`),
          attributes: { embeddable: true, post_type: post.type },
        },
      ]);
    }
    if (comment.parent)
      links.set('in-reply-to', [
        { href: url(`${ns}/${this.view.restBase}/${comment.parent}`), attributes: { embeddable: true } },
      ]);
    if (batch.withChildren.has(comment.id))
      links.set('children', [
        {
          href: url(`${ns}/${this.view.restBase}?parent=${comment.id}`),
          attributes: req.ctx.wire.dialect.comments.embeddableChildren ? { embeddable: true } : {},
        },
      ]);
    return links;
  }
}
