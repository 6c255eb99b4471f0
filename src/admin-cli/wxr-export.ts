import { INestApplicationContext } from '@nestjs/common';
import { createWriteStream, WriteStream } from 'node:fs';
import { once } from 'node:events';
import { DataSource, In, MoreThan, Not } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../core/config/cms-options';
import { CMS_DATA_SOURCE } from '../core/database/cms-data-source';
import { CommentEntity } from '../core/database/entities/comment.entity';
import { CommentMetaEntity } from '../core/database/entities/comment-meta.entity';
import { PostEntity } from '../core/database/entities/post.entity';
import { PostMetaEntity } from '../core/database/entities/post-meta.entity';
import { TermMetaEntity } from '../core/database/entities/term-meta.entity';
import { TermRelationshipEntity } from '../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../core/database/entities/term.entity';
import { UserEntity } from '../core/database/entities/user.entity';
import { UserMetaEntity } from '../core/database/entities/user-meta.entity';
import { ZERO_DATE } from '../core/database/mysql-date';
import { OptionsService } from '../core/options/options.service';
import { ContentRegistry } from '../core/registry/content-registry.service';
import { buildPostType } from '../core/registry/content-types';
import { permalink, PLAIN_LINK_STATUSES } from '../resources/posts/permalink';
import { stickyIds } from '../resources/posts/post-writer.service';
import type { CliOutput } from './admin-commands';
import { CliError } from './command-line';
import { textOf } from '../core/formatting/php-serialize';

/** The WXR version written (WordPress's `WXR_VERSION`). */
export const WXR_VERSION = '1.2';
/** Types `export_wp()` leaves out (`can_export` false). */
const NOT_EXPORTED = ['revision'];
/** Meta `export_wp()` leaves out (`wxr_filter_postmeta()`). */
const SKIPPED_POST_META = ['_edit_lock'];
const PAGE = 100;

