import type { PostReads } from '../posts';
import { PostEntity } from '../../core/database/entities/post.entity';
import { applyExcerptFilters, escAttr, escHtml, renderContent, stripAllTags } from '../../core/formatting';
import { escUrlRaw } from '../../core/formatting/esc-url';
import type { OptionsService } from '../../core/options/options.service';
import type { ContentRegistry } from '../../core/registry/content-registry.service';
import { permalink } from '../../core/rest/permalink';
import type { RestRequest } from '../../core/rest/rest-request';
import type { LinkMap } from '../../core/rest/rest-response';
import { AttachmentFacts, folderOf } from './attachment-facts';

/** What the presenter of attachments reads: the posts, the site's options, the types and the files' URLs. */
export interface AttachmentPresenterDependencies {
  readonly reads: PostReads;
  readonly options: OptionsService;
  readonly content: ContentRegistry;
  /** The URL of an uploaded file, from its path relative to the uploads root. */
  fileUrl(relativePath: string, req: RestRequest): Promise<string>;
}

/**
 * The media fields of an attachment's response (the reference's media controller's `prepare_item_for_response()`):
 * caption, description with the file prepended, `media_details` with each size's URL, `source_url` and the
 * attachment page's link; and the links an attachment does not have.
 */
export class AttachmentPresenter {
  constructor(private readonly deps: AttachmentPresenterDependencies) {}

  /** Sets the media fields of `data` (and drops the post fields attachments do not have). */
  async addFields(
    data: Record<string, unknown>,
    post: PostEntity,
    facts: AttachmentFacts,
    req: RestRequest,
  ): Promise<void> {
    if (!req.ctx.wire.dialect.posts.mediaTemplate) delete data.template;
    delete data.password;
    data.alt_text = facts.alt;
    data.caption = { raw: post.excerpt, rendered: applyExcerptFilters(post.excerpt) };
    data.description = {
      raw: post.content,
      rendered: `${await this.prependAttachment(post, facts, req)}${renderContent(post.content)}`,
    };
    data.media_type = post.mimeType.startsWith('image/') ? 'image' : 'file';
    data.mime_type = post.mimeType;
    data.media_details = await this.mediaDetails(post, facts, req);
    data.post = post.parent > 0 ? post.parent : null;
    data.source_url = facts.file ? await this.deps.fileUrl(facts.file, req) : post.guid;
    data.missing_image_sizes = [];
    data.link = await this.attachmentLink(post, req);
    // The edit context's permalink template (WordPress 5.0+, with the dialect's `editExtras`; the generated slug is
    // the posts presenter's): the attachment page under its parent's address, else the plain form.
    if ('generated_slug' in data) {
      data.permalink_template = await this.attachmentLink({ ...post, name: '%postname%' }, req, true);
      const slug = data.generated_slug;
      delete data.generated_slug;
      data.generated_slug = slug;
    }
  }

  /** Drops the links of a post an attachment has no use for: revisions, and attachments of an attachment. */
  pruneLinks(links: LinkMap): void {
    links.delete('version-history');
    links.delete('predecessor-version');
    // Attachments of an attachment do not exist.
    for (const rel of [...links.keys()]) if (rel.endsWith('attachment')) links.delete(rel);
  }

  /**
   * `get_attachment_link()` with `/%postname%/` permalinks (WordPress 6.1, attachment pages on): under its published
   * parent's address, at the site's root when unattached, else the plain `?attachment_id=` form.
   */
  private async attachmentLink(post: PostEntity, req: RestRequest, leaveName = false): Promise<string> {
    const home = String((await this.deps.options.get('home', req.ctx.baseUrl)) ?? req.ctx.baseUrl).replace(/\/+$/, '');
    const parent = post.parent > 0 ? await this.deps.reads.loader(req).load(post.parent) : null;
    const parentType = parent ? this.deps.content.postType(parent.type) : undefined;
    if (post.name && post.status === 'inherit') {
      // With the name left as `%postname%` (a template), an unattached file has the plain form.
      if (!post.parent && !leaveName) return `${home}/${post.name}/`;
      if (parent && parentType && parent.status === 'publish' && parent.name) {
        return `${permalink(parent, parentType, home, new Map(), true).replace(/\/?$/, '/')}${post.name}/`;
      }
    }
    return `${home}/?attachment_id=${post.id}`;
  }

