import type { IncomingMessage } from 'node:http';
import type { RequestFacts } from './request-facts';

const UPPER_CASE = /[A-Z]/;

/** A request's headers as one string per lower-case name (repeated headers joined with commas). */
export function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const headers = req.headers;
  // Node gives the names in lower case already; a host app's request object may not.
  for (const k in headers) {
    const v = headers[k];
    if (v !== undefined) out[UPPER_CASE.test(k) ? k.toLowerCase() : k] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
}

/** A browser request from a page of another origin (the `Origin` header names a different site). */
export function isCrossOrigin(req: IncomingMessage, baseUrl: string, facts: RequestFacts): boolean {
  const origin = req.headers.origin;
  if (req.headers['sec-fetch-site'] === 'cross-site') return true;
  if (!origin) return false;
  try {
    const own = new URL(baseUrl).origin;
    const host = `${facts.protocol}://${facts.host}`;
    return origin !== own && origin !== host;
  } catch {
    return true;
  }
}

/** The cookies of a `Cookie` header, their values URL-decoded where they can be. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    try {
      out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
    }
  }
  return out;
}
