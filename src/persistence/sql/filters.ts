/** What a list's filter and limit become in a statement, the same on both backends. */
import { MAX_PAGE_SIZE, type ListOrder, type ListPage, type PagePosition } from '../../domain/pagination.js';

/** Builds `WHERE a = @a AND b = @b` from the filter fields that are set. */
export function whereClause(filter: Record<string, unknown>, columns: Record<string, string>): { where: string; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(columns)) {
    const value = filter[field];
    if (value === undefined || value === null || value === '') continue;
    parts.push(`${column} = @${field}`);
    params[field] = value;
  }
  return { where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/** A list's limit: `fallback` when none is given, within 1..`max`. */
export function clampLimit(limit: number | undefined, fallback = 100, max = 1000): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(max, Math.floor(limit)));
}

/**
 * The tail of a list's statement: its keyset condition when a page is asked for, its order, and its
 * LIMIT (the page's, or `unpaged` when the caller reads the list whole, as the services do).
 */
export function paged(
  where: { where: string; params: Record<string, unknown> }, page: ListPage | undefined, order: ListOrder, unpaged = '',
): { tail: string; params: Record<string, unknown> } {
  const after = afterPosition(where, page?.after, order);
  const limit = page ? `LIMIT ${clampLimit(page.limit, MAX_PAGE_SIZE + 1, MAX_PAGE_SIZE + 1)}` : unpaged;
  return { tail: `${after.where} ${orderBy(order)} ${limit}`, params: after.params };
}

/** `ORDER BY key dir, id dir`, for a list read in `order`. */
export function orderBy(order: ListOrder): string {
  return order.key === 'id' ? `ORDER BY id ${order.idDirection}` : `ORDER BY ${order.key} ${order.keyDirection}, id ${order.idDirection}`;
}

/**
 * Adds to `where` the keyset condition "strictly after `after`" in `order` (domain/pagination.ts):
 * one comparison on the (key, id) pair, so a page's rows come by index from where the last one ended.
 */
export function afterPosition(
  where: { where: string; params: Record<string, unknown> }, after: PagePosition | undefined, order: ListOrder,
): { where: string; params: Record<string, unknown> } {
  if (!after) return where;
  const keyOp = order.keyDirection === 'DESC' ? '<' : '>';
  const idOp = order.idDirection === 'DESC' ? '<' : '>';
  const condition = order.key === 'id'
    ? `id ${idOp} @after_key`
    : `(${order.key} ${keyOp} @after_key OR (${order.key} = @after_key AND id ${idOp} @after_id))`;
  return {
    where: where.where ? `${where.where} AND ${condition}` : `WHERE ${condition}`,
    params: order.key === 'id' ? { ...where.params, after_key: after.key } : { ...where.params, after_key: after.key, after_id: after.id },
  };
}