/** `wxr_cdata()`: text in CDATA, a `]]>` inside split across two sections. */
export function cdata(text: string | null | undefined): string {
  return `<![CDATA[${String(text ?? '').replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/** Text escaped for an XML element or attribute. */
export function xmlText(text: string | null | undefined): string {
  return String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 822 date of a GMT `Y-m-d H:i:s` (`mysql2date( 'D, d M Y H:i:s +0000', ... )`); PHP's answer for the zero date. */
export function rfc822(gmt: string): string {
  const d = new Date(`${gmt.replace(' ', 'T')}Z`);
  if (gmt === ZERO_DATE || Number.isNaN(d.getTime())) return 'Mon, 30 Nov -0001 00:00:00 +0000';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

interface ExportTerm {
  termId: number;
  ttId: number;
  taxonomy: string;
  slug: string;
  name: string;
  description: string;
  parent: number;
}

/** Where the XML goes: a file (with back-pressure) or the CLI's standard output. */
class Sink {
  constructor(
    private readonly file: WriteStream | null,
    private readonly output: CliOutput,
  ) {}
  async write(text: string): Promise<void> {
    if (!this.file) return this.output.out(text);
    if (!this.file.write(text)) await once(this.file, 'drain');
  }
  async close(): Promise<void> {
    if (!this.file) return;
    this.file.end();
    await once(this.file, 'finish');
  }
}

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
  counts = { posts: 0, comments: 0, terms: 0, authors: 0 };

  constructor(app: INestApplicationContext) {
    const get = <T>(token: unknown): T => app.get<T>(token as never, { strict: false });
    this.dataSource = get(CMS_DATA_SOURCE);
    this.options = get(OptionsService);
    this.content = get(ContentRegistry);
    this.cmsOptions = get(CMS_OPTIONS);
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
    ]);
    const home = textOf(o.home).replace(/\/+$/, '');
    const siteUrl = textOf(o.siteurl ?? home).replace(/\/+$/, '');
    const uploadsUrl = this.cmsOptions.uploadsUrl ?? `${siteUrl}/wp-content/uploads`;
    const sticky = new Set(stickyIds(o.sticky_posts));
    const pretty = Boolean(o.permalink_structure);
    const where = { type: postTypes ? In(postTypes) : Not(In(NOT_EXPORTED)), status: Not('auto-draft') };
    const posts = this.dataSource.getRepository(PostEntity);

    await sink.write(
      `<?xml version="1.0" encoding="UTF-8" ?>\n` +
        `<!-- This is a WordPress eXtended RSS file generated by cms-api as an export of your site. -->\n` +
        `<!-- It contains information about your site's posts, pages, comments, categories, and other content. -->\n` +
        `<!-- generator="cms-api" created="${new Date().toISOString().slice(0, 16).replace('T', ' ')}" -->\n` +
        `<rss version="2.0"\n\txmlns:excerpt="http://wordpress.org/export/${WXR_VERSION}/excerpt/"\n` +
        `\txmlns:content="http://purl.org/rss/1.0/modules/content/"\n\txmlns:wfw="http://wellformedweb.org/CommentAPI/"\n` +
        `\txmlns:dc="http://purl.org/dc/elements/1.1/"\n\txmlns:wp="http://wordpress.org/export/${WXR_VERSION}/"\n>\n\n<channel>\n` +
        `\t<title>${xmlText(textOf(o.blogname))}</title>\n\t<link>${xmlText(home)}</link>\n` +
        `\t<description>${xmlText(textOf(o.blogdescription))}</description>\n\t<pubDate>${rfc822(new Date().toISOString().slice(0, 19).replace('T', ' '))}</pubDate>\n` +
        `\t<language>${xmlText(textOf(o.WPLANG || 'en-US').replace('_', '-'))}</language>\n\t<wp:wxr_version>${WXR_VERSION}</wp:wxr_version>\n` +
        `\t<wp:base_site_url>${xmlText(siteUrl)}</wp:base_site_url>\n\t<wp:base_blog_url>${xmlText(home)}</wp:base_blog_url>\n\n`,
    );

    // Authors of the exported posts (wxr_authors_list()).
    const authorRows = await posts
      .createQueryBuilder('p')
      .select('DISTINCT p.author', 'author')
      .where(where)
      .getRawMany<{ author: number }>();
    const authorIds = authorRows.map((r) => Number(r.author)).filter((id) => id > 0);
    if (authorIds.length) {
      const users = await this.dataSource
        .getRepository(UserEntity)
        .find({ where: { id: In(authorIds) }, order: { id: 'ASC' } });
      const names = await this.userNames(users.map((u) => Number(u.id)));
      for (const u of users) {
        const n = names.get(Number(u.id)) ?? {};
        await sink.write(
          `\t<wp:author><wp:author_id>${u.id}</wp:author_id><wp:author_login>${cdata(u.login)}</wp:author_login>` +
            `<wp:author_email>${cdata(u.email)}</wp:author_email><wp:author_display_name>${cdata(u.displayName)}</wp:author_display_name>` +
            `<wp:author_first_name>${cdata(n.first_name)}</wp:author_first_name><wp:author_last_name>${cdata(n.last_name)}</wp:author_last_name></wp:author>\n`,
        );
        this.counts.authors++;
      }
      await sink.write('\n');
    }

    // Terms: all of them for a full export, those of the exported posts (and their ancestors) otherwise.
    const terms = await this.terms(postTypes);
    const bySlug = new Map(terms.map((t) => [`${t.taxonomy} ${t.termId}`, t]));
    const slugOf = (t: ExportTerm) => (t.parent ? (bySlug.get(`${t.taxonomy} ${t.parent}`)?.slug ?? '') : '');
    const termMeta = await this.metaByTerm(terms.map((t) => t.termId));
    const metaXml = (id: number) =>
      (termMeta.get(id) ?? [])
        .map(
          (m) =>
            `\t\t<wp:termmeta>\n\t\t\t<wp:meta_key>${cdata(m.key)}</wp:meta_key>\n\t\t\t<wp:meta_value>${cdata(m.value)}</wp:meta_value>\n\t\t</wp:termmeta>\n`,
        )
        .join('');
    for (const t of terms.filter((x) => x.taxonomy === 'category')) {
      await sink.write(
        `\t<wp:category>\n\t\t<wp:term_id>${t.termId}</wp:term_id>\n\t\t<wp:category_nicename>${cdata(t.slug)}</wp:category_nicename>\n` +
          `\t\t<wp:category_parent>${cdata(slugOf(t))}</wp:category_parent>\n\t\t<wp:cat_name>${cdata(t.name)}</wp:cat_name>\n` +
          (t.description ? `\t\t<wp:category_description>${cdata(t.description)}</wp:category_description>\n` : '') +
          `${metaXml(t.termId)}\t</wp:category>\n`,
      );
    }
    for (const t of terms.filter((x) => x.taxonomy === 'post_tag')) {
      await sink.write(
        `\t<wp:tag>\n\t\t<wp:term_id>${t.termId}</wp:term_id>\n\t\t<wp:tag_slug>${cdata(t.slug)}</wp:tag_slug>\n\t\t<wp:tag_name>${cdata(t.name)}</wp:tag_name>\n` +
          (t.description ? `\t\t<wp:tag_description>${cdata(t.description)}</wp:tag_description>\n` : '') +
          `${metaXml(t.termId)}\t</wp:tag>\n`,
      );
    }
    for (const t of terms.filter((x) => x.taxonomy !== 'category' && x.taxonomy !== 'post_tag')) {
      await sink.write(
        `\t<wp:term>\n\t\t<wp:term_id>${t.termId}</wp:term_id>\n\t\t<wp:term_taxonomy>${cdata(t.taxonomy)}</wp:term_taxonomy>\n` +
          `\t\t<wp:term_slug>${cdata(t.slug)}</wp:term_slug>\n\t\t<wp:term_parent>${cdata(slugOf(t))}</wp:term_parent>\n` +
          `\t\t<wp:term_name>${cdata(t.name)}</wp:term_name>\n` +
          (t.description ? `\t\t<wp:term_description>${cdata(t.description)}</wp:term_description>\n` : '') +
          `${metaXml(t.termId)}\t</wp:term>\n`,
      );
    }
    this.counts.terms = terms.length;
    await sink.write(`\n\t<generator>cms-api</generator>\n\n`);

    const logins = new Map<number, string>();
    let lastId = 0;
    for (;;) {
      const page = await posts.find({ where: { ...where, id: MoreThan(lastId) }, order: { id: 'ASC' }, take: PAGE });
      if (!page.length) break;
      lastId = Number(page[page.length - 1].id);
      const ids = page.map((p) => Number(p.id));
      const missing = [...new Set(page.map((p) => Number(p.author)))].filter((id) => !logins.has(id));
      if (missing.length) {
        for (const u of await this.dataSource
          .getRepository(UserEntity)
          .find({ select: { id: true, login: true }, where: { id: In(missing) } }))
          logins.set(Number(u.id), u.login);
      }
      const meta = await this.metaByPost(ids);
      const postTerms = await this.termsByPost(ids);
      const comments = await this.dataSource
        .getRepository(CommentEntity)
        .find({ where: { postId: In(ids), approved: Not('spam') }, order: { id: 'ASC' } });
      const commentMeta = await this.metaByComment(comments.map((c) => Number(c.id)));
      const parents = await this.ancestors(page);
      for (const post of page) {
        const id = Number(post.id);
        const type = this.content.postType(post.type) ?? buildPostType(post.type, { public: true });
        const link = permalink(post, type, home, parents, pretty && !PLAIN_LINK_STATUSES.includes(post.status));
        const rows = (meta.get(id) ?? []).filter((m) => !SKIPPED_POST_META.includes(m.key));
        let xml =
          `\t<item>\n\t\t<title>${cdata(post.title)}</title>\n\t\t<link>${xmlText(link)}</link>\n\t\t<pubDate>${rfc822(post.dateGmt)}</pubDate>\n` +
          `\t\t<dc:creator>${cdata(logins.get(Number(post.author)) ?? '')}</dc:creator>\n\t\t<guid isPermaLink="false">${xmlText(post.guid)}</guid>\n` +
          `\t\t<description></description>\n\t\t<content:encoded>${cdata(post.content)}</content:encoded>\n\t\t<excerpt:encoded>${cdata(post.excerpt)}</excerpt:encoded>\n` +
          `\t\t<wp:post_id>${id}</wp:post_id>\n\t\t<wp:post_date>${cdata(post.date)}</wp:post_date>\n\t\t<wp:post_date_gmt>${cdata(post.dateGmt)}</wp:post_date_gmt>\n` +
          `\t\t<wp:post_modified>${cdata(post.modified)}</wp:post_modified>\n\t\t<wp:post_modified_gmt>${cdata(post.modifiedGmt)}</wp:post_modified_gmt>\n` +
          `\t\t<wp:comment_status>${cdata(post.commentStatus)}</wp:comment_status>\n\t\t<wp:ping_status>${cdata(post.pingStatus)}</wp:ping_status>\n` +
          `\t\t<wp:post_name>${cdata(post.name)}</wp:post_name>\n\t\t<wp:status>${cdata(post.status)}</wp:status>\n` +
          `\t\t<wp:post_parent>${post.parent}</wp:post_parent>\n\t\t<wp:menu_order>${post.menuOrder}</wp:menu_order>\n` +
          `\t\t<wp:post_type>${cdata(post.type)}</wp:post_type>\n\t\t<wp:post_password>${cdata(post.password)}</wp:post_password>\n` +
          `\t\t<wp:is_sticky>${sticky.has(id) ? 1 : 0}</wp:is_sticky>\n`;
        if (post.type === 'attachment') {
          const file = rows.find((m) => m.key === '_wp_attached_file')?.value;
          const url = file ? (/^https?:\/\//i.test(file) ? file : `${uploadsUrl}/${file}`) : post.guid;
          xml += `\t\t<wp:attachment_url>${cdata(url)}</wp:attachment_url>\n`;
        }
        for (const t of postTerms.get(id) ?? [])
          xml += `\t\t<category domain="${xmlText(t.taxonomy)}" nicename="${xmlText(t.slug)}">${cdata(t.name)}</category>\n`;
        for (const m of rows)
          xml += `\t\t<wp:postmeta>\n\t\t<wp:meta_key>${cdata(m.key)}</wp:meta_key>\n\t\t<wp:meta_value>${cdata(m.value)}</wp:meta_value>\n\t\t</wp:postmeta>\n`;
        for (const c of comments.filter((x) => Number(x.postId) === id)) {
          xml +=
            `\t\t<wp:comment>\n\t\t\t<wp:comment_id>${c.id}</wp:comment_id>\n\t\t\t<wp:comment_author>${cdata(c.author)}</wp:comment_author>\n` +
            `\t\t\t<wp:comment_author_email>${cdata(c.authorEmail)}</wp:comment_author_email>\n\t\t\t<wp:comment_author_url>${xmlText(c.authorUrl)}</wp:comment_author_url>\n` +
            `\t\t\t<wp:comment_author_IP>${cdata(c.authorIp)}</wp:comment_author_IP>\n\t\t\t<wp:comment_date>${cdata(c.date)}</wp:comment_date>\n` +
            `\t\t\t<wp:comment_date_gmt>${cdata(c.dateGmt)}</wp:comment_date_gmt>\n\t\t\t<wp:comment_content>${cdata(c.content)}</wp:comment_content>\n` +
            `\t\t\t<wp:comment_approved>${cdata(c.approved)}</wp:comment_approved>\n\t\t\t<wp:comment_type>${cdata(c.type)}</wp:comment_type>\n` +
            `\t\t\t<wp:comment_parent>${c.parent}</wp:comment_parent>\n\t\t\t<wp:comment_user_id>${c.userId}</wp:comment_user_id>\n`;
          for (const m of commentMeta.get(Number(c.id)) ?? []) {
            xml += `\t\t\t<wp:commentmeta>\n\t\t\t\t<wp:meta_key>${cdata(m.key)}</wp:meta_key>\n\t\t\t\t<wp:meta_value>${cdata(m.value)}</wp:meta_value>\n\t\t\t</wp:commentmeta>\n`;
          }
          xml += `\t\t</wp:comment>\n`;
          this.counts.comments++;
        }
        await sink.write(`${xml}\t</item>\n`);
        this.counts.posts++;
      }
    }
    await sink.write('</channel>\n</rss>\n');
  }

  private async userNames(ids: number[]): Promise<Map<number, Record<string, string>>> {
    const out = new Map<number, Record<string, string>>();
    if (!ids.length) return out;
    const rows = await this.dataSource
      .getRepository(UserMetaEntity)
      .find({ where: { userId: In(ids), key: In(['first_name', 'last_name']) } });
    for (const r of rows)
      out.set(Number(r.userId), { ...(out.get(Number(r.userId)) ?? {}), [String(r.key)]: r.value ?? '' });
    return out;
  }

  /** Terms to export, each after its parent (`export_wp()` orders them so). */
  private async terms(postTypes: string[] | null): Promise<ExportTerm[]> {
    const qb = this.dataSource
      .getRepository(TermTaxonomyEntity)
      .createQueryBuilder('tt')
      .innerJoin(TermEntity, 't', 't.id = tt.termId')
      .select([
        'tt.id AS tt_id',
        'tt.termId AS term_id',
        'tt.taxonomy AS taxonomy',
        'tt.description AS description',
        'tt.parent AS parent',
        't.slug AS slug',
        't.name AS name',
      ])
      // As export_wp(): post formats come with their posts, link categories not at all.
      .where("tt.taxonomy NOT IN ('post_format', 'link_category')")
      .orderBy('tt.termId', 'ASC');
    const rows = (await qb.getRawMany<Record<string, unknown>>()).map((r): ExportTerm => ({
      termId: Number(r.term_id),
      ttId: Number(r.tt_id),
      taxonomy: String(r.taxonomy),
      slug: String(r.slug),
      name: String(r.name),
      description: textOf(r.description),
      parent: Number(r.parent),
    }));
    let wanted = rows;
    if (postTypes) {
      const used = await this.dataSource
        .getRepository(TermRelationshipEntity)
        .createQueryBuilder('r')
        .innerJoin(PostEntity, 'p', 'p.id = r.objectId')
        .select('DISTINCT r.termTaxonomyId', 'id')
        .where('p.type IN (:...postTypes)', { postTypes })
        .andWhere("p.status <> 'auto-draft'")
        .getRawMany<{ id: number }>();
      const keep = new Set(used.map((u) => Number(u.id)));
      const byTerm = new Map(rows.map((r) => [`${r.taxonomy} ${r.termId}`, r]));
      for (const r of rows.filter((x) => keep.has(x.ttId))) {
        for (
          let p = byTerm.get(`${r.taxonomy} ${r.parent}`), i = 0;
          p && i < 50;
          p = byTerm.get(`${p.taxonomy} ${p.parent}`), i++
        )
          keep.add(p.ttId);
      }
      wanted = rows.filter((r) => keep.has(r.ttId));
    }
    // Parents first: a term waits until its parent has been listed.
    const ordered: ExportTerm[] = [];
    const placed = new Set<string>();
    let pending = wanted;
    const present = new Set(wanted.map((r) => `${r.taxonomy} ${r.termId}`));
    while (pending.length) {
      const next: ExportTerm[] = [];
      for (const t of pending) {
        if (!t.parent || placed.has(`${t.taxonomy} ${t.parent}`) || !present.has(`${t.taxonomy} ${t.parent}`)) {
          ordered.push(t);
          placed.add(`${t.taxonomy} ${t.termId}`);
        } else next.push(t);
      }
      if (next.length === pending.length) {
        ordered.push(...next);
        break;
      }
      pending = next;
    }
    return ordered;
  }

  private async metaByTerm(ids: number[]): Promise<Map<number, { key: string; value: string }[]>> {
    return this.metaOf(TermMetaEntity, 'termId', ids);
  }

  private async metaByPost(ids: number[]): Promise<Map<number, { key: string; value: string }[]>> {
    return this.metaOf(PostMetaEntity, 'postId', ids);
  }

  private async metaByComment(ids: number[]): Promise<Map<number, { key: string; value: string }[]>> {
    return this.metaOf(CommentMetaEntity, 'commentId', ids);
  }

  private async metaOf(
    entity: new () => object,
    column: string,
    ids: number[],
  ): Promise<Map<number, { key: string; value: string }[]>> {
    const out = new Map<number, { key: string; value: string }[]>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = (await this.dataSource
        .getRepository(entity)
        .find({ where: { [column]: In(chunk) }, order: { id: 'ASC' } })) as Array<Record<string, unknown>>;
      for (const r of rows) {
        const owner = Number(r[column]);
        out.set(owner, [...(out.get(owner) ?? []), { key: textOf(r.key), value: textOf(r.value) }]);
      }
    }
    return out;
  }

  private async termsByPost(ids: number[]): Promise<Map<number, { taxonomy: string; slug: string; name: string }[]>> {
    const rows = await this.dataSource
      .getRepository(TermRelationshipEntity)
      .createQueryBuilder('r')
      .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
      .innerJoin(TermEntity, 't', 't.id = tt.termId')
      .select(['r.objectId AS object_id', 'tt.taxonomy AS taxonomy', 't.slug AS slug', 't.name AS name'])
      .where('r.objectId IN (:...ids)', { ids })
      .orderBy('t.name', 'ASC')
      .getRawMany<Record<string, unknown>>();
    const out = new Map<number, { taxonomy: string; slug: string; name: string }[]>();
    for (const r of rows) {
      const id = Number(r.object_id);
      out.set(id, [
        ...(out.get(id) ?? []),
        { taxonomy: String(r.taxonomy), slug: String(r.slug), name: String(r.name) },
      ]);
    }
    return out;
  }

  /** The ancestors of the page's hierarchical posts, for their permalinks. */
  private async ancestors(page: PostEntity[]): Promise<Map<number, PostEntity>> {
    const known = new Map<number, PostEntity>(page.map((p) => [Number(p.id), p]));
    let wanted = [...new Set(page.map((p) => Number(p.parent)).filter((id) => id > 0 && !known.has(id)))];
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = await this.dataSource
        .getRepository(PostEntity)
        .find({ select: { id: true, name: true, parent: true }, where: { id: In(wanted) } });
      for (const r of rows) known.set(Number(r.id), r);
      wanted = [...new Set(rows.map((r) => Number(r.parent)).filter((id) => id > 0 && !known.has(id)))];
    }
    return known;
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
