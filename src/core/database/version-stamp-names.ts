/** The object groups that carry a version: WordPress's `last_changed` cache groups, kept in the database. */
export const STAMP_GROUPS = ['posts', 'terms', 'comments', 'users', 'options'] as const;
export type StampGroup = (typeof STAMP_GROUPS)[number];

/** The table of versions (after the table prefix). */
export const VERSIONS_TABLE = 'cms_versions';

/** The table of posts' versions (after the table prefix): one row per post an edit in place wrote. */
export const POST_VERSIONS_TABLE = 'cms_post_versions';

/**
 * The session variable this server's MySQL connections set before their first write (`SET @cms_api = 1`): the stamp
 * triggers (see stamp-triggers.ts) leave those writes to this class, which narrows edits in place itself and moves
 * the versions once per transaction instead of once per row.
 */
export const API_SESSION_FLAG = '@cms_api';

/** A statement that writes but should not bump any version (the SQLite write-lock probe) carries this comment. */
export const NO_STAMP = '/* cms:no-stamp */';

/**
 * The version of the posts' content: moved, instead of the `posts` group's, by a write that keeps every post where it
 * was among the others ({@link VersionStamps.narrow}), together with the version of each post it wrote (in
 * {@link POST_VERSIONS_TABLE}). An answer that shows posts but depends on their content only through the
 * posts it shows stays valid while the versions of those posts are unchanged.
 */
export const CONTENT_STAMP = 'posts.content';

/**
 * The posts' content version counts narrowed commits: `sequence × CONTENT_SEQUENCE + random`. The sequence orders
 * them (each takes the next under the content row's lock), the random part keeps a version a rolled-back commit
 * may have shown from being reused. A post's version is the content version of the last narrowed commit that wrote it.
 */
export const CONTENT_SEQUENCE = 2 ** 20;

/**
 * How many posts' versions a process keeps from the narrowed commits it read with the stamps ({@link
 * VersionStamps.postsWrittenAfter}), about 100 bytes each. Past it, it forgets them and starts again from the content
 * version it read: answers checked before that check their posts' versions with one statement each, once.
 */
export const CONTENT_CHANGES_KEPT = 4096;

/** The place of a content version (or of a post's version) among narrowed commits. */
export function contentSequence(version: number): number {
  return Math.floor(version / CONTENT_SEQUENCE);
}

/** The listeners' channels: the groups, and the posts' content (moved by every write of posts, narrowed or not). */
export type StampChannel = StampGroup | 'content';

/**
 * The versions read at one moment: per group, and as one token (`posts.terms.comments.users.options`); and the
 * posts' content version apart ({@link CONTENT_STAMP}).
 */
export interface Stamps {
  readonly versions: Readonly<Record<StampGroup, number>>;
  readonly token: string;
  readonly content: number;
}

/** The versions of some posts, by id: 0 for a post never written by a narrowed write. */
export type PostVersions = ReadonlyMap<number, number>;
