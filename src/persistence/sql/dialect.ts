import type { TableSpec } from '../tables.js';

export type MaybePromise<T> = T | Promise<T>;
type Params = Record<string, unknown> | unknown[];

/**
 * What a repository asks of its connection. sqlite/sql.ts answers at once and postgres/sql.ts with
 * promises; the statements written once (this folder) await either. Parameters are written
 * SQLite's way (`?` or `@name`): postgres/sql.ts numbers them.
 */
export interface SqlRunner {
  run(sql: string, params?: Params): MaybePromise<{ changes: number }>;
  get<T>(sql: string, params?: Params): MaybePromise<T | undefined>;
  all<T>(sql: string, params?: Params): MaybePromise<T[]>;
}

/** On a duplicate key: fail, do nothing, or replace the row's other columns (the key is `replaceOn`). */
export type OnConflict = 'error' | 'ignore' | { replaceOn: readonly string[] };

/** An INSERT of `keys` (as `@key` parameters) into `table`, written so that both dialects take it. */
export function insertStatement(table: string, keys: readonly string[], conflict: OnConflict = 'error'): string {
  let text = `INSERT INTO ${table} (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`;
  if (conflict === 'ignore') text += ' ON CONFLICT DO NOTHING';
  else if (conflict !== 'error') {
    const rest = keys.filter((k) => !conflict.replaceOn.includes(k));
    text += ` ON CONFLICT (${conflict.replaceOn.join(', ')}) DO UPDATE SET ${rest.map((k) => `${k} = excluded.${k}`).join(', ')}`;
  }
  return text;
}

/** One table's row plumbing (sqlite/table.ts, postgres/table.ts): inserts, patches, decoded reads. */
export interface RowTable<T extends object> {
  insert(row: T, conflict?: OnConflict): MaybePromise<boolean>;
  update(id: string, patch: Partial<T>): MaybePromise<number>;
  get(id: string): MaybePromise<T | undefined>;
  one(text: string, params?: Params): MaybePromise<T | undefined>;
  many(text: string, params?: Params): MaybePromise<T[]>;
}

/**
 * Where SQLite and PostgreSQL differ, for the statements the two share: everything else in a
 * shared statement is text both accept (`ON CONFLICT ... DO NOTHING`, `excluded.`, `RETURNING`).
 */
export interface Dialect {
  readonly sql: SqlRunner;
  table<T extends object>(spec: TableSpec<T>): RowTable<T>;
  /**
   * `column IN (values)`: SQLite binds a placeholder per value; PostgreSQL binds one JSON array, so
   * that the text is the same for any count (one prepared statement).
   */
  inList(column: string, values: readonly unknown[]): { sql: string; params: unknown[] };
}
