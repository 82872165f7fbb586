import type { DomainEvent } from '../../domain/events.js';
import type { OutboxRepo, OutboxTake } from '../store.js';
import type { Dialect, MaybePromise, SqlRunner } from './dialect.js';

/** An outbox row as a take returns it. */
export interface OutboxRow {
  id: number;
  type: string;
  payload: string;
  created_at: number;
}

/**
 * The event outbox, on both backends. How events are written, and how a batch of them is renewed or
 * removed, is each backend's (sqlite/outbox.ts, postgres/outbox.ts): SQLite's writer is the process
 * itself and a statement costs no round trip; PostgreSQL writes a unit's events in one statement
 * under a commit-order lock and signals claims to the other replicas.
 */
export abstract class OutboxSql implements OutboxRepo {
  private readonly runner: SqlRunner;
  constructor(private readonly dialect: Dialect) {
    this.runner = dialect.sql;
  }

  async take(owner: string, batch: OutboxTake) {
    // One UPDATE over the oldest takeable ids. SKIP LOCKED (PostgreSQL): a batch another owner is
    // taking right now is left to it, not waited for; SQLite's single writer needs no lock.
    const rows = await this.claim(
      `UPDATE event_outbox SET claimed_by = @owner, claimed_until = @until
       WHERE id IN (
         SELECT id FROM event_outbox
         WHERE parked_at IS NULL
           AND (claimed_by IS NULL OR claimed_until <= @now OR (@takeOver = 1 AND claimed_by <> @owner))
         ORDER BY id LIMIT @limit${this.dialect.lock('update, skip locked')})
       RETURNING id, type, payload, created_at`,
      { owner, until: batch.claimUntil, now: batch.now, takeOver: batch.takeOver, limit: batch.limit });
    // RETURNING gives no order: the batch is delivered oldest first.
    return rows.sort((a, b) => a.id - b.id).map((row) => ({
      id: row.id, type: row.type, payload: JSON.parse(row.payload), at: row.created_at,
    }) as DomainEvent);
  }

  /** Runs a take's claim (an UPDATE … RETURNING of event_outbox rows; binds @owner and @until). */
  protected claim(update: string, params: { owner: string; until: number | null } & Record<string, unknown>): MaybePromise<OutboxRow[]> {
    return this.runner.all<OutboxRow>(update, params);
  }

  abstract renew(owner: string, ids: readonly number[], until: number): Promise<void>;

  async nextClaimExpiry() {
    return (await this.runner.get<{ at: number | null }>('SELECT min(claimed_until) AS at FROM event_outbox WHERE parked_at IS NULL'))?.at ?? null;
  }

  abstract remove(ids: number[]): Promise<void>;

  async park(id: number, error: string, at: number) {
    await this.runner.run('UPDATE event_outbox SET parked_at = ?, parked_error = ? WHERE id = ?', [at, error, id]);
  }
}
