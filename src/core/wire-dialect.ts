import type { MetaKeyDefinition } from './registry/field-types';
import { WORDPRESS_61_DESCRIPTIONS, type TextTable } from './dialect/wordpress-61-descriptions';
import { WORDPRESS_61_MESSAGES, type MessageTranslation } from './dialect/wordpress-61-messages';
import {
  SEED_VALIDATION_WORDS,
  WORDPRESS_61_VALIDATION_WORDS,
  type ValidationWords,
} from './dialect/wordpress-61-validation';

/**
 * What the API does differently by the WordPress it speaks for: the spec's (`seed`, the reference's 2.0-beta15
 * behaviour, served with the `cms` wire names) or WordPress 6.1's (`wordpress-6.1`, served with WordPress's wire
 * names). The differences are data, chosen once with the wire names ({@link WireNames.dialect}); resources read
 * the field that concerns them, never the mode.
 */
export interface WireDialect {
  /** Which behaviour this is. */
  readonly name: 'seed' | 'wordpress-6.1';
  /** Route descriptions (index, `OPTIONS`) show `allow_batch` on the endpoints a batch may call. */
  readonly describesAllowBatch: boolean;
  /** Route descriptions show an argument's `null` default (WordPress's; the spec's leave it out). */
  readonly describesNullDefaults: boolean;
  /**
   * The index, the namespace indexes and `settings` declare `context`, so that an invalid one is refused (the
   * spec's); WordPress's settings route takes none and its indexes ignore an invalid one.
   */
  readonly indexesTakeContext: boolean;
  /**
   * The index shows WordPress 5.6+'s `authentication` (the application-passwords authorization endpoint) and 5.8+'s
   * `site_logo`, `site_icon` and `site_icon_url`, and namespace indexes do not list the namespaces (WordPress's);
   * the spec's index has `authentication: []` and every index lists the namespaces.
   */
  readonly laterIndexFields: boolean;
  /** `Link` headers write a false argument bare (`sticky`, WordPress 6.1's urlencode_deep); the spec's `sticky=0`. */
  readonly bareFalseInLinks: boolean;
  /** `rest_invalid_param` errors carry `data.details` (each parameter's own error: code, message, data). */
  readonly invalidParamDetails: boolean;
  /** Types, taxonomies and statuses registered with `addedIn` (added to WordPress after the seed) are listed. */
  readonly listsLaterContentTypes: boolean;
  /**
   * What a permanent delete answers: the item as it was (`item`, the spec's) or `{ deleted: true, previous }`
   * (`deleted-previous`, WordPress's).
   */
  readonly deleteAnswer: 'item' | 'deleted-previous';
  /** What trashing answers: the item as it was before (`before`, the spec's) or as trashed (`trashed`, WordPress's). */
  readonly trashAnswer: 'before' | 'trashed';
  /** Error messages worded otherwise than the spec's: code → the spec's message → this dialect's (none: the spec's). */
  readonly messages: Readonly<Record<string, Readonly<Record<string, MessageTranslation>>>> | null;
  /** Descriptions of arguments and schema properties worded otherwise than the spec's (none: the spec's). */
  readonly descriptions: TextTable | null;
  /**
   * The read check of a comment or a term answers the `404` of a missing one (WordPress's, so that its `Allow`
   * lists nothing); the spec's passes it on to the handler's 404 (and `Allow: GET`).
   */
  readonly readChecksFindTheItem: boolean;
  /** The shape of terms. */
  readonly terms: TermsDialect;
  /** The shape of the posts of every type. */
  readonly posts: PostsDialect;
  /** The shape and rules of comments. */
  readonly comments: CommentsDialect;
  /**
   * What deleting a revision checks: `delete_post` of its post (`post`, the spec's, whose `map_meta_cap` mapped a
   * revision to its post), or that and then `delete_post` of the revision itself (`post-and-revision`, WordPress
   * 6.1's, whose `map_meta_cap` maps it to `do_not_allow`: nobody, unless an extension maps `delete_post` otherwise).
   */
  readonly revisionDelete: 'post' | 'post-and-revision';
  /** Validation's messages and the order of its checks: the spec's, or WordPress 6.1's (rest-api.php). */
  readonly validation: ValidationWords;
  /**
   * How a request's arguments are checked: all in one pass, in the route's order (`one`, the spec's), or in
   * WordPress's two (`validate-then-sanitize`: those `checkedFirst` in the route's order, then the others in the
   * request's order, the second only when the first found nothing).
   */
  readonly validationPasses: 'one' | 'validate-then-sanitize';
  /**
   * How `meta` (posts, terms, comments, users) is checked: as an argument against its schema (`argument`, the spec's:
   * `rest_invalid_param` naming `meta[<key>]`), or as WordPress 6.1's WP_REST_Meta_Fields does (`when-written`): the
   * argument only has to be an object or a list (else "Invalid parameter.", check_meta_is_array), and each registered
   * key's value is checked as it is written, failing with its own code (`rest_invalid_type`…), named `meta.<key>`.
   */
  readonly metaChecks: 'argument' | 'when-written';
  /** The shape and rules of users. */
  readonly users: UsersDialect;
  /**
   * Who gets the no-cache headers (`Cache-Control: no-cache, …`, `Expires`): every caller (the spec's), or logged-in
   * ones only (WordPress's `rest_send_nocache_headers`, `is_user_logged_in()`).
   */
  readonly noCacheHeadersFor: 'everyone' | 'logged-in';
}

