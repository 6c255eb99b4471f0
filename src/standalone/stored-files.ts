import type { NextFunction, Request, Response } from 'express';
import type { MediaStorage } from '../core/config/media-storage';
import { safeRelativePath } from '../resources/media/media-storage';

/** A year: a stored file never changes (a new upload gets a new name). */
const MAX_AGE_SECONDS = 365 * 24 * 3600;

/**
 * Express middleware serving `/wp-content/uploads/<path>` from a storage that can open files (a bucket), as the
 * standalone server serves the upload directory from the disk: the stored type, length, ETag and date, a year's
 * immutable cache, `nosniff`, byte ranges (passed to the store), `If-None-Match`. A path that is not stored, or that
 * leaves the uploads, falls through (to the 404 of what follows); a store that cannot be reached is a 503.
 */
export function serveStoredFiles(storage: MediaStorage): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    let relative: string;
    try {
      relative = safeRelativePath(decodeURIComponent(req.path.replace(/^\/+/, '')));
    } catch {
      return next();
    }
    // Dotfiles are not served (as the disk's static files are not).
    if (relative.split('/').some((part) => part.startsWith('.'))) return next();
    const range =
      typeof req.headers.range === 'string' && /^bytes=\d*-\d*$/.test(req.headers.range)
        ? req.headers.range
        : undefined;
    storage.open!(relative, range).then(
      (file) => {
        if (!file) return next();
        if (file.etag && req.headers['if-none-match'] === file.etag) {
          file.body.destroy();
          res.status(304).end();
          return;
        }
        res.status(file.contentRange ? 206 : 200);
        res.setHeader('Content-Type', file.contentType || 'application/octet-stream');
        res.setHeader('Content-Length', String(file.size));
        res.setHeader('Accept-Ranges', 'bytes');
        if (file.contentRange) res.setHeader('Content-Range', file.contentRange);
        if (file.etag) res.setHeader('ETag', file.etag);
        if (file.lastModified) res.setHeader('Last-Modified', file.lastModified.toUTCString());
        res.setHeader('Cache-Control', `public, max-age=${MAX_AGE_SECONDS}, immutable`);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        if (req.method === 'HEAD') {
          file.body.destroy();
          res.end();
          return;
        }
        file.body.on('error', () => res.destroy());
        file.body.pipe(res);
      },
      (error: unknown) => {
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416) {
          res.status(416).end();
          return;
        }
        res.status(503).setHeader('Retry-After', '5').type('text/plain').send('The media storage cannot be reached.');
      },
    );
  };
}