  /**
   * WordPress's `prepend_attachment` (a `the_content` filter for attachments), followed by a line break: for an image
   * its medium-sized rendition (`wp_get_attachment_image`: dimensions, `srcset` of the sizes of the same shape,
   * `sizes`) linked to the file, for other files a link named by the title. Audio and video get no player markup
   * (WordPress's shortcodes): nothing is prepended for them.
   */
  private async prependAttachment(post: PostEntity, facts: AttachmentFacts, req: RestRequest): Promise<string> {
    const mime = post.mimeType;
    if (mime.startsWith('audio/') || mime.startsWith('video/')) return '';
    const url = facts.file ? await this.deps.fileUrl(facts.file, req) : post.guid;
    let text = '';
    const meta = facts.metadata;
    if (mime.startsWith('image/') && meta && Number(meta.width) > 0 && Number(meta.height) > 0) {
      const dir = folderOf(facts.file);
      const full = { file: facts.file.slice(dir.length), width: Number(meta.width), height: Number(meta.height) };
      const stored =
        meta.sizes && typeof meta.sizes === 'object'
          ? (meta.sizes as Record<string, { file?: string; width?: number; height?: number }>)
          : {};
      const sizes = Object.values(stored)
        .filter((size) => size && size.file)
        .map((size) => ({ file: String(size.file), width: Number(size.width), height: Number(size.height) }));
      const medium = stored.medium?.file
        ? { file: String(stored.medium.file), width: Number(stored.medium.width), height: Number(stored.medium.height) }
        : null;
      // Without a medium size, the full image scaled down to the medium bounds (image_constrain_size_for_editor).
      const chosen = medium ?? { ...full, ...constrain(full.width, full.height, 300, 300) };
      const src = await this.deps.fileUrl(`${dir}${chosen.file}`, req);
      const attrs = [
        `width="${chosen.width}"`,
        `height="${chosen.height}"`,
        `src="${escAttr(src)}"`,
        'class="attachment-medium size-medium"',
        `alt="${escAttr(stripAllTags(facts.alt).trim())}"`,
        'decoding="async"',
        'loading="lazy"',
      ];
      // wp_calculate_image_srcset: the sizes of the same shape (within a pixel), at most 2048 wide, the src first.
      const sources = new Map<number, string>();
      let srcMatched = false;
      for (const size of [...sizes, full]) {
        const isSrc = !srcMatched && size.file === chosen.file;
        if (isSrc) srcMatched = true;
        if (size.width > 2048 && !isSrc) continue;
        if (!matchesRatio(chosen.width, chosen.height, size.width, size.height)) continue;
        const entry = `${await this.deps.fileUrl(`${dir}${size.file}`, req)} ${size.width}w`;
        if (isSrc) {
          const rest = [...sources].filter(([width]) => width !== size.width);
          sources.clear();
          sources.set(size.width, entry);
          for (const [width, value] of rest) sources.set(width, value);
        } else {
          sources.set(size.width, entry);
        }
      }
      if (sources.size >= 2)
        attrs.push(
          `srcset="${escAttr([...sources.values()].join(', '))}"`,
          `sizes="(max-width: ${chosen.width}px) 100vw, ${chosen.width}px"`,
        );
      text = `<img ${attrs.join(' ')} />`;
    }
    if (text === '') text = post.title || escHtml(facts.file.slice(facts.file.lastIndexOf('/') + 1));
    return `<p class="attachment"><a href='${escUrlRaw(url)
      .replace(/'/g, '&#039;')
      .replace(/&(?!#?\w+;)/g, '&#038;')}'>${text}</a></p>\n`;
  }

  /** The stored metadata, each size with `mime_type` and its URL, and the `full` size (`{}` when there is none). */
  private async mediaDetails(
    post: PostEntity,
    facts: AttachmentFacts,
    req: RestRequest,
  ): Promise<Record<string, unknown>> {
    const meta = facts.metadata;
    if (!meta) return {};
    const out: Record<string, unknown> = { ...meta };
    const dir = folderOf(facts.file);
    const sizes: Record<string, unknown> = {};
    const stored =
      meta.sizes && typeof meta.sizes === 'object' ? (meta.sizes as Record<string, Record<string, unknown>>) : {};
    for (const [name, size] of Object.entries(stored)) {
      const { 'mime-type': mime, ...rest } = size;
      sizes[name] = {
        ...rest,
        mime_type: mime ?? post.mimeType,
        source_url: await this.deps.fileUrl(`${dir}${String(size.file)}`, req),
      };
    }
    if (meta.width !== undefined && facts.file) {
      sizes.full = {
        file: facts.file.slice(dir.length),
        width: Number(meta.width),
        height: Number(meta.height),
        mime_type: post.mimeType,
        source_url: await this.deps.fileUrl(facts.file, req),
      };
    }
    out.sizes = sizes;
    return out;
  }
}

/** `wp_constrain_dimensions()`: within the bounds, keeping the shape. */
function constrain(
  width: number,
  height: number,
  maxWidth: number,
  maxHeight: number,
): { width: number; height: number } {
  const ratio = Math.min(
    maxWidth && width > maxWidth ? maxWidth / width : 1,
    maxHeight && height > maxHeight ? maxHeight / height : 1,
  );
  if (ratio === 1) return { width, height };
  return { width: Math.max(1, Math.round(width * ratio)), height: Math.max(1, Math.round(height * ratio)) };
}

/** `wp_image_matches_ratio()`: the larger scaled to the smaller's width is within a pixel of it. */
function matchesRatio(sourceWidth: number, sourceHeight: number, targetWidth: number, targetHeight: number): boolean {
  const [big, small] =
    sourceWidth > targetWidth
      ? [
          [sourceWidth, sourceHeight],
          [targetWidth, targetHeight],
        ]
      : [
          [targetWidth, targetHeight],
          [sourceWidth, sourceHeight],
        ];
  const scaled = constrain(big[0], big[1], small[0], 0);
  return Math.abs(scaled.width - small[0]) <= 1 && Math.abs(scaled.height - small[1]) <= 1;
}