/** How terms differ by dialect. */
export interface TermsDialect {
  /** Which taxonomies' collections take `offset`: every one (the spec's) or flat ones (WordPress's). */
  readonly offsetOn: 'every-taxonomy' | 'flat';
  /** A term's `taxonomy` enum lists every taxonomy (the spec's) or its own (WordPress's). */
  readonly taxonomyEnum: 'every-taxonomy' | 'own';
  /** `parent` sent to a flat taxonomy's collection is refused (the spec's, 400) or ignored (WordPress's). */
  readonly flatParentRefused: boolean;
  /**
   * What creating a term needs: the taxonomy's `manage_terms` (the spec's), or `edit_terms` in a hierarchical
   * taxonomy and `assign_terms` in a flat one (`edit-or-assign`, WordPress 6.1's: authors create tags).
   */
  readonly createNeeds: 'manage_terms' | 'edit-or-assign';
}

/** How comments differ by dialect. */
export interface CommentsDialect {
  /** Comments have `karma` (property, write and collection argument), as the spec's; WordPress dropped it. */
  readonly karma: boolean;
  /**
   * `type` is writable with the default `comment` and `author_user_agent` is read-only (the spec's), or `type` is
   * read-only and `author_user_agent` writable (WordPress's).
   */
  readonly writableType: boolean;
  /** The `children` link is embeddable (WordPress's; the spec's is not). */
  readonly embeddableChildren: boolean;
  /** Creating a comment needs `post` for every caller (WordPress's); the spec lets moderators omit it. */
  readonly createNeedsPost: boolean;
  /**
   * What the `rest_allow_anonymous_comments` filter starts from: anonymous visitors may comment (the spec's), or not
   * unless an extension's filter says so (WordPress's).
   */
  readonly anonymousByDefault: boolean;
}

