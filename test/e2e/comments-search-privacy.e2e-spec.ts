import { insertComment } from '../factories/comment.factory';
import { createPost } from '../factories/post.factory';
import { createTestApp, TestApp } from '../utils/test-app';

/**
 * `GET comments?search=`: commenters' e-mail addresses and IPs are searched only for callers who may see them
 * (`moderate_comments`), so that nobody else can test whether an address or an IP commented. The author's name, URL
 * and the content are searched for everyone, as WP_Comment_Query does. Answers kept by the response cache (anonymous
 * reads) never reach a moderator, nor a moderator's an anonymous caller.
 */

const API = '/cms-json/cms/v2';
const EMAIL = 'secret.commenter@example.net';
const IP = '203.0.113.58';

type Caller = 'anonymous' | keyof TestApp['users'];

describe('comments search and private columns', () => {
  let t: TestApp;
  let commentId: number;

  const search = (term: string, who: Caller) => {
    const req = t.http.get(`${API}/comments?search=${encodeURIComponent(term)}`);
    return who === 'anonymous' ? req : req.set('Authorization', t.users[who].authorization);
  };
  const found = async (term: string, who: Caller): Promise<number[]> => {
    const res = await search(term, who).expect(200);
    expect(res.headers['x-cms-total']).toBe(String(res.body.length));
    return (res.body as Array<{ id: number }>).map((c) => c.id);
  };

  beforeAll(async () => {
    t = await createTestApp('comments_search_privacy');
    const post = await createPost(t.dataSource, { status: 'publish', title: 'Open for comments' });
    const comment = await insertComment(t.dataSource, {
      postId: post.id,
      author: 'Quiet Reader',
      authorEmail: EMAIL,
      authorIp: IP,
      authorUrl: 'https://reader.example',
      content: 'A thoughtful remark.',
    });
    commentId = comment.id;
  });
  afterAll(() => t.close());

  it('does not match the e-mail or the IP for an anonymous caller or a subscriber', async () => {
    for (const who of ['anonymous', 'subscriber', 'contributor', 'author'] as const) {
      expect({ who, ids: await found(EMAIL, who) }).toEqual({ who, ids: [] });
      expect({ who, ids: await found('secret.commenter', who) }).toEqual({ who, ids: [] });
      expect({ who, ids: await found(IP, who) }).toEqual({ who, ids: [] });
    }
  });

  it('matches them for an administrator and an editor (moderate_comments)', async () => {
    for (const who of ['administrator', 'editor'] as const) {
      expect({ who, ids: await found(EMAIL, who) }).toEqual({ who, ids: [commentId] });
      expect({ who, ids: await found(IP, who) }).toEqual({ who, ids: [commentId] });
    }
  });

  it('matches the name, the URL and the content for everyone', async () => {
    for (const who of ['anonymous', 'subscriber', 'administrator'] as const) {
      for (const term of ['Quiet Reader', 'reader.example', 'thoughtful']) {
        expect({ who, term, ids: await found(term, who) }).toEqual({ who, term, ids: [commentId] });
      }
    }
  });

  it("never serves one caller's answer to the other through the response cache", async () => {
    // A fresh query each way round: a moderator first, then anonymous callers (twice, the second from the cache)…
    const first = IP.slice(0, -1);
    expect(await found(first, 'administrator')).toEqual([commentId]);
    expect(await found(first, 'anonymous')).toEqual([]);
    expect(await found(first, 'anonymous')).toEqual([]);
    // …and anonymous callers first (their answer is kept), then a moderator.
    const second = EMAIL.toUpperCase();
    expect(await found(second, 'anonymous')).toEqual([]);
    expect(await found(second, 'anonymous')).toEqual([]);
    expect(await found(second, 'editor')).toEqual([commentId]);
    expect(await found(second, 'anonymous')).toEqual([]);
  });
});
