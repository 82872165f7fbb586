/** The Inspector (../inspector.ts) on both backends: names checked against the schema, values bound. */
import type { InspectOptions, Inspector, RowFilter } from '../inspector.js';
import type { MaybePromise, SqlRunner } from './dialect.js';

/** A table's columns, and its primary key in key order. */
export interface TableColumns {
  all: Set<string>;
  primaryKey: string[];
}

/** What each backend's catalogue answers (SQLite's pragmas, PostgreSQL's information_schema): the rest is shared. */
export interface Catalogue {
  /** The application's tables (not the backend's own), as `name`, by name. */
  tablesSql: string;
  /** The columns of `table`; none when there is no such table. */
  columns(db: SqlRunner, table: string): Promise<TableColumns>;
  /** Where the tables are, for an error naming a table that is not there. */
  location: string;
}

/**
 * The reads, on a connection of the backend's own that only reads what has committed (opened by
 * `connect`, on first use). The columns are the same on both backends (booleans 0/1, JSON as text),
 * so rows read the same on each.
 */
export abstract class InspectorSql implements Inspector {
  private readonly columnsOf = new Map<string, TableColumns>();

  constructor(private readonly catalogue: Catalogue) {}

  /** The read-only connection, opened on first use. */
  protected abstract connect(): MaybePromise<SqlRunner>;
  abstract close(): Promise<void>;

  async rows<T>(table: string, where: RowFilter = {}, options: InspectOptions = {}): Promise<T[]> {
    const columns = await this.checked(table, options.columns ?? []);
    const order = options.orderBy ? await this.checked(table, [options.orderBy]) : (await this.known(table)).primaryKey;
    const { clause, values } = await this.where(table, where);
    const select = columns.length > 0 ? columns.map(quote).join(', ') : '*';
    const orderBy = order.length > 0 ? ` ORDER BY ${order.map(quote).join(', ')}` : '';
    return (await this.connect()).all<T>(`SELECT ${select} FROM ${quote(table)}${clause}${orderBy}`, values);
  }

  async count(table: string, where: RowFilter = {}): Promise<number> {
    const { clause, values } = await this.where(table, where);
    return (await (await this.connect()).get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${quote(table)}${clause}`, values))!.n;
  }

  async tables(): Promise<string[]> {
    return (await (await this.connect()).all<{ name: string }>(this.catalogue.tablesSql)).map((row) => row.name);
  }

  private async where(table: string, where: RowFilter): Promise<{ clause: string; values: unknown[] }> {
    const names = await this.checked(table, Object.keys(where));
    if (names.length === 0) return { clause: '', values: [] };
    const values = names.map((name) => where[name]).filter((value) => value !== null).map((value) => (typeof value === 'boolean' ? Number(value) : value));
    return { clause: ` WHERE ${names.map((name) => (where[name] === null ? `${quote(name)} IS NULL` : `${quote(name)} = ?`)).join(' AND ')}`, values };
  }

  private async known(table: string): Promise<TableColumns> {
    let known = this.columnsOf.get(table);
    if (!known) {
      known = await this.catalogue.columns(await this.connect(), table);
      if (known.all.size === 0) throw new Error(`no table '${table}' in ${this.catalogue.location}: expected one of the application's tables (see tables())`);
      this.columnsOf.set(table, known);
    }
    return known;
  }

  /** The names, once each is known to be a column of a known table. */
  private async checked(table: string, names: readonly string[]): Promise<string[]> {
    const known = (await this.known(table)).all;
    for (const name of names) {
      if (!known.has(name)) throw new Error(`no column '${name}' in table '${table}': expected one of ${[...known].join(', ')}`);
    }
    return [...names];
  }
}

/** A table or column name as a quoted identifier (the same in both dialects). */
export function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
