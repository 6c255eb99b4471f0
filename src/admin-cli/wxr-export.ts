import { INestApplicationContext } from '@nestjs/common';
import { createWriteStream, WriteStream } from 'node:fs';
import { once } from 'node:events';
import { DataSource, In, MoreThan, Not } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../core/config/cms-options';
import { CMS_DATA_SOURCE } from '../core/database/cms-data-source';
import { PostEntity } from '../core/database/entities/post.entity';
import { OptionsService } from '../core/options/options.service';
import { ContentRegistry } from '../core/registry/content-registry.service';
import { buildPostType } from '../core/registry/content-types';
import { permalink, PLAIN_LINK_STATUSES } from '../core/rest/permalink';
import { stickyIds } from '../resources/posts/post-relations';
import type { CliOutput } from './admin-commands';
import { CliError } from './command-line';
import { textOf } from '../core/formatting/php-serialize';
import { WxrExportSource } from './wxr-export-source';
import {
  authorXml,
  categoryXml,
  cdata,
  channelHeadXml,
  commentXml,
  ExportTerm,
  itemHeadXml,
  itemTermXml,
  postMetaXml,
  Sink,
  tagXml,
  termMetaXml,
  termXml,
} from './wxr-xml';

/** Types `export_wp()` leaves out (`can_export` false). */
const NOT_EXPORTED = ['revision'];
/** Meta `export_wp()` leaves out (`wxr_filter_postmeta()`). */
const SKIPPED_POST_META = ['_edit_lock'];
const PAGE = 100;

/**
 * Writes the site's content as WXR 1.2 with the structure and namespaces of WordPress's `export_wp()`: the site,
 * the authors of the exported posts, categories, tags and other terms (parents first, with their meta), then each
 * post with its terms, meta and comments (spam left out), read a page at a time.
 */
export class WxrExporter {
  private readonly dataSource: DataSource;
  private readonly options: OptionsService;
  private readonly content: ContentRegistry;
  private readonly cmsOptions: ResolvedCmsOptions;
  private readonly source: WxrExportSource;
  counts = { posts: 0, comments: 0, terms: 0, authors: 0 };

  constructor(app: INestApplicationContext) {
    const get = <T>(token: unknown): T => app.get<T>(token as never, { strict: false });
    this.dataSource = get(CMS_DATA_SOURCE);
    this.options = get(OptionsService);
    this.content = get(ContentRegistry);
    this.cmsOptions = get(CMS_OPTIONS);
    this.source = new WxrExportSource(this.dataSource);
  }