/** How posts of every type differ by dialect. */
export interface PostsDialect {
  /**
   * Which types have `parent` (property and write argument) and take `parent_exclude`: every type (the spec's
   * `every-type`) or hierarchical ones (`hierarchical`, WordPress's).
   */
  readonly parentOn: 'every-type' | 'hierarchical';
  /** Collections declare `password` and `filter` (the spec's; WordPress 4.7+ declares neither). */
  readonly collectionPasswordAndFilter: boolean;
  /** Media items have `template` as other posts do (WordPress's; the spec's have none). */
  readonly mediaTemplate: boolean;
  /** Reading a media item takes `password` (the spec's; WordPress's media schema has no password, nor the route). */
  readonly mediaReadPassword: boolean;
  /** A page past the last one is refused (`400 rest_post_invalid_page_number`, WordPress's); the spec's is empty. */
  readonly pastLastPageRefused: boolean;
  /**
   * The edit context adds `permalink_template`, `generated_slug`, `content.block_version` and the `action-*` links,
   * and the item schema has `links` (WordPress 5.0+'s; the spec's have none of them).
   */
  readonly editExtras: boolean;
  /**
   * The taxonomy arguments of collections (`<rest_base>`, `<rest_base>_exclude`) take a list of term ids or WordPress
   * 5.6+'s object (`terms`, `include_children`, `operator`), declared with `oneOf` (WordPress's); the spec's take a
   * list of term ids only.
   */
  readonly taxonomyQueryObjects: boolean;
  /**
   * What making a post sticky needs: the type's `edit_others_posts` (the spec's), or that or `publish_posts`
   * (`edit-others-or-publish`, WordPress 6.1's: authors make their posts sticky).
   */
  readonly stickyNeeds: 'edit_others_posts' | 'edit-others-or-publish';
  /**
   * How `template` is checked: any string, an unknown one stored as `''` (`clear-unknown`, the spec's), or as WordPress
   * 6.1's check_template (`refuse-unknown`): empty, one of the type's page templates or the post's current one, else
   * `400 rest_invalid_param` "template is not one of <templates>.", and stored as given.
   */
  readonly templateCheck: 'clear-unknown' | 'refuse-unknown';
  /**
   * A written post's term ids (`categories`, `tags`…) that are no terms of the taxonomy: refused (`refused`, this
   * server's with the spec's names: `400 rest_invalid_param` naming them), or left out as WordPress's
   * wp_set_object_terms() leaves them (`ignored`).
   */
  readonly unknownTermIds: 'refused' | 'ignored';
}

/** How users differ by dialect. */
export interface UsersDialect {
  /**
   * `roles` lists the site's roles as its items' `enum`, an unknown one refused as an argument (`rest_invalid_param`,
   * the spec's); WordPress's has no enum, and its handler refuses an unknown role (`rest_user_invalid_role`, 400).
   */
  readonly rolesEnum: boolean;
  /**
   * The post types whose published posts make an author (`has_published_posts`, `who=authors`, the public-user
   * rule): those the posts routes serve, the enum a JSON list (`served`, the spec's), or every `show_in_rest` type,
   * the enum a PHP associative array (a JSON object `{ name: name }`) (`listed`, WordPress's).
   */
  readonly authorPostTypes: 'served' | 'listed';
  /** User meta the software registers itself (WordPress 6.1's `<prefix>persisted_preferences`). */
  readonly builtInUserMeta: readonly BuiltInMetaKey[];
  /**
   * The status of `rest_cannot_create_user`: `401` for every caller (the spec's error table), or the usual 401
   * anonymous / 403 logged in (`authorization-code`, WordPress's).
   */
  readonly createRefusalStatus: 401 | 'authorization-code';
  /**
   * What reading another user in the edit context needs: `list_users` (the spec's, refused with
   * `rest_user_cannot_view`), or `edit_user` of that user (WordPress 6.1's, refused with `rest_forbidden_context`
   * "Sorry, you are not allowed to edit this user.").
   */
  readonly editContextNeeds: 'list_users' | 'edit_user';
}

/** A meta key registered by the software itself, as an extension would register it. */
export interface BuiltInMetaKey {
  /** The stored key, after the table prefix when `prefixed` (WordPress's `$wpdb->get_blog_prefix()`). */
  readonly key: string;
  readonly prefixed: boolean;
  readonly definition: MetaKeyDefinition;
}

