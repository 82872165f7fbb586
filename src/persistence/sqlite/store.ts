import type Database from 'better-sqlite3';
import type { DomainEvent, EventOf, EventType } from '../../events/types.js';
import type { Store, Tx } from '../store.js';
import { SqliteActivity, SqliteInbox } from './activity.js';
import { SqliteBudgets } from './budgets.js';
import { openDatabase } from './database.js';
import { migrate } from './migrate.js';
import { SqliteOutbox, SqliteSnapshots, SqliteSummaries } from './misc.js';
import { SqliteAgents, SqliteProjects, SqliteWorkspaces } from './org.js';
import { SqliteRoutines } from './routines.js';
import { SqliteRuns } from './runs.js';
import { Sql } from './sql.js';
import { SqliteApprovals, SqliteComments, SqliteTasks } from './tasks.js';
import { SqliteWakeups } from './wakeups.js';

export interface SqliteStoreOptions {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  now: () => number;
  /** Receives the events of each committed transaction, in order. */
  publish: (events: DomainEvent[]) => void;
}

/**
 * SQLite behind the async Store port. One connection; units of work are serialised through
 * a promise queue so an awaiting transaction never interleaves with another on the connection.
 */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  private readonly sql: Sql;
  private readonly repos: Omit<Tx, 'emit' | 'afterCommit'> & { outbox: SqliteOutbox };
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SqliteStoreOptions) {
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
    return this.serialised(() => this.runTransaction(work));
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.serialised(() => work(this.readOnlyTx()));
  }

  async close(): Promise<void> {
    await this.serialised(async () => {
      if (this.db.open) this.db.close();
    });
  }

  private serialised<T>(unit: () => Promise<T>): Promise<T> {
    const result = this.queue.then(unit, unit);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async runTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const events: DomainEvent[] = [];
    const callbacks: (() => void)[] = [];
    const tx = this.writableTx(events, callbacks);
    this.sql.exec('BEGIN IMMEDIATE');
    let result: T;
    try {
      result = await work(tx);
      this.sql.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.sql.exec('ROLLBACK');
      throw error;
    }
    if (events.length > 0) this.options.publish(events);
    for (const callback of callbacks) callback();
    return result;
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
