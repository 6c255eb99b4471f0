import type { TextGroup } from './text-groups';

/** Seed wording → WordPress 6.1 wording, for one text group (`*`: every group). */
export type TextTable = Partial<Record<TextGroup | '*', Readonly<Record<string, string>>>>;

/**
 * WordPress 6.1's descriptions of arguments and schema properties where the spec's (the 4.7-era reference's) differ,
 * keyed by the spec's wording, per text group (read off WordPress 6.1's `OPTIONS` answers).
 */
export const WORDPRESS_61_DESCRIPTIONS: TextTable = {
  '*': {
    'Whether to bypass trash and force deletion.': 'Whether to bypass Trash and force deletion.',
    'Ensure result set excludes specific ids.': 'Ensure result set excludes specific IDs.',
    'Limit result set to specific ids.': 'Limit result set to specific IDs.',
  },
  comment: {
    'Limit result set to comments assigned to specific user ids. Requires authorization.':
      'Limit result set to comments assigned to specific user IDs. Requires authorization.',
    'Ensure result set excludes comments assigned to specific user ids. Requires authorization.':
      'Ensure result set excludes comments assigned to specific user IDs. Requires authorization.',
    'Offset the result set by a specific number of comments.': 'Offset the result set by a specific number of items.',
    'Sort collection by object attribute.': 'Sort collection by comment attribute.',
    'Limit result set to resources of specific parent ids.': 'Limit result set to comments of specific parent IDs.',
    'Ensure result set excludes specific parent ids.': 'Ensure result set excludes specific parent IDs.',
    'Limit result set to resources assigned to specific post ids.':
      'Limit result set to comments assigned to specific post IDs.',
    'The id of the user object, if author was a user.': 'The ID of the user object, if author was a user.',
    'Email address for the object author.': 'Email address for the comment author.',
    'IP address for the object author.': 'IP address for the comment author.',
    'Display name for the object author.': 'Display name for the comment author.',
    'URL for the object author.': 'URL for the comment author.',
    'The content for the object.': 'The content for the comment.',
    'Content for the object, as it exists in the database.': 'Content for the comment, as it exists in the database.',
    'HTML content for the object, transformed for display.': 'HTML content for the comment, transformed for display.',
    "The date the object was published, in the site's timezone.":
      "The date the comment was published, in the site's timezone.",
    'The date the object was published, as GMT.': 'The date the comment was published, as GMT.',
    'The id for the parent of the object.': 'The ID for the parent of the comment.',
    'The id of the associated post object.': 'The ID of the associated post object.',
    'State of the object.': 'State of the comment.',
    'Unique identifier for the object.': 'Unique identifier for the comment.',
    'User agent for the object author.': 'User agent for the comment author.',
    'URL to the object.': 'URL to the comment.',
    'Type of Comment for the object.': 'Type of the comment.',
    'Avatar URLs for the object author.': 'Avatar URLs for the comment author.',
  },
  term: {
    'Sort collection by resource attribute.': 'Sort collection by term attribute.',
    'Whether to hide resources not assigned to any posts.': 'Whether to hide terms not assigned to any posts.',
    'Limit result set to resources assigned to a specific post.':
      'Limit result set to terms assigned to a specific post.',
    'Limit result set to resources with one or more specific slugs.':
      'Limit result set to terms with one or more specific slugs.',
    'HTML description of the resource.': 'HTML description of the term.',
    'HTML title for the resource.': 'HTML title for the term.',
    'An alphanumeric identifier for the resource unique to its type.':
      'An alphanumeric identifier for the term unique to its type.',
    'Unique identifier for the resource.': 'Unique identifier for the term.',
    'Number of published posts for the resource.': 'Number of published posts for the term.',
    'URL to the resource.': 'URL of the term.',
    'Type attribution for the resource.': 'Type attribution for the term.',
    'Required to be true, as resource does not support trashing.':
      'Required to be true, as terms do not support trashing.',
    'Limit result set to resources assigned to a specific parent.':
      'Limit result set to terms assigned to a specific parent.',
    'The id for the parent of the resource.': 'The parent term ID.',
  },
  taxonomy: {
    'Limit results to resources associated with a specific post type.':
      'Limit results to taxonomies associated with a specific post type.',
  },
};
