import type { IncomingMessage } from 'node:http';
import { requestFacts } from './request-facts';

/** A bare Node request as far as requestFacts reads it. */
function nodeRequest(remoteAddress: string, headers: Record<string, string> = {}, encrypted = false): IncomingMessage {
  return {
    headers: { host: 'api.example.org', ...headers },
    socket: { remoteAddress, encrypted },
  } as unknown as IncomingMessage;
}

describe('requestFacts', () => {
  it('takes address and scheme from the socket when the peer is not a loopback proxy', () => {
    const req = nodeRequest('203.0.113.9', { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' });
    expect(requestFacts(req)).toEqual({ ip: '203.0.113.9', protocol: 'http', host: 'api.example.org' });
  });

  it('says https for a TLS socket', () => {
    expect(requestFacts(nodeRequest('203.0.113.9', {}, true)).protocol).toBe('https');
  });

  it('trusts forwarding headers from a loopback proxy: first X-Forwarded-Proto, nearest non-loopback address', () => {
    const req = nodeRequest('127.0.0.1', {
      'x-forwarded-for': '198.51.100.1, 192.0.2.7, 127.0.0.5',
      'x-forwarded-proto': 'https, http',
    });
    expect(requestFacts(req)).toEqual({ ip: '192.0.2.7', protocol: 'https', host: 'api.example.org' });
    expect(requestFacts(nodeRequest('::ffff:127.0.0.1', { 'x-forwarded-for': '198.51.100.1' })).ip).toBe(
      '198.51.100.1',
    );
    expect(requestFacts(nodeRequest('::1', { 'x-forwarded-for': '198.51.100.2' })).ip).toBe('198.51.100.2');
  });

  it('answers the furthest address when every hop is loopback, and the socket when nothing is forwarded', () => {
    expect(requestFacts(nodeRequest('127.0.0.1', { 'x-forwarded-for': '127.0.0.9' })).ip).toBe('127.0.0.9');
    expect(requestFacts(nodeRequest('127.0.0.1'))).toEqual({
      ip: '127.0.0.1',
      protocol: 'http',
      host: 'api.example.org',
    });
  });

  it('leaves the decision to Express (its trust proxy setting) behind a host app', () => {
    const req = {
      ...nodeRequest('127.0.0.1', { 'x-forwarded-proto': 'https' }),
      app: { get: () => false },
      ip: '10.0.0.1',
      protocol: 'http',
    };
    expect(requestFacts(req as unknown as IncomingMessage)).toEqual({
      ip: '10.0.0.1',
      protocol: 'http',
      host: 'api.example.org',
    });
  });
});
