/** The post statuses of WordPress 6.1's `create_initial_post_types()` (see builtin-content-types.ts). */
import { type PostStatusArgs } from './content-types';

/** Built-in post statuses, in WordPress's registration order: `[name, args]` (the request-* statuses: LATER_POST_STATUSES). */
export const BUILTIN_POST_STATUSES: ReadonlyArray<readonly [string, PostStatusArgs]> = [
  [
    'publish',
    {
      label: 'Published',
      public: true,
      _builtin: true,
      label_count: {
        singular: 'Published <span class="count">(%s)</span>',
        plural: 'Published <span class="count">(%s)</span>',
      },
    },
  ],
  [
    'future',
    {
      label: 'Scheduled',
      protected: true,
      _builtin: true,
      label_count: {
        singular: 'Scheduled <span class="count">(%s)</span>',
        plural: 'Scheduled <span class="count">(%s)</span>',
      },
    },
  ],
  [
    'draft',
    {
      label: 'Draft',
      protected: true,
      _builtin: true,
      label_count: {
        singular: 'Draft <span class="count">(%s)</span>',
        plural: 'Drafts <span class="count">(%s)</span>',
      },
      date_floating: true,
    },
  ],
  [
    'pending',
    {
      label: 'Pending',
      protected: true,
      _builtin: true,
      label_count: {
        singular: 'Pending <span class="count">(%s)</span>',
        plural: 'Pending <span class="count">(%s)</span>',
      },
      date_floating: true,
    },
  ],
  [
    'private',
    {
      label: 'Private',
      private: true,
      _builtin: true,
      label_count: {
        singular: 'Private <span class="count">(%s)</span>',
        plural: 'Private <span class="count">(%s)</span>',
      },
    },
  ],
  [
    'trash',
    {
      label: 'Trash',
      internal: true,
      _builtin: true,
      label_count: {
        singular: 'Trash <span class="count">(%s)</span>',
        plural: 'Trash <span class="count">(%s)</span>',
      },
      show_in_admin_status_list: true,
    },
  ],
  [
    'auto-draft',
    {
      label: 'auto-draft',
      internal: true,
      _builtin: true,
      date_floating: true,
    },
  ],
  [
    'inherit',
    {
      label: 'inherit',
      internal: true,
      _builtin: true,
      exclude_from_search: false,
    },
  ],
];

/** A status of the personal data requests (`user_request` posts): internal, and not excluded from searches. */
const requestStatus = (label: string): PostStatusArgs => ({
  label,
  internal: true,
  _builtin: true,
  label_count: {
    singular: `${label} <span class="count">(%s)</span>`,
    plural: `${label} <span class="count">(%s)</span>`,
  },
  exclude_from_search: false,
  addedIn: '4.9.6',
});

/**
 * The statuses WordPress registered after the seed, appended in its order (`addedIn`: the WordPress version), where
 * the wire dialect lists later types (`listsLaterContentTypes`). Internal: `statuses` does not list them.
 */
export const LATER_POST_STATUSES: ReadonlyArray<readonly [string, PostStatusArgs]> = [
  ['request-pending', requestStatus('Pending')],
  ['request-confirmed', requestStatus('Confirmed')],
  ['request-failed', requestStatus('Failed')],
  ['request-completed', requestStatus('Completed')],
];
