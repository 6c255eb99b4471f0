import type { PostTypeDependencies } from './post-type-resources.service';
import type { PostTypeView } from './post-presenter';
import { PostEntity } from '../../core/database/entities/post.entity';
import { filterText } from '../../core/text/text-filter-pool';
import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { ExposedMetaKey, planMetaWrites, metaWriteChecks } from '../../core/rest/meta-fields';
import { RestRequest } from '../../core/rest/rest-request';
import { ItemSchema } from '../../core/json-schema/json-schema';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { PostFields, PostRelations, PostWriter, WriteContext } from './post-writer.service';
import { PostsService } from './posts.service';
import type { PostWriteArgs } from './post-schema';
import { textOf } from '../../core/formatting/php-serialize';
import { checkTemplateOfPost, currentTemplate } from './post-template';

/**
 * What a create or update request asks of a post, checked and converted the way the reference's
 * `prepare_item_for_database` does it: the row's fields (with the save filters WordPress applies to text), and the
 * sticky flag, featured image, format, template, terms and meta around it.
 */
export class PostInput {
  private readonly type: PostTypeObject;
  private readonly schema: () => ItemSchema;
  private readonly taxonomies: () => TaxonomyObject[];
  private readonly registeredMeta: () => ExposedMetaKey[];
  private readonly content: ContentRegistry;
  private readonly posts: PostsService;
  private readonly writer: PostWriter;
  private readonly options: OptionsService;
  private readonly extensions: CmsExtensionRegistry;

  /** Made by a post type's resource: the injected services (`deps`) and what it knows of its type (`view`). */
  constructor(deps: PostTypeDependencies, view: PostTypeView) {
    this.type = view.type;
    this.schema = view.schema;
    this.taxonomies = view.taxonomies;
    this.registeredMeta = view.registeredMeta;
    this.content = deps.content;
    this.posts = deps.posts;
    this.writer = deps.writer;
    this.options = deps.options;
    this.extensions = deps.extensions;
  }