/** WordPress 6.1's `wp_register_persisted_preferences_meta()` (wp-includes/user.php). */
const PERSISTED_PREFERENCES: BuiltInMetaKey = {
  key: 'persisted_preferences',
  prefixed: true,
  definition: {
    type: 'object',
    single: true,
    description: '',
    // WP_REST_Meta_Fields: a null default is the empty value of the type (an empty PHP array).
    default: [],
    showInRest: {
      name: 'persisted_preferences',
      schema: {
        type: 'object',
        context: ['edit'],
        properties: {
          _modified: {
            description: 'The date and time the preferences were updated.',
            type: 'string',
            format: 'date-time',
            readonly: false,
          },
        },
        additionalProperties: true,
      },
    },
  },
};

const SEED: WireDialect = {
  name: 'seed',
  describesAllowBatch: false,
  describesNullDefaults: false,
  indexesTakeContext: true,
  laterIndexFields: false,
  bareFalseInLinks: false,
  invalidParamDetails: false,
  listsLaterContentTypes: false,
  deleteAnswer: 'item',
  trashAnswer: 'before',
  messages: null,
  descriptions: null,
  readChecksFindTheItem: false,
  terms: {
    offsetOn: 'every-taxonomy',
    taxonomyEnum: 'every-taxonomy',
    flatParentRefused: true,
    createNeeds: 'manage_terms',
  },
  comments: {
    karma: true,
    writableType: true,
    embeddableChildren: false,
    createNeedsPost: false,
    anonymousByDefault: true,
  },
  posts: {
    parentOn: 'every-type',
    collectionPasswordAndFilter: true,
    mediaTemplate: false,
    mediaReadPassword: true,
    pastLastPageRefused: false,
    editExtras: false,
    taxonomyQueryObjects: false,
    stickyNeeds: 'edit_others_posts',
    templateCheck: 'clear-unknown',
    unknownTermIds: 'refused',
  },
  revisionDelete: 'post',
  validation: SEED_VALIDATION_WORDS,
  validationPasses: 'one',
  metaChecks: 'argument',
  users: {
    rolesEnum: true,
    authorPostTypes: 'served',
    builtInUserMeta: [],
    createRefusalStatus: 401,
    editContextNeeds: 'list_users',
  },
  noCacheHeadersFor: 'everyone',
};

const WORDPRESS_61: WireDialect = {
  name: 'wordpress-6.1',
  describesAllowBatch: true,
  describesNullDefaults: true,
  indexesTakeContext: false,
  laterIndexFields: true,
  bareFalseInLinks: true,
  invalidParamDetails: true,
  listsLaterContentTypes: true,
  deleteAnswer: 'deleted-previous',
  trashAnswer: 'trashed',
  messages: WORDPRESS_61_MESSAGES,
  descriptions: WORDPRESS_61_DESCRIPTIONS,
  readChecksFindTheItem: true,
  terms: { offsetOn: 'flat', taxonomyEnum: 'own', flatParentRefused: false, createNeeds: 'edit-or-assign' },
  comments: {
    karma: false,
    writableType: false,
    embeddableChildren: true,
    createNeedsPost: true,
    anonymousByDefault: false,
  },
  posts: {
    parentOn: 'hierarchical',
    collectionPasswordAndFilter: false,
    mediaTemplate: true,
    mediaReadPassword: false,
    pastLastPageRefused: true,
    editExtras: true,
    taxonomyQueryObjects: true,
    stickyNeeds: 'edit-others-or-publish',
    templateCheck: 'refuse-unknown',
    unknownTermIds: 'ignored',
  },
  revisionDelete: 'post-and-revision',
  validation: WORDPRESS_61_VALIDATION_WORDS,
  validationPasses: 'validate-then-sanitize',
  metaChecks: 'when-written',
  users: {
    rolesEnum: false,
    authorPostTypes: 'listed',
    builtInUserMeta: [PERSISTED_PREFERENCES],
    createRefusalStatus: 'authorization-code',
    editContextNeeds: 'edit_user',
  },
  noCacheHeadersFor: 'logged-in',
};

/** The dialect of each wire-names mode. */
export const WIRE_DIALECTS = { cms: SEED, wordpress: WORDPRESS_61 } as const;
