import type { TextGroup } from './text-groups';

/** WordPress 6.1's message for a spec message: one for every route, or one per text group. */
export type MessageTranslation = string | Partial<Record<TextGroup, string>>;

/**
 * WordPress 6.1's error messages where the spec's (the 4.7-era reference's) differ: error code → the spec's
 * message → WordPress 6.1's, for every route or per text group (the same spec message may be worded by WordPress
 * after the object a route serves). Codes and statuses are the same in both. Sorted by code; read off
 * wp-includes/rest-api (6.1.9) in the same situation, and checked against a running WordPress 6.1 where a read or a
 * failing request shows them. Messages the spec builds from values (custom field names, …) are not here.
 */
export const WORDPRESS_61_MESSAGES: Readonly<Record<string, Readonly<Record<string, MessageTranslation>>>> = {
  // The fatal error handler's message (wp_die()'s JSON handler sends it as it is, markup included).
  internal_server_error: {
    'There has been a critical error on this website.':
      '<p>There has been a critical error on this website.</p><p><a href="https://wordpress.org/support/article/faq-troubleshooting/">Learn more about troubleshooting WordPress.</a></p>',
  },
  // wp_authenticate_application_password(): an unknown login sent with an application password.
  invalid_username: {
    'Unknown username. Check again or try your email address.':
      '<strong>Error:</strong> Unknown username. Check again or try your email address.',
  },
  rest_cannot_assign_sticky: {
    'You do not have permission to make posts sticky.': 'Sorry, you are not allowed to make posts sticky.',
  },
  rest_cannot_create: {
    'Sorry, you are not allowed to create new posts.': 'Sorry, you are not allowed to create posts as this user.',
    'Sorry, you cannot create new resource.': { term: 'Sorry, you are not allowed to create terms in this taxonomy.' },
  },
  rest_cannot_create_user: {
    'Sorry, you are not allowed to create resource.': 'Sorry, you are not allowed to create new users.',
  },
  rest_cannot_delete: {
    'Sorry, you are not allowed to delete posts.': 'Sorry, you are not allowed to delete this post.',
    'Sorry, you can not delete this comment.': 'Sorry, you are not allowed to delete this comment.',
    'Sorry, you cannot delete resource.': 'Sorry, you are not allowed to delete this term.',
  },
  rest_cannot_edit: {
    'Sorry, you are not allowed to edit resource.': 'Sorry, you are not allowed to edit this user.',
    'Sorry, you are not allowed to update this post.': 'Sorry, you are not allowed to edit this post.',
    'Sorry, you are not allowed to upload media to this resource.':
      'Sorry, you are not allowed to upload media to this post.',
    'Sorry, you can not edit this comment.': 'Sorry, you are not allowed to edit this comment.',
  },
  rest_cannot_edit_others: {
    'You are not allowed to create posts as this user.': 'Sorry, you are not allowed to create posts as this user.',
    'You are not allowed to update posts as this user.': 'Sorry, you are not allowed to update posts as this user.',
  },
  rest_cannot_edit_roles: {
    'Sorry, you are not allowed to edit roles of this resource.':
      'Sorry, you are not allowed to edit roles of this user.',
  },
  rest_cannot_read: {
    'Sorry, you cannot read comments without a post.': 'Sorry, you are not allowed to read comments without a post.',
    'Sorry, you cannot read this comment.': 'Sorry, you are not allowed to read this comment.',
    'Sorry, you cannot view revisions of this post.': 'Sorry, you are not allowed to view revisions of this post.',
  },
  rest_cannot_read_post: {
    'Sorry, you cannot read the post for this comment.':
      'Sorry, you are not allowed to read the post for this comment.',
  },
  rest_cannot_read_status: { 'Cannot view resource.': 'Cannot view status.' },
  rest_cannot_read_type: { 'Cannot view resource.': 'Cannot view post type.' },
  rest_cannot_update: {
    'Sorry, you cannot update resource.': 'Sorry, you are not allowed to edit this term.',
  },
  // The edit context of the type, status and taxonomy lists (each controller names what it guards).
  rest_cannot_view: {
    'Sorry, you cannot view this resource with edit context.': {
      type: 'Sorry, you are not allowed to edit posts in this post type.',
      status: 'Sorry, you are not allowed to manage post statuses.',
      taxonomy: 'Sorry, you are not allowed to manage terms in this taxonomy.',
    },
  },
  rest_comment_closed: { 'Sorry, comments are closed on this post.': 'Sorry, comments are closed for this item.' },
  rest_comment_invalid_author: {
    'Comment author invalid.': "Sorry, you are not allowed to edit 'author' for comments.",
  },
  rest_comment_invalid_id: { 'Invalid comment id.': 'Invalid comment ID.' },
  rest_comment_invalid_post_id: {
    'Sorry, you cannot create this comment without a post.':
      'Sorry, you are not allowed to create this comment without a post.',
  },
  // WordPress 6.1 refuses `status` only when creating; the same words serve the spec's check on updates.
  rest_comment_invalid_status: {
    'Sorry, you cannot set status for comments.': "Sorry, you are not allowed to edit 'status' for comments.",
  },
  rest_comment_invalid_type: {
    'Sorry, you cannot change the comment type.': 'Sorry, you are not allowed to change the comment type.',
  },
  rest_cookie_invalid_nonce: { 'Cookie nonce is invalid': 'Cookie check failed' },
  rest_forbidden_context: {
    'Sorry, you are not allowed to manage this resource.': {
      type: 'Sorry, you are not allowed to edit posts in this post type.',
      taxonomy: 'Sorry, you are not allowed to manage terms in this taxonomy.',
    },
    'Sorry, you cannot view comments with edit context.': 'Sorry, you are not allowed to edit comments.',
    'Sorry, you cannot view this comment with edit context.': 'Sorry, you are not allowed to edit comments.',
    // Terms: the list's wording (a single term's edit context reads "Sorry, you are not allowed to edit this term.").
    'Sorry, you cannot view this resource with edit context.': {
      term: 'Sorry, you are not allowed to edit terms in this taxonomy.',
      user: 'Sorry, you are not allowed to edit users.',
    },
  },
  rest_forbidden_orderby: {
    'Sorry, you cannot order by this parameter.': 'Sorry, you are not allowed to order users by this parameter.',
  },
  rest_invalid_author: { 'Invalid author id.': 'Invalid author ID.' },
  // WP_REST_Server::dispatch() (only its batch handler leaves the full stop out).
  rest_invalid_handler: { 'The handler for the route is invalid': 'The handler for the route is invalid.' },
  rest_no_route: {
    'No route was found matching the URL and request method': 'No route was found matching the URL and request method.',
  },
  rest_post_invalid_id: {
    'Invalid post id.': 'Invalid post ID.',
    'Invalid post parent id.': 'Invalid post parent ID.',
    // The revisions controller's get_revision() answers this code for a revision id.
    'Invalid revision id.': 'Invalid revision ID.',
    // Updates and deletes load the post with get_post() too.
    'Post id is invalid.': 'Invalid post ID.',
  },
  rest_post_invalid_parent: { 'Invalid post parent id.': 'Invalid post parent ID.' },
  rest_status_invalid: { 'Invalid resource.': 'Invalid status.' },
  rest_taxonomy_invalid: { 'Invalid resource.': 'Invalid taxonomy.' },
  rest_taxonomy_not_hierarchical: {
    'Can not set resource parent, taxonomy is not hierarchical.':
      'Cannot set parent term, taxonomy is not hierarchical.',
  },
  rest_term_invalid: {
    "Parent resource doesn't exist.": 'Parent term does not exist.',
    "Resource doesn't exist.": 'Term does not exist.',
  },
  rest_trash_not_supported: {
    'Resource does not support trashing.': "Terms do not support trashing. Set 'force=true' to delete.",
    "Revisions do not support trashing. Set 'force' to true to delete.":
      "Revisions do not support trashing. Set 'force=true' to delete.",
    'The comment does not support trashing.': "The comment does not support trashing. Set 'force=true' to delete.",
    'The post does not support trashing.': "The post does not support trashing. Set 'force=true' to delete.",
    "Users do not support trashing. Set 'force' to true to delete.":
      "Users do not support trashing. Set 'force=true' to delete.",
  },
  rest_type_invalid: { 'Invalid resource.': 'Invalid post type.' },
  rest_user_cannot_delete: {
    'Sorry, you are not allowed to delete this resource.': 'Sorry, you are not allowed to delete this user.',
  },
  rest_user_cannot_view: {
    'Sorry, you cannot filter by capability.': 'Sorry, you are not allowed to filter users by capability.',
    'Sorry, you cannot filter by role.': 'Sorry, you are not allowed to filter users by role.',
    'Sorry, you cannot view this resource.': 'Sorry, you are not allowed to list users.',
  },
  rest_user_exists: { 'Cannot create existing resource.': 'Cannot create existing user.' },
  rest_user_invalid_argument: { "Username isn't editable": 'Username is not editable.' },
  rest_user_invalid_email: { 'Email address is invalid.': 'Invalid email address.' },
  rest_user_invalid_id: { 'Invalid resource id.': 'Invalid user ID.' },
  rest_user_invalid_reassign: { 'Invalid resource id for reassignment.': 'Invalid user ID for reassignment.' },
  rest_user_invalid_role: {
    'You cannot give resource that role.': 'Sorry, you are not allowed to give users that role.',
  },
  rest_user_invalid_slug: { 'Slug is invalid.': 'Invalid slug.' },
};
