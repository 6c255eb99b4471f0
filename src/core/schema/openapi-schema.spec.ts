import {
  DATE_TIME_PATTERN,
  pathParamSchema,
  toOpenApiProperties,
  toOpenApiSchema,
  toPathTemplate,
} from './openapi-schema';

describe('toOpenApiSchema (the reference dialect → OpenAPI 3.1)', () => {
  it('maps readonly to readOnly in answers and drops context and arg_options', () => {
    expect(
      toOpenApiSchema(
        { type: 'integer', readonly: true, context: ['view'], arg_options: { sanitize: (v) => v } },
        'response',
      ),
    ).toEqual({ type: 'integer', readOnly: true });
  });

  it('turns draft 4 boolean exclusive bounds into 2020-12 numbers', () => {
    expect(
      toOpenApiSchema(
        { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 5, exclusiveMaximum: false },
        'parameter',
      ),
    ).toEqual({ type: 'number', exclusiveMinimum: 0, maximum: 5 });
  });

  it('maps formats: keeps email/uri/uuid, date-time and hex-color as patterns, ip as IPv4 or IPv6, drops unknown ones', () => {
    expect(toOpenApiSchema({ type: 'string', format: 'email' }, 'parameter')).toEqual({
      type: 'string',
      format: 'email',
    });
    expect(toOpenApiSchema({ type: 'string', format: 'date-time' }, 'parameter')).toEqual({
      type: 'string',
      pattern: DATE_TIME_PATTERN,
    });
    expect(new RegExp(DATE_TIME_PATTERN).test('2017-06-01T12:00:00')).toBe(true);
    expect(new RegExp(DATE_TIME_PATTERN).test('2017-06-01T12:00:00+02:00')).toBe(true);
    expect(new RegExp(DATE_TIME_PATTERN).test('yesterday')).toBe(false);
    expect(toOpenApiSchema({ type: 'string', format: 'hex-color' }, 'parameter').pattern).toBe(
      '^#([A-Fa-f0-9]{3}){1,2}$',
    );
    expect(toOpenApiSchema({ type: 'string', format: 'ip' }, 'parameter')).toEqual({
      type: 'string',
      anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }],
    });
    expect(toOpenApiSchema({ type: 'string', format: 'text-field' }, 'parameter')).toEqual({ type: 'string' });
  });

  it('keeps type lists, adds null to the enum of a nullable type, and drops null defaults and unknown types', () => {
    expect(toOpenApiSchema({ type: ['string', 'null'], enum: ['a'], default: null }, 'response')).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(toOpenApiSchema({ type: 'mixed' as never }, 'response')).toEqual({});
  });

  it("reads PHP's empty property list as no properties", () => {
    expect(toOpenApiSchema({ type: 'object', properties: [] as never }, 'response')).toEqual({
      type: 'object',
      properties: {},
    });
  });

  it('requires the view context in answers, and required: true in bodies, where read-only properties are left out', () => {
    const props = {
      id: { type: 'integer' as const, readonly: true, context: ['view' as const, 'edit' as const] },
      raw: { type: 'string' as const, context: ['edit' as const], required: true },
    };
    expect(toOpenApiProperties(props, 'response').required).toEqual(['id']);
    expect(toOpenApiProperties(props, 'request')).toEqual({
      properties: { raw: { type: 'string' } },
      required: ['raw'],
    });
  });

  it('lets a self-validating object with raw take a plain string in request bodies', () => {
    const title = {
      description: 'Title.',
      type: 'object' as const,
      validate: () => true as const,
      properties: { raw: { type: 'string' as const }, rendered: { type: 'string' as const, readonly: true } },
    };
    expect(toOpenApiSchema(title, 'request')).toEqual({
      description: 'Title.',
      anyOf: [{ type: 'string' }, { type: 'object', properties: { raw: { type: 'string' } } }],
    });
    expect(toOpenApiSchema(title, 'response').anyOf).toBeUndefined();
  });
});

describe('toPathTemplate', () => {
  it('names the groups of a route pattern as path parameters', () => {
    expect(toPathTemplate('/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)')).toEqual({
      path: '/cms/v2/posts/{parent}/revisions/{id}',
      params: [
        { name: 'parent', pattern: '[\\d]+' },
        { name: 'id', pattern: '[\\d]+' },
      ],
    });
    expect(toPathTemplate('/cms/v2/users/(?P<user_id>(?:[\\d]+|me))/x')!.params).toEqual([
      { name: 'user_id', pattern: '(?:[\\d]+|me)' },
    ]);
    expect(toPathTemplate('/openapi\\.json')).toEqual({ path: '/openapi.json', params: [] });
    expect(toPathTemplate('/')).toEqual({ path: '/', params: [] });
  });

  it('has no path for patterns with more than named groups', () => {
    expect(toPathTemplate('/shop/v1/items(?:/(?P<id>\\d+))?')).toBeNull();
    expect(toPathTemplate('/shop/v1/a|b')).toBeNull();
  });

  it('types digit parameters as integers and others as anchored string patterns', () => {
    expect(pathParamSchema('[\\d]+')).toEqual({ type: 'integer' });
    expect(pathParamSchema('\\d+')).toEqual({ type: 'integer' });
    expect(pathParamSchema('[\\w-]+')).toEqual({ type: 'string', pattern: '^[\\w-]+$' });
  });
});
