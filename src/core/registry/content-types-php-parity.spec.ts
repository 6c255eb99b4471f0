import { buildBuiltinRegistry } from './builtin-content-types';
import {
  buildPostStatus,
  buildPostType,
  buildTaxonomy,
  DEFAULT_REST_NAMESPACE,
  EP_MASK,
  type TaxonomyObject,
} from './content-types';
import {
  fixture,
  type JsonObject,
  OUR_REST_POST_TYPES,
  OUR_REST_TAXONOMIES,
  toJson,
} from './content-types.spec-helpers';

// ---------------------------------------------------------------------------------------------------------------------
// Differential tests against the objects WordPress's PHP registry code builds
// ---------------------------------------------------------------------------------------------------------------------

/** Maps a PHP `WP_Post_Type` dump onto our {@link PostTypeObject} conventions (effective REST base/namespace). */
function normalizeWpPostType(wp: JsonObject): JsonObject {
  const out: JsonObject = { ...wp };
  out.rest_base = wp.rest_base || wp.name;
  out.rest_namespace = wp.rest_namespace || DEFAULT_REST_NAMESPACE;
  if (wp.rest_controller_class === false) {
    delete out.rest_controller_class;
  }
  // PHP encodes an empty array as `[]`.
  if (Array.isArray(wp.supports) && wp.supports.length === 0) {
    out.supports = {};
  }
  // Only an input for the rewrite endpoint mask; WordPress leaves it on the object, we do not keep it.
  delete out.permalink_epmask;
  return out;
}

/** Maps a PHP `WP_Taxonomy` dump onto our {@link TaxonomyObject} conventions. */
function normalizeWpTaxonomy(wp: JsonObject): JsonObject {
  const out = normalizeWpPostType(wp);
  // array_unique() keeps keys; the REST API and we use the values.
  out.object_type = Object.values(wp.object_type as JsonObject);
  // wp_parse_args( true ) leaks a numeric key into the rewrite array; it means nothing.
  if (wp.rewrite && typeof wp.rewrite === 'object') {
    out.rewrite = Object.fromEntries(Object.entries(wp.rewrite).filter(([key]) => !/^\d+$/.test(key)));
  }
  return out;
}

/** Maps a PHP post status dump (`_n_noop()` label count) onto our {@link PostStatusObject}. */
function normalizeWpStatus(wp: JsonObject): JsonObject {
  const labelCount = wp.label_count as JsonObject;
  return { ...wp, label_count: { singular: labelCount.singular, plural: labelCount.plural } };
}

/** Compares an object with a normalized PHP dump: same keys and values, and WordPress's label/cap key order. */
function expectSameObject(actual: object, expected: JsonObject): void {
  const json = toJson(actual) as JsonObject;
  expect(json).toStrictEqual(expected);
  for (const key of ['labels', 'cap']) {
    if (key in expected) {
      expect(Object.keys(json[key] as JsonObject)).toEqual(Object.keys(expected[key] as JsonObject));
    }
  }
}

interface PhpCase {
  kind: 'post_type' | 'taxonomy' | 'status';
  name: string;
  object_type?: string[];
  args: JsonObject;
  wp: JsonObject;
}

describe('registry builders vs WordPress PHP', () => {
  const builtins =
    fixture<Record<'post_types' | 'taxonomies' | 'statuses', Record<string, JsonObject>>>('php-builtin-objects.json');
  const registry = buildBuiltinRegistry();

  it.each(Object.keys(builtins.post_types))('builtin post type %s', (name) => {
    const expected = normalizeWpPostType(builtins.post_types[name]);
    // Deliberate difference: WordPress serves nav_menu_item over REST, we do not (yet).
    expected.show_in_rest = OUR_REST_POST_TYPES.includes(name);
    expectSameObject(registry.postTypes.get(name) as object, expected);
  });

  it.each(Object.keys(builtins.taxonomies))('builtin taxonomy %s', (name) => {
    const expected = normalizeWpTaxonomy(builtins.taxonomies[name]);
    expected.show_in_rest = OUR_REST_TAXONOMIES.includes(name);
    // The dump is from before `init` (no rewrite); we register the `init`-time rewrite settings.
    const actual = { ...(registry.taxonomies.get(name) as TaxonomyObject), rewrite: expected.rewrite };
    expectSameObject(actual, expected);
  });

  it('registers the init-time taxonomy rewrite settings with the default bases', () => {
    expect(registry.taxonomies.get('category')?.rewrite).toEqual({
      with_front: true,
      hierarchical: true,
      ep_mask: EP_MASK.CATEGORIES,
      slug: 'category',
    });
    expect(registry.taxonomies.get('post_tag')?.rewrite).toEqual({
      with_front: true,
      hierarchical: false,
      ep_mask: EP_MASK.TAGS,
      slug: 'tag',
    });
    expect(registry.taxonomies.get('post_format')?.rewrite).toEqual({
      with_front: true,
      hierarchical: false,
      ep_mask: EP_MASK.NONE,
      slug: 'type',
    });
    expect(registry.taxonomies.get('nav_menu')?.rewrite).toBe(false);
  });

  it.each(Object.keys(builtins.statuses))('builtin status %s', (name) => {
    expectSameObject(registry.statuses.get(name) as object, normalizeWpStatus(builtins.statuses[name]));
  });

  const cases = fixture<PhpCase[]>('php-custom-objects.json');

  it.each(cases.filter((c) => c.kind === 'post_type').map((c) => [c.name, c] as const))(
    'custom post type %s',
    (_name, c) => {
      expectSameObject(buildPostType(c.name, c.args), normalizeWpPostType(c.wp));
    },
  );

  it.each(cases.filter((c) => c.kind === 'taxonomy').map((c) => [c.name, c] as const))(
    'custom taxonomy %s',
    (_name, c) => {
      expectSameObject(buildTaxonomy(c.name, c.object_type ?? [], c.args), normalizeWpTaxonomy(c.wp));
    },
  );

  it.each(cases.filter((c) => c.kind === 'status').map((c) => [c.name, c] as const))('custom status %s', (_name, c) => {
    expectSameObject(buildPostStatus(c.name, c.args), normalizeWpStatus(c.wp));
  });
});
