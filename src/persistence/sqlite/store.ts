import type Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pino, { type Logger } from 'pino';
import { NO_OUTBOX_ROW, type DomainEvent, type EventOf, type EventType } from '../../domain/events.js';
import { wallClock, type Clock } from '../../domain/clock.js';
import type { Reads, StorageHealth, Store, Tx } from '../store.js';
import { openDatabase, truncateWalWithoutWaiting } from './database.js';
import { BurstCheckpointer } from './checkpointer.js';
import { acquireDatabaseLock } from './lock.js';
import { migrate } from './migrate.js';
import { SqliteOutbox } from './outbox.js';
import { SqliteReplicas } from './replicas.js';
import { sharedRepos } from '../sql/repos.js';
import { sqliteDialect } from './dialect.js';
import { SqliteSnapshots } from './snapshots.js';
import { SqliteRoutines } from './routines.js';
import { SqliteConnection } from './connection.js';
import { toStorageUnavailable } from './storageFailure.js';
import { SqliteWakeups } from './wakeups.js';
import { framesAppended, WalIndex } from './walIndex.js';
import type { StoreOptions } from '../shared/options.js';
import type { StatementProfile } from '../shared/statementProfile.js';
import { StorageOutage, type ProbeOutcome } from '../shared/outage.js';

/** Bounds on one group commit, so a burst cannot hold every caller for long. */
const MAX_BATCH_UNITS = 512;
const MAX_BATCH_MS = 10;

/**
 * A batch that reaches MAX_BATCH_MS with a deep backlog waiting behind it goes on, up to
 * BACKLOG_BATCH_MS: each waiting unit sits behind hundreds of others anyway, and fewer, larger
 * commits write each shared page once instead of once per commit (a quarter of the commits and 30%
 * fewer WAL pages in a saturated P2, and with OFFICE_SQLITE_SYNC=FULL a quarter of the syncs). Bursts
 * of ordinary load never qualify: in P3 the 10 ms bound ended batches with at most 64 units
 * waiting, in a saturated P2 with 512 or more.
 */
const DEEP_BACKLOG_UNITS = 256;
const BACKLOG_BATCH_MS = 40;

/**
 * How long after the last write the store truncates the WAL. Short, so the WAL shrinks soon after
 * a burst; it is one statement once per burst, never while the process stays idle (the idle
 * benchmark starts measuring 2 s after boot's writes).
 */
const IDLE_CHECKPOINT_MS = 500;


/** What a unit's work is handed: the Tx, which is also the read side (Store.query) on the same connection. */
type UnitTx = Tx & Reads;