  async writeContext(req: RestRequest, before?: PostEntity): Promise<WriteContext> {
    const o = await this.options.getMany([
      'timezone_string',
      'gmt_offset',
      'home',
      'default_category',
      'default_comment_status',
      'default_ping_status',
      'permalink_structure',
    ]);
    const canPublish = before
      ? await req.ctx.can('publish_post', before)
      : await req.ctx.can(this.type.cap.publish_posts);
    return {
      actor: req.ctx.user.id,
      clock: SiteClock.fromOptions(o),
      canPublish,
      home: textOf(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      defaultCategory: Number(o.default_category ?? 0),
      defaultCommentStatus: textOf(o.default_comment_status ?? 'open'),
      defaultPingStatus: textOf(o.default_ping_status ?? 'open'),
      permalinkStructure: textOf(o.permalink_structure),
    };
  }

  /** The row changes a request asks for (the reference's prepare_item_for_database). */
  async fields(req: RestRequest, before: PostEntity | null, clock: SiteClock): Promise<PostFields> {
    const props = this.schema().properties;
    const args = req.args<PostWriteArgs>();
    const f: PostFields = {};
    const filtered = !(await req.ctx.can('unfiltered_html'));
    const text = (name: 'title' | 'content' | 'excerpt'): Promise<string> | undefined => {
      if (!props[name]) return undefined;
      const value = args[name];
      let raw: string | undefined;
      if (typeof value === 'string') raw = value;
      else if (value && typeof value === 'object' && 'raw' in value) {
        const r = value.raw;
        // An empty title sent as an object is ignored, as in the reference.
        if (name !== 'title' || (r !== '' && r !== null && r !== undefined))
          raw = r === null || r === undefined ? '' : textOf(r);
      } else if (typeof value === 'number' || typeof value === 'boolean') raw = String(value);
      return raw === undefined ? undefined : filterText('savedPostText', name, raw, filtered);
    };
    // The three run at once: a large one in a worker while the others run here.
    [f.title, f.content, f.excerpt] = await Promise.all([text('title'), text('content'), text('excerpt')]);

    const status = args.status;
    if (props.status && status !== undefined && (!before || before.status !== status))
      f.status = await this.checkStatus(req, status);

    const params = req.params();
    if (props.date && args.date) {
      const value = clock.restDateWithGmt(args.date);
      if (value && (!before || before.date !== value[0])) f.date = value;
    } else if (props.date_gmt && args.date_gmt) {
      const value = clock.restDateWithGmt(args.date_gmt, true);
      if (value && (!before || before.dateGmt !== value[1])) f.date = value;
    }
    if (('date' in params && params.date === null) || ('date_gmt' in params && params.date_gmt === null)) f.date = null;

    if (props.slug && args.slug !== undefined) f.name = args.slug;
    if (props.author && args.author) {
      const author = args.author;
      if (author !== req.ctx.user.id && !(await this.posts.existingUsers([author])).has(author)) {
        throw new RestException('rest_invalid_author', 'Invalid author id.', 400);
      }
      f.author = author;
    }
    if (props.password && args.password !== undefined) {
      const password = args.password;
      f.password = password;
      if (password !== '') {
        if (props.sticky && args.sticky === true)
          throw new RestException('rest_invalid_field', 'A post can not be sticky and have a password.', 400);
        if (before && (await this.writer.isSticky(before.id)))
          throw new RestException('rest_invalid_field', 'A sticky post can not be password protected.', 400);
      }
    }
    if (props.sticky && args.sticky === true && before && before.password && args.password !== '') {
      throw new RestException('rest_invalid_field', 'A password protected post can not be set to sticky.', 400);
    }
    if (props.parent && args.parent !== undefined) {
      const parent = args.parent;
      if (parent !== 0) {
        const found = parent > 0 ? await this.posts.findById(parent) : null;
        if (!found) throw new RestException('rest_post_invalid_id', 'Invalid post parent id.', 400);
      }
      f.parent = Math.max(parent, 0);
    }
    if (props.menu_order && args.menu_order !== undefined) f.menuOrder = args.menu_order;
    if (props.comment_status && args.comment_status) f.commentStatus = args.comment_status;
    if (props.ping_status && args.ping_status) f.pingStatus = args.ping_status;
    return f;
  }

  /** The reference's handle_status_param: publishing (and private posts) need `publish_posts`. */
  private async checkStatus(req: RestRequest, status: string): Promise<string> {
    const code = req.ctx.authorizationRequiredCode;
    if (status === 'draft' || status === 'pending') return status;
    if (status === 'private' || status === 'publish' || status === 'future') {
      if (!(await req.ctx.can(this.type.cap.publish_posts))) {
        const what = status === 'private' ? 'create private posts' : 'publish posts';
        throw new RestException(
          'rest_cannot_publish',
          `Sorry, you are not allowed to ${what} in this post type.`,
          code,
        );
      }
      return status;
    }
    return this.content.status(status) ? status : 'draft';
  }

  /**
   * The template to store: the spec's clears one that is none of the type's page templates; WordPress's refuses it
   * unless it is the post's current one (the argument's check took the rest, see post-template.ts).
   */
  private async template(req: RestRequest, value: string, before: PostEntity | null): Promise<string> {
    const templates = this.extensions.pageTemplates(this.type.name);
    if (req.ctx.wire.dialect.posts.templateCheck === 'clear-unknown')
      return Object.hasOwn(templates, value) ? value : '';
    if (before && value && !Object.hasOwn(templates, value)) {
      const stored = (await this.posts.metaOf([before.id], ['_wp_page_template'])).get(before.id);
      checkTemplateOfPost(value, templates, currentTemplate(stored?._wp_page_template?.[0]));
    }
    return value;
  }

  /** Sticky flag, featured image, format, template, terms and meta a request asks for. */
  async relations(req: RestRequest, before: PostEntity | null): Promise<PostRelations> {
    const props = this.schema().properties;
    const args = req.args<PostWriteArgs>();
    const r: PostRelations = {};
    if (props.sticky && args.sticky !== undefined) r.sticky = args.sticky;
    if (props.featured_media && args.featured_media !== undefined) r.featuredMedia = Math.max(0, args.featured_media);
    if (props.format && args.format) r.format = args.format;
    if (props.template && args.template !== undefined) r.template = await this.template(req, args.template, before);
    const terms = new Map<string, number[]>();
    for (const tax of this.taxonomies()) {
      const base = tax.rest_base || tax.name;
      // Term ids, as an array of integers is coerced.
      const value = args[base] as number[] | undefined;
      if (value === undefined) continue;
      const ids = [...new Set(value)];
      // Every id must be a term of this taxonomy: a wrong one is an error rather than silently dropped (WordPress
      // drops it: the dialect's `unknownTermIds`).
      const known = new Set(await this.posts.termIdsIn(tax.name, ids));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length && req.ctx.wire.dialect.posts.unknownTermIds === 'refused') {
        throw new RestException('rest_invalid_param', `Invalid parameter(s): ${base}`, 400, {
          params: {
            [base]: `${unknown.join(', ')} ${unknown.length === 1 ? 'is not a term' : 'are not terms'} of the ${tax.name} taxonomy.`,
          },
        });
      }
      terms.set(tax.name, unknown.length ? ids.filter((id) => known.has(id)) : ids);
    }
    if (terms.size) r.terms = terms;
    if (props.meta && args.meta !== undefined) {
      // A new post does not exist yet: its key permissions are those of a post of this type by the caller.
      const target = before ?? { id: 0, type: this.type.name, status: 'draft', author: req.ctx.user.id, parent: 0 };
      r.meta = await planMetaWrites(
        this.registeredMeta(),
        args.meta,
        'post',
        (cap, key) => req.ctx.can(cap, target, key),
        req.ctx.authorizationRequiredCode,
        metaWriteChecks(req.ctx.wire.dialect),
      );
    }
    return r;
  }
}
