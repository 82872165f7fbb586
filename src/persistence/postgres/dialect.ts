import type { TableSpec } from '../tables.js';
import type { Dialect } from '../sql/dialect.js';
import type { PgSql } from './sql.js';
import { PgTable } from './table.js';

/** PostgreSQL's side of the shared statements (../sql/dialect.ts). */
export function postgresDialect(sql: PgSql): Dialect {
  return {
    sql,
    table: <T extends object>(spec: TableSpec<T>) => new PgTable(sql, spec),
    inList: (column, values) => ({ sql: `${column} IN (SELECT jsonb_array_elements_text(?::jsonb))`, params: [values] }),
  };
}