interface Unit {
  kind: 'write' | 'read';
  work: (tx: UnitTx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type UnitOutcome =
  | { unit: Unit; ok: true; value: unknown; events: DomainEvent[]; callbacks: (() => void)[] }
  | { unit: Unit; ok: false; error: unknown; events: DomainEvent[]; callbacks: (() => void)[] };

export interface SqliteStoreOptions extends StoreOptions {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  /** The monotonic clock, in ms, that a group commit's time bounds are read from (performance.now by default; a test's own). */
  batchClock?: () => number;
}

/**
 * SQLite behind the async Store port. One connection; units of work run one after another, so an
 * awaiting unit never interleaves with another on the connection.
 *
 * Storage health: a unit that fails because the file cannot be written (a full disk, a read-only
 * file, an I/O error: see storageFailure.ts) is rejected with StorageUnavailableError and starts an
 * outage. During an outage a probe (one real page write) runs on a capped backoff, and right after
 * any commit that wrote, until one succeeds; that ends the outage. Healthy, this costs no SQL.
 *
 * The WAL: during a burst a thread checkpoints it in the background (checkpointer.ts) and the
 * autocheckpoint bounds it (database.ts); IDLE_CHECKPOINT_MS after the last write, one TRUNCATE
 * checkpoint (run between batches) gives its space back to the volume.
 */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  private readonly sql: SqliteConnection;
  private readonly repos: Omit<UnitTx, 'emit' | 'afterCommit'> & { outbox: SqliteOutbox };
  private readonly pending: Unit[] = [];
  private draining = false;
  private writeUnits = 0;

  private readonly releaseLock: () => void;
  private readonly timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  private readonly log: Pick<Logger, 'info' | 'warn' | 'error'>;
  private readonly outage: StorageOutage;
  private checkpointTimer: unknown = null;
  private readonly checkpointer: BurstCheckpointer | null;
  /** Read around each commit only with a statement profile: how many WAL frames it appended. */
  private readonly walIndex: WalIndex | null;
  private readonly batchClock: () => number;

  constructor(private readonly options: SqliteStoreOptions) {
    this.timers = options.timers ?? wallClock;
    this.batchClock = options.batchClock ?? (() => performance.now());
    this.log = options.log ?? pino({ level: 'silent' });
    this.outage = new StorageOutage({
      now: options.now, timers: this.timers, log: this.log, logFields: { db: options.path }, toStorageUnavailable,
      probe: () => this.writeProbe(),
    });
    this.releaseLock = acquireDatabaseLock(options.path);
    this.db = openDatabase(options.path, { synchronous: options.synchronous });
    migrate(this.db);
    this.sql = new SqliteConnection(this.db, options.statementProfile ?? null);
    this.walIndex = options.statementProfile ? new WalIndex(options.path) : null;
    this.checkpointer = options.path === ':memory:' ? null : new BurstCheckpointer(options.path, this.log);
    const dialect = sqliteDialect(this.sql);
    this.repos = {
      ...sharedRepos(dialect),
      wakeups: new SqliteWakeups(this.sql),
      routines: new SqliteRoutines(this.sql),
      snapshots: new SqliteSnapshots(this.sql),
      outbox: new SqliteOutbox(this.sql),
      replicas: new SqliteReplicas(this.sql),
    };
  }

  statementsExecuted(): number {
    return this.sql.statementsExecuted;
  }

  transactionsExecuted(): number {
    return this.writeUnits;
  }

  storageHealth(): StorageHealth {
    return { ...this.outage.health(), walBytes: this.walBytes() };
  }

  /** Read from the file system, not with SQL, so a scrape never touches the database. */
  private walBytes(): number | null {
    if (this.options.path === ':memory:') return null;
    try {
      return statSync(`${this.options.path}-wal`).size;
    } catch {
      return 0; // No WAL file: nothing to checkpoint.
    }
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    this.writeUnits++;
    return this.schedule('write', work);
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.schedule('read', work);
  }

  query<T>(work: (reads: Reads) => Promise<T>): Promise<T> {
    return this.schedule('read', work);
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    // A barrier behind the units in flight; it fails when the file cannot be written, which must not keep the file open.
    await this.read(async () => undefined).catch(() => undefined);
    this.outage.stop();
    this.timers.clearTimeout(this.checkpointTimer);
    await this.checkpointer?.close();
    if (this.db.open) this.db.close();
    this.walIndex?.close();
    this.releaseLock();
  }

  private schedule<T>(kind: Unit['kind'], work: (tx: UnitTx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ kind, work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        queueMicrotask(() => void this.drain().catch((error) => this.options.onFatal?.(error)));
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        if (!this.db.open) {
          for (const unit of this.pending.splice(0)) unit.reject(new Error('the store is closed'));
          break;
        }
        await this.runBatch();
      }
    } finally {
      this.draining = false;
      // Work that arrived while the last batch failed must not wait for a caller that never comes.
      if (this.pending.length > 0 && this.db.open) this.schedule('read', async () => undefined).catch(() => undefined);
    }
  }

