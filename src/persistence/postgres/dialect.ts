import type { TableSpec } from '../tables.js';
import { jsonPairs, type Dialect, type SqlText } from '../sql/dialect.js';
import type { PgSql } from './sql.js';
import { PgTable } from './table.js';

/** PostgreSQL's text where the dialects differ (../sql/dialect.ts). */
export const POSTGRES_TEXT: SqlText = {
  inList: (column, values) => ({ sql: `${column} IN (SELECT jsonb_array_elements_text(?::jsonb))`, params: [values] }),
  cast: (param, type) => `${param}::${type}`,
  lock: (mode) => (mode === 'update' ? ' FOR UPDATE' : ' FOR SHARE'),
  asInt: (expr) => `(${expr})::int`,
  jsonElements: (param) => `SELECT jsonb_array_elements_text(${param}::jsonb)`,
  jsonRows: (fields, from, orderBy) => `(SELECT COALESCE(json_agg(json_build_object(${jsonPairs(fields)}) ORDER BY ${orderBy}), '[]'::json) ${from})`,
  parsed: <T>(value: unknown) => value as T,
};

/** PostgreSQL's side of the shared statements (../sql/dialect.ts). */
export function postgresDialect(sql: PgSql): Dialect {
  return { ...POSTGRES_TEXT, sql, table: <T extends object>(spec: TableSpec<T>) => new PgTable(sql, spec) };
}
