/**
 * Retention (OFFICE_RETENTION_DAYS): a pass every RETENTION_PASS_MS prunes ended history older than
 * the setting, table by table (domain/retention.ts), RETENTION_BATCH_ROWS rows per statement, each
 * batch its own short transaction, yielding to the event loop between batches.
 *
 * Modes: `idle` (no pass running; one is scheduled unless the setting is 0), `pruning` (a pass
 * runs), `stopped` (after stop(): nothing is scheduled, and a running pass ends after its batch).
 * A pass starts only on the replica whose guarded UPDATE of the pass row moved it (RetentionRepo.
 * beginPass), so with several replicas on PostgreSQL one prunes per interval; the batches' own WHERE
 * keeps what is still referenced, so two at once could not delete a row twice either.
 *
 * Budgets' spend and the charts do not read what is pruned (the cost ledger, and the wakeup outcome
 * counters, are kept): pruning changes none of their answers.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { RETENTION_TABLES, noPrunedRows, retentionCutoff, type PrunedCounts, type RetentionTable } from '../domain/retention.js';
import type { Store } from '../persistence/store.js';

/** Hourly: a day of history goes in 24 small passes, and a quiet database sees one guarded UPDATE an hour. */
export const RETENTION_PASS_MS = 3_600_000;
/** After boot, before the first pass: the boot's own recovery and replays go first. */
export const RETENTION_FIRST_PASS_MS = 5 * 60_000;
/** Rows one statement deletes: few enough that a batch holds its locks (SQLite's writer) for milliseconds. */
export const RETENTION_BATCH_ROWS = 500;

export interface RetentionDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  config: Pick<Config, 'retentionDays' | 'idempotencyWindowMs'>;
  /** This replica, as the pass row names it. */
  owner: string;
}

type Mode = 'idle' | 'pruning' | 'stopped';

export class Retention {
  private mode: Mode = 'idle';
  private timer: unknown = null;
  private running: Promise<PrunedCounts | null> | null = null;
  private readonly totals = noPrunedRows();

  constructor(private readonly deps: RetentionDeps) {}

  /** Schedules the passes (none with OFFICE_RETENTION_DAYS=0). */
  start(): void {
    if (this.mode === 'stopped') throw new Error('Cannot start retention after it was stopped');
    if (this.deps.config.retentionDays === 0) return;
    this.schedule(RETENTION_FIRST_PASS_MS);
  }

  /** No more passes; a running one ends after the batch it is in. */
  async stop(): Promise<void> {
    this.mode = 'stopped';
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Rows this process pruned since it started, by table (the office_retention_pruned_total counter). */
  prunedTotals(): PrunedCounts {
    return { ...this.totals };
  }

  /** The pass running now, if any (its counts, or null when another replica had the turn). */
  current(): Promise<PrunedCounts | null> | null {
    return this.running;
  }

  /** One pass now, unless one runs already (joined) or another replica ran one within the interval (null). */
  pass(): Promise<PrunedCounts | null> {
    if (this.mode === 'stopped') throw new Error('Cannot run a retention pass after retention was stopped');
    this.running ??= this.prune().finally(() => {
      this.running = null;
      if (this.mode === 'pruning') this.mode = 'idle';
    });
    return this.running;
  }

  /** Read through a call: a pass's awaits may see stop() change the mode under them. */
  private stopped(): boolean {
    return this.mode === 'stopped';
  }

  private schedule(ms: number): void {
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      if (this.mode === 'stopped') return;
      void this.pass()
        .catch((error: unknown) => this.deps.log.error({ err: error }, 'retention pass failed; the next one prunes what it left'))
        .finally(() => {
          if (this.mode !== 'stopped') this.schedule(RETENTION_PASS_MS);
        });
    }, ms);
  }

  private async prune(): Promise<PrunedCounts | null> {
    const { store, clock, log, owner } = this.deps;
    const started = clock.now();
    if (!(await store.transaction((tx) => tx.retention.beginPass(owner, started, RETENTION_PASS_MS)))) return null;
    this.mode = 'pruning';
    const cutoff = this.cutoff(started);
    const pruned = noPrunedRows();
    for (const table of RETENTION_TABLES) {
      pruned[table] = await this.pruneTable(table, cutoff);
      if (this.stopped()) break;
    }
    const total = Object.values(pruned).reduce((sum, n) => sum + n, 0);
    log.info({ pruned, cutoff: new Date(cutoff).toISOString(), retention_days: this.deps.config.retentionDays },
      `retention pass pruned ${total} rows older than ${this.deps.config.retentionDays} days`);
    return pruned;
  }

  /**
   * The pass's cutoff: the retention window, and never inside the idempotency window, where a
   * wakeup's or routine run's key still turns a repeated request into the same row.
   */
  private cutoff(now: number): number {
    return Math.min(retentionCutoff(now, this.deps.config.retentionDays), now - this.deps.config.idempotencyWindowMs);
  }

  /** Batches until one comes back short (nothing older is left) or retention stops. */
  private async pruneTable(table: RetentionTable, cutoff: number): Promise<number> {
    let pruned = 0;
    for (;;) {
      const n = await this.deps.store.transaction((tx) => tx.retention.prune(table, cutoff, RETENTION_BATCH_ROWS));
      pruned += n;
      this.totals[table] += n;
      if (n < RETENTION_BATCH_ROWS || this.stopped()) return pruned;
      // Between batches the loop lets other work (requests, dispatches) take the connection.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
