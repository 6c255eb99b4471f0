import { INestApplicationContext } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { UserAccountsService } from '../core/auth/user-accounts.service';
import { CMS_DATA_SOURCE } from '../core/database/cms-data-source';
import { CommentEntity } from '../core/database/entities/comment.entity';
import { PostEntity } from '../core/database/entities/post.entity';
import { PostMetaEntity } from '../core/database/entities/post-meta.entity';
import { UserEntity } from '../core/database/entities/user.entity';
import { UserMetaEntity } from '../core/database/entities/user-meta.entity';
import { TablePrefix } from '../core/database/table-prefix';
import { writeTransaction } from '../core/database/write-transaction';
import { OptionsService } from '../core/options/options.service';
import { SiteClock } from '../core/options/site-clock';
import { ContentRegistry } from '../core/registry/content-registry.service';
import { buildPostType, PostTypeObject } from '../core/registry/content-types';
import { MetaOp } from '../core/rest/meta-fields';
import { CommentsService } from '../resources/comments/comments.service';
import { mimeOfName, ALLOWED_MIME_TYPES, SCRIPTABLE_MIME_TYPES } from '../resources/media/file-names';
import { termIdsBySlug } from '../resources/posts/post-terms';
import { PostWriter, WriteContext } from '../resources/posts/post-writer.service';
import { TermsService } from '../resources/terms/terms.service';
import { CliError } from './command-line';
import { readWxr, WxrAuthor, WxrComment, WxrItem, WxrMeta, WxrTerm } from './wxr-reader';
import { textOf } from '../core/formatting/php-serialize';

/** Created / skipped / failed counts of one kind of record. */
class Tally {
  created = 0;
  skipped = 0;
  failed = 0;
  line(label: string): string {
    return `${label}: ${this.created} created, ${this.skipped} skipped, ${this.failed} failed`;
  }
}

/** Statuses the WordPress importer does not import. */
const SKIPPED_STATUSES = ['auto-draft'];
/** Types left out: revisions follow their post, and WordPress's export leaves them out too. */
const SKIPPED_TYPES = ['revision'];

const get = <T>(app: INestApplicationContext, token: unknown): T => app.get<T>(token as never, { strict: false });
const message = (error: unknown) => (error as Error)?.message ?? String(error);

/**
 * Imports a WXR file the way WordPress's importer does, through the product's services (users, terms, posts,
 * comments), each record in its own transaction. Re-running it creates nothing: posts are matched by type and
 * GUID, terms by taxonomy and slug, authors by login, comments by post, author and date. Parents, featured
 * images and comment threads are remapped to the new ids. Returns whether nothing failed.
 */
export class WxrImporter {
  readonly authors = new Tally();
  readonly terms = new Tally();
  readonly posts = new Tally();
  readonly comments = new Tally();

  private readonly dataSource: DataSource;
  private readonly accounts: UserAccountsService;
  private readonly content: ContentRegistry;
  private readonly writer: PostWriter;
  private readonly termsService: TermsService;
  private readonly commentsService: CommentsService;
  private readonly options: OptionsService;

  /** WXR login → user id here. */
  private readonly userByLogin = new Map<string, number>();
  /** WXR author id → user id here. */
  private readonly userById = new Map<number, number>();
  /** WXR post id → post id here. */
  private readonly postIds = new Map<number, number>();
  /** Existing posts by `type guid`. */
  private guids: Map<string, number> | null = null;
  /** Posts whose WXR parent was not imported yet: new id → WXR parent id. */
  private readonly orphans = new Map<number, number>();
  /** Featured images to remap at the end: new post id → WXR attachment id. */
  private readonly thumbnails = new Map<number, number>();
  /** WXR term id → term id here (terms of the channel). */
  private readonly termIds = new Map<number, number>();
  /** Menu items created, whose object and parent ids are remapped at the end. */
  private readonly menuItems: { id: number; label: string; meta: Map<string, string> }[] = [];
  private defaultAuthor: number | null = null;
  private context: WriteContext | null = null;

