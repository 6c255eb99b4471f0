import { renderContent, renderExcerpt, renderTitle, applyExcerptFilters } from '../formatting/filters';
import { wpFilterKses, wpKsesPost } from '../formatting/kses';
import { convertInvalidEntities, wpTargetedLinkRel } from '../formatting/sanitize-title';
import { phpTrim } from '../formatting/texturize';

/**
 * The text filters that may run on large user input, by name, so that the same code runs in the request's thread
 * (small texts) and in a worker of the {@link TextFilterPool} (large ones). Each takes and returns plain data.
 */
export const TEXT_FILTERS = {
  /** `content.rendered` (the `the_content` chain). */
  renderContent: (raw: string): string => renderContent(raw),
  /** `excerpt.rendered` from the excerpt, or generated from the content when there is none. */
  renderExcerpt: (excerpt: string, content: string): string => renderExcerpt(excerpt, content),
  /** `title.rendered` (the `the_title` chain, with the "Private: " prefix by status and password). */
  renderTitle: (raw: string, status: string, password: string): string => renderTitle(raw, { status, password }),
  /** The `the_excerpt` filters of a hand-written excerpt. */
  excerptFilters: (excerpt: string): string => applyExcerptFilters(excerpt),
  /**
   * What WordPress's save filters do to a post's title, content or excerpt: `rel="noopener"` on links opening a new
   * window, invalid entities fixed, titles trimmed, and — when `filtered` (callers without `unfiltered_html`) — HTML
   * limited by kses (the short list for titles, the post list for the rest).
   */
  savedPostText: (field: 'title' | 'content' | 'excerpt', raw: string, filtered: boolean): string => {
    let text = field === 'title' ? phpTrim(raw) : convertInvalidEntities(raw);
    text = wpTargetedLinkRel(text);
    if (filtered) text = field === 'title' ? wpFilterKses(text) : wpKsesPost(text);
    return text;
  },
  /** `wp_filter_kses()`: the short list of allowed HTML (descriptions, names). */
  filterKses: (raw: string): string => wpFilterKses(raw),
  /** `wp_kses_post()`: the post list of allowed HTML. */
  ksesPost: (raw: string): string => wpKsesPost(raw),
} as const;

export type TextFilterName = keyof typeof TEXT_FILTERS;
export type TextFilterArgs<F extends TextFilterName> = Parameters<(typeof TEXT_FILTERS)[F]>;

/** A task for a worker: a filter's name and its arguments. */
export interface TextFilterTask<F extends TextFilterName = TextFilterName> {
  filter: F;
  args: TextFilterArgs<F>;
}

/** Runs a filter by name (in whichever thread calls it). */
export function runTextFilter<F extends TextFilterName>(task: TextFilterTask<F>): string {
  const filter = TEXT_FILTERS[task.filter] as (...args: unknown[]) => string;
  return filter(...(task.args as unknown[]));
}
