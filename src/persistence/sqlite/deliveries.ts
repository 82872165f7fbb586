import type { PendingDelivery } from '../../domain/delivery.js';
import type { DeliveryRepo, DeliveryTake } from '../store.js';
import type { Sql } from './sql.js';
import { Table } from './table.js';
import { ROUTINE_DELIVERIES } from '../tables.js';

/** The columns a taker sees: the claim stays in the store. */
const COLUMNS = ROUTINE_DELIVERIES.columns.join(', ');

export class SqliteDeliveries implements DeliveryRepo {
  private readonly table: Table<PendingDelivery>;
  constructor(private readonly sql: Sql) {
    this.table = new Table(sql, ROUTINE_DELIVERIES);
  }

  async schedule(delivery: Pick<PendingDelivery, 'routine_run_id' | 'url' | 'body' | 'next_attempt_at' | 'created_at'>) {
    if (!this.table.insert({ ...delivery, attempts: 0, last_error: null }, 'INSERT OR IGNORE')) return false;
    this.sql.run("UPDATE office_routine_runs SET delivery_status = 'pending' WHERE id = ?", [delivery.routine_run_id]);
    return true;
  }

  async take(owner: string, batch: DeliveryTake) {
    const rows = this.table.many(
      `UPDATE routine_deliveries SET claimed_by = @owner, claimed_until = @until
       WHERE routine_run_id IN (
         SELECT routine_run_id FROM routine_deliveries
         WHERE next_attempt_at <= @now AND (claimed_by IS NULL OR claimed_until <= @now OR (@takeOver AND claimed_by <> @owner))
         ORDER BY next_attempt_at, routine_run_id LIMIT @limit)
       RETURNING ${COLUMNS}`,
      { owner, until: batch.claimUntil, now: batch.now, takeOver: batch.takeOver ? 1 : 0, limit: batch.limit });
    // RETURNING gives no order: the longest due first.
    return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.routine_run_id.localeCompare(b.routine_run_id));
  }

  async retryLater(routineRunId: string, owner: string, attempt: { attempts: number; next_attempt_at: number; last_error: string }) {
    return this.sql.run(
      `UPDATE routine_deliveries SET attempts = @attempts, next_attempt_at = @next_attempt_at, last_error = @last_error,
         claimed_by = NULL, claimed_until = NULL
       WHERE routine_run_id = @id AND claimed_by = @owner`, { ...attempt, id: routineRunId, owner }).changes > 0;
  }

  async finish(routineRunId: string, owner: string, status: 'delivered' | 'failed') {
    if (this.sql.run('DELETE FROM routine_deliveries WHERE routine_run_id = ? AND claimed_by = ?', [routineRunId, owner]).changes === 0) return false;
    this.sql.run('UPDATE office_routine_runs SET delivery_status = ? WHERE id = ?', [status, routineRunId]);
    return true;
  }

  async nextDue() {
    return this.sql.get<{ at: number | null }>(
      'SELECT min(CASE WHEN claimed_until > next_attempt_at THEN claimed_until ELSE next_attempt_at END) AS at FROM routine_deliveries')?.at ?? null;
  }

  async get(routineRunId: string) {
    return this.table.one(`SELECT ${COLUMNS} FROM routine_deliveries WHERE routine_run_id = ?`, [routineRunId]);
  }
}
