import type { Logger } from 'pino';
import { backoffDelayMs } from '../../domain/backoff.js';
import type { Clock } from '../../domain/clock.js';
import { STORAGE_RETRY_STEPS_MS, type StorageUnavailableError } from '../storageUnavailable.js';

/**
 * What one probe found: the database took a real write, or the probe could not run now (SQLite, in
 * the middle of a batch, whose own commit decides instead) and must be tried again later.
 */
export type ProbeOutcome = 'written' | 'postponed';

export interface StorageOutageDeps {
  now: () => number;
  timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  log: Pick<Logger, 'info' | 'error'>;
  /** Logged with every line, so an operator knows which database is meant. */
  logFields: Record<string, unknown>;
  /** The backend's reading of an error: a storage failure, or null for any other error. */
  toStorageUnavailable: (error: unknown) => StorageUnavailableError | null;
  /** One real write; it throws what the database threw. */
  probe: () => ProbeOutcome | Promise<ProbeOutcome>;
}

/**
 * Whether writes reach the database, for either backend. A storage failure starts an outage; while
 * it lasts a probe runs on a capped backoff until one write succeeds, which ends it. Healthy, this
 * costs no SQL. Both stores keep one, so the outage is told and logged the same way whatever the
 * backend.
 */
export class StorageOutage {
  private current: { error: StorageUnavailableError; since: number; probes: number } | null = null;
  private probeTimer: unknown = null;
  private stopped = false;

  constructor(private readonly deps: StorageOutageDeps) {}

  get active(): boolean {
    return this.current !== null;
  }

  health(): { writable: boolean; failure: string | null } {
    return { writable: this.current === null, failure: this.current?.error.message ?? null };
  }

  /** What a unit is rejected with: a storage failure becomes StorageUnavailableError and starts (or continues) an outage. */
  failure(error: unknown): unknown {
    const storage = this.deps.toStorageUnavailable(error);
    if (!storage) return error;
    this.start(storage);
    return storage;
  }

  /**
   * Runs a probe now, if an outage lasts. A synchronous probe (SQLite's) settles before this returns,
   * so a commit that proved the file writable clears the outage at once.
   */
  probe(): void | Promise<void> {
    if (!this.current || this.stopped) return;
    let outcome: ProbeOutcome | Promise<ProbeOutcome>;
    try {
      outcome = this.deps.probe();
    } catch (error) {
      this.probeFailed(error);
      return;
    }
    if (outcome instanceof Promise) return outcome.then((settled) => this.probed(settled), (error) => this.probeFailed(error));
    this.probed(outcome);
  }

  /** No more probes: the store is closing. Logged when it closes while writes still fail. */
  stop(): void {
    this.stopped = true;
    this.deps.timers.clearTimeout(this.probeTimer);
    this.probeTimer = null;
    if (this.current) this.deps.log.error({ ...this.deps.logFields, err: this.current.error }, 'closing the store while the database cannot be written');
  }

  private start(error: StorageUnavailableError): void {
    if (this.current) {
      this.current.error = error;
    } else {
      this.current = { error, since: this.deps.now(), probes: 0 };
      this.deps.log.error({ ...this.deps.logFields, err: error, code: error.storageCode },
        'the database cannot be written: writes answer 503 storage_unavailable and /readyz 503 until a write succeeds');
    }
    if (this.probeTimer === null && !this.stopped) {
      const delay = backoffDelayMs(this.current.probes++, STORAGE_RETRY_STEPS_MS, 0, Math.random);
      this.probeTimer = this.deps.timers.setTimeout(() => {
        this.probeTimer = null;
        void this.probe();
      }, delay);
    }
  }

  /** A write went through (PostgreSQL's commit proves it; SQLite's may not, so SQLite probes instead): any outage ends. */
  recovered(): void {
    if (!this.current) return;
    this.deps.log.info({ ...this.deps.logFields, down_ms: this.deps.now() - this.current.since, probes: this.current.probes },
      'the database can be written again');
    this.deps.timers.clearTimeout(this.probeTimer);
    this.probeTimer = null;
    this.current = null;
  }

  private probed(outcome: ProbeOutcome): void {
    if (!this.current) return;
    if (outcome === 'postponed') this.start(this.current.error);
    else this.recovered();
  }

  private probeFailed(error: unknown): void {
    const storage = this.deps.toStorageUnavailable(error);
    if (storage) this.start(storage);
    else this.deps.log.error({ ...this.deps.logFields, err: error }, 'the storage probe failed for a reason other than storage; probing stops');
  }
}
