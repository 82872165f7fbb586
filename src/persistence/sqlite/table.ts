import { checkedColumns, decodeObject, decodeRow, type RowDecoding, type TableSpec } from '../tables.js';
import { insertStatement, transitionStatement, type OnConflict, type RowChange } from '../sql/dialect.js';
import type { SqliteConnection } from './connection.js';

/**
 * Generic row plumbing for one table: inserts, guarded transitions and row decoding. Column names come
 * from code, never from input, and are checked against the table's declared columns anyway.
 */
export class Table<T extends object> {
  readonly name: string;
  private readonly columnSet: Set<string>;
  private readonly decoding: RowDecoding;
  private readonly key: string;

  constructor(private readonly sql: SqliteConnection, spec: TableSpec<T>) {
    this.name = spec.name;
    this.columnSet = new Set(spec.columns);
    this.decoding = spec.decoding;
    this.key = spec.key;
  }

  /** `mode`: SQLite's own forms, or the conflict handling the shared statements name (../sql/dialect.ts), as PostgreSQL writes it. */
  insert(row: T, mode: 'INSERT' | 'INSERT OR IGNORE' | 'INSERT OR REPLACE' | OnConflict = 'INSERT'): boolean {
    const keys = this.checked(Object.keys(row));
    const text = typeof mode === 'string' && mode.startsWith('INSERT')
      ? `${mode} INTO ${this.name} (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`
      : insertStatement(this.name, keys, mode as OnConflict);
    return this.sql.run(text, row as Record<string, unknown>).changes > 0;
  }

  /** Inserts the row only while `condition` (SQL over the row's @parameters) holds: check and write in one statement. */
  insertIf(row: T, condition: string): boolean {
    const keys = this.checked(Object.keys(row));
    const text = `INSERT INTO ${this.name} (${keys.join(', ')}) SELECT ${keys.map((k) => `@${k}`).join(', ')} WHERE ${condition}`;
    return this.sql.run(text, row as Record<string, unknown>).changes > 0;
  }

  transition(id: string, change: RowChange<T>, guard: string, params: Record<string, unknown> = {}, returning = '*'): T | undefined {
    const { text, values } = transitionStatement(this.name, this.key, this.columnSet, change, guard, returning);
    return this.one(text, { ...params, ...values, __key: id });
  }

  get(id: string): T | undefined {
    const row = this.sql.get<Record<string, unknown>>(`SELECT * FROM ${this.name} WHERE ${this.key} = ?`, [id]);
    return row ? this.decode(row) : undefined;
  }

  one(text: string, params?: Record<string, unknown> | unknown[]): T | undefined {
    const row = this.sql.get<Record<string, unknown>>(text, params);
    return row ? this.decode(row) : undefined;
  }

  many(text: string, params?: Record<string, unknown> | unknown[]): T[] {
    return this.sql.all<Record<string, unknown>>(text, params).map((row) => this.decode(row));
  }

  /**
   * SQL for one row of `alias` as a JSON object, for reading it beside another table's row in one
   * statement (a RETURNING clause cannot join). JSON columns stay JSON; decode with decodeObject.
   */
  jsonObjectSql(alias: string, extra: Record<string, string> = {}): string {
    const json = this.decoding.json ?? {};
    const pairs = [...this.columnSet].map((column) => `'${column}', ${column in json ? `json(${alias}.${column})` : `${alias}.${column}`}`);
    for (const [key, sql] of Object.entries(extra)) pairs.push(`'${key}', ${sql}`);
    return `json_object(${pairs.join(', ')})`;
  }

  /** A row read through jsonObjectSql, parsed: the fallbacks and booleans of decode, JSON already parsed. */
  decodeObject(row: Record<string, unknown>): T {
    return decodeObject<T>(this.decoding, row);
  }

  decode(row: Record<string, unknown>): T {
    return decodeRow<T>(this.decoding, row);
  }

  private checked(keys: string[]): string[] {
    return checkedColumns(this.name, this.columnSet, keys);
  }
}
