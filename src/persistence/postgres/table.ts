import { checkedColumns, decodeObject, decodeRow, type RowDecoding, type TableSpec } from '../tables.js';
import { insertStatement, transitionStatement, type OnConflict, type RowChange } from '../sql/dialect.js';
import type { PgConnection } from './connection.js';

/**
 * The counterpart of sqlite/table.ts: inserts, guarded transitions and row decoding for one table, async. The
 * columns are the same on both backends (booleans 0/1, JSON as text), so rows decode the same way.
 */
export class PgTable<T extends object> {
  readonly name: string;
  readonly columns: readonly string[];
  private readonly columnSet: Set<string>;
  private readonly decoding: RowDecoding;
  private readonly key: string;

  constructor(private readonly sql: PgConnection, spec: TableSpec<T>) {
    this.name = spec.name;
    this.columns = spec.columns;
    this.columnSet = new Set(spec.columns);
    this.decoding = spec.decoding;
    this.key = spec.key;
  }

  /** `conflict`: what to do on a duplicate key: nothing (`INSERT OR IGNORE`), or replace the row's other columns. */
  async insert(row: T, conflict: OnConflict = 'error'): Promise<boolean> {
    const text = insertStatement(this.name, this.checked(Object.keys(row)), conflict);
    return (await this.sql.run(text, row as Record<string, unknown>)).changes > 0;
  }

  /** Inserts the row only while `condition` (SQL over the row's @parameters) holds: check and write in one statement. */
  async insertIf(row: T, condition: string): Promise<boolean> {
    const keys = this.checked(Object.keys(row));
    const text = `INSERT INTO ${this.name} (${keys.join(', ')}) SELECT ${keys.map((k) => `@${k}`).join(', ')} WHERE ${condition}`;
    return (await this.sql.run(text, row as Record<string, unknown>)).changes > 0;
  }

  async transition(id: string, change: RowChange<T>, guard: string, params: Record<string, unknown> = {}, returning = '*'): Promise<T | undefined> {
    const { text, values } = transitionStatement(this.name, this.key, this.columnSet, change, guard, returning);
    return this.one(text, { ...params, ...values, __key: id });
  }

  async get(id: string): Promise<T | undefined> {
    return this.one(`SELECT * FROM ${this.name} WHERE ${this.key} = ?`, [id]);
  }

  async one(text: string, params?: Record<string, unknown> | unknown[]): Promise<T | undefined> {
    const row = await this.sql.get<Record<string, unknown>>(text, params);
    return row ? this.decode(row) : undefined;
  }

  async many(text: string, params?: Record<string, unknown> | unknown[]): Promise<T[]> {
    return (await this.sql.all<Record<string, unknown>>(text, params)).map((row) => this.decode(row));
  }

  /**
   * SQL for one row of `alias` as a JSON object (json_build_object), for reading it beside another
   * table's row in one statement. JSON columns stay JSON; decode with decodeObject.
   */
  jsonObjectSql(alias: string, extra: Record<string, string> = {}): string {
    const json = this.decoding.json ?? {};
    const pairs = [...this.columnSet].map((column) => `'${column}', ${column in json ? `${alias}.${column}::json` : `${alias}.${column}`}`);
    for (const [key, sql] of Object.entries(extra)) pairs.push(`'${key}', ${sql}`);
    // json_build_object takes at most 100 arguments: wider rows are merged from pieces.
    const pieces: string[] = [];
    for (let i = 0; i < pairs.length; i += 40) pieces.push(`jsonb_build_object(${pairs.slice(i, i + 40).join(', ')})`);
    return pieces.length === 1 ? pieces[0]! : `(${pieces.join(' || ')})`;
  }

  /** A row read through jsonObjectSql (parsed by the driver): the fallbacks and booleans of decode. */
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
