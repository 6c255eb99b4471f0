import { INestApplicationContext } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { PostEntity } from '../core/database/entities/post.entity';
import { PostMetaEntity } from '../core/database/entities/post-meta.entity';
import { TermRelationshipEntity } from '../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../core/database/entities/term.entity';
import { writeTransaction } from '../core/database/write-transaction';
import { recordEvent } from '../core/webhooks/outbox';
import { postEvents } from '../core/webhooks/webhook-events';
import { textOf } from '../core/formatting/php-serialize';
import { OptionsService } from '../core/options/options.service';
import { SiteClock } from '../core/options/site-clock';
import { ContentRegistry } from '../core/registry/content-registry.service';
import { buildPostType, PostTypeObject } from '../core/registry/content-types';
import { MetaOp } from '../core/rest/meta-fields';
import { ALLOWED_MIME_TYPES, mimeOfName, SCRIPTABLE_MIME_TYPES } from '../resources/media/file-names';
import { PostFields, PostWriter, WriteContext } from '../resources/posts/post-writer.service';
import { CliError } from './command-line';
import { FetchBounds, WxrAttachments } from './wxr-attachments';
import { AuthorMode, WxrAuthors } from './wxr-authors';
import { WxrComments } from './wxr-comments';
import { message, metaOps, WxrImportContext } from './wxr-import-support';
import { WxrMenus } from './wxr-menus';
import { readWxr, WxrItem } from './wxr-reader';
import { ImportReport } from './wxr-report';
import { WxrTerms } from './wxr-terms';

/** Statuses the WordPress importer does not import. */
const SKIPPED_STATUSES = ['auto-draft'];
/** Types left out: revisions follow their post, and WordPress's export leaves them out too. */
const SKIPPED_TYPES = ['revision'];
/** Meta an attachment gets anew from its stored file (the file's values describe the old site's file). */
const FILE_META = ['_wp_attached_file', '_wp_attachment_metadata'];

/** How an import runs (the command's options). */
export interface ImportSettings {
  /** Decide and report, write nothing (`--dry-run`). */
  dryRun: boolean;
  /** What becomes of the file's authors (`--authors`). */
  authors: AuthorMode;
  /** Download attachments within these bounds (`--fetch-attachments`), or keep them by reference (`null`). */
  fetch: FetchBounds | null;
}

export const DEFAULT_IMPORT_SETTINGS: ImportSettings = { dryRun: false, authors: { kind: 'create' }, fetch: null };

/**
 * Imports a WXR file with the semantics of WordPress's importer (`wordpress-importer`), through the product's services
 * (users, terms, posts, comments, media), each record in its own transaction:
 * - posts of any type are matched by title, date and type (`post_exists()`) and keep the file's id where it is free
 *   (`import_id`);
 * - authors are created, mapped, or given to the administrator ({@link WxrAuthors});
 * - terms of any taxonomy with their meta ({@link WxrTerms}); comments with threads, types and meta ({@link WxrComments});
 * - sticky posts, formats, featured images (`_thumbnail_id` remapped), parents, menus, menu items
 *   (`process_menu_item()`) and menu locations ({@link WxrMenus});
 * - attachments downloaded and stored with their sizes, and the old URLs in content rewritten
 *   (`backfill_attachment_urls()`, {@link WxrAttachments}), or kept by reference.
 * Every record ends up in the {@link ImportReport}: created, skipped (why) or failed (why). A second run creates nothing.
 */
export class WxrImporter {
  readonly report: ImportReport;

  private readonly ctx: WxrImportContext;
  private readonly content: ContentRegistry;
  private readonly writer: PostWriter;
  private readonly options: OptionsService;
  private readonly authorMap: WxrAuthors;
  private readonly termMap: WxrTerms;
  private readonly commentWriter: WxrComments;
  private readonly menus: WxrMenus;
  private readonly attachments: WxrAttachments | null;

