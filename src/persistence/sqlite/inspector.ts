import Database from 'better-sqlite3';
import type { InspectOptions, Inspector, RowFilter } from '../inspector.js';

/**
 * The Inspector on SQLite: a read-only connection of its own on the database file, so it sees what
 * has committed (WAL lets it read while the store writes) and cannot write by mistake.
 */
export class SqliteInspector implements Inspector {
  private connection: Database.Database | null = null;
  private readonly columnsOf = new Map<string, Set<string>>();

  constructor(private readonly path: string) {}

  async rows<T>(table: string, where: RowFilter = {}, options: InspectOptions = {}): Promise<T[]> {
    const columns = this.checked(table, options.columns ?? []);
    const order = options.orderBy ? this.checked(table, [options.orderBy]) : this.primaryKey(table);
    const { clause, values } = this.where(table, where);
    const select = columns.length > 0 ? columns.map(quote).join(', ') : '*';
    const orderBy = order.length > 0 ? ` ORDER BY ${order.map(quote).join(', ')}` : '';
    return this.db().prepare(`SELECT ${select} FROM ${quote(table)}${clause}${orderBy}`).all(...values) as T[];
  }

  async count(table: string, where: RowFilter = {}): Promise<number> {
    const { clause, values } = this.where(table, where);
    return (this.db().prepare(`SELECT COUNT(*) AS n FROM ${quote(table)}${clause}`).get(...values) as { n: number }).n;
  }

  async tables(): Promise<string[]> {
    return (this.db().prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name",
    ).all() as { name: string }[]).map((row) => row.name);
  }

  async close(): Promise<void> {
    this.connection?.close();
    this.connection = null;
  }

  /** Opened on first use: the store creates the file and its schema first. */
  private db(): Database.Database {
    this.connection ??= new Database(this.path, { readonly: true, fileMustExist: true });
    return this.connection;
  }

  private where(table: string, where: RowFilter): { clause: string; values: unknown[] } {
    const names = this.checked(table, Object.keys(where));
    if (names.length === 0) return { clause: '', values: [] };
    const values = names.map((name) => where[name]).filter((value) => value !== null).map((value) => (typeof value === 'boolean' ? Number(value) : value));
    return { clause: ` WHERE ${names.map((name) => (where[name] === null ? `${quote(name)} IS NULL` : `${quote(name)} = ?`)).join(' AND ')}`, values };
  }

  private primaryKey(table: string): string[] {
    this.checked(table, []);
    return (this.db().prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string; pk: number }[])
      .filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name);
  }

  /** The names, once each is known to be a column of a known table. */
  private checked(table: string, names: readonly string[]): string[] {
    let known = this.columnsOf.get(table);
    if (!known) {
      const info = this.db().prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[];
      if (info.length === 0) throw new Error(`no table '${table}' in ${this.path}: expected one of the application's tables (see tables())`);
      known = new Set(info.map((column) => column.name));
      this.columnsOf.set(table, known);
    }
    for (const name of names) {
      if (!known.has(name)) throw new Error(`no column '${name}' in table '${table}': expected one of ${[...known].join(', ')}`);
    }
    return [...names];
  }
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
