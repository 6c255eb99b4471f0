import { INestApplicationContext } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { PostEntity } from '../core/database/entities/post.entity';
import { PostMetaEntity } from '../core/database/entities/post-meta.entity';
import { writeTransaction } from '../core/database/write-transaction';
import { OptionsService } from '../core/options/options.service';
import { SiteClock } from '../core/options/site-clock';
import { ContentRegistry } from '../core/registry/content-registry.service';
import { buildPostType, PostTypeObject } from '../core/registry/content-types';
import { mimeOfName, ALLOWED_MIME_TYPES, SCRIPTABLE_MIME_TYPES } from '../resources/media/file-names';
import { PostWriter, WriteContext } from '../resources/posts/post-writer.service';
import { CliError } from './command-line';
import { WxrAuthors } from './wxr-authors';
import { WxrComments } from './wxr-comments';
import { message, metaOps, Tally, WxrImportContext } from './wxr-import-support';
import { readWxr, WxrItem } from './wxr-reader';
import { WxrTerms } from './wxr-terms';
import { textOf } from '../core/formatting/php-serialize';

/** Statuses the WordPress importer does not import. */
const SKIPPED_STATUSES = ['auto-draft'];
/** Types left out: revisions follow their post, and WordPress's export leaves them out too. */
const SKIPPED_TYPES = ['revision'];

/**
 * Imports a WXR file the way WordPress's importer does, through the product's services (users, terms, posts,
 * comments), each record in its own transaction. Re-running it creates nothing: posts are matched by type and
 * GUID, terms by taxonomy and slug, authors by login, comments by post, author and date. Parents, featured
 * images and comment threads are remapped to the new ids. Returns whether nothing failed. Authors, terms and
 * comments are matched and written by WxrAuthors, WxrTerms and WxrComments; the posts and the remapping are here.
 */
export class WxrImporter {
  readonly authors = new Tally();
  readonly terms = new Tally();
  readonly posts = new Tally();
  readonly comments = new Tally();

  private readonly dataSource: DataSource;
  private readonly content: ContentRegistry;
  private readonly writer: PostWriter;
  private readonly options: OptionsService;
  private readonly authorMap: WxrAuthors;
  private readonly termMap: WxrTerms;
  private readonly commentWriter: WxrComments;

  /** WXR post id → post id here. */
  private readonly postIds = new Map<number, number>();
  /** Existing posts by `type guid`. */
  private guids: Map<string, number> | null = null;
  /** Posts whose WXR parent was not imported yet: new id → WXR parent id. */
  private readonly orphans = new Map<number, number>();
  /** Featured images to remap at the end: new post id → WXR attachment id. */
  private readonly thumbnails = new Map<number, number>();
  /** Menu items created, whose object and parent ids are remapped at the end. */
  private readonly menuItems: { id: number; label: string; meta: Map<string, string> }[] = [];
  private context: WriteContext | null = null;

  constructor(
    app: INestApplicationContext,
    private readonly report: (line: string) => void,
  ) {
    const ctx = new WxrImportContext(app, report);
    this.dataSource = ctx.dataSource;
    this.content = ctx.get(ContentRegistry);
    this.writer = ctx.get(PostWriter);
    this.options = ctx.get(OptionsService);
    this.authorMap = new WxrAuthors(ctx, this.authors);
    this.termMap = new WxrTerms(ctx, this.terms);
    this.commentWriter = new WxrComments(ctx, this.comments, this.authorMap);
  }

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
      } else if (record.kind === 'author') await this.authorMap.importAuthor(record.author);
      else if (record.kind === 'term') await this.termMap.importTerm(record.term);
      else await this.importItem(record.item);
    }
    await this.remap();
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
        actor: await this.authorMap.fallbackAuthor(),
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
    await this.commentWriter.importComments(postId, item.comments);
  }

  private async createPost(item: WxrItem): Promise<number> {
    const type = this.postType(item.type);
    const ctx = await this.writeContext();
    const terms = new Map<string, number[]>();
    for (const t of item.terms) {
      const id = await this.termMap.termId(t.taxonomy, t.slug, { name: t.name });
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
        author: await this.authorMap.authorOf(item.creator),
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
        ? this.termMap.termOf(objectId)
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
