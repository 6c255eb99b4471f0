import { contextsOfSchema, filterByContext } from './filter-by-context';
import type { JsonSchema } from './json-schema';

const PROPERTIES: Record<string, JsonSchema> = {
  id: { type: 'integer', context: ['view', 'edit', 'embed'] },
  slug: { type: 'string', context: ['view', 'edit', 'embed'] },
  status: { type: 'string', context: ['edit'] },
  link: { type: 'string', context: ['view', 'edit', 'embed'] },
  password: { type: 'string', context: ['edit'] },
  title: {
    type: 'object',
    context: ['view', 'edit', 'embed'],
    properties: {
      raw: { type: 'string', context: ['edit'] },
      rendered: { type: 'string', context: ['view', 'edit', 'embed'] },
    },
  },
  content: {
    type: 'object',
    context: ['view', 'edit'],
    properties: {
      raw: { type: 'string', context: ['edit'] },
      rendered: { type: 'string', context: ['view', 'edit'] },
      protected: { type: 'boolean', context: ['view', 'edit', 'embed'] },
    },
  },
};

const POST = {
  id: 5,
  slug: 'hello',
  status: 'publish',
  link: 'http://example.org/?p=5',
  password: '',
  title: { raw: 'Hello', rendered: 'Hello' },
  content: { raw: 'Body', rendered: '<p>Body</p>\n', protected: false },
};

describe('filterByContext', () => {
  it('drops top-level keys whose context list does not include the context', () => {
    const view = filterByContext(POST, PROPERTIES, 'view');
    expect(Object.keys(view)).toEqual(['id', 'slug', 'link', 'title', 'content']);
  });

  it('keeps every key listing the context, in the order of the data', () => {
    const edit = filterByContext(POST, PROPERTIES, 'edit');
    expect(Object.keys(edit)).toEqual(['id', 'slug', 'status', 'link', 'password', 'title', 'content']);
    expect(edit.status).toBe('publish');
    expect(edit.password).toBe('');
  });

  it('drops a whole object property whose own context excludes the context', () => {
    const embed = filterByContext(POST, PROPERTIES, 'embed');
    expect(embed).toEqual({ id: 5, slug: 'hello', link: 'http://example.org/?p=5', title: { rendered: 'Hello' } });
  });

  it('filters the keys of object properties one level down', () => {
    const view = filterByContext(POST, PROPERTIES, 'view');
    expect(view.title).toEqual({ rendered: 'Hello' });
    expect(view.content).toEqual({ rendered: '<p>Body</p>\n', protected: false });
    const edit = filterByContext(POST, PROPERTIES, 'edit');
    expect(edit.title).toEqual({ raw: 'Hello', rendered: 'Hello' });
  });

  it('does not filter deeper than one level', () => {
    const properties: Record<string, JsonSchema> = {
      outer: {
        type: 'object',
        properties: {
          inner: { type: 'object', properties: { secret: { type: 'string', context: ['edit'] } } },
        },
      },
    };
    const data = { outer: { inner: { secret: 's' } } };
    expect(filterByContext(data, properties, 'view')).toEqual({ outer: { inner: { secret: 's' } } });
  });

  it('keeps keys without a schema property, and properties without or with an empty context list', () => {
    const properties: Record<string, JsonSchema> = {
      nocontext: { type: 'string' },
      emptycontext: { type: 'string', context: [] },
      nested: { type: 'object', properties: { known: { type: 'string', context: ['edit'] } } },
    };
    const data = { extra: 1, nocontext: 'a', emptycontext: 'b', nested: { known: 'k', unknown: 'u' } };
    expect(filterByContext(data, properties, 'view')).toEqual({
      extra: 1,
      nocontext: 'a',
      emptycontext: 'b',
      nested: { unknown: 'u' },
    });
  });

  it('leaves non-object values of object properties (null, arrays, strings) as they are', () => {
    const properties: Record<string, JsonSchema> = {
      guid: { type: 'object', context: ['view'], properties: { raw: { type: 'string', context: ['edit'] } } },
    };
    expect(filterByContext({ guid: null }, properties, 'view')).toEqual({ guid: null });
    expect(filterByContext({ guid: ['x'] }, properties, 'view')).toEqual({ guid: ['x'] });
    expect(filterByContext({ guid: 'plain' }, properties, 'view')).toEqual({ guid: 'plain' });
  });

  it('does not modify its input', () => {
    const data = structuredClone(POST);
    filterByContext(data, PROPERTIES, 'embed');
    expect(data).toEqual(POST);
  });

  it('drops everything with a context for an unknown context name', () => {
    expect(filterByContext({ id: 1, free: true }, PROPERTIES, 'bogus')).toEqual({ free: true });
  });

  it('works out one plan for every unknown context name, not one a name', () => {
    let plans = 0;
    const counted = new Proxy(PROPERTIES, {
      ownKeys: (target) => {
        plans++;
        return Reflect.ownKeys(target);
      },
    });
    for (let i = 0; i < 100; i++)
      expect(filterByContext({ id: 1, free: true }, counted, `bogus-${i}`)).toEqual({ free: true });
    for (const context of ['view', 'edit', 'view']) filterByContext({ id: 1 }, counted, context);
    expect(plans).toBe(3);
  });
});

describe('contextsOfSchema', () => {
  it('gives the union of the properties contexts in reverse alphabetical order', () => {
    expect(contextsOfSchema(PROPERTIES)).toEqual(['view', 'embed', 'edit']);
  });

  it('lists each context once and ignores properties without a context', () => {
    expect(
      contextsOfSchema({
        a: { type: 'string', context: ['edit'] },
        b: { type: 'string', context: ['edit', 'view'] },
        c: { type: 'string' },
      }),
    ).toEqual(['view', 'edit']);
  });

  it('does not look at nested properties', () => {
    const title: JsonSchema = {
      type: 'object',
      context: ['edit'],
      properties: { r: { type: 'string', context: ['embed'] } },
    };
    expect(contextsOfSchema({ title })).toEqual(['edit']);
  });

  it('is empty for a schema without contexts', () => {
    expect(contextsOfSchema({})).toEqual([]);
    expect(contextsOfSchema({ a: { type: 'string' } })).toEqual([]);
  });
});
