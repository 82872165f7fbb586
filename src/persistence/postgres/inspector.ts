import pg from 'pg';
import { InspectorSql, quote, type Catalogue } from '../sql/inspector.js';
import { PgConnection } from './connection.js';
import { numericTypes } from './connection.js';

/** PostgreSQL's catalogue: information_schema, and pg_index for the primary key. */
const CATALOGUE: Catalogue = {
  tablesSql: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY table_name",
  columns: async (db, table) => {
    const columns = await db.all<{ name: string }>(
      'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', [table]);
    if (columns.length === 0) return { all: new Set(), primaryKey: [] };
    const primaryKey = await db.all<{ name: string }>(
      `SELECT a.attname AS name FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
       WHERE i.indrelid = ?::regclass AND i.indisprimary
       ORDER BY array_position(i.indkey::int2[], a.attnum)`, [quote(table)]);
    return { all: new Set(columns.map((column) => column.name)), primaryKey: primaryKey.map((column) => column.name) };
  },
  location: 'the database',
};

/**
 * The Inspector on PostgreSQL (the reads are ../sql/inspector.ts): a connection of its own in a
 * read-only session, so it sees what has committed and cannot write by mistake.
 */
export class PostgresInspector extends InspectorSql {
  private client: Promise<{ client: pg.Client; sql: PgConnection }> | null = null;

  constructor(private readonly url: string) { super(CATALOGUE); }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await (await client.catch(() => null))?.client.end();
  }

  /** Connected on first use. */
  protected async connect(): Promise<PgConnection> {
    this.client ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, types: numericTypes });
      await client.connect();
      await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      return { client, sql: new PgConnection(client, { statements: 0 }) };
    })();
    return (await this.client).sql;
  }
}
