import type { TableSpec } from '../tables.js';
import type { Dialect } from '../sql/dialect.js';
import type { Sql } from './sql.js';
import { Table } from './table.js';

/** SQLite's side of the shared statements (../sql/dialect.ts). */
export function sqliteDialect(sql: Sql): Dialect {
  return {
    sql,
    table: <T extends object>(spec: TableSpec<T>) => new Table(sql, spec),
    inList: (column, values) => ({ sql: `${column} IN (${values.map(() => '?').join(', ')})`, params: [...values] }),
  };
}
