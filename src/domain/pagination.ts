/**
 * Keyset pagination for the API's lists. A list is read in its own order, (sort key, id), and a page
 * ends with the position of its last row; the next page is the rows strictly after that position.
 * A row inserted while a client walks the list therefore never shifts the rows still to come (as an
 * OFFSET would): it lands before the position (a newer row in a newest-first list, not seen on this
 * walk) or after it (seen once). The position travels as an opaque cursor: base64url of the list's
 * name, the sort key and the id, so a cursor from one list is refused by another.
 */
import { z } from 'zod';

/** Where a page ends: its last row's sort key and id. The next page starts strictly after it. */
export interface PagePosition {
  key: number | string;
  id: string;
}

/** Every list answers at most this many rows a page: enough for any screen, small enough for one response. */
export const MAX_PAGE_SIZE = 1000;
/** A history list (tasks, wakeups, runs, activity, routine runs) without `limit`: the lists' default before cursors. */
export const HISTORY_PAGE_SIZE = 200;
/**
 * A catalogue list (workspaces, projects, agents, routines, a task's comments) without `limit`:
 * the largest page, so that a screen that shows a workspace's whole catalogue gets it in one page
 * up to that size, as it did before these lists were bounded.
 */
export const CATALOGUE_PAGE_SIZE = MAX_PAGE_SIZE;

/** A list's order: its sort key (a column and field of its rows) and the id that breaks ties, each with its direction. */
export interface ListOrder {
  key: string;
  keyDirection: 'ASC' | 'DESC';
  idDirection: 'ASC' | 'DESC';
}

/**
 * Each paginated list, the order it is read in and its page size without `limit`: the one place that
 * names them. The store orders and seeks by the order, the route takes the next page's position from
 * a row by it.
 */
export const LISTS = {
  workspaces: { key: 'created_at', keyDirection: 'ASC', idDirection: 'ASC', pageSize: CATALOGUE_PAGE_SIZE },
  projects: { key: 'created_at', keyDirection: 'ASC', idDirection: 'ASC', pageSize: CATALOGUE_PAGE_SIZE },
  agents: { key: 'created_at', keyDirection: 'ASC', idDirection: 'ASC', pageSize: CATALOGUE_PAGE_SIZE },
  routines: { key: 'created_at', keyDirection: 'ASC', idDirection: 'ASC', pageSize: CATALOGUE_PAGE_SIZE },
  comments: { key: 'created_at', keyDirection: 'ASC', idDirection: 'ASC', pageSize: CATALOGUE_PAGE_SIZE },
  tasks: { key: 'created_at', keyDirection: 'DESC', idDirection: 'ASC', pageSize: HISTORY_PAGE_SIZE },
  wakeups: { key: 'requested_at', keyDirection: 'DESC', idDirection: 'DESC', pageSize: HISTORY_PAGE_SIZE },
  runs: { key: 'created_at', keyDirection: 'DESC', idDirection: 'DESC', pageSize: HISTORY_PAGE_SIZE },
  // A routine's page shows its recent runs: the hundred it showed before it had cursors.
  routine_runs: { key: 'started_at', keyDirection: 'DESC', idDirection: 'DESC', pageSize: 100 },
  // The entry's id is its insertion order, so it is the whole key.
  activity: { key: 'id', keyDirection: 'DESC', idDirection: 'DESC', pageSize: HISTORY_PAGE_SIZE },
} as const satisfies Record<string, ListOrder & { pageSize: number }>;
export type ListName = keyof typeof LISTS;

/** Where a page that ends with `row` ends, in `list`'s order. */
export function positionOf(list: ListName, row: { id: string | number }): PagePosition {
  const key = (row as unknown as Record<string, unknown>)[LISTS[list].key];
  if (typeof key !== 'number' && typeof key !== 'string') throw new Error(`a ${list} row has no ${LISTS[list].key} to page by`);
  return { key, id: String(row.id) };
}


/** What a store reads of a catalogue list for one page: at most `limit` rows, strictly after `after`. */
export interface ListPage {
  limit: number;
  after?: PagePosition | undefined;
}

/** A page of rows and where the next one starts (null: this is the last page). */
export interface Page<T> {
  items: T[];
  next: PagePosition | null;
}

export function encodeCursor(list: ListName, position: PagePosition): string {
  return toBase64url(JSON.stringify([list, position.key, position.id]));
}

/** The position a cursor of `list` names, or undefined when it is not one (garbage, or another list's). */
export function decodeCursor(list: ListName, cursor: string): PagePosition | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(fromBase64url(cursor));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== list) return undefined;
  const [, key, id] = value as unknown[];
  const keyIsValid = (typeof key === 'number' && Number.isSafeInteger(key)) || (typeof key === 'string' && key.length <= 200);
  if (!keyIsValid || typeof id !== 'string' || id.length === 0 || id.length > 200) return undefined;
  return { key: key as number | string, id };
}

// base64url by hand rather than Buffer: the dashboard bundles this module with the request schemas.
function toBase64url(text: string): string {
  const binary = Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join('');
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Throws on text that is not base64url of UTF-8. */
function fromBase64url(cursor: string): string {
  const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
}

/**
 * The rows a store reads for a page of `limit`: one more, which says whether another page follows
 * without a second query and without an empty last page.
 */
export function rowsForPage(limit: number): number {
  return limit + 1;
}

/** Cuts what the store read (`rowsForPage(limit)` rows at most) into the page and the next page's start. */
export function pageOf<T extends { id: string | number }>(list: ListName, rows: T[], limit: number): Page<T> {
  if (rows.length <= limit) return { items: rows, next: null };
  const items = rows.slice(0, limit);
  return { items, next: positionOf(list, items[items.length - 1]!) };
}

/** The query parameters of a page of `list`, to spread into its query schema: `limit` and `cursor`. */
export function pageQuery(list: ListName) {
  return { limit: limitParam(LISTS[list].pageSize), cursor: cursorParam(list) };
}

/** What the store reads for the page a list's query asks for: one row more than the page (rowsForPage). */
export function pageRead(list: ListName, query: { limit?: number | undefined; cursor?: PagePosition | undefined }): { limit: number; after: PagePosition | undefined } {
  return { limit: rowsForPage(pageLimit(list, query)), after: query.cursor };
}

/** The page size a list's query asks for, or the list's own. */
export function pageLimit(list: ListName, query: { limit?: number | undefined }): number {
  return query.limit ?? LISTS[list].pageSize;
}

function limitParam(defaultSize: number) {
  return z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional()
    .describe(`How many rows a page holds: 1..${MAX_PAGE_SIZE}, ${defaultSize} when absent.`);
}

/** The `cursor` query parameter of `list`: decoded into its position, a 400 naming `cursor` when it is not one of this list's. */
function cursorParam(list: ListName) {
  return z.string().max(1000).optional()
    .transform((cursor, ctx) => {
      if (cursor === undefined) return undefined;
      const position = decodeCursor(list, cursor);
      if (!position) {
        ctx.addIssue({ code: 'custom', message: `not a cursor of this list: pass the next-cursor header of a ${list} page as it came` });
        return z.NEVER;
      }
      return position;
    })
    .describe('Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page.');
}