  /**
   * Group commit: the units waiting when a batch starts (and those that arrive while it runs, up to
   * a bound) share one BEGIN/COMMIT, each inside its own SAVEPOINT so a failing unit rolls back
   * alone. Every caller hears back only after the COMMIT, so "committed" still means on disk, and
   * events and after-commit callbacks still leave only after it, in commit order.
   */
  private async runBatch(): Promise<void> {
    const outcomes: UnitOutcome[] = [];
    // Taken before BEGIN, so that a BEGIN that fails rejects it and the queue moves on.
    let current: Unit | undefined = this.pending.shift();
    const began = this.batchClock();
    try {
      const readsOnly = this.begin(current!);
      while (current) {
        // The first unit needs no savepoint: if it fails, the whole (so far empty) batch rolls back.
        const first = outcomes.length === 0;
        const outcome = await this.runUnit(current, !first);
        current = undefined;
        if (first && !outcome.ok) {
          this.rollback();
          this.settle(outcome);
          return;
        }
        outcomes.push(outcome);
        // A unit that swallowed a failure which ended the transaction must not leave the rest to autocommit.
        if (!this.db.inTransaction) throw outcome.ok ? new Error('the transaction ended inside a unit of work; the batch was rolled back') : outcome.error;
        const room = outcomes.length < MAX_BATCH_UNITS && this.batchHasTime(this.batchClock() - began);
        if (room && !(readsOnly && this.pending[0]?.kind === 'write')) current = this.pending.shift();
      }
      if (this.options.statementProfile) this.profiledCommit(this.options.statementProfile, outcomes);
      else this.sql.exec('COMMIT');
    } catch (error) {
      this.rollback();
      const failure = this.outage.failure(error);
      for (const outcome of outcomes) outcome.unit.reject(failure);
      current?.reject(failure);
      return;
    }
    for (const outcome of outcomes) this.settle(outcome);
    if (outcomes.some((outcome) => outcome.ok && outcome.unit.kind === 'write')) this.committedWrites();
  }

  /** Whether a batch that has run for `elapsedMs` may take one more unit: MAX_BATCH_MS, or BACKLOG_BATCH_MS behind a deep backlog. */
  private batchHasTime(elapsedMs: number): boolean {
    return elapsedMs < MAX_BATCH_MS || (elapsedMs < BACKLOG_BATCH_MS && this.pending.length >= DEEP_BACKLOG_UNITS);
  }

  /** The batch's COMMIT, timed, with the WAL frames it appended (walIndex.ts), into the profile. */
  private profiledCommit(profile: StatementProfile, outcomes: UnitOutcome[]): void {
    const before = this.walIndex!.read();
    const start = performance.now();
    this.sql.exec('COMMIT');
    const ms = performance.now() - start;
    const after = this.walIndex!.read();
    const frames = framesAppended(before, after);
    profile.commit(ms, frames === null ? outcomes.some((outcome) => outcome.unit.kind === 'write') : frames > 0, frames);
    profile.pagesWritten(this.walIndex!.pagesAppended(before, after));
  }

  /**
   * BEGIN IMMEDIATE, so that a batch may write. It can fail too (another connection holding the
   * lock past the busy timeout, a read-only file). A read-only file refuses even the write lock, yet
   * reads can still be served: a batch that starts with a read then runs in a plain read transaction,
   * with reads only. True when it did.
   */
  private begin(first: Unit): boolean {
    try {
      this.sql.exec('BEGIN IMMEDIATE');
      return false;
    } catch (error) {
      if (first.kind !== 'read' || !toStorageUnavailable(error)) throw error;
      this.outage.failure(error);
      this.sql.exec('BEGIN');
      return true;
    }
  }

  /** Never throws: every unit of the batch must still hear back. */
  private rollback(): void {
    try {
      if (this.db.inTransaction) this.sql.exec('ROLLBACK');
    } catch (error) {
      this.log.error({ err: error, db: this.options.path }, 'rolling back a failed batch failed');
    }
  }

  private async runUnit(unit: Unit, savepoint: boolean): Promise<UnitOutcome> {
    const events: DomainEvent[] = [];
    const callbacks: (() => void)[] = [];
    if (unit.kind === 'read') {
      try {
        return { unit, ok: true, value: await unit.work(this.readOnlyTx()), events, callbacks };
      } catch (error) {
        return { unit, ok: false, error, events, callbacks };
      }
    }
    if (savepoint) this.sql.exec('SAVEPOINT unit');
    try {
      const tx = this.writableTx(events, callbacks);
      const value = await unit.work(tx);
      // An in-transaction subscriber may emit in turn: the list grows while it is walked.
      if (this.options.withinTransaction) {
        for (let i = 0; i < events.length; i++) await this.options.withinTransaction(tx, events[i]!);
      }
      if (savepoint) this.sql.exec('RELEASE unit');
      return { unit, ok: true, value, events, callbacks };
    } catch (error) {
      // A full disk can make SQLite roll the whole transaction back: there is no savepoint to return to.
      if (savepoint && !this.db.inTransaction) throw error;
      if (savepoint) {
        this.sql.exec('ROLLBACK TO unit');
        this.sql.exec('RELEASE unit');
      }
      return { unit, ok: false, error, events: [], callbacks: [] };
    }
  }

