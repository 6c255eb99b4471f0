import { PostEntity } from '../../core/database/entities/post.entity';
import type { PostFields, PostRelations } from './post-writer.service';

// Whether an update may run without the posts' turn (see `PostWriter.takeTurn`), and what it finds when it needs it.

/** An update begun without the posts' turn found it needs it: rolled back, and run again with it. */
export class NeedsTurn extends Error {}

/**
 * Whether an update is likely to keep the post where it is among other posts — its slug, status, date, parent,
 * terms, format and stickiness — so that it may run without the posts' turn ({@link PostWriter.update} checks it still).
 */
export function keepsPlace(before: PostEntity, f: PostFields, r: PostRelations): boolean {
  return (
    f.name === undefined &&
    (f.status === undefined || f.status === before.status) &&
    f.date === undefined &&
    f.parent === undefined &&
    before.status !== 'trash' &&
    !r.terms?.size &&
    r.format === undefined &&
    // The sticky list is the turn's own row: taken first, as every writer takes it, never after the post's.
    r.sticky === undefined
  );
}

/**
 * Whether an update leaves the post in its place for every list and filter but those on its content (search, title,
 * modification date): {@link keepsPlace}, and its author, order, password and MIME type are not written.
 */
export function staysInPlace(before: PostEntity, f: PostFields, r: PostRelations): boolean {
  return (
    keepsPlace(before, f, r) &&
    f.author === undefined &&
    f.menuOrder === undefined &&
    f.password === undefined &&
    f.mimeType === undefined
  );
}

/** The columns lists filter and order posts by (but their content), unchanged between two versions of a row. */
export function samePlace(a: PostEntity, b: PostEntity): boolean {
  return (
    a.name === b.name &&
    a.status === b.status &&
    a.date === b.date &&
    a.dateGmt === b.dateGmt &&
    a.parent === b.parent &&
    a.author === b.author &&
    a.menuOrder === b.menuOrder &&
    a.password === b.password &&
    a.type === b.type &&
    a.mimeType === b.mimeType
  );
}
