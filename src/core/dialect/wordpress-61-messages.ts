import type { TextGroup } from './text-groups';

/** WordPress 6.1's message for a spec message: one for every route, or one per text group. */
export type MessageTranslation = string | Partial<Record<TextGroup, string>>;

/**
 * WordPress 6.1's error messages where the spec's (the 4.7-era reference's) differ: error code → the spec's
 * message → WordPress 6.1's, for every route or per text group (the same spec message may be worded by WordPress
 * after the object a route serves). Codes and statuses are the same in both.
 */
export const WORDPRESS_61_MESSAGES: Readonly<Record<string, Readonly<Record<string, MessageTranslation>>>> = {
  rest_post_invalid_id: { 'Invalid post id.': 'Invalid post ID.' },
  rest_comment_invalid_id: { 'Invalid comment id.': 'Invalid comment ID.' },
  rest_post_invalid_parent: { 'Invalid post parent id.': 'Invalid post parent ID.' },
  rest_revision_invalid_id: { 'Invalid revision id.': 'Invalid revision ID.' },
  rest_user_invalid_id: { 'Invalid resource id.': 'Invalid user ID.' },
  rest_term_invalid: { "Resource doesn't exist.": 'Term does not exist.' },
  rest_type_invalid: { 'Invalid resource.': 'Invalid post type.' },
  rest_status_invalid: { 'Invalid resource.': 'Invalid status.' },
  rest_taxonomy_invalid: { 'Invalid resource.': 'Invalid taxonomy.' },
  rest_cannot_read_status: { 'Cannot view resource.': 'Cannot view status.' },
  rest_cannot_edit: {
    'Sorry, you can not edit this comment.': 'Sorry, you are not allowed to edit this comment.',
    'Sorry, you are not allowed to update this post.': 'Sorry, you are not allowed to edit this post.',
  },
  rest_cannot_read: { 'Sorry, you cannot read this comment.': 'Sorry, you are not allowed to read this comment.' },
  rest_cannot_delete: {
    'Sorry, you are not allowed to delete posts.': 'Sorry, you are not allowed to delete this post.',
  },
  rest_user_cannot_view: {
    'Sorry, you cannot filter by role.': 'Sorry, you are not allowed to filter users by role.',
    'Sorry, you cannot view this resource.': 'Sorry, you are not allowed to list users.',
  },
  rest_forbidden_context: {
    'Sorry, you cannot view this resource with edit context.': {
      post: 'Sorry, you are not allowed to edit posts in this post type.',
      taxonomy: 'Sorry, you are not allowed to manage terms in this taxonomy.',
    },
  },
  rest_cannot_create: {
    'Sorry, you are not allowed to create new posts.': 'Sorry, you are not allowed to create posts as this user.',
    'Sorry, you cannot create new resource.': { term: 'Sorry, you are not allowed to create terms in this taxonomy.' },
  },
  rest_cannot_create_user: {
    'Sorry, you are not allowed to create resource.': 'Sorry, you are not allowed to create new users.',
  },
  rest_cannot_view_revisions: {
    'Sorry, you cannot view revisions of this post.': 'Sorry, you are not allowed to view revisions of this post.',
  },
};
