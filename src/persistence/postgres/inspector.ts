import pg from 'pg';
import type { InspectOptions, Inspector, RowFilter } from '../inspector.js';
import { numericTypes } from './store.js';

/**
 * The Inspector on PostgreSQL: a connection of its own in a read-only session, so it sees what has
 * committed and cannot write by mistake. The columns are SQLite's (booleans 0/1, JSON as text), so
 * rows read the same on both backends.
 */
export class PostgresInspector implements Inspector {
  private client: Promise<pg.Client> | null = null;
  private readonly columnsOf = new Map<string, { all: Set<string>; primaryKey: string[] }>();

  constructor(private readonly url: string) {}

  async rows<T>(table: string, where: RowFilter = {}, options: InspectOptions = {}): Promise<T[]> {
    const columns = await this.checked(table, options.columns ?? []);
    const order = options.orderBy ? await this.checked(table, [options.orderBy]) : (await this.known(table)).primaryKey;
    const { clause, values } = await this.where(table, where);
    const select = columns.length > 0 ? columns.map(quote).join(', ') : '*';
    const orderBy = order.length > 0 ? ` ORDER BY ${order.map(quote).join(', ')}` : '';
    return (await (await this.db()).query(`SELECT ${select} FROM ${quote(table)}${clause}${orderBy}`, values)).rows as T[];
  }

  async count(table: string, where: RowFilter = {}): Promise<number> {
    const { clause, values } = await this.where(table, where);
    return (await (await this.db()).query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${quote(table)}${clause}`, values)).rows[0]!.n;
  }

  async tables(): Promise<string[]> {
    return (await (await this.db()).query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY table_name",
    )).rows.map((row) => row.name);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await (await client.catch(() => null))?.end();
  }

  /** Connected on first use. */
  private db(): Promise<pg.Client> {
    this.client ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, types: numericTypes });
      await client.connect();
      await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      return client;
    })();
    return this.client;
  }

  private async where(table: string, where: RowFilter): Promise<{ clause: string; values: unknown[] }> {
    const names = await this.checked(table, Object.keys(where));
    if (names.length === 0) return { clause: '', values: [] };
    const values: unknown[] = [];
    const parts = names.map((name) => {
      const value = where[name];
      if (value === null) return `${quote(name)} IS NULL`;
      values.push(typeof value === 'boolean' ? Number(value) : value);
      return `${quote(name)} = $${values.length}`;
    });
    return { clause: ` WHERE ${parts.join(' AND ')}`, values };
  }

  private async known(table: string): Promise<{ all: Set<string>; primaryKey: string[] }> {
    let known = this.columnsOf.get(table);
    if (!known) {
      const db = await this.db();
      const columns = (await db.query<{ name: string }>(
        'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1', [table])).rows;
      if (columns.length === 0) throw new Error(`no table '${table}' in the database: expected one of the application's tables (see tables())`);
      const primaryKey = (await db.query<{ name: string }>(
        `SELECT a.attname AS name FROM pg_index i
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
         WHERE i.indrelid = $1::regclass AND i.indisprimary
         ORDER BY array_position(i.indkey::int2[], a.attnum)`, [quote(table)])).rows;
      known = { all: new Set(columns.map((column) => column.name)), primaryKey: primaryKey.map((column) => column.name) };
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

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
