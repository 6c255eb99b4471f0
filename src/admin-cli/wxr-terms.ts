import { ContentRegistry } from '../core/registry/content-registry.service';
import { termIdsBySlug } from '../resources/posts/post-terms';
import { TermsService } from '../resources/terms/terms.service';
import { message, metaOps, WxrImportContext } from './wxr-import-support';
import { WxrTerm } from './wxr-reader';

/**
 * The terms of a WXR file (the channel's and the posts'), of any taxonomy (categories, tags, post formats, menus,
 * custom ones), with their meta: matched by taxonomy and slug, created when missing, parents by slug.
 */
export class WxrTerms {
  private readonly content: ContentRegistry;
  private readonly termsService: TermsService;
  /** WXR term id → term id here (terms of the channel). */
  private readonly termIds = new Map<number, number>();
  /** In a dry run, the terms that would be created: `taxonomy slug` → fake id. */
  private readonly planned = new Map<string, number>();

  constructor(private readonly ctx: WxrImportContext) {
    this.content = ctx.get(ContentRegistry);
    this.termsService = ctx.get(TermsService);
  }

  /** A term of the channel: reported created or skipped (already there). */
  async importTerm(term: WxrTerm): Promise<void> {
    const label = `${term.taxonomy || '(no taxonomy)'} "${term.slug || term.name}"`;
    try {
      if (!term.taxonomy || !term.slug) throw new Error('a term needs a taxonomy and a slug');
      const id = await this.termId(term.taxonomy, term.slug, term, term.id || undefined);
      if (term.id) this.termIds.set(term.id, id);
    } catch (error) {
      this.ctx.report.failed('term', label, message(error), { fileId: term.id || undefined });
    }
  }

  /** The term here of a WXR term id of the channel, if it was imported or matched. */
  termOf(wxrTermId: number): number | undefined {
    return this.termIds.get(wxrTermId);
  }

  /**
   * The id of the term of `taxonomy` with `slug`, created (from `term`, or named by `name`) when missing. A term of
   * the channel (`fileId` given) is reported either way; one a post names is reported when it is created.
   */
  async termId(taxonomy: string, slug: string, term: Partial<WxrTerm> = {}, fileId?: number): Promise<number> {
    const label = `${taxonomy} "${slug}"`;
    const key = `${taxonomy} ${slug}`;
    const [found = this.planned.get(key)] = await termIdsBySlug(this.ctx.dataSource, taxonomy, [slug]);
    if (found !== undefined) {
      if (fileId !== undefined)
        this.ctx.report.skipped('term', label, 'a term with this slug is already there', { fileId, id: found });
      return found;
    }
    const registered = this.content.taxonomy(taxonomy);
    const hierarchical = registered ? registered.hierarchical : true;
    let parent = 0;
    if (term.parent && hierarchical) {
      [parent = this.planned.get(`${taxonomy} ${term.parent}`) ?? 0] = await termIdsBySlug(
        this.ctx.dataSource,
        taxonomy,
        [term.parent],
      );
      if (!parent)
        this.ctx.report.note(
          `parent "${term.parent}" of term "${slug}" (${taxonomy}) is not in the file or the site; imported without it.`,
        );
    }
    let id: number;
    if (this.ctx.dryRun) {
      id = this.ctx.fakeId();
      this.planned.set(key, id);
    } else {
      id = await this.termsService.create(
        taxonomy,
        hierarchical,
        { name: term.name || slug, slug, description: term.description ?? '', parent, slugGiven: true },
        metaOps(term.meta ?? []),
      );
    }
    this.ctx.report.created('term', label, { fileId, id }, fileId === undefined ? 'named by a post' : undefined);
    return id;
  }
}
