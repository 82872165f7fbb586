import { OutboxSql, type OutboxRow } from '../sql/outbox.js';
import { postgresDialect } from './dialect.js';
import { OUTBOX_CHANNEL } from './notify.js';
import type { PgConnection } from './connection.js';

/** An event a unit of work emitted, waiting for its outbox row. */
export interface PendingEvent {
  type: string;
  payload: unknown;
  at: number;
}

/** Any fixed key, apart from the migrations' (migrate.ts). */
const OUTBOX_ORDER_LOCK_KEY = 7_700_002;

/** The shared statements (../sql/outbox.ts) on this backend's connection, and its writes. */
export class PgOutbox extends OutboxSql {
  constructor(private readonly sql: PgConnection) { super(postgresDialect(sql)); }

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

  /** A claim with an expiry also tells the other replicas, in the same statement (signalledIfAny). */
  protected override claim(update: string, params: { owner: string; until: number | null } & Record<string, unknown>) {
    return this.sql.all<OutboxRow>(signalledIfAny(params.until, update), { ...params, signal: claimSignal(params.owner, params.until) });
  }

  async renew(owner: string, ids: readonly number[], until: number) {
    if (ids.length === 0) return;
    await this.sql.run(signalledIfAny(until, `UPDATE event_outbox SET claimed_until = @until
       WHERE claimed_by = @owner AND id IN (SELECT jsonb_array_elements_text(@ids::jsonb)::bigint)
       RETURNING id`), { owner, until, ids, signal: claimSignal(owner, until) });
  }

  async remove(ids: number[]) {
    if (ids.length === 0) return;
    await this.sql.run('DELETE FROM event_outbox WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb)::bigint)', [ids]);
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
