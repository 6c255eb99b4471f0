import { assignTerms, createPost, createTerm } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** The taxonomy arguments of post collections: term id lists, and WordPress 5.6+'s object form with WordPress names. */
describe('posts: taxonomy arguments', () => {
  let wp: TestApp;
  let cms: TestApp;
  const ids: Record<string, number> = {};
  const cat: Record<string, number> = {};
  const tag: Record<string, number> = {};

  /** Terms (a three-level hierarchy of categories, two tags) and five posts, the same in both apps. */
  const seed = async (t: TestApp) => {
    const ds = t.dataSource;
    cat.top = await createTerm(ds, 'category', 'Top');
    cat.child = await createTerm(ds, 'category', 'Child', cat.top);
    cat.grandchild = await createTerm(ds, 'category', 'Grandchild', cat.child);
    cat.other = await createTerm(ds, 'category', 'Other');
    tag.one = await createTerm(ds, 'post_tag', 'One');
    tag.two = await createTerm(ds, 'post_tag', 'Two');
    const author = t.users.author.id;
    const make = async (name: string, day: number, cats: number[], tags: number[]) => {
      ids[name] = (await createPost(ds, { author, title: name, date: `2024-03-0${day} 10:00:00` })).id;
      await assignTerms(ds, ids[name], 'category', cats.length ? cats : [1]);
      if (tags.length) await assignTerms(ds, ids[name], 'post_tag', tags);
    };
    await make('a', 1, [cat.top], []);
    await make('b', 2, [cat.child], []);
    await make('c', 3, [cat.grandchild], [tag.one]);
    await make('d', 4, [cat.other], [tag.one, tag.two]);
    await make('e', 5, [], [tag.one]);
  };

  beforeAll(async () => {
    cms = await createTestApp('posts_tax_query_cms');
    await seed(cms);
    wp = await createTestApp('posts_tax_query_wp', { cms: { wireNames: 'wordpress' } });
    await seed(wp);
  });
  afterAll(async () => {
    await cms?.close();
    await wp?.close();
  });

  const names = (body: Array<{ id: number }>) =>
    body.map((p) => Object.keys(ids).find((k) => ids[k] === p.id) ?? p.id).sort();
  const wpList = async (query: string) =>
    names((await wp.http.get(`/wp-json/wp/v2/posts?per_page=100&${query}`).expect(200)).body);

  it('declares the taxonomy arguments as WordPress 6.1 does', async () => {
    const res = await wp.http.options('/wp-json/wp/v2/posts').expect(200);
    const args = res.body.endpoints[0].args;
    const list = {
      title: 'Term ID List',
      description: 'Match terms with the listed IDs.',
      type: 'array',
      items: { type: 'integer' },
    };
    const terms = { description: 'Term IDs.', type: 'array', items: { type: 'integer' }, default: [] };
    const children = {
      description: 'Whether to include child terms in the terms limiting the result set.',
      type: 'boolean',
      default: false,
    };
    const operator = {
      description: 'Whether items must be assigned all or any of the specified terms.',
      type: 'string',
      enum: ['AND', 'OR'],
      default: 'OR',
    };
    const query = (properties: object) => ({
      title: 'Term ID Taxonomy Query',
      description: 'Perform an advanced term query.',
      type: 'object',
      properties,
      additionalProperties: false,
    });
    expect(args.categories).toEqual({
      description: 'Limit result set to items with specific terms assigned in the categories taxonomy.',
      type: ['object', 'array'],
      oneOf: [list, query({ terms, include_children: children, operator })],
      required: false,
    });
    expect(args.categories_exclude).toEqual({
      description: 'Limit result set to items except those with specific terms assigned in the categories taxonomy.',
      type: ['object', 'array'],
      oneOf: [list, query({ terms, include_children: children })],
      required: false,
    });
    expect(JSON.stringify(args.tags.oneOf[1].properties)).toBe(JSON.stringify({ terms, operator }));
    expect(JSON.stringify(args.tags_exclude.oneOf[1].properties)).toBe(JSON.stringify({ terms }));
  });

  it('keeps the cms names’ lists of term ids', async () => {
    const res = await cms.http.options('/cms-json/cms/v2/posts').expect(200);
    expect(res.body.endpoints[0].args.categories).toMatchObject({ type: 'array', items: { type: 'integer' } });
    const list = await cms.http.get(`/cms-json/cms/v2/posts?categories=${cat.top},${cat.other}`).expect(200);
    expect(names(list.body)).toEqual(['a', 'd']);
  });

  it('refuses the object form with the cms names', async () => {
    const res = await cms.http.get(`/cms-json/cms/v2/posts?categories[include_children]=true`);
    expectRestError(res, 'rest_invalid_param', 400);
  });

  it('takes lists of term ids with WordPress names', async () => {
    expect(await wpList(`categories=${cat.top},${cat.other}`)).toEqual(['a', 'd']);
    expect(await wpList(`categories[]=${cat.child}`)).toEqual(['b']);
    expect(await wpList(`tags_exclude=${tag.one}`)).toEqual(['a', 'b']);
  });

  it('takes the object form: terms alone', async () => {
    expect(await wpList(`categories[terms]=${cat.top}`)).toEqual(['a']);
    expect(await wpList(`categories[terms]=`)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('takes include_children: the terms and their descendants', async () => {
    expect(await wpList(`categories[terms]=${cat.top}&categories[include_children]=true`)).toEqual(['a', 'b', 'c']);
    expect(await wpList(`categories[terms]=${cat.child}&categories[include_children]=1`)).toEqual(['b', 'c']);
    expect(await wpList(`categories[terms]=${cat.top}&categories[include_children]=false`)).toEqual(['a']);
  });

  it('takes operator AND (every term) and OR (any term)', async () => {
    const both = `tags[terms][]=${tag.one}&tags[terms][]=${tag.two}`;
    expect(await wpList(`${both}&tags[operator]=AND`)).toEqual(['d']);
    expect(await wpList(`${both}&tags[operator]=OR`)).toEqual(['c', 'd', 'e']);
    expect(await wpList(`tags[terms][]=${tag.one}&tags[terms][]=99999&tags[operator]=AND`)).toEqual([]);
  });

  it('excludes terms with their children', async () => {
    const exclude = `categories_exclude[terms]=${cat.top}&categories_exclude[include_children]=true`;
    expect(await wpList(exclude)).toEqual(['d', 'e']);
    expect(await wpList(`categories_exclude[terms]=${cat.top}`)).toEqual(['b', 'c', 'd', 'e']);
    expect(await wpList(`${exclude}&tags[terms]=${tag.one}`)).toEqual(['d', 'e']);
    expect(await wpList(`${exclude}&tags[terms]=${tag.two}&tax_relation=OR`)).toEqual(['d', 'e']);
  });

  it('costs one query more for the descendants of every filter', async () => {
    const count = async (query: string) => {
      wp.queries.count = 0;
      await wp.http.get(`/wp-json/wp/v2/posts?${query}`).expect(200);
      return wp.queries.count;
    };
    const plain = await count(`categories[terms]=${cat.top}&categories_exclude[terms]=${cat.other}`);
    const children = await count(
      `categories[terms]=${cat.top}&categories[include_children]=1&categories_exclude[terms]=${cat.other}&categories_exclude[include_children]=1`,
    );
    expect(children).toBe(plain + 1);
  });

  it.each([
    [
      'categories[foo]=1',
      'categories',
      'categories is not a valid Term ID Taxonomy Query. Reason: foo is not a valid property of Object.',
      1,
    ],
    [
      'categories[operator]=XOR',
      'categories',
      'categories is not a valid Term ID Taxonomy Query. Reason: categories[operator] is not one of AND and OR.',
      1,
    ],
    [
      'categories=abc',
      'categories',
      'categories is not a valid Term ID List. Reason: categories[0] is not of type integer.',
      0,
    ],
    [
      'categories[terms]=abc',
      'categories',
      'categories is not a valid Term ID Taxonomy Query. Reason: categories[terms][0] is not of type integer.',
      1,
    ],
    [
      'categories[include_children]=maybe',
      'categories',
      'categories is not a valid Term ID Taxonomy Query. Reason: categories[include_children] is not of type boolean.',
      1,
    ],
    [
      'tags[include_children]=true',
      'tags',
      'tags is not a valid Term ID Taxonomy Query. Reason: include_children is not a valid property of Object.',
      1,
    ],
    [
      'categories_exclude[operator]=AND',
      'categories_exclude',
      'categories_exclude is not a valid Term ID Taxonomy Query. Reason: operator is not a valid property of Object.',
      1,
    ],
    [
      'categories[0]=1&categories[terms]=2',
      'categories',
      'categories is not a valid Term ID Taxonomy Query. Reason: 0 is not a valid property of Object.',
      1,
    ],
  ])('refuses %s as WordPress does', async (query, param, message, position) => {
    const res = await wp.http.get(`/wp-json/wp/v2/posts?${query}`);
    expectRestError(res, 'rest_invalid_param', 400);
    expect(res.body.message).toBe(`Invalid parameter(s): ${param}`);
    expect(res.body.data.params).toEqual({ [param]: message });
    expect(res.body.data.details[param]).toEqual({ code: 'rest_no_matching_schema', message, data: { position } });
  });
});