  private settle(outcome: UnitOutcome): void {
    if (!outcome.ok) {
      outcome.unit.reject(this.outage.failure(outcome.error));
      return;
    }
    if (outcome.events.length > 0) this.options.publish(outcome.events);
    for (const callback of outcome.callbacks) callback();
    outcome.unit.resolve(outcome.value);
  }

  /**
   * One real write: rewriting the header's application_id with its own value changes nothing, yet
   * page 1 must reach the WAL (an UPDATE to the same value would not: SQLite skips identical cells).
   */
  private writeProbe(): ProbeOutcome {
    // A batch is awaiting a unit: its commit (or its failure) decides instead; keep probing meanwhile.
    if (this.db.inTransaction) return 'postponed';
    const applicationId = this.sql.get<{ application_id: number }>('PRAGMA application_id')!.application_id;
    this.sql.exec(`PRAGMA application_id = ${applicationId}`);
    return 'written';
  }

  private committedWrites(): void {
    // Reads do not postpone the checkpoint: a dashboard polling every 100 ms must not keep the WAL.
    this.armIdleCheckpoint();
    this.checkpointer?.committed();
    // A commit that wrote proves little on its own (SQLite may have had nothing to write): the probe decides.
    if (this.outage.active) this.outage.probe();
  }

  private armIdleCheckpoint(): void {
    this.timers.clearTimeout(this.checkpointTimer);
    this.checkpointTimer = this.timers.setTimeout(() => {
      this.checkpointTimer = null;
      this.checkpointWhenIdle();
    }, IDLE_CHECKPOINT_MS);
  }

  /** Once after a burst of writes, after the background checkpointer has stopped; the next write arms it again. */
  private checkpointWhenIdle(): void {
    if (!this.canCheckpointNow()) return;
    // Its connection could be checkpointing: TRUNCATE would find it busy.
    const stopping = this.checkpointer?.idle();
    if (!stopping) {
      this.truncateWal();
      return;
    }
    void stopping.then(() => {
      // Writes came back meanwhile: their own idle checkpoint (armed again) truncates after them.
      if (this.checkpointTimer !== null || this.checkpointer?.running) return;
      if (this.canCheckpointNow()) this.truncateWal();
    }, (error: unknown) => this.log.warn({ err: error, db: this.options.path }, 'stopping the background WAL checkpointer failed'));
  }

  /** Open, and between batches (a checkpoint cannot run inside a transaction); otherwise armed again for a little later. */
  private canCheckpointNow(): boolean {
    if (!this.db.open) return false;
    if (!this.draining && !this.db.inTransaction) return true;
    this.armIdleCheckpoint();
    return false;
  }

  private truncateWal(): void {
    try {
      const result = truncateWalWithoutWaiting(this.db);
      if (result?.busy) this.log.warn({ db: this.options.path, ...result }, 'the WAL checkpoint could not finish: another connection reads');
    } catch (error) {
      // The WAL still holds every commit; the next burst's checkpoint tries again.
      this.log.warn({ err: error, db: this.options.path }, 'checkpointing the WAL failed');
    }
  }

  private writableTx(events: DomainEvent[], callbacks: (() => void)[]): UnitTx {
    const outbox = this.repos.outbox;
    const { now, durable, owner = null } = this.options;
    return {
      ...this.repos,
      emit<K extends EventType>(type: K, payload: EventOf<K>['payload']) {
        const at = now();
        const id = !durable || durable(type) ? outbox.record(type, payload, at, owner) : NO_OUTBOX_ROW;
        events.push({ id, type, payload, at } as DomainEvent);
      },
      afterCommit(callback: () => void) {
        callbacks.push(callback);
      },
    };
  }

  private readOnlyTx(): UnitTx {
    return {
      ...this.repos,
      emit() {
        throw new Error('emit() called inside a read: events must leave with a write transaction');
      },
      afterCommit() {
        throw new Error('afterCommit() called inside a read: there is no commit to wait for');
      },
    };
  }
}
