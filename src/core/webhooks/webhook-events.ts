/** The events a subscription may ask for (`*` asks for all). */
export const WEBHOOK_EVENTS = [
  'post.created',
  'post.updated',
  'post.published',
  'post.unpublished',
  'post.trashed',
  'post.deleted',
  'term.created',
  'term.updated',
  'term.deleted',
  'comment.created',
  'comment.updated',
  'comment.approved',
  'comment.unapproved',
  'comment.spam',
  'comment.trash',
  'comment.deleted',
  'media.created',
  'media.updated',
  'media.deleted',
  'user.created',
  'user.updated',
  'user.deleted',
  'settings.updated',
] as const;

/** One of {@link WEBHOOK_EVENTS}. */
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** The kinds of objects events are about. */
export type WebhookObjectType = 'post' | 'term' | 'comment' | 'media' | 'user' | 'settings';

/** What a writer records: the event and a reference to its object (the payload is rendered at delivery). */
export interface WebhookEvent {
  event: WebhookEventName;
  objectType: WebhookObjectType;
  /** The object's id (0 for the settings). */
  id: number;
  /** The post type or taxonomy of a post or term. */
  subtype?: string;
}

/** Whether a subscription's event list (names, or `*`) asks for an event. */
export function subscribesTo(events: readonly string[], event: string): boolean {
  return events.includes('*') || events.includes(event);
}

/** The post events of a status change, besides `post.created` / `post.updated` (`trash` is `post.trashed`). */
export function postStatusEvents(before: string | null, after: string): WebhookEventName[] {
  if (before === after) return [];
  if (after === 'trash') return ['post.trashed'];
  if (after === 'publish') return ['post.published'];
  if (before === 'publish') return ['post.unpublished'];
  return [];
}

/** The webhook events of a post write (attachments are `media.*`, and have no status events). */
export function postEvents(
  type: string,
  id: number,
  kind: 'created' | 'updated' | 'deleted',
  status?: [string | null, string],
): WebhookEvent[] {
  const media = type === 'attachment';
  const events: WebhookEvent[] = [
    media
      ? { event: `media.${kind}`, objectType: 'media', id, subtype: type }
      : { event: `post.${kind}`, objectType: 'post', id, subtype: type },
  ];
  if (!media && status)
    for (const event of postStatusEvents(status[0], status[1]))
      events.push({ event, objectType: 'post', id, subtype: type });
  return events;
}

/** The comment event of a comment's stored `comment_approved` value after a status change. */
export function commentStatusEvent(approved: string): WebhookEventName | null {
  switch (approved) {
    case '1':
      return 'comment.approved';
    case '0':
      return 'comment.unapproved';
    case 'spam':
      return 'comment.spam';
    case 'trash':
      return 'comment.trash';
    default:
      return null;
  }
}
