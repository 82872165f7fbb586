import type { TableSpec } from '../tables.js';
import { jsonPairs, type Dialect, type SqlText } from '../sql/dialect.js';
import type { PgConnection } from './connection.js';
import { PgTable } from './table.js';

/** PostgreSQL's text where the dialects differ (../sql/dialect.ts). */
export const POSTGRES_TEXT: SqlText = {
  inList: (column, values) => ({ sql: `${column} IN (SELECT jsonb_array_elements_text(?::jsonb))`, params: [values] }),
  cast: (param, type) => `${param}::${type}`,
  lock: (mode) => ({
    update: ' FOR UPDATE', 'no key update': ' FOR NO KEY UPDATE', share: ' FOR SHARE', 'update, skip locked': ' FOR UPDATE SKIP LOCKED',
  })[mode],
  asInt: (expr) => `(${expr})::int`,
  jsonElements: (param) => `SELECT jsonb_array_elements_text(${param}::jsonb)`,
  jsonRows: (fields, from, orderBy) => `(SELECT COALESCE(json_agg(json_build_object(${jsonPairs(fields)}) ORDER BY ${orderBy}), '[]'::json) ${from})`,
  parsed: <T>(value: unknown) => value as T,
  lockOrder: (orderBy) => ` ORDER BY ${orderBy}`,
  jsonValues: (column, from, orderBy) => `(SELECT COALESCE(json_agg(${column} ORDER BY ${orderBy}), '[]'::json) ${from})`,
  jsonEach: (param) => `jsonb_array_elements(${param}::jsonb) AS e(value)`,
  lockOf: (mode, alias) => ` FOR ${mode === 'update' ? 'UPDATE' : 'SHARE'} OF ${alias}`,
  jsonAgg: (expr, orderBy) => `COALESCE(jsonb_agg(${expr} ORDER BY ${orderBy}), '[]'::jsonb)`,
  jsonNested: (subquery) => subquery,
  notIndexedBy: (column) => column,
};

/** PostgreSQL's side of the shared statements (../sql/dialect.ts). */
export function postgresDialect(sql: PgConnection): Dialect {
  return {
    ...POSTGRES_TEXT, sql,
    table: <T extends object>(spec: TableSpec<T>) => new PgTable(sql, spec),
    writeThen: async (write, follow, params) => (await sql.get(
      `WITH written AS (${write} RETURNING 1), followed AS (${follow} AND EXISTS (SELECT 1 FROM written) RETURNING 1)
       SELECT 1 AS written FROM written LIMIT 1`, params)) !== undefined,
    returningThen: <T>(write: string, follow: string, params: Record<string, unknown>) => sql.get<T>(
      `WITH written AS (${write}), followed AS (${follow} AND EXISTS (SELECT 1 FROM written) RETURNING 1)
       SELECT * FROM written`, params),
  };
}
