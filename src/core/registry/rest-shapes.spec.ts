import {
  BUILTIN_POST_STATUSES,
  BUILTIN_POST_TYPES,
  BUILTIN_TAXONOMIES,
  buildBuiltinRegistry,
} from './builtin-content-types';
import { buildPostType, buildTaxonomy } from './content-types';
import {
  POST_STATUS_SCHEMA,
  POST_TYPE_SCHEMA,
  postTypeToRest,
  restListedStatuses,
  restTaxonomyNamesForType,
  statusToRest,
  TAXONOMY_SCHEMA,
  taxonomyToRest,
} from './rest-shapes';
import {
  expectSameJson,
  filterByContext,
  fixture,
  type JsonObject,
  OUR_REST_POST_TYPES,
  OUR_REST_TAXONOMIES,
  toJson,
  WP_REST_STATUSES,
} from './content-types.spec-helpers';

describe('content registry vs WordPress 6.1', () => {
  const registry = buildBuiltinRegistry();
  const taxonomies = [...registry.taxonomies.values()];
  const typeRest = (name: string) => {
    const postType = registry.postTypes.get(name);
    if (!postType) {
      throw new Error(`unknown post type ${name}`);
    }
    return postTypeToRest(postType, restTaxonomyNamesForType(name, taxonomies));
  };
  const taxonomyRest = (name: string) => {
    const taxonomy = registry.taxonomies.get(name);
    if (!taxonomy) {
      throw new Error(`unknown taxonomy ${name}`);
    }
    return taxonomyToRest(taxonomy);
  };

  describe('builtins', () => {
    it('registers the WordPress core types, taxonomies and statuses in core order', () => {
      // wp_block comes from WordPress 6.1's list: the seed's view serves it unlisted (see the test below).
      expect([...registry.postTypes.keys()]).toEqual([
        'post',
        'page',
        'attachment',
        'revision',
        'nav_menu_item',
        'wp_block',
      ]);
      expect([...registry.taxonomies.keys()]).toEqual([
        'category',
        'post_tag',
        'nav_menu',
        'link_category',
        'post_format',
      ]);
      expect([...registry.statuses.keys()]).toEqual([...WP_REST_STATUSES, 'auto-draft', 'inherit']);
      expect(BUILTIN_POST_TYPES).toHaveLength(5);
      expect(BUILTIN_TAXONOMIES).toHaveLength(5);
      expect(BUILTIN_POST_STATUSES).toHaveLength(8);
    });

    it('serves reusable blocks unlisted: show_in_rest at blocks, marked so that types neither lists nor reads it', () => {
      const block = registry.postTypes.get('wp_block');
      expect(block).toMatchObject({ show_in_rest: true, rest_base: 'blocks', unlisted: true, addedIn: '5.0' });
    });

    it('exposes only post, page, attachment, category and post_tag over REST (listed)', () => {
      const restTypes = [...registry.postTypes.values()]
        .filter((pt) => pt.show_in_rest && !pt.unlisted)
        .map((pt) => pt.name);
      const restTaxonomies = taxonomies.filter((tax) => tax.show_in_rest).map((tax) => tax.name);
      expect(restTypes).toEqual(OUR_REST_POST_TYPES);
      expect(restTaxonomies).toEqual(OUR_REST_TAXONOMIES);
      expect(registry.postTypes.get('post')?.rest_base).toBe('posts');
      expect(registry.postTypes.get('page')?.rest_base).toBe('pages');
      expect(registry.postTypes.get('attachment')?.rest_base).toBe('media');
      expect(registry.taxonomies.get('category')?.rest_base).toBe('categories');
      expect(registry.taxonomies.get('post_tag')?.rest_base).toBe('tags');
    });
  });

  describe('/types', () => {
    const collection = fixture<Record<string, JsonObject>>('types-edit.json');
    const anonymous = fixture<Record<string, JsonObject>>('types-anonymous.json');

    it.each(OUR_REST_POST_TYPES)('%s matches WordPress (context=edit, single and collection)', (name) => {
      const data = typeRest(name);
      expectSameJson(toJson(data), fixture(`types-${name}-edit.json`));
      expectSameJson(toJson(data), collection[name]);
    });

    it.each(OUR_REST_POST_TYPES)('%s matches WordPress (context=view, anonymous)', (name) => {
      const data = toJson(typeRest(name)) as JsonObject;
      expectSameJson(filterByContext(data, POST_TYPE_SCHEMA, 'view'), anonymous[name]);
    });

    it('lists our REST types in the same order as WordPress', () => {
      const wpOrder = Object.keys(collection).filter((name) => OUR_REST_POST_TYPES.includes(name));
      const ours = [...registry.postTypes.values()]
        .filter((pt) => pt.show_in_rest && !pt.unlisted)
        .map((pt) => pt.name);
      expect(ours).toEqual(wpOrder);
    });

    it('reproduces nav_menu_item as WordPress serves it when REST is switched on', () => {
      const menuItem = buildPostType('nav_menu_item', {
        ...(BUILTIN_POST_TYPES.find(([name]) => name === 'nav_menu_item')?.[1] ?? {}),
        show_in_rest: true,
      });
      const navMenuArgs = BUILTIN_TAXONOMIES.find(([name]) => name === 'nav_menu');
      const navMenu = buildTaxonomy('nav_menu', navMenuArgs?.[1] ?? [], { ...navMenuArgs?.[2], show_in_rest: true });
      expectSameJson(
        toJson(postTypeToRest(menuItem, restTaxonomyNamesForType('nav_menu_item', [...taxonomies, navMenu]))),
        collection.nav_menu_item,
      );
    });

    it('serves the WordPress item schema', () => {
      expectSameJson(POST_TYPE_SCHEMA, fixture('schema-type.json'));
    });
  });

  describe('/taxonomies', () => {
    const collection = fixture<Record<string, JsonObject>>('taxonomies-edit.json');
    const anonymous = fixture<Record<string, JsonObject>>('taxonomies-anonymous.json');

    it.each(OUR_REST_TAXONOMIES)('%s matches WordPress (context=edit, single and collection)', (name) => {
      const data = taxonomyRest(name);
      expectSameJson(toJson(data), fixture(`taxonomies-${name}-edit.json`));
      expectSameJson(toJson(data), collection[name]);
    });

    it.each(OUR_REST_TAXONOMIES)('%s matches WordPress (context=view, anonymous)', (name) => {
      const data = toJson(taxonomyRest(name)) as JsonObject;
      expectSameJson(filterByContext(data, TAXONOMY_SCHEMA, 'view'), anonymous[name]);
    });

    it('reproduces nav_menu as WordPress serves it when REST is switched on', () => {
      const args = BUILTIN_TAXONOMIES.find(([name]) => name === 'nav_menu');
      const navMenu = buildTaxonomy('nav_menu', args?.[1] ?? [], { ...args?.[2], show_in_rest: true });
      expectSameJson(toJson(taxonomyToRest(navMenu)), collection.nav_menu);
    });

    it('serves the WordPress item schema', () => {
      expectSameJson(TAXONOMY_SCHEMA, fixture('schema-taxonomy.json'));
    });
  });

  describe('/statuses', () => {
    it('lists the same statuses as WordPress, with the same data (context=edit)', () => {
      const listed = restListedStatuses(registry.statuses.values());
      expect(listed.map((status) => status.name)).toEqual(WP_REST_STATUSES);
      const data = Object.fromEntries(listed.map((status) => [status.name, statusToRest(status)]));
      expectSameJson(data, fixture('statuses-edit.json'));
    });

    it('matches the anonymous listing (public statuses only, context=view)', () => {
      const data = Object.fromEntries(
        restListedStatuses(registry.statuses.values())
          .filter((status) => status.public)
          .map((status) => [status.name, filterByContext(statusToRest(status), POST_STATUS_SCHEMA, 'view')]),
      );
      expectSameJson(data, fixture('statuses-anonymous.json'));
    });

    it('serves the WordPress item schema', () => {
      expectSameJson(POST_STATUS_SCHEMA, fixture('schema-status.json'));
    });
  });
});
