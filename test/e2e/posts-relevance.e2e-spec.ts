import { createPost } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** Posts of each rank of WP_Query's relevance order for the search "green apple", the more relevant the older. */
interface Ranked {
  phrase: number;
  allWords: number;
  allWordsNewer: number;
  anyWord: number;
  excerpt: number;
  content: number;
  rest: number;
  unrelated: number;
  page: number;
}

async function seed(t: TestApp): Promise<Ranked> {
  const at = (day: number) => `2024-05-${String(day).padStart(2, '0')} 10:00:00`;
  const post = async (day: number, fields: { title: string; excerpt?: string; content?: string; type?: string }) =>
    (await createPost(t.dataSource, { content: '', excerpt: '', ...fields, date: at(day) })).id;
  return {
    // 1: the whole search in the title.
    phrase: await post(1, { title: 'Our Green Apple pie' }),
    // 2: every word in the title (two of them, the newer first).
    allWords: await post(2, { title: 'An apple, so green' }),
    allWordsNewer: await post(3, { title: 'Apple and green tea' }),
    // 3: any word in the title.
    anyWord: await post(4, { title: 'Green tea', content: 'Served with an apple.' }),
    // 4: the whole search in the excerpt.
    excerpt: await post(5, { title: 'Recipe', excerpt: 'A green apple tart.', content: 'green apple' }),
    // 5: the whole search in the content.
    content: await post(6, { title: 'Notes', content: 'I ate a green apple today.' }),
    // 6: the words apart, not in the title.
    rest: await post(7, { title: 'Orchard', content: 'An apple that is green.' }),
    unrelated: await post(8, { title: 'Unrelated', content: 'Nothing to see.' }),
    page: await post(9, { title: 'Green apple page', type: 'page' }),
  };
}

const ids = (body: Array<{ id: number }>) => body.map((p) => p.id);

/** The relevance tests, against one server whose API root and namespace are `api`. */
function relevanceTests(name: string, api: string, wireNames?: 'wordpress') {
  let t: TestApp;
  let r: Ranked;

  beforeAll(async () => {
    t = await createTestApp(name, wireNames ? { cms: { wireNames } } : {});
    r = await seed(t);
  });
  afterAll(() => t.close());

  it('orders by the whole phrase in the title, every word, any word, excerpt, content, then newest first', async () => {
    const res = await t.http.get(`${api}/posts?search=green%20apple&orderby=relevance`).expect(200);
    expect(ids(res.body)).toEqual([r.phrase, r.allWordsNewer, r.allWords, r.anyWord, r.excerpt, r.content, r.rest]);
    // The order by date is another: relevance, not date, decided.
    const byDate = await t.http.get(`${api}/posts?search=green%20apple`).expect(200);
    expect(ids(byDate.body)).toEqual([r.rest, r.content, r.excerpt, r.anyWord, r.allWordsNewer, r.allWords, r.phrase]);
  });

  it('keeps the order across pages, with the same total', async () => {
    const all = ids((await t.http.get(`${api}/posts?search=green%20apple&orderby=relevance`).expect(200)).body);
    const pages: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await t.http
        .get(`${api}/posts?search=green%20apple&orderby=relevance&per_page=2&page=${page}`)
        .expect(200);
      expect(res.headers[wireNames ? 'x-wp-total' : 'x-cms-total']).toBe('7');
      pages.push(...ids(res.body));
    }
    expect(pages).toEqual(all);
  });

  it('breaks ties by date in the order asked for', async () => {
    const res = await t.http.get(`${api}/posts?search=green%20apple&orderby=relevance&order=asc`).expect(200);
    // Ranks stay (the CASE is ascending, as WordPress's); within a rank, the older first.
    expect(ids(res.body).slice(0, 3)).toEqual([r.phrase, r.allWords, r.allWordsNewer]);
  });

  it('puts posts with a single word in their title first, then the others newest first', async () => {
    const res = await t.http.get(`${api}/posts?search=apple&orderby=relevance`).expect(200);
    expect(ids(res.body)).toEqual([
      r.allWordsNewer,
      r.allWords,
      r.phrase,
      // No "apple" in the title: by date.
      r.rest,
      r.content,
      r.excerpt,
      r.anyWord,
    ]);
  });

  it('leaves stopwords out of the word ranks, and ranks the whole search in the title and texts', async () => {
    // "an" is a stopword: "apple" alone ranks the titles (2, no "any word" rank), "an apple" the title (1) and texts.
    const res = await t.http.get(`${api}/posts?search=an%20apple&orderby=relevance`).expect(200);
    expect(ids(res.body)).toEqual([r.allWords, r.allWordsNewer, r.rest, r.anyWord]);
  });

  it('orders pages by relevance too', async () => {
    await createPost(t.dataSource, { type: 'page', title: 'Apple', content: 'green', date: '2024-06-01 10:00:00' });
    const res = await t.http.get(`${api}/pages?search=green%20apple&orderby=relevance`).expect(200);
    expect(res.body[0].id).toBe(r.page);
  });

  it('refuses relevance without a search: 400 rest_no_search_term_defined', async () => {
    for (const query of ['orderby=relevance', 'orderby=relevance&search=']) {
      const res = await t.http.get(`${api}/posts?${query}`);
      expectRestError(res, 'rest_no_search_term_defined', 400);
      expect(res.body.message).toBe('You need to define a search term to order by relevance.');
    }
    expectRestError(await t.http.get(`${api}/pages?orderby=relevance`), 'rest_no_search_term_defined', 400);
  });

  it('leaves posts that do not match out, whatever the order', async () => {
    const res = await t.http.get(`${api}/posts?search=green%20apple&orderby=relevance&per_page=100`).expect(200);
    expect(ids(res.body)).not.toContain(r.unrelated);
  });
}

describe('orderby=relevance (cms names)', () => relevanceTests('posts_relevance', '/cms-json/cms/v2'));
describe('orderby=relevance (WordPress names)', () =>
  relevanceTests('posts_relevance_wp', '/wp-json/wp/v2', 'wordpress'));
