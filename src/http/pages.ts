/**
 * How a list answers a page. The body stays the JSON array the contract pins; where the next page
 * starts travels in headers: `next-cursor` (absent on the last page) and a `Link: <…>; rel="next"`
 * to the same list with that cursor, as RFC 8288 and the GitHub API do.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodeCursor, pageLimit, pageOf, type ListName } from '../domain/pagination.js';

export const NEXT_CURSOR_HEADER = 'next-cursor';

/** The rows the store read for a page (pageRead) cut to the page; the next page's cursor set in the headers. */
export function sendPage<T extends { id: string | number }>(
  req: FastifyRequest, reply: FastifyReply, list: ListName, rows: T[],
): T[] {
  const page = pageOf(list, rows, pageLimit(list, req.query as { limit?: number }));
  if (page.next) {
    const cursor = encodeCursor(list, page.next);
    reply.header(NEXT_CURSOR_HEADER, cursor);
    reply.header('link', `<${nextPageUrl(req.url, cursor)}>; rel="next"`);
  }
  return page.items;
}

/** The request's own path and query, with `cursor` set to the next page's. */
function nextPageUrl(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl, 'http://list.invalid');
  url.searchParams.set('cursor', cursor);
  return `${url.pathname}${url.search}`;
}

/** The response headers of a paginated list, for its operation in the OpenAPI document (as @fastify/swagger takes them: a schema each). */
export const PAGE_HEADERS = {
  [NEXT_CURSOR_HEADER]: {
    type: 'string',
    description: 'Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page.',
  },
  link: {
    type: 'string',
    description: 'The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page.',
  },
} as const;
