import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { INestApplication, Logger } from '@nestjs/common';
import { ApiHttpService } from './api-http.service';

/**
 * Serves API requests (`/{prefix}/…`) straight from Node's HTTP server, ahead of the framework's routing (Express
 * and Nest's middleware chain, more than half the time of a small response); every other request reaches the
 * app as before, the API's `?rest_route=` form included. Call it after `app.init()` and before `app.listen()`.
 * The standalone server does; a host app may, when none of its own middleware has to run before the API.
 *
 * @example
 * await app.init();
 * serveApiFirst(app);
 * await app.listen(3000);
 */
export function serveApiFirst(app: INestApplication): void {
  const server = app.getHttpServer() as Server;
  const api = app.get(ApiHttpService);
  const logger = new Logger('RestHttp');
  const others = server.listeners('request') as RequestListener[];
  const rest = (req: IncomingMessage, res: ServerResponse) => {
    for (const listener of others) listener(req, res);
  };
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (!api.isApiPath(url) && !(url.charAt(0) === '/' && (url.length === 1 || url.charAt(1) === '?')))
      return rest(req, res);
    api
      .serveFirst(req, res, () => rest(req, res))
      .catch((error: unknown) => {
        logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=UTF-8' });
        res.end();
      });
  });
}
