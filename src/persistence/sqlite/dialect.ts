import type { TableSpec } from '../tables.js';
import { jsonPairs, type Dialect, type SqlText } from '../sql/dialect.js';
import type { SqliteConnection } from './connection.js';
import { Table } from './table.js';

/** SQLite's text where the dialects differ (../sql/dialect.ts). */
export const SQLITE_TEXT: SqlText = {
  inList: (column, values) => ({ sql: `${column} IN (${values.map(() => '?').join(', ')})`, params: [...values] }),
  cast: (param) => param,
  lock: () => '',
  asInt: (expr) => `(${expr})`,
  jsonElements: (param) => `SELECT value FROM json_each(${param})`,
  jsonRows: (fields, from, orderBy) => `(SELECT json_group_array(json_object(${jsonPairs(fields)})) FROM (
    SELECT ${Object.values(fields).join(', ')} ${from} ORDER BY ${orderBy}))`,
  parsed: <T>(value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as T,
  lockOrder: () => '',
  jsonValues: (column, from, orderBy) => `(SELECT json_group_array(${column}) FROM (SELECT ${column} ${from} ORDER BY ${orderBy}))`,
  jsonEach: (param) => `json_each(${param})`,
  lockOf: () => '',
  jsonAgg: (expr, orderBy) => `json_group_array(${expr} ORDER BY ${orderBy})`,
  jsonNested: (subquery) => `json(${subquery})`,
  notIndexedBy: (column) => `+${column}`,
};

/** SQLite's side of the shared statements (../sql/dialect.ts). */
export function sqliteDialect(sql: SqliteConnection): Dialect {
  return {
    ...SQLITE_TEXT, sql,
    table: <T extends object>(spec: TableSpec<T>) => new Table(sql, spec),
    writeThen: (write, follow, params) => {
      if (sql.run(write, params).changes === 0) return false;
      sql.run(follow, params);
      return true;
    },
    returningThen: <T>(write: string, follow: string, params: Record<string, unknown>) => {
      const row = sql.get<T>(write, params);
      if (row !== undefined) sql.run(follow, params);
      return row;
    },
  };
}
