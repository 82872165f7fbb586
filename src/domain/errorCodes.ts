/**
 * Every `code` of the API's error envelope, `{"error":{code,message,details?}}`, each once with
 * what it tells the client that gets it. Clients branch on the code, not on the message, so a code
 * is never renamed; validation_error, not_found and storage_unavailable are pinned by API.md.
 * Which status answers each is the HTTP layer's (src/http/errors.ts).
 */
export const ERROR_CODES = {
  validation_error: 'The body, the query string or a path parameter is invalid; details names each offending field.',
  bad_request: 'The server refused the request before its route ran, for a reason its message gives.',
  unauthorized: 'The bearer token or the dashboard session is missing, invalid or revoked, or a webhook\'s signature is bad.',
  forbidden: 'This token may not do this: a run token outside what its run may do, a member doing an admin\'s act, or an owner rule.',
  not_found: 'An id names nothing, or no route answers this method and path.',
  conflict: 'The request conflicts with the resource\'s state, which is left as it was.',
  payload_too_large: 'The body is over the size limit (OFFICE_BODY_LIMIT_BYTES).',
  unsupported_media_type: 'The body is not JSON.',
  misdirected_request: 'The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS).',
  storage_unavailable: 'The database cannot be written; retry after the Retry-After header.',
  not_ready: 'The scheduler is still restoring its actors; ask again shortly.',
  internal_error: 'An internal fault, whose details are in the server log; bad input never answers this.',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof ERROR_CODES;