  constructor(
    app: INestApplicationContext,
    private readonly report: (line: string) => void,
  ) {
    this.dataSource = get(app, CMS_DATA_SOURCE);
    this.accounts = get(app, UserAccountsService);
    this.content = get(app, ContentRegistry);
    this.writer = get(app, PostWriter);
    this.termsService = get(app, TermsService);
    this.commentsService = get(app, CommentsService);
    this.options = get(app, OptionsService);
    this.prefix = get<TablePrefix>(app, TablePrefix).value;
  }

  private readonly prefix: string;

  get ok(): boolean {
    return !this.authors.failed && !this.terms.failed && !this.posts.failed && !this.comments.failed;
  }

  summary(): string[] {
    return [
      this.authors.line('Authors'),
      this.terms.line('Terms'),
      this.posts.line('Posts'),
      this.comments.line('Comments'),
    ];
  }

  /** Reads and imports the file; `onBytes` follows the reading. */
  async run(file: string, onBytes?: (bytes: number) => void): Promise<void> {
    for await (const record of readWxr(file, onBytes)) {
      if (record.kind === 'site') {
        if (record.version && !/^1\.[0-2]$/.test(record.version))
          throw new CliError(`Unsupported WXR version ${record.version} (1.0 to 1.2 are read).`);
      } else if (record.kind === 'author') await this.importAuthor(record.author);
      else if (record.kind === 'term') await this.importTerm(record.term);
      else await this.importItem(record.item);
    }
    await this.remap();
  }

  // --- authors ---

  private async importAuthor(author: WxrAuthor): Promise<void> {
    const login = author.login;
    try {
      const existing = await this.accounts.findUserByLogin(login);
      if (existing) {
        this.remember(author, Number(existing.id));
        this.authors.skipped++;
        return;
      }
      const user = await this.accounts.createUser({
        login,
        email: author.email || `${login}@localhost.localdomain`,
        displayName: author.displayName || undefined,
        firstName: author.firstName || undefined,
        lastName: author.lastName || undefined,
      });
      this.remember(author, Number(user.id));
      this.authors.created++;
    } catch (error) {
      this.authors.failed++;
      this.report(`Failed: author "${login}": ${message(error)} (their content goes to the first administrator)`);
    }
  }

  private remember(author: WxrAuthor, userId: number): void {
    this.userByLogin.set(author.login.toLowerCase(), userId);
    if (author.id) this.userById.set(author.id, userId);
  }

  /** The first administrator (lowest id), for content whose author could not be matched; 0 when none. */
  private async fallbackAuthor(): Promise<number> {
    if (this.defaultAuthor === null) {
      const row = await this.dataSource
        .getRepository(UserMetaEntity)
        .createQueryBuilder('m')
        .innerJoin(UserEntity, 'u', 'u.id = m.userId')
        .select('m.userId', 'id')
        .where('m.key = :key', { key: `${this.prefix}capabilities` })
        .andWhere('m.value LIKE :admin', { admin: '%"administrator"%' })
        .orderBy('m.userId', 'ASC')
        .getRawOne<{ id: number }>();
      this.defaultAuthor = row ? Number(row.id) : 0;
    }
    return this.defaultAuthor;
  }

  private async authorOf(login: string): Promise<number> {
    const known = this.userByLogin.get(login.toLowerCase());
    if (known !== undefined) return known;
    // WXR 1.0 has no author list: creators are matched by login among existing users.
    const user = login ? await this.accounts.findUserByLogin(login) : null;
    const id = user ? Number(user.id) : await this.fallbackAuthor();
    this.userByLogin.set(login.toLowerCase(), id);
    return id;
  }

  // --- terms ---

  private async importTerm(term: WxrTerm): Promise<void> {
    try {
      if (!term.taxonomy || !term.slug) throw new Error('a term needs a taxonomy and a slug');
      const id = await this.termId(term.taxonomy, term.slug, term);
      if (term.id) this.termIds.set(term.id, id);
    } catch (error) {
      this.terms.failed++;
      this.report(`Failed: term "${term.name || term.slug}" (${term.taxonomy || 'no taxonomy'}): ${message(error)}`);
    }
  }

