/**
 * The groups whose texts WordPress words differently (its controllers name their object: "the comment", "the
 * term", where the spec says "the object" or "the resource"): a route's group follows from its item schema's
 * title (see {@link textGroupOf}).
 */
export type TextGroup = 'post' | 'comment' | 'term' | 'user' | 'type' | 'status' | 'taxonomy' | 'revision' | 'settings';

/** Where a route's group comes from: its item schema's title, and whether that names a post type or a taxonomy. */
export interface TextGroupLookup {
  isPostType(name: string): boolean;
  isTaxonomy(name: string): boolean;
}

const BY_TITLE: Readonly<Record<string, TextGroup>> = {
  comment: 'comment',
  user: 'user',
  type: 'type',
  status: 'status',
  taxonomy: 'taxonomy',
  settings: 'settings',
  'post-revision': 'revision',
  'page-revision': 'revision',
  tag: 'term',
};

/** The text group of a route whose item schema has this title (`undefined` when it has none or no group fits). */
export function textGroupOf(title: string | undefined, lookup: TextGroupLookup): TextGroup | undefined {
  if (!title) return undefined;
  if (BY_TITLE[title]) return BY_TITLE[title];
  if (title.endsWith('-revision')) return 'revision';
  if (lookup.isTaxonomy(title)) return 'term';
  if (lookup.isPostType(title)) return 'post';
  return undefined;
}
