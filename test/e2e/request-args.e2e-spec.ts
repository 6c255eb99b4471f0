import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

describe('REST server: arguments from the route schema', () => {
  let t: TestApp;
  const echo = '/cms-json/library/v1/echo';

  beforeAll(async () => {
    t = await createTestApp('request_args', { extensions: [LibraryExtensionModule] });
  });
  afterAll(() => t.close());

  async function invalid(query: string): Promise<Record<string, string>> {
    const res = await t.http.get(`${echo}?somerequired=1&${query}`);
    expectRestError(res, 'rest_invalid_param', 400);
    return res.body.data.params;
  }

  it('reports missing required arguments with rest_missing_callback_param and the list of names', async () => {
    const res = await t.http.get(echo);
    expectRestError(res, 'rest_missing_callback_param', 400);
    expect(res.body.message).toBe('Missing parameter(s): somerequired');
    expect(res.body.data.params).toEqual(['somerequired']);
  });

  it('coerces query strings to the declared types and applies defaults', async () => {
    const res = await t.http
      .get(`${echo}?somerequired=r&someinteger=7&somenumber=1.5&someboolean=false&somearray=1,2,3&someenum=b`)
      .expect(200);
    expect(res.body.params).toMatchObject({
      someinteger: 7,
      somenumber: 1.5,
      someboolean: false,
      somearray: [1, 2, 3],
      someenum: 'b',
      somedefault: 'x',
      somerequired: 'r',
    });
  });

  it('validates and sanitizes defaults as sent values: the same result on every request, callbacks run each time', async () => {
    const defaults = '/cms-json/library/v1/defaults';
    // A default that does not validate fails the request unless a valid value is sent.
    const bad = await t.http.get(defaults);
    expectRestError(bad, 'rest_invalid_param', 400);
    expect(bad.body.data.params).toEqual({ strict: 'strict must be greater than 1 (inclusive)' });
    const first = await t.http.get(`${defaults}?strict=2`).expect(200);
    expect(first.body).toMatchObject({ list: [1, 2], count: 5, scaled: 30 });
    const second = await t.http.get(`${defaults}?strict=2`).expect(200);
    expect(second.body).toMatchObject({ list: [1, 2], count: 5, scaled: 30 });
    // A sanitize callback runs with each request that uses it, as for a sent value.
    expect(second.body.sanitized).toBe(first.body.sanitized + 1);
    const sent = await t.http.get(`${defaults}?strict=2&list=7&count=8&scaled=4`).expect(200);
    expect(sent.body).toMatchObject({ list: [7], count: 8, scaled: 40 });
    expect((await t.http.get(`${defaults}?strict=2&count=x`)).body.data.params).toEqual({
      count: 'count is not of type integer',
    });
  });

  it('accepts the boolean spellings of the reference', async () => {
    for (const [value, expected] of [
      ['true', true],
      ['TRUE', true],
      ['1', true],
      ['false', false],
      ['False', false],
      ['0', false],
    ] as const) {
      const res = await t.http.get(`${echo}?somerequired=1&someboolean=${value}`).expect(200);
      expect(res.body.params.someboolean).toBe(expected);
    }
    expect(await invalid('someboolean=123')).toEqual({ someboolean: '123 is not of type boolean' });
  });

  it('reads arrays given with brackets, repeated keys or commas', async () => {
    const bracket = await t.http.get(`${echo}?somerequired=1&somearray[]=4&somearray[]=5`).expect(200);
    expect(bracket.body.params.somearray).toEqual([4, 5]);
    const csv = await t.http.get(`${echo}?somerequired=1&somearray=6, 7`).expect(200);
    expect(csv.body.params.somearray).toEqual([6, 7]);
    expect(await invalid('somearray[]=1&somearray[]=x')).toEqual({ somearray: 'somearray[1] is not of type integer' });
  });

  it('reads PHP-style bracketed objects such as filter[s]=x', async () => {
    const res = await t.http.get(`${echo}?somerequired=1&someobject[s]=hello&filter[s]=x`).expect(200);
    expect(res.body.params.someobject).toEqual({ s: 'hello' });
    expect(res.body.params.filter).toEqual({ s: 'x' });
  });

  it('names every invalid argument in data.params with the reference messages', async () => {
    const params = await invalid(
      'someinteger=abc&someenum=d&somestring[]=x&someemail=nope&somedate=2010-18-18T12:00:00',
    );
    expect(params).toEqual({
      someinteger: 'someinteger is not of type integer',
      someenum: 'someenum is not one of a, b, c.',
      somestring: 'somestring is not of type string',
      someemail: 'The email address you provided is invalid.',
      somedate: 'The date you provided is invalid.',
    });
  });

  it('checks minimum and maximum', async () => {
    expect(await invalid('someinteger=1')).toEqual({
      someinteger: 'someinteger must be between 2 (inclusive) and 10 (inclusive)',
    });
    expect(await invalid('someinteger=11')).toEqual({
      someinteger: 'someinteger must be between 2 (inclusive) and 10 (inclusive)',
    });
    await t.http.get(`${echo}?somerequired=1&someinteger=10`).expect(200);
  });

  it('sanitizes uri arguments as esc_url_raw does: a protocol that is not allowed leaves nothing', async () => {
    const js = await t.http
      .get(`${echo}?somerequired=1&someuri=${encodeURIComponent('javascript:alert(1)')}`)
      .expect(200);
    expect(js.body.params.someuri).toBe('');
    const ok = await t.http
      .get(`${echo}?somerequired=1&someuri=${encodeURIComponent('https://example.org/a b')}`)
      .expect(200);
    expect(ok.body.params.someuri).toBe('https://example.org/a%20b');
  });

  it('validates ip formats; uri is not validated (as in the reference), only sanitized', async () => {
    const loose = await t.http
      .get(`${echo}?somerequired=1&someuri=${encodeURIComponent('example.org/~guest')}`)
      .expect(200);
    expect(loose.body.params.someuri).toBe('http://example.org/~guest');
    expect(await invalid('someip=999.1.1.1')).toEqual({ someip: '999.1.1.1 is not a valid IP address.' });
    await t.http
      .get(`${echo}?somerequired=1&someuri=https://example.org/x&someip=10.0.0.1&somedate=2010-01-01T12:00:00Z`)
      .expect(200);
  });

  it('keeps the last value of a name repeated without brackets, as PHP does; brackets make a list', async () => {
    const res = await t.http
      .get(`${echo}?somerequired=1&someinteger=100&someinteger=3&somearray[]=1&somearray[]=2`)
      .expect(200);
    expect(res.body.params.someinteger).toBe(3);
    expect(res.body.params.somearray).toEqual([1, 2]);
    const form = await t.http
      .post(echo)
      .type('form')
      .send('somerequired=1&somestring=first&somestring=last')
      .expect(200);
    expect(form.body.params.somestring).toBe('last');
  });

  it('reads JSON bodies first, then form bodies, then the query, then the path', async () => {
    const res = await t.http
      .post(`${echo}?somestring=from-query&someenum=a`)
      .send({ somerequired: 'json', somestring: 'from-json', someinteger: 3, someobject: { s: 'deep' } })
      .expect(200);
    expect(res.body.params).toMatchObject({
      somestring: 'from-json',
      someenum: 'a',
      someinteger: 3,
      someobject: { s: 'deep' },
    });
  });

  it('reads urlencoded bodies with bracket keys', async () => {
    const res = await t.http
      .post(echo)
      .type('form')
      .send('somerequired=form&somearray[]=8&somearray[]=9&someobject[s]=v')
      .expect(200);
    expect(res.body.params).toMatchObject({ somerequired: 'form', somearray: [8, 9], someobject: { s: 'v' } });
  });

  it('reads multipart bodies and their files', async () => {
    const res = await t.http
      .post(echo)
      .field('somerequired', 'multi')
      .field('somearray[]', '1')
      .field('somearray[]', '2')
      .attach('file', Buffer.from('hello'), 'hello.txt')
      .expect(200);
    expect(res.body.params).toMatchObject({ somerequired: 'multi', somearray: [1, 2] });
    expect(res.body.files).toEqual([{ field: 'file', name: 'hello.txt', size: 5, type: 'text/plain' }]);
  });

  it('takes the method from _method or X-HTTP-Method-Override', async () => {
    const viaQuery = await t.http.get(`${echo}?_method=POST&somerequired=1`).expect(200);
    expect(viaQuery.body.method).toBe('POST');
    const viaHeader = await t.http.post(`${echo}?somerequired=1`).set('X-HTTP-Method-Override', 'GET').expect(200);
    expect(viaHeader.body.method).toBe('GET');
    expectRestError(await t.http.get(`${echo}?_method=DELETE&somerequired=1`), 'rest_no_route', 404);
  });

  it('validates context against the resource enum', async () => {
    const res = await t.http.get('/cms-json/cms/v2/types?context=banana');
    expectRestError(res, 'rest_invalid_param', 400);
    expect(res.body.data.params).toEqual({ context: 'context is not one of view, embed, edit.' });
  });

  it('keeps only the fields named in _fields', async () => {
    const res = await t.http.get('/cms-json/cms/v2/types/post?_fields=slug,name').expect(200);
    expect(res.body).toEqual({ slug: 'post', name: 'Posts' });
  });
});
