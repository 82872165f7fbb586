import type { DomainEvent } from '../../domain/events.js';
import type { OutboxRepo, OutboxTake } from '../store.js';
import type { Sql } from './sql.js';

export class SqliteOutbox implements OutboxRepo {
  constructor(private readonly sql: Sql) {}

  /** The writer claims its own event (for as long as it lives): it delivers it after commit. */
  record(type: string, payload: unknown, at: number, owner: string | null = null): number {
    return Number(this.sql.run('INSERT INTO event_outbox (type, payload, created_at, claimed_by) VALUES (?, ?, ?, ?)',
      [type, JSON.stringify(payload), at, owner]).lastInsertRowid);
  }

  async take(owner: string, batch: OutboxTake) {
    // One UPDATE over the oldest takeable ids: what SKIP LOCKED does on PostgreSQL.
    const rows = this.sql.all<{ id: number; type: string; payload: string; created_at: number }>(
      `UPDATE event_outbox SET claimed_by = @owner, claimed_until = @until
       WHERE id IN (
         SELECT id FROM event_outbox
         WHERE parked_at IS NULL
           AND (claimed_by IS NULL OR claimed_until <= @now OR (@takeOver AND claimed_by <> @owner))
         ORDER BY id LIMIT @limit)
       RETURNING id, type, payload, created_at`,
      { owner, until: batch.claimUntil, now: batch.now, takeOver: batch.takeOver, limit: batch.limit });
    // RETURNING gives no order: the batch is delivered oldest first.
    return rows.sort((a, b) => a.id - b.id).map((row) => ({
      id: row.id, type: row.type, payload: JSON.parse(row.payload), at: row.created_at,
    }) as DomainEvent);
  }

  async renew(owner: string, ids: readonly number[], until: number) {
    for (const id of ids) this.sql.run('UPDATE event_outbox SET claimed_until = ? WHERE id = ? AND claimed_by = ?', [until, id, owner]);
  }

  async nextClaimExpiry() {
    return this.sql.get<{ at: number | null }>('SELECT min(claimed_until) AS at FROM event_outbox WHERE parked_at IS NULL')?.at ?? null;
  }

  async remove(ids: number[]) {
    for (const id of ids) this.sql.run('DELETE FROM event_outbox WHERE id = ?', [id]);
  }

  async park(id: number, error: string, at: number) {
    this.sql.run('UPDATE event_outbox SET parked_at = ?, parked_error = ? WHERE id = ?', [at, error, id]);
  }
}
