/** Messages of the engine's own errors, in one place (resources keep theirs next to their code). */
export const CoreErrors = {
  noRoute: ['rest_no_route', 'No route was found matching the URL and request method', 404],
  invalidJson: ['rest_invalid_json', 'Invalid JSON body passed.', 400],
  invalidNamespace: ['rest_invalid_namespace', 'The specified namespace could not be found.', 404],
  forbidden: ['rest_forbidden', 'Sorry, you are not allowed to do that.', 403],
  internal: ['internal_server_error', 'There has been a critical error on this website.', 500],
  tooLarge: ['rest_request_too_large', 'The request body is too large.', 413],
  multipartNotAccepted: ['rest_multipart_not_accepted', 'This route does not take multipart/form-data bodies.', 413],
  multipartTooLarge: [
    'rest_multipart_too_large',
    'The multipart body has too many parts, fields or files, or a part is too large.',
    413,
  ],
  invalidHandler: ['rest_invalid_handler', 'The handler for the route is invalid', 500],
  databaseUnavailable: [
    'rest_database_unavailable',
    'The database is unavailable at the moment. Please try again shortly.',
    503,
  ],
} as const satisfies Record<string, readonly [string, string, number]>;
