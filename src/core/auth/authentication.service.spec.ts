import { Strategy as CustomStrategy } from 'passport-custom';
import { AuthenticationInput, AuthenticationService } from './authentication.service';
import { CurrentUser } from './current-user';

function input(headers: Record<string, string> = {}): AuthenticationInput {
  return {
    method: 'GET',
    headers,
    query: {},
    body: {},
    cookies: {},
    ip: '127.0.0.1',
    crossOrigin: false,
    setResponseHeader: () => undefined,
  };
}

describe('AuthenticationService', () => {
  const editor = new CurrentUser(7, 'editor', ['editor'], {});

  it('asks no strategy when none can recognise the request, and the caller is anonymous', async () => {
    const auth = new AuthenticationService();
    const asked: string[] = [];
    auth.register(
      () => (asked.push('key'), editor),
      undefined,
      (i) => Boolean(i.headers['x-api-key']),
    );
    const user = await auth.authenticate(input());
    expect(user.id).toBe(0);
    expect(asked).toEqual([]);
  });

  it('asks a strategy whose predicate recognises the request', async () => {
    const auth = new AuthenticationService();
    auth.register(
      () => editor,
      undefined,
      (i) => Boolean(i.headers['x-api-key']),
    );
    expect((await auth.authenticate(input({ 'x-api-key': 'k' }))).id).toBe(7);
  });

  it('always asks a strategy that declares nothing, in registration order after the skipped ones', async () => {
    const auth = new AuthenticationService();
    const asked: string[] = [];
    auth.register(
      () => (asked.push('first'), null),
      undefined,
      () => false,
    );
    auth.useStrategy('plain', new CustomStrategy((_req, done) => (asked.push('plain'), done(null, editor))));
    expect((await auth.authenticate(input())).id).toBe(7);
    expect(asked).toEqual(['plain']);
  });

  it('lets the first recognising strategy decide, and passes an error on', async () => {
    const auth = new AuthenticationService();
    auth.register(
      () => null,
      undefined,
      () => true,
    );
    auth.register(() => {
      throw new Error('wrong credentials');
    });
    await expect(auth.authenticate(input())).rejects.toThrow('wrong credentials');
  });
});