  /** WXR post id → post id here. */
  private readonly postIds = new Map<number, number>();
  /** Posts created by this run → their post type (their content is rewritten once attachments are in). */
  private readonly createdTypes = new Map<number, string>();
  /** In a dry run, the posts that would be created (`post_exists()` keys). */
  private readonly planned = new Set<string>();
  /** Posts whose WXR parent was not imported yet: new id → WXR parent id. */
  private readonly orphans = new Map<number, number>();
  /** Featured images to remap at the end: new post id → WXR attachment id. */
  private readonly thumbnails = new Map<number, number>();
  /** Downloads and stores under way. */
  private readonly pending: Promise<void>[] = [];
  private context: WriteContext | null = null;

  constructor(
    app: INestApplicationContext,
    settings: ImportSettings = DEFAULT_IMPORT_SETTINGS,
    onLine: (line: string) => void = () => undefined,
  ) {
    this.report = new ImportReport(onLine, settings.dryRun);
    this.ctx = new WxrImportContext(app, this.report);
    this.content = this.ctx.get(ContentRegistry);
    this.writer = this.ctx.get(PostWriter);
    this.options = this.ctx.get(OptionsService);
    this.authorMap = new WxrAuthors(this.ctx, settings.authors);
    this.termMap = new WxrTerms(this.ctx);
    this.commentWriter = new WxrComments(this.ctx, this.authorMap);
    this.menus = new WxrMenus(this.ctx, this.termMap);
    this.attachments = settings.fetch ? new WxrAttachments(this.ctx, settings.fetch) : null;
  }

  get ok(): boolean {
    return this.report.ok;
  }

  /** Checks the settings against the site before anything is read or written (the users an author map names). */
  async check(): Promise<void> {
    await this.authorMap.checkMap();
  }

