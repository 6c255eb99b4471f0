import { parse as parseQuery } from 'qs';
import { simpleQuery } from '../rest/simple-query';

describe('simpleQuery', () => {
  it.each([
    '',
    'per_page=10',
    'context=embed&post=12&type=comment',
    'flag&a=',
    'search=caf%C3%A9%20au%20lait&x=a%26b%3Dc',
    'a=b=c',
    '&&a=1&',
    'filter.s=x',
  ])('reads %j as qs does', (search) => {
    expect(simpleQuery(search)).toEqual(parseQuery(search, { depth: 5, arrayLimit: 1000, parameterLimit: 2000 }));
  });

  it.each([
    ['brackets', 'categories[]=1'],
    ['encoded brackets in a key', 'a%5Bb%5D=1'],
    ['a plus sign', 'search=a+b'],
    ['a repeated key', 'a=1&a=2'],
    ['a member of Object.prototype', 'toString=1'],
    ['__proto__', '__proto__=1'],
    ['an empty key', '=x&b=1'],
    ['a bad escape', 'a=%E0%A4%A'],
    ['more pairs than qs reads', Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&')],
  ])('leaves %s to qs', (_, search) => {
    expect(simpleQuery(search)).toBeNull();
  });
});
