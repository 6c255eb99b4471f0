/**
 * `map_meta_cap()` for the meta of posts, comments, terms and users (`edit_post_meta`, `add_comment_meta`,
 * `delete_term_meta`, `edit_user_meta`, …): the object's edit capability, and whether the key may be written.
 */
import {
  DO_NOT_ALLOW,
  getComment,
  getPost,
  getTerm,
  getUser,
  isset,
  MetaAuthRequest,
  MetaCapCall,
  phpTruthy,
} from './meta-cap-lookups';

/** Port of `is_protected_meta()` (without its filter). */
export function isProtectedMeta(metaKey: string): boolean {
  const sanitized = metaKey.replace(/[^\x20-\x7E\p{L}]/gu, '');
  return sanitized.length > 0 && sanitized[0] === '_';
}

/**
 * `{edit,delete,add}_{post,comment,term,user}_meta`: `edit_{object}` for the object, which must exist, and
 * `do_not_allow` besides for a key that may not be written (a protected one, unless `MetaCapLookups.authMeta`
 * decides otherwise).
 */
export async function objectMetaCaps({ cap, user, args, lookups, recurse }: MetaCapCall): Promise<string[]> {
  const objectType = cap.split('_')[1] as MetaAuthRequest['objectType'];
  if (!isset(args[0])) return [DO_NOT_ALLOW];

  // get_object_subtype(): the object must exist.
  let subtype = '';
  let object: unknown = null;
  let objectId: number | null = null;
  if (objectType === 'post') {
    const post = await getPost(lookups, args[0]);
    if (post) [subtype, object, objectId] = [post.type, post, post.id];
  } else if (objectType === 'comment') {
    const comment = await getComment(lookups, args[0]);
    if (comment) [subtype, object, objectId] = ['comment', comment, comment.id];
  } else if (objectType === 'term') {
    const term = await getTerm(lookups, args[0]);
    if (term) [subtype, object, objectId] = [term.taxonomy, term, Number(term.termId)];
  } else {
    const found = await getUser(lookups, args[0]);
    if (found) [subtype, object, objectId] = ['user', found, found.id];
  }
  if (!subtype || objectId === null) return [DO_NOT_ALLOW];

  const mapped = await recurse(`edit_${objectType}`, [object]);
  const metaKey = args[1];
  if (phpTruthy(metaKey)) {
    const key = String(metaKey);
    let allowed = !isProtectedMeta(key);
    if (lookups.authMeta) {
      allowed = await lookups.authMeta({
        objectType,
        objectSubtype: subtype,
        metaKey: key,
        objectId,
        userId: user.id,
        cap,
        caps: mapped,
        allowed,
      });
    }
    if (!allowed) mapped.push(DO_NOT_ALLOW);
  }
  return mapped;
}
