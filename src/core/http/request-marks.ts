import type { IncomingMessage } from 'node:http';

/** Where the matched API route pattern is left on the request, for host interceptors and APM (`http.route`). */
export const CMS_MATCHED_ROUTE = 'cmsMatchedRoute';

/** Where the id of the user a request authenticated as (0: anonymous) is left on the request, for request logs. */
export const CMS_USER_ID = 'cmsUserId';

/** Leaves the API route pattern that matched (e.g. `/cms/v2/posts/(?P<id>[\d]+)`) on the request. */
export function markMatchedRoute(req: IncomingMessage, route: string): void {
  (req as unknown as Record<string, unknown>)[CMS_MATCHED_ROUTE] = route;
}

/** Leaves the authenticated user's id on the request; answers the user. */
export function markUser<T extends { id: number }>(req: IncomingMessage, user: T): T {
  (req as unknown as Record<string, unknown>)[CMS_USER_ID] = user.id;
  return user;
}