  /** The id of the term of `taxonomy` with `slug`, created (from `term`, or named by `name`) when missing. */
  private async termId(taxonomy: string, slug: string, term: Partial<WxrTerm> = {}): Promise<number> {
    const [found] = await termIdsBySlug(this.dataSource, taxonomy, [slug]);
    if (found !== undefined) {
      if (term.meta) this.terms.skipped++;
      return found;
    }
    const registered = this.content.taxonomy(taxonomy);
    const hierarchical = registered ? registered.hierarchical : true;
    let parent = 0;
    if (term.parent && hierarchical) {
      [parent = 0] = await termIdsBySlug(this.dataSource, taxonomy, [term.parent]);
      if (!parent)
        this.report(
          `Note: parent "${term.parent}" of term "${slug}" (${taxonomy}) is not in the file or the site; imported without it.`,
        );
    }
    const meta = metaOps(term.meta ?? []);
    const id = await this.termsService.create(
      taxonomy,
      hierarchical,
      { name: term.name || slug, slug, description: term.description ?? '', parent, slugGiven: true },
      meta,
    );
    this.terms.created++;
    return id;
  }

  // --- posts ---

  private postType(name: string): PostTypeObject {
    // Types no extension registered here are still stored (a host that registers them serves them).
    return (
      this.content.postType(name) ??
      buildPostType(name, {
        public: true,
        supports: ['title', 'editor', 'author', 'excerpt', 'comments', 'custom-fields'],
      })
    );
  }

  private async writeContext(): Promise<WriteContext> {
    if (!this.context) {
      const o = await this.options.getMany([
        'timezone_string',
        'gmt_offset',
        'home',
        'siteurl',
        'default_category',
        'default_comment_status',
        'default_ping_status',
        'permalink_structure',
      ]);
      this.context = {
        actor: await this.fallbackAuthor(),
        clock: SiteClock.fromOptions(o),
        canPublish: true,
        templates: {},
        home: textOf(o.home ?? o.siteurl).replace(/\/+$/, ''),
        defaultCategory: Number(o.default_category ?? 0),
        defaultCommentStatus: textOf(o.default_comment_status ?? 'open'),
        defaultPingStatus: textOf(o.default_ping_status ?? 'open'),
        permalinkStructure: textOf(o.permalink_structure),
      };
    }
    return this.context;
  }

  /** The existing post of this type and GUID (read once for the whole site, then kept up to date). */
  private async existing(item: WxrItem): Promise<number | undefined> {
    if (!this.guids) {
      this.guids = new Map();
      const rows = await this.dataSource
        .getRepository(PostEntity)
        .find({ select: { id: true, type: true, guid: true }, where: { type: In(await this.types()) } });
      for (const row of rows) if (row.guid) this.guids.set(`${row.type} ${row.guid}`, Number(row.id));
    }
    const guid = guidOf(item);
    if (guid) return this.guids.get(`${item.type} ${guid}`);
    // No GUID: WordPress's post_exists() rule (title, date and type).
    const row = await this.dataSource
      .getRepository(PostEntity)
      .findOne({ select: { id: true }, where: { title: item.title, date: item.date, type: item.type } });
    return row ? Number(row.id) : undefined;
  }

  private async types(): Promise<string[]> {
    const rows = await this.dataSource
      .getRepository(PostEntity)
      .createQueryBuilder('p')
      .select('DISTINCT p.type', 'type')
      .getRawMany<{ type: string }>();
    return rows.map((r) => r.type).filter((t) => !SKIPPED_TYPES.includes(t));
  }

  private async importItem(item: WxrItem): Promise<void> {
    const label = `${item.type} "${item.title || item.name || item.id}" (WXR id ${item.id})`;
    if (SKIPPED_STATUSES.includes(item.status) || SKIPPED_TYPES.includes(item.type)) {
      this.posts.skipped++;
      return;
    }
    let postId: number | undefined;
    try {
      postId = await this.existing(item);
      if (postId !== undefined) {
        this.posts.skipped++;
      } else {
        postId = await this.createPost(item);
        this.posts.created++;
      }
      if (item.id) this.postIds.set(item.id, postId);
    } catch (error) {
      this.posts.failed++;
      this.report(`Failed: ${label}: ${message(error)}`);
      if (item.comments.length) {
        this.comments.failed += item.comments.length;
        this.report(`Failed: the ${item.comments.length} comment(s) of ${label}: their post was not imported.`);
      }
      return;
    }
    await this.importComments(postId, item.comments);
  }

