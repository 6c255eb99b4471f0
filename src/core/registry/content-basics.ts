/** What post types, taxonomies and statuses share: labels, PHP's `isset`/`empty`, `sanitize_key()`, EP masks. */

/** Labels of a post type or taxonomy; `null` means "no label" as in WordPress. */
export type LabelMap = Record<string, string | null>;

/** The REST namespace used when an object does not set `rest_namespace` (WordPress uses `wp/v2`). */
export const DEFAULT_REST_NAMESPACE = 'cms/v2';

/** WordPress rewrite endpoint masks (`EP_*` constants) used by the registry defaults. */
export const EP_MASK = {
  NONE: 0,
  PERMALINK: 1,
  ATTACHMENT: 2,
  DATE: 4,
  YEAR: 8,
  MONTH: 16,
  DAY: 32,
  ROOT: 64,
  COMMENTS: 128,
  SEARCH: 256,
  CATEGORIES: 512,
  TAGS: 1024,
  AUTHORS: 2048,
  PAGES: 4096,
  ALL_ARCHIVES: 3868,
  ALL: 8191,
} as const;

// ---------------------------------------------------------------------------------------------------------------------
// PHP semantics helpers
// ---------------------------------------------------------------------------------------------------------------------

/** PHP `isset()` on a value: not undefined and not null. */
export function isset<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** PHP `empty()` on a scalar/array value. */
export function phpEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '' || value === '0') {
    return true;
  }
  if (Array.isArray(value)) {
    return value.length === 0;
  }
  return false;
}

/** Copies an object without the keys whose value is `undefined` (PHP arrays have no such thing). */
export function withoutUndefined<T>(record: Partial<Record<string, T>> | undefined): Record<string, T> {
  const out: Record<string, T> = {};
  if (!record) {
    return out;
  }
  for (const [key, value] of Object.entries(record)) {
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

/** Port of WordPress `sanitize_key()`: lowercase, keep only `[a-z0-9_-]`. */
export function sanitizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9_-]/g, '');
}

/** Default labels table: each entry is `[non-hierarchical, hierarchical]`. */
export type DefaultLabelPairs = Readonly<Record<string, readonly [string | null, string | null]>>;

/** What the labels of a post type or taxonomy are derived from. */
export interface LabelSource {
  name: string;
  label?: string | null;
  labels?: Partial<LabelMap>;
  hierarchical: boolean;
}

/** Port of `_get_custom_object_labels()`: derives name-based labels and merges the (non-)hierarchical defaults. */
export function getCustomObjectLabels(object: LabelSource, defaultPairs: DefaultLabelPairs): LabelMap {
  // JS objects keep insertion order for string keys exactly like PHP arrays, so the key order matches WordPress.
  const labels: LabelMap = {};
  for (const [key, value] of Object.entries(object.labels ?? {})) {
    if (value !== undefined) {
      labels[key] = value;
    }
  }

  if (isset(object.label) && phpEmpty(labels.name)) {
    labels.name = object.label;
  }
  if (!isset(labels.singular_name) && isset(labels.name)) {
    labels.singular_name = labels.name;
  }
  if (!isset(labels.name_admin_bar)) {
    labels.name_admin_bar = isset(labels.singular_name) ? labels.singular_name : object.name;
  }
  if (!isset(labels.menu_name) && isset(labels.name)) {
    labels.menu_name = labels.name;
  }
  if (!isset(labels.all_items) && isset(labels.menu_name)) {
    labels.all_items = labels.menu_name;
  }
  if (!isset(labels.archives) && isset(labels.all_items)) {
    labels.archives = labels.all_items;
  }

  const merged: LabelMap = {};
  for (const [key, pair] of Object.entries(defaultPairs)) {
    merged[key] = object.hierarchical ? pair[1] : pair[0];
  }
  return Object.assign(merged, labels);
}
