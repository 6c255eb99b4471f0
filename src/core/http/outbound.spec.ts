import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { assertOutboundUrl, isPrivateAddress, outboundRequest, OutboundRequestError } from './outbound';

describe('assertOutboundUrl', () => {
  it.each([
    ['ftp://example.com/', 'outbound_url_invalid'],
    ['not a url', 'outbound_url_invalid'],
    ['https://user:pass@example.com/', 'outbound_url_invalid'],
    ['http://127.0.0.1/', 'outbound_target_refused'],
    ['http://127.1/', 'outbound_target_refused'],
    ['http://10.1.2.3/', 'outbound_target_refused'],
    ['http://172.20.0.1/', 'outbound_target_refused'],
    ['http://192.168.1.1/', 'outbound_target_refused'],
    ['http://169.254.169.254/latest/meta-data', 'outbound_target_refused'],
    ['http://0.0.0.0/', 'outbound_target_refused'],
    ['http://[::1]/', 'outbound_target_refused'],
    ['http://[fe80::1]/', 'outbound_target_refused'],
    ['http://[fd00::1]/', 'outbound_target_refused'],
    ['http://[::ffff:127.0.0.1]/', 'outbound_target_refused'],
    ['http://localhost:3000/', 'outbound_target_refused'],
    ['http://a.localhost/', 'outbound_target_refused'],
  ])('%s → %s', (url, code) => {
    expect(() => assertOutboundUrl(url, false)).toThrow(OutboundRequestError);
    try {
      assertOutboundUrl(url, false);
    } catch (error) {
      expect((error as OutboundRequestError).code).toBe(code);
    }
  });

  it('accepts public addresses and names, and private ones when allowed', () => {
    expect(assertOutboundUrl('https://hooks.example.com/x', false).hostname).toBe('hooks.example.com');
    expect(assertOutboundUrl('http://8.8.8.8/', false).hostname).toBe('8.8.8.8');
    expect(assertOutboundUrl('http://127.0.0.1:9/', true).port).toBe('9');
    expect(() => assertOutboundUrl('file:///etc/passwd', true)).toThrow('http or https');
  });

  it('classifies addresses', () => {
    expect(isPrivateAddress('1.1.1.1')).toBe(false);
    expect(isPrivateAddress('2606:4700::1111')).toBe(false);
    expect(isPrivateAddress('100.64.0.1')).toBe(true);
    expect(isPrivateAddress('example.com')).toBe(false);
  });
});

describe('outboundRequest', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ method?: string; body: string; signature?: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, body, signature: req.headers['x-sig'] as string | undefined });
        if (req.url === '/big') {
          res.end(Buffer.alloc(100_000, 'a'));
        } else if (req.url === '/slow') {
          setTimeout(() => res.end('late'), 2_000).unref();
        } else {
          res.writeHead(201, { 'x-answer': 'yes' }).end('ok');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the method, headers and body, and returns status, headers and body', async () => {
    const res = await outboundRequest(`${base}/hook`, {
      method: 'POST',
      headers: { 'x-sig': 's1', 'content-type': 'application/json' },
      body: '{"a":1}',
      allowPrivate: true,
    });
    expect(res.status).toBe(201);
    expect(res.headers['x-answer']).toBe('yes');
    expect(res.body.toString()).toBe('ok');
    expect(seen.at(-1)).toEqual({ method: 'POST', body: '{"a":1}', signature: 's1' });
  });

  it('refuses a loopback literal early and a name resolving to loopback at connection time', async () => {
    await expect(outboundRequest(`${base}/hook`)).rejects.toMatchObject({ code: 'outbound_target_refused' });
    const port = (server.address() as AddressInfo).port;
    const before = seen.length;
    // the machine's own name resolves to a loopback/private address: only the connection-time check sees it
    await expect(outboundRequest(`http://${hostname()}:${port}/hook`)).rejects.toMatchObject({
      code: 'outbound_target_refused',
    });
    expect(seen.length).toBe(before);
  });

  it('bounds the bytes read: an error by default, the first bytes with truncate', async () => {
    await expect(outboundRequest(`${base}/big`, { maxBytes: 1000, allowPrivate: true })).rejects.toMatchObject({
      code: 'outbound_too_large',
    });
    const res = await outboundRequest(`${base}/big`, { maxBytes: 1000, allowPrivate: true, overflow: 'truncate' });
    expect(res.body.length).toBe(1000);
  });

  it('times out', async () => {
    const started = Date.now();
    await expect(outboundRequest(`${base}/slow`, { timeoutMs: 100, allowPrivate: true })).rejects.toMatchObject({
      code: 'outbound_timeout',
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('reports a refused connection as a failure', async () => {
    await expect(outboundRequest('http://127.0.0.1:1/', { allowPrivate: true, timeoutMs: 2000 })).rejects.toMatchObject(
      {
        code: 'outbound_failed',
      },
    );
  });
});
