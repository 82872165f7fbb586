import type { DomainEvent } from '../../domain/events.js';
import type { OutboxRepo, OutboxTake } from '../store.js';
import { OUTBOX_CHANNEL } from './notify.js';
import type { PgSql } from './sql.js';

/** An event a unit of work emitted, waiting for its outbox row. */
export interface PendingEvent {
  type: string;
  payload: unknown;
  at: number;
}

/** Any fixed key, apart from the migrations' (migrate.ts). */
const OUTBOX_ORDER_LOCK_KEY = 7_700_002;

export class PgOutbox implements OutboxRepo {
  constructor(private readonly sql: PgSql) {}

  /**
   * Writes the rows of events emitted in this transaction, in one statement, claimed by their writer
   * (it delivers them after commit). Returns their ids, in the order given: identities are drawn in
   * row order, so the sorted ids are the rows' in order.
   *
   * The statement first takes a transaction-level advisory lock, held until commit, before it draws
   * any id: transactions that write events commit one at a time from here, so outbox ids follow
   * commit order, and "oldest first" (a take, a replay) is the order the events were committed in,
   * as on SQLite. Without it, a transaction that drew a lower id could commit after one with a
   * higher id. It serialises only this last part of a unit (its events' rows, its in-transaction
   * subscribers, its COMMIT), and costs no statement of its own.
   */
  async record(events: readonly PendingEvent[], owner: string | null, claimUntil: number | null = null): Promise<number[]> {
    if (events.length === 0) return [];
    const rows = await this.sql.all<{ id: number }>(
      `WITH commit_order AS MATERIALIZED (SELECT pg_advisory_xact_lock(${OUTBOX_ORDER_LOCK_KEY}) AS locked${claimUntil === null ? '' : `,
         pg_notify('${OUTBOX_CHANNEL}', @signal) AS signalled`})
       INSERT INTO event_outbox (type, payload, created_at, claimed_by, claimed_until)
       SELECT e.value ->> 'type', e.value ->> 'payload', (e.value ->> 'at')::bigint, @owner, @until::bigint
       FROM commit_order, jsonb_array_elements(@events::jsonb) WITH ORDINALITY AS e(value, ordinality) ORDER BY e.ordinality
       RETURNING id`,
      { owner, until: claimUntil, signal: claimSignal(owner, claimUntil),
        events: events.map((event) => ({ type: event.type, payload: JSON.stringify(event.payload), at: event.at })) });
    return rows.map((row) => row.id).sort((a, b) => a - b);
  }

  async take(owner: string, batch: OutboxTake) {
    // SKIP LOCKED: a batch another owner is taking right now is left to it, not waited for.
    const rows = await this.sql.all<{ id: number; type: string; payload: string; created_at: number }>(
      signalledIfAny(batch.claimUntil, `UPDATE event_outbox SET claimed_by = @owner, claimed_until = @until
       WHERE id IN (
         SELECT id FROM event_outbox
         WHERE parked_at IS NULL
           AND (claimed_by IS NULL OR claimed_until <= @now OR (@takeOver = 1 AND claimed_by <> @owner))
         ORDER BY id LIMIT @limit FOR UPDATE SKIP LOCKED)
       RETURNING id, type, payload, created_at`),
      { owner, until: batch.claimUntil, now: batch.now, takeOver: batch.takeOver, limit: batch.limit,
        signal: claimSignal(owner, batch.claimUntil) });
    // RETURNING gives no order: the batch is delivered oldest first.
    return rows.sort((a, b) => a.id - b.id).map((row) => ({
      id: row.id, type: row.type, payload: JSON.parse(row.payload), at: row.created_at,
    }) as DomainEvent);
  }

  async renew(owner: string, ids: readonly number[], until: number) {
    if (ids.length === 0) return;
    await this.sql.run(signalledIfAny(until, `UPDATE event_outbox SET claimed_until = @until
       WHERE claimed_by = @owner AND id IN (SELECT jsonb_array_elements_text(@ids::jsonb)::bigint)
       RETURNING id`), { owner, until, ids, signal: claimSignal(owner, until) });
  }

  async nextClaimExpiry() {
    return (await this.sql.get<{ at: number | null }>('SELECT min(claimed_until) AS at FROM event_outbox WHERE parked_at IS NULL'))?.at ?? null;
  }

  async remove(ids: number[]) {
    if (ids.length === 0) return;
    await this.sql.run('DELETE FROM event_outbox WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::bigint)', [ids]);
  }

  async park(id: number, error: string, at: number) {
    await this.sql.run('UPDATE event_outbox SET parked_at = ?, parked_error = ? WHERE id = ?', [at, error, id]);
  }
}

/**
 * What a claim with an expiry tells the other replicas (notify.ts): whose it is and until when, so
 * that each can take the events once that passes if the claimer died, at that deadline, not by polling.
 */
function claimSignal(owner: string | null, until: number | null): string | null {
  return until === null ? null : JSON.stringify({ owner, until });
}

/**
 * `update` (an UPDATE … RETURNING of event_outbox rows) that also signals its claim, once, when it
 * changed any row (a claim on nothing would have every replica wake for nothing). Binds @signal.
 */
function signalledIfAny(until: number | null, update: string): string {
  if (until === null) return update;
  return `WITH changed AS (${update}),
    signalled AS (SELECT pg_notify('${OUTBOX_CHANNEL}', @signal) FROM (SELECT 1 FROM changed LIMIT 1) AS any_row)
    SELECT changed.* FROM changed LEFT JOIN (SELECT count(*) AS n FROM signalled) AS s ON true`;
}
