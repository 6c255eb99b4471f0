import type { IncomingMessage, ServerResponse } from 'node:http';

/** One API request on the wire, and what its answers' headers are made from. */
export interface HttpExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The site's base URL (`http://localhost:3000`). */
  baseUrl: string;
  /** The API root's path (`/cms-json`), for the discovery `Link` header and the links of answers. */
  mount: string;
  /** The browser's `Origin`, for CORS. */
  origin: string | undefined;
  /** Whether the caller was logged in (known once authenticated): WordPress sends no-cache headers to those only. */
  loggedIn?: boolean;
}

/**
 * What one API request served over HTTP came to: written already, or (for the Nest route) an unexpected error the
 * host's exception filters should see.
 */
export interface HttpOutcome {
  /** The route pattern that matched (e.g. `/cms/v2/posts/(?P<id>[\d]+)`), for APM and interceptors. */
  matchedRoute?: string;
  /** An error no handler expected: answered already with a 500 by the fast paths, thrown by the Nest route. */
  unexpected?: unknown;
}
