import { OutboxSql } from '../sql/outbox.js';
import { sqliteDialect } from './dialect.js';
import type { SqliteConnection } from './connection.js';

/** The shared statements (../sql/outbox.ts) on this backend's connection, and its writes. */
export class SqliteOutbox extends OutboxSql {
  constructor(private readonly sql: SqliteConnection) { super(sqliteDialect(sql)); }

  /** The writer claims its own event (for as long as it lives): it delivers it after commit. */
  record(type: string, payload: unknown, at: number, owner: string | null = null): number {
    return Number(this.sql.run('INSERT INTO event_outbox (type, payload, created_at, claimed_by) VALUES (?, ?, ?, ?)',
      [type, JSON.stringify(payload), at, owner]).lastInsertRowid);
  }

  async renew(owner: string, ids: readonly number[], until: number) {
    for (const id of ids) this.sql.run('UPDATE event_outbox SET claimed_until = ? WHERE id = ? AND claimed_by = ?', [until, id, owner]);
  }

  async remove(ids: number[]) {
    for (const id of ids) this.sql.run('DELETE FROM event_outbox WHERE id = ?', [id]);
  }
}
