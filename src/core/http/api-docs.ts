import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Injectable } from '@nestjs/common';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path';
import { noneMatchHits } from '../cache/response-cache';

/** The files of `swagger-ui-dist` the docs page uses, and their types: nothing else of the package is served. */
const PACKAGE_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=UTF-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=UTF-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** The page itself and its start-up script, written here: no inline script, so the page's CSP forbids any. */
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API documentation</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="docs.js"></script>
</body>
</html>
`;

// `../openapi.json` from `/{prefix}/docs/`: wherever the API is mounted. Credentials stay same-origin (cookies with
// the nonce work for a logged-in browser); "Try it out" calls the document's `servers`.
const SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    tryItOutEnabled: false,
    displayRequestDuration: true,
  });
});
`;

const OWN_FILES: Record<string, { type: string; body: string }> = {
  '': { type: 'text/html; charset=UTF-8', body: PAGE },
  'docs.js': { type: 'text/javascript; charset=UTF-8', body: SCRIPT },
};

interface StaticFile {
  type: string;
  body: Buffer;
  gzipped: Buffer | null;
  etag: string;
  /** Files of the package are cached by browsers for a day; the page and its script are revalidated each time. */
  cacheControl: string;
}

/**
 * The interactive API documentation at `/{prefix}/docs/`: Swagger UI (from the `swagger-ui-dist` package, read from
 * its directory) pointed at `openapi.json`. Only the files listed are served, with their content types, an `ETag`
 * (`304` on `If-None-Match`), gzip when the client takes it, and caching headers; the page carries a strict
 * Content-Security-Policy. `/{prefix}/docs` redirects to `/{prefix}/docs/`, so the page's relative URLs hold under
 * any mount (a host's global prefix, a proxy's path).
 */
@Injectable()
export class ApiDocs {
  private readonly files = new Map<string, StaticFile>();

  /** Whether a request for `route` (the path below the API root, as sent) is for the docs page. */
  serves(method: string | undefined, route: string): boolean {
    if (method !== 'GET' && method !== 'HEAD') return false;
    if (route === '/docs') return true;
    return route.startsWith('/docs/') && this.known(route.slice('/docs/'.length));
  }

  /** Answers a request {@link serves} accepted. `baseUrl`: the base URL of links, whose origin the page may call. */
  serve(req: IncomingMessage, res: ServerResponse, route: string, baseUrl: string): void {
    if (route === '/docs') {
      res.writeHead(301, { Location: 'docs/', 'Content-Length': '0', 'Cache-Control': 'no-cache' });
      res.end();
      return;
    }
    const name = route.slice('/docs/'.length);
    const file = this.file(name);
    const headers: Record<string, string> = {
      'Content-Type': file.type,
      'Cache-Control': file.cacheControl,
      ETag: file.etag,
      Vary: 'Accept-Encoding',
      'X-Content-Type-Options': 'nosniff',
      'X-Robots-Tag': 'noindex',
    };
    if (name === '') {
      headers['Content-Security-Policy'] = [
        "default-src 'none'",
        "script-src 'self'",
        // Swagger UI sets style attributes.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        `connect-src 'self' ${originOf(baseUrl)}`.trim(),
        "frame-ancestors 'self'",
        "base-uri 'none'",
        "form-action 'none'",
      ].join('; ');
      headers['Referrer-Policy'] = 'no-referrer';
    }
    if (noneMatchHits(req.headers['if-none-match'], file.etag)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const gzip = file.gzipped && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? file.gzipped! : file.body;
    if (gzip) headers['Content-Encoding'] = 'gzip';
    headers['Content-Length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private known(name: string): boolean {
    return (
      Object.prototype.hasOwnProperty.call(OWN_FILES, name) || Object.prototype.hasOwnProperty.call(PACKAGE_FILES, name)
    );
  }

  /** A file, read (and compressed) once per process. */
  private file(name: string): StaticFile {
    let file = this.files.get(name);
    if (!file) {
      const own = OWN_FILES[name];
      const type = own ? own.type : PACKAGE_FILES[name];
      const body = own ? Buffer.from(own.body) : readFileSync(join(getAbsoluteFSPath(), name));
      file = {
        type,
        body,
        gzipped: type.startsWith('text/') ? gzipSync(body) : null,
        etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
        cacheControl: own ? 'no-cache' : 'public, max-age=86400',
      };
      this.files.set(name, file);
    }
    return file;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
