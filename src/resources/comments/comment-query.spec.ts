import { WIRE_DIALECTS } from '../../core/wire-dialect';
import type { SiteClock } from '../../core/options/site-clock';
import { CollectionQuery } from '../../core/rest/collection-query';
import type { RestRequest } from '../../core/rest/rest-request';
import { COMMENT_FILTERS, commentFilter, commentQueryOf, commentWhere } from './comment-query';
import { commentCollectionArgs, CommentListArgs } from './comment-schema';

/** A request whose declared arguments, as the dispatcher leaves them (defaults filled), are `sent`. */
function requestWith(sent: Record<string, unknown>): RestRequest {
  const args: Record<string, unknown> = { status: 'approve', type: 'comment', ...sent };
  const request = {
    args: () => args,
    get: (name: string) => args[name] ?? null,
    has: (name: string) => name in args,
    ctx: { can: () => Promise.resolve(true) },
  };
  return request as unknown as RestRequest;
}

async function whereOf(args: Record<string, unknown>) {
  const req = requestWith(args);
  const q = CollectionQuery.of<CommentListArgs>(req, { absoluteOffset: true });
  const query = await commentQueryOf(req, q, {} as SiteClock);
  return { query, where: commentWhere(query) };
}

const idList = (description: string) => ({ description, type: 'array' as const, items: { type: 'integer' as const } });

describe('the comments collection filters (COMMENT_FILTERS)', () => {
  it('declares author_email and karma where the reference lists them', () => {
    const names = Object.keys(commentCollectionArgs({}, idList, WIRE_DIALECTS.cms.comments));
    expect(names.indexOf('author_email')).toBe(names.indexOf('author_exclude') + 1);
    expect(names.indexOf('karma')).toBe(names.indexOf('include') + 1);
    expect(commentCollectionArgs({}, idList, WIRE_DIALECTS.cms.comments).karma).toBe(COMMENT_FILTERS.karma.arg);
  });

  it('adds a clause only for the values a request gives (an empty e-mail is none; karma 0 is one, absint()ed)', async () => {
    expect((await whereOf({ author_email: '' })).query.filters).toEqual({});
    const { query, where } = await whereOf({ author_email: 'a@example.com', karma: -3 });
    expect(query.filters).toEqual({ author_email: 'a@example.com', karma: -3 });
    expect(where.sql).toContain('c.comment_author_email = ? AND c.comment_karma = ?');
    expect(where.params.slice(-2)).toEqual(['a@example.com', 3]);
    const zero = await whereOf({ karma: 0 });
    expect(zero.where.sql).toContain('c.comment_karma = ?');
    expect(zero.where.params.at(-1)).toBe(0);
  });

  it('takes a new query parameter from one entry: its declaration, its value and its clause', async () => {
    const table = COMMENT_FILTERS as Record<string, unknown>;
    table.author_url = commentFilter<string>(
      { description: 'Limit result set to comments by an author with this URL.', type: 'string', format: 'uri' },
      (w, url) => w.add('c.comment_author_url = ?', url),
    );
    try {
      const args = commentCollectionArgs({}, idList, WIRE_DIALECTS.cms.comments);
      expect(Object.keys(args).at(-1)).toBe('author_url');
      expect(args.author_url).toMatchObject({ type: 'string', format: 'uri' });

      const { query, where } = await whereOf({ author_url: 'https://example.com/' });
      expect(query.filters).toEqual({ author_url: 'https://example.com/' });
      expect(where.sql).toContain('c.comment_author_url = ?');
      expect(where.params.at(-1)).toBe('https://example.com/');
      expect((await whereOf({})).where.sql).not.toContain('comment_author_url');
    } finally {
      delete table.author_url;
    }
  });
});
