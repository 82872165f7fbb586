import type { PendingDelivery } from '../../domain/delivery.js';
import type { DeliveryRepo, DeliveryTake } from '../store.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';
import { ROUTINE_DELIVERIES } from '../tables.js';

/** The columns a taker sees: the claim stays in the store. */
const COLUMNS = ROUTINE_DELIVERIES.columns.join(', ');

/** Routine results waiting to be delivered, on both backends. */
export class DeliveriesSql implements DeliveryRepo {
  private readonly table: RowTable<PendingDelivery>;
  private readonly sql: SqlRunner;
  constructor(private readonly dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(ROUTINE_DELIVERIES);
  }

  async schedule(delivery: Pick<PendingDelivery, 'routine_run_id' | 'url' | 'body' | 'next_attempt_at' | 'created_at'>) {
    return this.dialect.writeThen(
      `INSERT INTO routine_deliveries (routine_run_id, url, body, attempts, next_attempt_at, created_at)
       VALUES (@routine_run_id, @url, @body, 0, @next_attempt_at, @created_at) ON CONFLICT (routine_run_id) DO NOTHING`,
      "UPDATE office_routine_runs SET delivery_status = 'pending' WHERE id = @routine_run_id", delivery);
  }

  async take(owner: string, batch: DeliveryTake) {
    // SKIP LOCKED (PostgreSQL): a delivery another replica is taking right now is left to it, not waited for.
    const rows = await this.table.many(
      `UPDATE routine_deliveries SET claimed_by = @owner, claimed_until = @until
       WHERE routine_run_id IN (
         SELECT routine_run_id FROM routine_deliveries
         WHERE next_attempt_at <= @now AND (claimed_by IS NULL OR claimed_until <= @now OR (@takeOver = 1 AND claimed_by <> @owner))
         ORDER BY next_attempt_at, routine_run_id LIMIT @limit${this.dialect.lock('update, skip locked')})
       RETURNING ${COLUMNS}`,
      { owner, until: batch.claimUntil, now: batch.now, takeOver: batch.takeOver ? 1 : 0, limit: batch.limit });
    // RETURNING gives no order: the longest due first.
    return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.routine_run_id.localeCompare(b.routine_run_id));
  }

  async retryLater(routineRunId: string, owner: string, attempt: { attempts: number; next_attempt_at: number; last_error: string }) {
    return (await this.sql.run(
      `UPDATE routine_deliveries SET attempts = @attempts, next_attempt_at = @next_attempt_at, last_error = @last_error,
         claimed_by = NULL, claimed_until = NULL
       WHERE routine_run_id = @id AND claimed_by = @owner`, { ...attempt, id: routineRunId, owner })).changes > 0;
  }

  async finish(routineRunId: string, owner: string, status: 'delivered' | 'failed') {
    return this.dialect.writeThen(
      'DELETE FROM routine_deliveries WHERE routine_run_id = @id AND claimed_by = @owner',
      'UPDATE office_routine_runs SET delivery_status = @status WHERE id = @id', { id: routineRunId, owner, status });
  }

  async nextDue() {
    return (await this.sql.get<{ at: number | null }>(
      'SELECT min(CASE WHEN claimed_until > next_attempt_at THEN claimed_until ELSE next_attempt_at END) AS at FROM routine_deliveries'))?.at ?? null;
  }

  async get(routineRunId: string) {
    return this.table.one(`SELECT ${COLUMNS} FROM routine_deliveries WHERE routine_run_id = ?`, [routineRunId]);
  }
}