  /** Reads and imports the file (after {@link check}); `onBytes` follows the reading. */
  async run(file: string, onBytes?: (bytes: number) => void): Promise<void> {
    for await (const record of readWxr(file, onBytes)) {
      if (record.kind === 'site') {
        if (record.version && !/^1\.[0-2]$/.test(record.version))
          throw new CliError(`Unsupported WXR version ${record.version} (1.0 to 1.2 are read).`);
      } else if (record.kind === 'author') await this.authorMap.importAuthor(record.author);
      else if (record.kind === 'term') await this.termMap.importTerm(record.term);
      else if (record.kind === 'menuLocation') this.menus.addLocation(record.location, record.menu);
      else await this.importItem(record.item);
    }
    await Promise.all(this.pending);
    if (this.ctx.dryRun) {
      await this.menus.assignLocations();
      return;
    }
    await this.remap();
    await this.menus.remapItems(this.postIds);
    await this.menus.assignLocations();
    await this.backfillUrls();
    this.options.invalidate();
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
        home: textOf(o.home ?? o.siteurl).replace(/\/+$/, ''),
        defaultCategory: Number(o.default_category ?? 0),
        defaultCommentStatus: textOf(o.default_comment_status ?? 'open'),
        defaultPingStatus: textOf(o.default_ping_status ?? 'open'),
        permalinkStructure: textOf(o.permalink_structure),
      };
    }
    return this.context;
  }

  /**
   * The post already here that this item is (`post_exists()`: same title, date and type). A menu item, whose title
   * is often empty and whose date its whole menu shares, must also have the same order in the same menu.
   */
  private async existing(item: WxrItem): Promise<number | undefined> {
    const rows = await this.ctx.dataSource.getRepository(PostEntity).find({
      select: { id: true, menuOrder: true },
      where: { title: item.title, date: item.date, type: item.type },
      order: { id: 'ASC' },
    });
    let ids = rows.map((r) => Number(r.id));
    if (item.type === 'nav_menu_item') {
      ids = rows.filter((r) => Number(r.menuOrder) === item.menuOrder).map((r) => Number(r.id));
      const menu = item.terms.find((t) => t.taxonomy === 'nav_menu');
      if (menu && ids.length) {
        const inMenu = await this.ctx.dataSource
          .getRepository(TermRelationshipEntity)
          .createQueryBuilder('r')
          .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
          .innerJoin(TermEntity, 't', 't.id = tt.termId')
          .select('r.objectId', 'id')
          .where('r.objectId IN (:...ids)', { ids })
          .andWhere('tt.taxonomy = :taxonomy AND t.slug = :slug', { taxonomy: 'nav_menu', slug: menu.slug })
          .getRawMany<{ id: number }>()
          .catch(() => null);
        if (inMenu) ids = ids.filter((id) => inMenu.some((r) => Number(r.id) === id));
      }
    }
    return ids[0];
  }

  private plannedKey(item: WxrItem): string {
    const menu = item.terms.find((t) => t.taxonomy === 'nav_menu')?.slug ?? '';
    return JSON.stringify([
      item.type,
      item.title,
      item.date,
      item.type === 'nav_menu_item' ? [item.menuOrder, menu] : 0,
    ]);
  }

  private labelOf(item: WxrItem): string {
    return `"${item.title || item.name || item.id}"`;
  }

  private async importItem(item: WxrItem): Promise<void> {
    const label = this.labelOf(item);
    const fileId = item.id || undefined;
    if (SKIPPED_TYPES.includes(item.type)) {
      this.report.skipped(item.type, label, 'revisions are not imported', { fileId });
      return;
    }
    if (SKIPPED_STATUSES.includes(item.status)) {
      this.report.skipped(item.type, label, `the status ${item.status} is not imported`, { fileId });
      return;
    }
    let postId: number | undefined;
    try {
      postId = await this.existing(item);
      if (postId === undefined && this.planned.has(this.plannedKey(item))) {
        // One the file has already (a dry run, or an attachment still downloading): a real run finds it there.
        this.report.skipped(item.type, label, 'already there (same title, date and type)', { fileId });
        return;
      }
      if (postId !== undefined) {
        this.report.skipped(item.type, label, 'already there (same title, date and type)', { fileId, id: postId });
      } else if (item.type === 'attachment' && this.attachments) {
        const attachments = this.attachments;
        this.planned.add(this.plannedKey(item));
        this.pending.push(attachments.limited(() => this.fetchAttachment(item, attachments)));
        return;
      } else {
        postId = await this.createPost(item);
      }
      if (item.id) this.postIds.set(item.id, postId);
    } catch (error) {
      this.report.failed(item.type, label, message(error), { fileId });
      this.commentWriter.failAll(item.comments, `its ${item.type} ${label} was not imported`);
      return;
    }
    await this.commentWriter.importComments(postId, item.comments);
  }

  /** The row's fields, relations and meta of an item (its terms created when missing). */
  private async prepare(
    item: WxrItem,
  ): Promise<{ fields: PostFields & { importId?: number }; terms: Map<string, number[]>; meta: WxrItem['meta'] }> {
    const terms = new Map<string, number[]>();
    for (const t of item.terms) {
      const id = await this.termMap.termId(t.taxonomy, t.slug, { name: t.name });
      terms.set(t.taxonomy, [...(terms.get(t.taxonomy) ?? []), id]);
    }
    const parent = item.parent ? this.postIds.get(item.parent) : 0;
    let meta = item.meta.filter((m) => m.key !== '_edit_lock');
    const thumbnailMeta = meta.find((m) => m.key === '_thumbnail_id');
    if (thumbnailMeta) {
      const mapped = this.postIds.get(Number(thumbnailMeta.value));
      meta = meta.map((m) => (m === thumbnailMeta && mapped ? { key: m.key, value: String(mapped) } : m));
    }
    const fields: PostFields & { importId?: number } = {
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
      // `import_id`: the file's id, where no post here has it.
      importId: item.id || undefined,
    };
    return { fields, terms, meta };
  }

  /** Notes what a created post still points at by its file id, and reports it. */
  private created(item: WxrItem, id: number, note?: string): void {
    const fileId = item.id || undefined;
    if (id > 0) {
      this.createdTypes.set(id, item.type);
      if (item.parent && !this.postIds.has(item.parent)) this.orphans.set(id, item.parent);
      const thumbnail = Number(item.meta.find((m) => m.key === '_thumbnail_id')?.value ?? 0);
      if (thumbnail && !this.postIds.has(thumbnail)) this.thumbnails.set(id, thumbnail);
      if (item.type === 'nav_menu_item') this.menus.addItem(id, this.labelOf(item), item.meta);
    }
    const moved = id > 0 && fileId && id !== fileId ? `the id ${fileId} was taken: created as ${id}` : '';
    this.report.created(item.type, this.labelOf(item), { fileId, id }, [moved, note].filter(Boolean).join('; '));
  }

  /** In a dry run, what a real run would say of an id the file gives that a post here has. */
  private async takenNote(item: WxrItem): Promise<string> {
    if (!item.id || !(await this.ctx.dataSource.getRepository(PostEntity).existsBy({ id: item.id }))) return '';
    return `the id ${item.id} is taken: would get a new id`;
  }

  private async createPost(item: WxrItem): Promise<number> {
    const type = this.postType(item.type);
    const { fields, terms, meta } = await this.prepare(item);
    let note: string | undefined;
    if (item.type === 'attachment') {
      // By reference: no download. The attachment keeps its GUID and its file path under the upload directory.
      const url = item.attachmentUrl || item.guid;
      fields.mimeType =
        (url && mimeOfName(url.split(/[?#]/)[0], { ...ALLOWED_MIME_TYPES, ...SCRIPTABLE_MIME_TYPES })?.mime) ||
        'application/octet-stream';
      if (!meta.some((m) => m.key === '_wp_attached_file') && url) {
        const match = /\/uploads\/(.+)$/.exec(url.split(/[?#]/)[0]);
        meta.push({ key: '_wp_attached_file', value: match ? decodeURIComponent(match[1]) : url });
      }
      note = 'by reference, not downloaded (--fetch-attachments downloads it)';
    }
    fields.guid = item.guid || (item.type === 'attachment' ? item.attachmentUrl : '') || undefined;
    if (this.ctx.dryRun) {
      this.planned.add(this.plannedKey(item));
      const id = this.ctx.fakeId();
      this.created(item, id, [await this.takenNote(item), note].filter(Boolean).join('; '));
      return id;
    }
    const post = await this.writer.create(
      type,
      fields,
      { sticky: item.type === 'post' ? item.sticky : undefined, terms, meta: metaOps(meta) },
      await this.writeContext(),
    );
    this.created(item, Number(post.id), note);
    return Number(post.id);
  }

  /** Downloads an attachment's file and stores it with its row (`process_attachment()`), then its comments. */
  private async fetchAttachment(item: WxrItem, attachments: WxrAttachments): Promise<void> {
    const label = this.labelOf(item);
    const url = item.attachmentUrl || item.guid;
    let id: number;
    try {
      if (!url) throw new Error('it has no attachment URL');
      if (this.ctx.dryRun) {
        id = this.ctx.fakeId();
        const taken = await this.takenNote(item);
        this.created(item, id, [taken, `would be downloaded from ${url}`].filter(Boolean).join('; '));
      } else {
        const file = await attachments.download(url).catch((error) => {
          throw new Error(`cannot download ${url}: ${message(error)}`);
        });
        try {
          const { fields, terms, meta } = await this.prepare(item);
          const ctx = await this.writeContext();
          const kept = metaOps(meta.filter((m) => !FILE_META.includes(m.key)));
          const post = await attachments.store(item, file, ctx.home, (guid, mime, fileMeta: MetaOp[]) =>
            this.writer.create(
              this.postType('attachment'),
              { ...fields, guid, mimeType: mime },
              { terms, meta: [...kept, ...fileMeta] },
              ctx,
            ),
          );
          id = Number(post.id);
          attachments.urls.remember(url, post.guid);
          if (item.guid && item.guid !== url) attachments.urls.remember(item.guid, post.guid);
          this.created(item, id, `downloaded from ${url}`);
        } finally {
          await attachments.discard(file);
        }
      }
      if (item.id) this.postIds.set(item.id, id);
    } catch (error) {
      this.report.failed('attachment', label, message(error), { fileId: item.id || undefined });
      this.commentWriter.failAll(item.comments, `its attachment ${label} was not imported`);
      return;
    }
    await this.commentWriter.importComments(id, item.comments);
  }

  // --- after the last item: parents, featured images and URLs of files that came later in the file ---

  /**
   * A change to a post this import created (its parent, featured image or URLs, known only later in the file), with
   * its `post.updated` (or `media.updated`) webhook event in the same transaction: its `created` event may already
   * have been delivered with the post as it was.
   */
  private async fixUp(id: number, write: (em: EntityManager) => Promise<unknown>): Promise<void> {
    await writeTransaction(this.ctx.dataSource, async (em) => {
      await write(em);
      await recordEvent(em, ...postEvents(this.createdTypes.get(id)!, id, 'updated'));
    });
  }

  private async remap(): Promise<void> {
    for (const [id, wxrParent] of this.orphans) {
      const parent = this.postIds.get(wxrParent);
      if (parent) await this.fixUp(id, (em) => em.getRepository(PostEntity).update({ id }, { parent }));
    }
    for (const [id, wxrThumbnail] of this.thumbnails) {
      const thumbnail = this.postIds.get(wxrThumbnail);
      if (thumbnail) {
        await this.fixUp(id, (em) =>
          em.getRepository(PostMetaEntity).update({ postId: id, key: '_thumbnail_id' }, { value: String(thumbnail) }),
        );
      } else this.report.note(`the featured image ${wxrThumbnail} of post ${id} is not in the file.`);
    }
  }

  /**
   * Rewrites the old attachment URLs in the content and excerpt of the posts created, and in their `enclosure` meta
   * (podcast files), as `backfill_attachment_urls()` does (which rewrites every post of the site; here only those of
   * the import are touched).
   */
  private async backfillUrls(): Promise<void> {
    const urls = this.attachments?.urls;
    if (!urls?.size) return;
    const created = [...this.createdTypes.keys()];
    for (let at = 0; at < created.length; at += 200) {
      const ids = created.slice(at, at + 200);
      const rows = await this.ctx.dataSource.getRepository(PostEntity).find({
        select: { id: true, content: true, excerpt: true },
        where: { id: In(ids) },
      });
      const enclosures = new Map<number, PostMetaEntity[]>();
      for (const meta of await this.ctx.dataSource.getRepository(PostMetaEntity).find({
        select: { id: true, postId: true, value: true },
        where: { postId: In(ids), key: 'enclosure' },
      }))
        enclosures.set(meta.postId, [...(enclosures.get(meta.postId) ?? []), meta]);
      for (const row of rows) {
        const content = urls.rewrite(row.content);
        const excerpt = urls.rewrite(row.excerpt);
        const metas = (enclosures.get(row.id) ?? []).flatMap((meta) => {
          const value = urls.rewrite(meta.value ?? '');
          return value === (meta.value ?? '') ? [] : [{ id: meta.id, value }];
        });
        if (content === row.content && excerpt === row.excerpt && !metas.length) continue;
        // One transaction and one post.updated per post: its text and its enclosures together.
        await this.fixUp(row.id, async (em) => {
          if (content !== row.content || excerpt !== row.excerpt)
            await em.getRepository(PostEntity).update({ id: row.id }, { content, excerpt });
          for (const meta of metas)
            await em.getRepository(PostMetaEntity).update({ id: meta.id }, { value: meta.value });
        });
      }
    }
  }
}
