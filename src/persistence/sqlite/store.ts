import type Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import type { DomainEvent, EventOf, EventType } from '../../events/types.js';
import type { Store, Tx } from '../store.js';
import { SqliteActivity, SqliteInbox } from './activity.js';
import { SqliteBudgets } from './budgets.js';
import { openDatabase } from './database.js';
import { acquireDatabaseLock } from './lock.js';
import { migrate } from './migrate.js';
import { SqliteOutbox, SqliteSnapshots, SqliteSummaries } from './misc.js';
import { SqliteAgents, SqliteProjects, SqliteWorkspaces } from './org.js';
import { SqliteRoutines } from './routines.js';
import { SqliteRuns } from './runs.js';
import { Sql } from './sql.js';
import { SqliteApprovals, SqliteComments, SqliteTasks } from './tasks.js';
import { SqliteWakeups } from './wakeups.js';

/** Bounds on one group commit, so a burst cannot hold every caller for long. */
const MAX_BATCH_UNITS = 512;
const MAX_BATCH_MS = 10;

interface Unit {
  kind: 'write' | 'read';
  work: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type UnitOutcome =
  | { unit: Unit; ok: true; value: unknown; events: DomainEvent[]; callbacks: (() => void)[] }
  | { unit: Unit; ok: false; error: unknown; events: DomainEvent[]; callbacks: (() => void)[] };

export interface SqliteStoreOptions {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  now: () => number;
  /** Receives the events of each committed transaction, in order. */
  publish: (events: DomainEvent[]) => void;
  /** Told about a failure of the store's own machinery (not of a unit of work). */
  onFatal?: (error: unknown) => void;
}

/**
 * SQLite behind the async Store port. One connection; units of work run one after another, so an
 * awaiting unit never interleaves with another on the connection.
 */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  private readonly sql: Sql;
  private readonly repos: Omit<Tx, 'emit' | 'afterCommit'> & { outbox: SqliteOutbox };
  private readonly pending: Unit[] = [];
  private draining = false;

  private readonly releaseLock: () => void;

  constructor(private readonly options: SqliteStoreOptions) {
    this.releaseLock = acquireDatabaseLock(options.path);
    this.db = openDatabase(options.path, { synchronous: options.synchronous });
    migrate(this.db);
    this.sql = new Sql(this.db);
    this.repos = {
      workspaces: new SqliteWorkspaces(this.sql),
      projects: new SqliteProjects(this.sql),
      agents: new SqliteAgents(this.sql),
      tasks: new SqliteTasks(this.sql),
      comments: new SqliteComments(this.sql),
      approvals: new SqliteApprovals(this.sql),
      budgets: new SqliteBudgets(this.sql),
      activity: new SqliteActivity(this.sql),
      inbox: new SqliteInbox(this.sql),
      wakeups: new SqliteWakeups(this.sql),
      runs: new SqliteRuns(this.sql),
      summaries: new SqliteSummaries(this.sql),
      routines: new SqliteRoutines(this.sql),
      snapshots: new SqliteSnapshots(this.sql),
      outbox: new SqliteOutbox(this.sql),
    };
  }

  statementsExecuted(): number {
    return this.sql.statementsExecuted;
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.schedule('write', work);
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.schedule('read', work);
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    await this.read(async () => undefined);
    if (this.db.open) this.db.close();
    this.releaseLock();
  }

  private schedule<T>(kind: Unit['kind'], work: (tx: Tx) => Promise<T>): Promise<T> {
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
    let current: Unit | undefined;
    const began = performance.now();
    try {
      // BEGIN can fail too (another connection holding the lock past the busy timeout).
      this.sql.exec('BEGIN IMMEDIATE');
      while (this.pending.length > 0 && outcomes.length < MAX_BATCH_UNITS && performance.now() - began < MAX_BATCH_MS) {
        current = this.pending.shift()!;
        // The first unit needs no savepoint: if it fails, the whole (so far empty) batch rolls back.
        const first = outcomes.length === 0;
        const outcome = await this.runUnit(current, !first);
        current = undefined;
        if (first && !outcome.ok) {
          this.sql.exec('ROLLBACK');
          this.settle(outcome);
          return;
        }
        outcomes.push(outcome);
      }
      this.sql.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.sql.exec('ROLLBACK');
      for (const outcome of outcomes) outcome.unit.reject(error);
      current?.reject(error);
      return;
    }
    for (const outcome of outcomes) this.settle(outcome);
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
      const value = await unit.work(this.writableTx(events, callbacks));
      if (savepoint) this.sql.exec('RELEASE unit');
      return { unit, ok: true, value, events, callbacks };
    } catch (error) {
      if (savepoint) {
        this.sql.exec('ROLLBACK TO unit');
        this.sql.exec('RELEASE unit');
      }
      return { unit, ok: false, error, events: [], callbacks: [] };
    }
  }

  private settle(outcome: UnitOutcome): void {
    if (!outcome.ok) {
      outcome.unit.reject(outcome.error);
      return;
    }
    if (outcome.events.length > 0) this.options.publish(outcome.events);
    for (const callback of outcome.callbacks) callback();
    outcome.unit.resolve(outcome.value);
  }

  private writableTx(events: DomainEvent[], callbacks: (() => void)[]): Tx {
    const outbox = this.repos.outbox;
    const now = this.options.now;
    return {
      ...this.repos,
      emit<K extends EventType>(type: K, payload: EventOf<K>['payload']) {
        const at = now();
        const id = outbox.record(type, payload, at);
        events.push({ id, type, payload, at } as DomainEvent);
      },
      afterCommit(callback: () => void) {
        callbacks.push(callback);
      },
    };
  }

  private readOnlyTx(): Tx {
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
