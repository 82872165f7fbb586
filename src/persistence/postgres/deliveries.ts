import type { PendingDelivery } from '../../domain/delivery.js';
import type { DeliveryRepo, DeliveryTake } from '../store.js';
import type { PgSql } from './sql.js';
import { PgTable } from './table.js';
import { ROUTINE_DELIVERIES } from '../tables.js';

/** The columns a taker sees: the claim stays in the store. */
const COLUMNS = ROUTINE_DELIVERIES.columns.join(', ');

export class PgDeliveries implements DeliveryRepo {
  private readonly table: PgTable<PendingDelivery>;
  constructor(private readonly sql: PgSql) {
    this.table = new PgTable(sql, ROUTINE_DELIVERIES);
  }

  async schedule(delivery: Pick<PendingDelivery, 'routine_run_id' | 'url' | 'body' | 'next_attempt_at' | 'created_at'>) {
    const row = await this.sql.get<{ routine_run_id: string }>(
      `WITH scheduled AS (
         INSERT INTO routine_deliveries (routine_run_id, url, body, attempts, next_attempt_at, created_at)
         VALUES (@routine_run_id, @url, @body, 0, @next_attempt_at, @created_at)
         ON CONFLICT (routine_run_id) DO NOTHING RETURNING routine_run_id),
       marked AS (UPDATE office_routine_runs SET delivery_status = 'pending' WHERE id IN (SELECT routine_run_id FROM scheduled) RETURNING id)
       SELECT routine_run_id, (SELECT count(*)::int FROM marked) AS marked FROM scheduled`, delivery);
    return row !== undefined;
  }

  async take(owner: string, batch: DeliveryTake) {
    // SKIP LOCKED: a delivery another replica is taking right now is left to it, not waited for.
    const rows = await this.table.many(
      `UPDATE routine_deliveries SET claimed_by = @owner, claimed_until = @until
       WHERE routine_run_id IN (
         SELECT routine_run_id FROM routine_deliveries
         WHERE next_attempt_at <= @now AND (claimed_by IS NULL OR claimed_until <= @now OR (@takeOver = 1 AND claimed_by <> @owner))
         ORDER BY next_attempt_at, routine_run_id LIMIT @limit FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      { owner, until: batch.claimUntil, now: batch.now, takeOver: batch.takeOver ? 1 : 0, limit: batch.limit });
    return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.routine_run_id.localeCompare(b.routine_run_id));
  }

  async retryLater(routineRunId: string, owner: string, attempt: { attempts: number; next_attempt_at: number; last_error: string }) {
    const row = await this.sql.get<{ routine_run_id: string }>(
      `UPDATE routine_deliveries SET attempts = @attempts, next_attempt_at = @next_attempt_at, last_error = @last_error,
         claimed_by = NULL, claimed_until = NULL
       WHERE routine_run_id = @id AND claimed_by = @owner RETURNING routine_run_id`, { ...attempt, id: routineRunId, owner });
    return row !== undefined;
  }

  async finish(routineRunId: string, owner: string, status: 'delivered' | 'failed') {
    const row = await this.sql.get<{ routine_run_id: string }>(
      `WITH ended AS (DELETE FROM routine_deliveries WHERE routine_run_id = @id AND claimed_by = @owner RETURNING routine_run_id),
         recorded AS (UPDATE office_routine_runs SET delivery_status = @status WHERE id IN (SELECT routine_run_id FROM ended) RETURNING id)
       SELECT routine_run_id, (SELECT count(*)::int FROM recorded) AS updated FROM ended`, { id: routineRunId, owner, status });
    return row !== undefined;
  }

  async nextDue() {
    return (await this.sql.get<{ at: number | null }>(
      'SELECT min(GREATEST(next_attempt_at, COALESCE(claimed_until, next_attempt_at))) AS at FROM routine_deliveries'))?.at ?? null;
  }

  async get(routineRunId: string) {
    return this.table.one(`SELECT ${COLUMNS} FROM routine_deliveries WHERE routine_run_id = ?`, [routineRunId]);
  }
}
