/** What a list's filter and limit become in a statement, the same on both backends. */

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