  async run(sink: Sink, postTypes: string[] | null): Promise<void> {
    const o = await this.options.getMany([
      'blogname',
      'blogdescription',
      'home',
      'siteurl',
      'WPLANG',
      'sticky_posts',
      'permalink_structure',
      'stylesheet',
    ]);
    const home = textOf(o.home).replace(/\/+$/, '');
    const siteUrl = textOf(o.siteurl ?? home).replace(/\/+$/, '');
    const uploadsUrl = this.cmsOptions.uploadsUrl ?? `${siteUrl}/wp-content/uploads`;
    const sticky = new Set(stickyIds(o.sticky_posts));
    const pretty = Boolean(o.permalink_structure);
    const where = { type: postTypes ? In(postTypes) : Not(In(NOT_EXPORTED)), status: Not('auto-draft') };
    const posts = this.dataSource.getRepository(PostEntity);

    await sink.write(channelHeadXml(o, home, siteUrl));

    // Authors of the exported posts (wxr_authors_list()).
    const authors = await this.source.authors(where);
    if (authors.length) {
      for (const [u, n] of authors) {
        await sink.write(authorXml(u, n));
        this.counts.authors++;
      }
      await sink.write('\n');
    }

    // Terms: all of them for a full export, those of the exported posts (and their ancestors) otherwise.
    const terms = await this.source.terms(postTypes);
    const bySlug = new Map(terms.map((t) => [`${t.taxonomy} ${t.termId}`, t]));
    const slugOf = (t: ExportTerm) => (t.parent ? (bySlug.get(`${t.taxonomy} ${t.parent}`)?.slug ?? '') : '');
    const termMeta = await this.source.metaByTerm(terms.map((t) => t.termId));
    const metaXml = (id: number) => termMetaXml(termMeta.get(id) ?? []);
    for (const t of terms.filter((x) => x.taxonomy === 'category')) {
      await sink.write(categoryXml(t, slugOf(t), metaXml(t.termId)));
    }
    for (const t of terms.filter((x) => x.taxonomy === 'post_tag')) {
      await sink.write(tagXml(t, metaXml(t.termId)));
    }
    for (const t of terms.filter((x) => x.taxonomy !== 'category' && x.taxonomy !== 'post_tag')) {
      await sink.write(termXml(t, slugOf(t), metaXml(t.termId)));
    }
    this.counts.terms = terms.length;
    // The menus' theme locations (not in WordPress's export, see docs/import.md), for the menus exported.
    const mods = await this.options.get<unknown>(`theme_mods_${textOf(o.stylesheet)}`, {});
    const assigned = (mods as { nav_menu_locations?: unknown } | null)?.nav_menu_locations;
    if (assigned && typeof assigned === 'object') {
      for (const [location, menu] of Object.entries(assigned as Record<string, unknown>)) {
        const slug = terms.find((t) => t.taxonomy === 'nav_menu' && Number(t.termId) === Number(menu))?.slug;
        if (slug)
          await sink.write(
            `\t<wp:nav_menu_location><wp:location>${cdata(location)}</wp:location><wp:menu_slug>${cdata(slug)}</wp:menu_slug></wp:nav_menu_location>\n`,
          );
      }
    }
    await sink.write(`\n\t<generator>cms-api</generator>\n\n`);

    const logins = new Map<number, string>();
    let lastId = 0;
    for (;;) {
      const page = await posts.find({ where: { ...where, id: MoreThan(lastId) }, order: { id: 'ASC' }, take: PAGE });
      if (!page.length) break;
      lastId = Number(page[page.length - 1].id);
      const ids = page.map((p) => Number(p.id));
      const missing = [...new Set(page.map((p) => Number(p.author)))].filter((id) => !logins.has(id));
      if (missing.length) await this.source.addLogins(logins, missing);
      const meta = await this.source.metaByPost(ids);
      const postTerms = await this.source.termsByPost(ids);
      const comments = await this.source.comments(ids);
      const commentMeta = await this.source.metaByComment(comments.map((c) => Number(c.id)));
      const parents = await this.source.ancestors(page);
      for (const post of page) {
        const id = Number(post.id);
        const type = this.content.postType(post.type) ?? buildPostType(post.type, { public: true });
        const link = permalink(post, type, home, parents, pretty && !PLAIN_LINK_STATUSES.includes(post.status));
        const rows = (meta.get(id) ?? []).filter((m) => !SKIPPED_POST_META.includes(m.key));
        let xml = itemHeadXml(post, link, logins.get(Number(post.author)) ?? '', sticky.has(id));
        if (post.type === 'attachment') {
          const file = rows.find((m) => m.key === '_wp_attached_file')?.value;
          const url = file ? (/^https?:\/\//i.test(file) ? file : `${uploadsUrl}/${file}`) : post.guid;
          xml += `\t\t<wp:attachment_url>${cdata(url)}</wp:attachment_url>\n`;
        }
        for (const t of postTerms.get(id) ?? []) xml += itemTermXml(t);
        for (const m of rows) xml += postMetaXml(m);
        for (const c of comments.filter((x) => Number(x.postId) === id)) {
          xml += commentXml(c, commentMeta.get(Number(c.id)) ?? []);
          this.counts.comments++;
        }
        await sink.write(`${xml}\t</item>\n`);
        this.counts.posts++;
      }
    }
    await sink.write('</channel>\n</rss>\n');
  }
}

/** `export [--output file] [--post-type a,b]`. */
export async function runExport(
  app: INestApplicationContext,
  options: { output?: string; postTypes?: string },
  output: CliOutput,
): Promise<void> {
  let postTypes: string[] | null = null;
  if (options.postTypes !== undefined) {
    postTypes = options.postTypes
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    if (!postTypes.length) throw new CliError('--post-type needs at least one post type.');
    const bad = postTypes.find((t) => !/^[a-z0-9_-]{1,20}$/.test(t));
    if (bad !== undefined) throw new CliError(`Invalid post type "${bad}".`);
  }
  let file: WriteStream | null = null;
  if (options.output !== undefined) {
    if (!options.output) throw new CliError('--output needs a file name.');
    file = createWriteStream(options.output, { encoding: 'utf8' });
    try {
      await once(file, 'open');
    } catch (error) {
      throw new CliError(`Cannot write "${options.output}": ${(error as Error).message}`);
    }
  }
  const sink = new Sink(file, output);
  const exporter = new WxrExporter(app);
  try {
    await exporter.run(sink, postTypes);
  } finally {
    await sink.close();
  }
  const { posts, comments, terms, authors } = exporter.counts;
  const summary = `Exported ${posts} post(s), ${comments} comment(s), ${terms} term(s) and ${authors} author(s)${options.output ? ` to ${options.output}` : ''}.\n`;
  // With the XML on stdout, the summary goes to stderr.
  if (file) output.out(summary);
  else output.err(summary);
}
