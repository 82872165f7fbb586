import Database from 'better-sqlite3';
import { InspectorSql, type Catalogue } from '../sql/inspector.js';
import { SqliteConnection } from './connection.js';

/** SQLite's catalogue: sqlite_master and the table_info pragma. */
const catalogue = (path: string): Catalogue => ({
  tablesSql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name",
  columns: async (db, table) => {
    const info = await db.all<{ name: string; pk: number }>('SELECT name, pk FROM pragma_table_info(?)', [table]);
    return {
      all: new Set(info.map((column) => column.name)),
      primaryKey: info.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name),
    };
  },
  location: path,
});

/**
 * The Inspector on SQLite (the reads are ../sql/inspector.ts): a read-only connection of its own on
 * the database file, so it sees what has committed (WAL lets it read while the store writes) and
 * cannot write by mistake.
 */
export class SqliteInspector extends InspectorSql {
  private connection: SqliteConnection | null = null;

  constructor(private readonly path: string) { super(catalogue(path)); }

  async close(): Promise<void> {
    this.connection?.db.close();
    this.connection = null;
  }

  /** Opened on first use: the store creates the file and its schema first. */
  protected connect(): SqliteConnection {
    this.connection ??= new SqliteConnection(new Database(this.path, { readonly: true, fileMustExist: true }));
    return this.connection;
  }
}