  private async createPost(item: WxrItem): Promise<number> {
    const type = this.postType(item.type);
    const ctx = await this.writeContext();
    const terms = new Map<string, number[]>();
    for (const t of item.terms) {
      const id = await this.termId(t.taxonomy, t.slug, { name: t.name });
      terms.set(t.taxonomy, [...(terms.get(t.taxonomy) ?? []), id]);
    }
    const parent = item.parent ? this.postIds.get(item.parent) : 0;
    let meta = item.meta.filter((m) => m.key !== '_edit_lock');
    let thumbnail: number | undefined;
    const thumbnailMeta = meta.find((m) => m.key === '_thumbnail_id');
    if (thumbnailMeta) {
      thumbnail = Number(thumbnailMeta.value);
      const mapped = this.postIds.get(thumbnail);
      meta = meta.map((m) => (m === thumbnailMeta && mapped ? { key: m.key, value: String(mapped) } : m));
    }
    let mimeType: string | undefined;
    const guid = guidOf(item) || undefined;
    if (item.type === 'attachment') {
      // By reference: no download. The attachment keeps its GUID and its file path under the upload directory.
      const url = item.attachmentUrl || item.guid;
      mimeType =
        (url && mimeOfName(url.split(/[?#]/)[0], { ...ALLOWED_MIME_TYPES, ...SCRIPTABLE_MIME_TYPES })?.mime) ||
        'application/octet-stream';
      if (!meta.some((m) => m.key === '_wp_attached_file') && url) {
        const match = /\/uploads\/(.+)$/.exec(url.split(/[?#]/)[0]);
        meta.push({ key: '_wp_attached_file', value: match ? decodeURIComponent(match[1]) : url });
      }
    }
    const post = await this.writer.create(
      type,
      {
        title: item.title,
        content: item.content,
        excerpt: item.excerpt,
        status: item.status || 'publish',
        date: item.date ? [item.date, item.dateGmt] : undefined,
        name: item.name,
        author: await this.authorOf(item.creator),
        password: item.password,
        parent: parent ?? 0,
        menuOrder: item.menuOrder,
        commentStatus: item.commentStatus || undefined,
        pingStatus: item.pingStatus || undefined,
        mimeType,
        guid,
      },
      { sticky: item.type === 'post' ? item.sticky : undefined, terms, meta: metaOps(meta) },
      ctx,
    );
    const id = Number(post.id);
    if (item.parent && !parent) this.orphans.set(id, item.parent);
    if (thumbnail && !this.postIds.has(thumbnail)) this.thumbnails.set(id, thumbnail);
    if (item.type === 'nav_menu_item')
      this.menuItems.push({
        id,
        label: `menu item "${item.title || item.name || item.id}"`,
        meta: new Map(item.meta.map((m) => [m.key, m.value])),
      });
    this.guids?.set(`${item.type} ${post.guid}`, id);
    return id;
  }

  // --- comments ---

  /** Comments of one post, parents first (a reply whose parent comes later waits for it). */
  private async importComments(postId: number, comments: WxrComment[]): Promise<void> {
    const ids = new Map<number, number>();
    let pending = comments;
    while (pending.length) {
      const waiting: WxrComment[] = [];
      for (const comment of pending) {
        const inFile = comment.parent && pending.some((c) => c.id === comment.parent);
        if (comment.parent && !ids.has(comment.parent) && inFile) waiting.push(comment);
        else await this.importComment(postId, comment, ids);
      }
      // Parents that never come (a loop) leave their replies at the top level.
      if (waiting.length === pending.length) {
        for (const comment of waiting) await this.importComment(postId, { ...comment, parent: 0 }, ids);
        break;
      }
      pending = waiting;
    }
  }

  private async importComment(postId: number, c: WxrComment, ids: Map<number, number>): Promise<void> {
    try {
      const existing = await this.dataSource
        .getRepository(CommentEntity)
        .findOne({ select: { id: true }, where: { postId, author: c.author, date: c.date } });
      if (existing) {
        ids.set(c.id, Number(existing.id));
        this.comments.skipped++;
        return;
      }
      const id = await this.commentsService.create(
        {
          postId,
          author: c.author,
          authorEmail: c.authorEmail,
          authorUrl: c.authorUrl,
          authorIp: c.authorIp,
          date: c.date,
          dateGmt: c.dateGmt || c.date,
          content: c.content,
          karma: 0,
          approved: c.approved || '1',
          agent: '',
          type: c.type || 'comment',
          parent: (c.parent && ids.get(c.parent)) || 0,
          userId: (c.userId && this.userById.get(c.userId)) || 0,
        },
        undefined,
        metaOps(c.meta),
      );
      ids.set(c.id, id);
      this.comments.created++;
    } catch (error) {
      this.comments.failed++;
      this.report(`Failed: comment ${c.id} by "${c.author}": ${message(error)}`);
    }
  }

  // --- after the last item: parents and featured images that came later in the file ---

  private async remap(): Promise<void> {
    for (const [id, wxrParent] of this.orphans) {
      const parent = this.postIds.get(wxrParent);
      if (parent)
        await writeTransaction(this.dataSource, (em) => em.getRepository(PostEntity).update({ id }, { parent }));
    }
    for (const [id, wxrThumbnail] of this.thumbnails) {
      const thumbnail = this.postIds.get(wxrThumbnail);
      if (thumbnail) {
        await writeTransaction(this.dataSource, (em) =>
          em.getRepository(PostMetaEntity).update({ postId: id, key: '_thumbnail_id' }, { value: String(thumbnail) }),
        );
      }
    }
    for (const item of this.menuItems) await this.remapMenuItem(item);
    if (this.orphans.size || this.thumbnails.size) this.options.invalidate();
  }

  /**
   * A menu item points at a post, a term or (a custom link) itself, and at its parent item, by id (the WordPress
   * importer's `process_menu_item()`): those ids are the new ones once every item of the file is in.
   */
  private async remapMenuItem(item: { id: number; label: string; meta: Map<string, string> }): Promise<void> {
    const kind = item.meta.get('_menu_item_type');
    const objectId = Number(item.meta.get('_menu_item_object_id') ?? 0);
    const parentId = Number(item.meta.get('_menu_item_menu_item_parent') ?? 0);
    const object =
      kind === 'taxonomy'
        ? this.termIds.get(objectId)
        : kind === 'post_type'
          ? this.postIds.get(objectId)
          : kind === 'custom'
            ? item.id
            : objectId;
    const parent = parentId ? (this.postIds.get(parentId) ?? 0) : 0;
    if (object === undefined)
      this.report(
        `Note: the ${kind === 'taxonomy' ? 'term' : 'post'} ${objectId} of ${item.label} is not in the file; the item still points at it.`,
      );
    const values: Array<[string, string]> = [
      ['_menu_item_object_id', String(object ?? objectId)],
      ['_menu_item_menu_item_parent', String(parent)],
    ];
    await writeTransaction(this.dataSource, async (em) => {
      for (const [key, value] of values) {
        if (item.meta.has(key) && item.meta.get(key) !== value)
          await em.getRepository(PostMetaEntity).update({ postId: item.id, key }, { value });
      }
    });
  }
}

/**
 * The GUID a post is stored (and matched) with, as in the file: for an attachment WordPress writes its file's URL
 * on the original site (`attachment_url` says where the file is now, which is where it would be downloaded from).
 */
function guidOf(item: WxrItem): string {
  return item.guid || (item.type === 'attachment' ? item.attachmentUrl : '');
}

/** Meta rows as the writes of the services: each key with its values in file order. */
function metaOps(meta: WxrMeta[]): MetaOp[] {
  const byKey = new Map<string, string[]>();
  for (const m of meta) if (m.key) byKey.set(m.key, [...(byKey.get(m.key) ?? []), m.value]);
  return [...byKey].map(([key, values]) => ({ key, action: 'multi' as const, values }));
}
