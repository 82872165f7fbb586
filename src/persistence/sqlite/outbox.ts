import type { DomainEvent } from '../../domain/events.js';
import type { OutboxRepo } from '../store.js';
import type { Sql } from './sql.js';

export class SqliteOutbox implements OutboxRepo {
  constructor(private readonly sql: Sql) {}
  record(type: string, payload: unknown, at: number): number {
    return Number(this.sql.run('INSERT INTO event_outbox (type, payload, created_at) VALUES (?, ?, ?)',
      [type, JSON.stringify(payload), at]).lastInsertRowid);
  }
  async pending() {
    return this.sql.all<{ id: number; type: string; payload: string; created_at: number }>(
      'SELECT * FROM event_outbox WHERE parked_at IS NULL ORDER BY id').map((row) => ({
      id: row.id, type: row.type, payload: JSON.parse(row.payload), at: row.created_at,
    }) as DomainEvent);
  }
  async remove(ids: number[]) {
    for (const id of ids) this.sql.run('DELETE FROM event_outbox WHERE id = ?', [id]);
  }
  async park(id: number, error: string, at: number) {
    this.sql.run('UPDATE event_outbox SET parked_at = ?, parked_error = ? WHERE id = ?', [at, error, id]);
  }
}
