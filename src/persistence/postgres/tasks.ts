import { TasksSql, type LinkTable } from '../sql/tasks.js';
import { postgresDialect } from './dialect.js';
import type { PgConnection } from './connection.js';

/** The shared statements (../sql/tasks.ts) on this backend's connection, with a task's links inserted in one statement. */
export class PgTasks extends TasksSql {
  constructor(sql: PgConnection) { super(postgresDialect(sql)); }

  /**
   * Every link in one statement, numbered in the order given (duplicates dropped): one round trip
   * to the server, where SQLite's in-process statement per link costs nothing.
   */
  protected override async insertLinks(table: LinkTable, column: string, taskId: string, ids: string[]) {
    if (ids.length === 0) return;
    await this.sql.run(
      `INSERT INTO ${table} (task_id, ${column}, position)
       SELECT ?, l.value, l.ordinality - 1 FROM jsonb_array_elements_text(?::jsonb) WITH ORDINALITY AS l(value, ordinality)`,
      [taskId, [...new Set(ids)]]);
  }
}

