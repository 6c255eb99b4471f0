import { buildBuiltinRegistry } from './builtin-content-types';
import {
  buildPostStatus,
  buildPostType,
  buildTaxonomy,
  EP_MASK,
  getObjectTaxonomies,
  isPostStatusViewable,
  isPostTypeViewable,
  registerTaxonomyForObjectType,
  type PostTypeArgs,
} from './content-types';
import { POST_TYPE_SCHEMA, postTypeToRest, restTaxonomyNamesForType, taxonomyToRest } from './rest-shapes';
import { fixture } from './content-types.spec-helpers';

// ---------------------------------------------------------------------------------------------------------------------
// Hand-checked custom registrations (reasoned from the PHP)
// ---------------------------------------------------------------------------------------------------------------------

describe('custom registrations', () => {
  const book = buildPostType('book', {
    public: true,
    show_in_rest: true,
    hierarchical: true,
    labels: { name: 'Books', singular_name: 'Book' },
  });

  it('derives hierarchical (page) labels plus name-based ones for a custom post type', () => {
    expect(book.label).toBe('Books');
    expect(book.labels).toMatchObject({
      name: 'Books',
      singular_name: 'Book',
      add_new_item: 'Add New Page',
      parent_item_colon: 'Parent Page:',
      all_items: 'Books',
      archives: 'Books',
      menu_name: 'Books',
      name_admin_bar: 'Book',
      item_link: 'Page Link',
    });
    // WordPress order: defaults first, then the extra name_admin_bar.
    const keys = Object.keys(book.labels);
    expect(keys[0]).toBe('name');
    expect(keys.slice(-2)).toEqual(['menu_name', 'name_admin_bar']);
  });

  it('applies the public → flags cascade and the post capability defaults', () => {
    expect(book).toMatchObject({
      publicly_queryable: true,
      show_ui: true,
      show_in_menu: true,
      show_in_admin_bar: true,
      show_in_nav_menus: true,
      exclude_from_search: false,
      map_meta_cap: true,
      capability_type: 'post',
      query_var: 'book',
      rest_base: 'book',
      rest_namespace: 'cms/v2',
      supports: { title: true, editor: true },
      rewrite: { slug: 'book', with_front: true, pages: true, feeds: false, ep_mask: EP_MASK.PERMALINK },
    });
    expect(book.cap).toEqual({
      edit_post: 'edit_post',
      read_post: 'read_post',
      delete_post: 'delete_post',
      edit_posts: 'edit_posts',
      edit_others_posts: 'edit_others_posts',
      delete_posts: 'delete_posts',
      publish_posts: 'publish_posts',
      read_private_posts: 'read_private_posts',
      read: 'read',
      delete_private_posts: 'delete_private_posts',
      delete_published_posts: 'delete_published_posts',
      delete_others_posts: 'delete_others_posts',
      edit_private_posts: 'edit_private_posts',
      edit_published_posts: 'edit_published_posts',
      create_posts: 'edit_posts',
    });
  });

  it('uses the non-hierarchical defaults and custom capability bases', () => {
    const story = buildPostType('story', { capability_type: ['story', 'stories'], map_meta_cap: true });
    expect(story.labels).toMatchObject({ name: 'Posts', singular_name: 'Post', name_admin_bar: 'story' });
    expect(story.labels.parent_item_colon).toBeNull();
    expect(story.cap).toMatchObject({
      edit_post: 'edit_story',
      edit_posts: 'edit_stories',
      delete_published_posts: 'delete_published_stories',
      create_posts: 'edit_stories',
      read: 'read',
    });
    expect(story.public).toBe(false);
    expect(story.show_ui).toBe(false);
    expect(story.exclude_from_search).toBe(true);
  });

  it('shapes a custom post type for REST', () => {
    const genre = buildTaxonomy('genre', ['book'], { hierarchical: true, show_in_rest: true });
    const data = postTypeToRest(book, restTaxonomyNamesForType('book', [genre]));
    expect(data).toMatchObject({
      description: '',
      hierarchical: true,
      has_archive: false,
      visibility: { show_in_nav_menus: true, show_ui: true },
      viewable: true,
      name: 'Books',
      slug: 'book',
      icon: null,
      supports: { title: true, editor: true },
      taxonomies: ['genre'],
      rest_base: 'book',
      rest_namespace: 'cms/v2',
    });
    expect(Object.keys(data)).toEqual(Object.keys(fixture('types-post-edit.json')));
  });

  it('derives taxonomy labels, caps and REST data for a custom taxonomy', () => {
    const genre = buildTaxonomy('genre', ['book'], { hierarchical: true, show_in_rest: true });
    expect(genre.label).toBe('Categories');
    expect(genre.labels).toMatchObject({
      name: 'Categories',
      singular_name: 'Category',
      parent_item: 'Parent Category',
      popular_items: null,
      menu_name: 'Categories',
      name_admin_bar: 'genre',
    });
    expect(genre.cap).toEqual({
      manage_terms: 'manage_categories',
      edit_terms: 'manage_categories',
      delete_terms: 'manage_categories',
      assign_terms: 'edit_posts',
    });
    expect(genre.query_var).toBe('genre');
    expect(taxonomyToRest(genre)).toMatchObject({
      name: 'Categories',
      slug: 'genre',
      types: ['book'],
      show_cloud: true,
      hierarchical: true,
      rest_base: 'genre',
      rest_namespace: 'cms/v2',
      visibility: {
        public: true,
        publicly_queryable: true,
        show_admin_column: false,
        show_in_nav_menus: true,
        show_in_quick_edit: true,
        show_ui: true,
      },
    });

    const topic = buildTaxonomy('topic', 'post', { public: false, labels: { name: 'Topics', singular_name: 'Topic' } });
    expect(topic.labels).toMatchObject({
      name: 'Topics',
      all_items: 'Topics',
      archives: 'Topics',
      name_admin_bar: 'Topic',
    });
    expect(Object.keys(topic.labels).slice(-3)).toEqual(['menu_name', 'name_admin_bar', 'archives']);
    expect(topic).toMatchObject({ query_var: false, show_ui: false, show_tagcloud: false, object_type: ['post'] });
  });

  it('attaches taxonomies to post types like register_taxonomy_for_object_type()', () => {
    const genre = buildTaxonomy('genre', [], { show_in_rest: true });
    const attached = registerTaxonomyForObjectType(genre, 'book');
    expect(genre.object_type).toEqual([]);
    expect(attached.object_type).toEqual(['book']);
    expect(registerTaxonomyForObjectType(attached, 'book').object_type).toEqual(['book']);
    expect(getObjectTaxonomies('book', [attached]).map((tax) => tax.name)).toEqual(['genre']);

    const registry = buildBuiltinRegistry();
    expect(getObjectTaxonomies('post', registry.taxonomies.values()).map((tax) => tax.name)).toEqual([
      'category',
      'post_tag',
      'post_format',
    ]);
    expect(restTaxonomyNamesForType('post', registry.taxonomies.values())).toEqual(['category', 'post_tag']);
  });

  it('applies register_post_status() defaults', () => {
    expect(buildPostStatus('archived', { label: 'Archived' })).toEqual({
      name: 'archived',
      label: 'Archived',
      label_count: { singular: 'Archived', plural: 'Archived' },
      exclude_from_search: true,
      _builtin: false,
      public: false,
      internal: true,
      protected: false,
      private: false,
      publicly_queryable: false,
      show_in_admin_status_list: false,
      show_in_admin_all_list: false,
      date_floating: false,
    });
    expect(buildPostStatus('Live!', { public: true })).toMatchObject({
      name: 'live',
      label: 'live',
      internal: false,
      publicly_queryable: true,
      show_in_admin_all_list: true,
    });
  });

  it('computes viewability like is_post_type_viewable() / is_post_status_viewable()', () => {
    const registry = buildBuiltinRegistry();
    const type = (name: string) => registry.postTypes.get(name) ?? buildPostType(name);
    const status = (name: string) => registry.statuses.get(name) ?? buildPostStatus(name);
    expect(isPostTypeViewable(type('page'))).toBe(true);
    expect(isPostTypeViewable(type('revision'))).toBe(false);
    expect(isPostTypeViewable(buildPostType('hidden', { public: true, publicly_queryable: false }))).toBe(false);
    expect(isPostStatusViewable(status('publish'))).toBe(true);
    expect(isPostStatusViewable(status('draft'))).toBe(false);
    expect(isPostStatusViewable(status('private'))).toBe(false);
  });

  it('rejects invalid names like WordPress', () => {
    expect(() => buildPostType('!!!')).toThrow(RangeError);
    expect(() => buildPostType('a'.repeat(21))).toThrow(RangeError);
    expect(buildPostType('a'.repeat(20)).name).toHaveLength(20);
    expect(() => buildTaxonomy('', [])).toThrow(RangeError);
    expect(() => buildTaxonomy('t'.repeat(33), [])).toThrow(RangeError);
  });

  it('does not share mutable state between objects, REST data and arguments', () => {
    const args: PostTypeArgs = { labels: { name: 'Things' }, taxonomies: ['genre'], supports: ['title'] };
    const thing = buildPostType('thing', args);
    const data = postTypeToRest(thing, []);
    data.labels.name = 'changed';
    data.supports.editor = true;
    data.capabilities.edit_posts = 'changed';
    thing.taxonomies.push('other');
    expect(thing.labels.name).toBe('Things');
    expect(thing.supports).toEqual({ title: true });
    expect(thing.cap.edit_posts).toBe('edit_posts');
    expect(args).toEqual({ labels: { name: 'Things' }, taxonomies: ['genre'], supports: ['title'] });
    expect(Object.isFrozen(POST_TYPE_SCHEMA.properties.visibility.properties)).toBe(true);
  });
});
