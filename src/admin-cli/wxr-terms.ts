import { ContentRegistry } from '../core/registry/content-registry.service';
import { termIdsBySlug } from '../resources/posts/post-terms';
import { TermsService } from '../resources/terms/terms.service';
import { message, metaOps, Tally, WxrImportContext } from './wxr-import-support';
import { WxrTerm } from './wxr-reader';

/** The terms of a WXR file (the channel's and the posts'): matched by taxonomy and slug, created when missing. */
export class WxrTerms {
  private readonly content: ContentRegistry;
  private readonly termsService: TermsService;
  /** WXR term id → term id here (terms of the channel). */
  private readonly termIds = new Map<number, number>();

  constructor(
    private readonly ctx: WxrImportContext,
    private readonly tally: Tally,
  ) {
    this.content = ctx.get(ContentRegistry);
    this.termsService = ctx.get(TermsService);
  }

  async importTerm(term: WxrTerm): Promise<void> {
    try {
      if (!term.taxonomy || !term.slug) throw new Error('a term needs a taxonomy and a slug');
      const id = await this.termId(term.taxonomy, term.slug, term);
      if (term.id) this.termIds.set(term.id, id);
    } catch (error) {
      this.tally.failed++;
      this.ctx.report(
        `Failed: term "${term.name || term.slug}" (${term.taxonomy || 'no taxonomy'}): ${message(error)}`,
      );
    }
  }

  /** The term here of a WXR term id of the channel, if it was imported or matched. */
  termOf(wxrTermId: number): number | undefined {
    return this.termIds.get(wxrTermId);
  }

  /** The id of the term of `taxonomy` with `slug`, created (from `term`, or named by `name`) when missing. */
  async termId(taxonomy: string, slug: string, term: Partial<WxrTerm> = {}): Promise<number> {
    const [found] = await termIdsBySlug(this.ctx.dataSource, taxonomy, [slug]);
    if (found !== undefined) {
      if (term.meta) this.tally.skipped++;
      return found;
    }
    const registered = this.content.taxonomy(taxonomy);
    const hierarchical = registered ? registered.hierarchical : true;
    let parent = 0;
    if (term.parent && hierarchical) {
      [parent = 0] = await termIdsBySlug(this.ctx.dataSource, taxonomy, [term.parent]);
      if (!parent)
        this.ctx.report(
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
    this.tally.created++;
    return id;
  }
}
