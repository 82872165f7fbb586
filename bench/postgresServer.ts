/**
 * The benches' own PostgreSQL: the tests' embedded server (test/store/postgresGlobalSetup.ts), started
 * in a temp directory for one bench and stopped after it, whatever happened; each measurement gets a
 * database of its own on it.
 */
import pg from 'pg';
import { startEmbeddedPostgres } from '../test/store/postgresGlobalSetup.js';

export interface BenchPostgres {
  /** A new empty database on the server; returns its postgres:// URL. */
  createDatabase(name: string): Promise<string>;
}

export interface BenchPostgresOptions {
  /** Libraries the server loads at start (shared_preload_libraries), such as pg_stat_statements. */
  preload?: string[];
}

export async function withEmbeddedPostgres<T>(body: (server: BenchPostgres) => Promise<T>, options: BenchPostgresOptions = {}): Promise<T> {
  const preload = options.preload ?? [];
  const server = await startEmbeddedPostgres(preload.length > 0 ? ['-c', `shared_preload_libraries=${preload.join(',')}`] : []);
  try {
    return await body({
      async createDatabase(name) {
        const client = new pg.Client({ connectionString: server.adminUrl });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${name}`);
        } finally {
          await client.end();
        }
        const url = new URL(server.adminUrl);
        url.pathname = `/${name}`;
        return url.toString();
      },
    });
  } finally {
    await server.stop();
  }
}
