import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import { NO_OUTBOX_ROW, type DomainEvent, type EventOf, type EventType } from '../../domain/events.js';
import { wallClock, type Clock } from '../../domain/clock.js';
import type { StoreOptions } from '../shared/options.js';
import type { StatementProfile } from '../shared/statementProfile.js';
import { StorageOutage, type ProbeOutcome } from '../shared/outage.js';
import type { Reads, StorageHealth, Store, Tx } from '../store.js';
import { sharedRepos } from '../sql/repos.js';
import { postgresDialect } from './dialect.js';
import { migratePostgres } from './migrate.js';
import { PgOutbox } from './outbox.js';
import { PgReplicas } from './replicas.js';
import { PgSignals } from './notify.js';
import { PgRoutines } from './routines.js';
import { PgSnapshots } from './snapshots.js';
import { PgConnection, numericTypes } from './connection.js';
import { toStorageUnavailable } from './storageFailure.js';
import { PgTasks } from './tasks.js';
import { PgWakeups } from './wakeups.js';

export interface PostgresStoreOptions extends StoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections in the pool: how many units of work run at once. */
  poolSize?: number;
  /**
   * Several replicas: the claim the outbox rows this process writes carry (renewed by the event bus
   * while it delivers them), so that another replica delivers them once it expires if this one died.
   * Absent: the claim lasts as long as the owner, as with one process.
   */
  outboxClaimMs?: number;
}

/** SQLSTATEs after which a unit of work is run again from its start: a deadlock, a serialization failure. */
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 8;
/**
 * The pause before running a unit again: random, so that the two sides of a deadlock do not retry
 * in step and meet again, and growing with each attempt (at most ~15, 30, 45… ms).
 */
const retryDelayMs = (attempt: number) => Math.round(Math.random() * 15 * attempt);
const DEFAULT_POOL_SIZE = 10;

/** What a unit's work is handed: the Tx, which is also the read side (Store.query) on the same connection. */
type UnitTx = Tx & Reads;
type Repos = Omit<UnitTx, 'emit' | 'afterCommit'> & { outbox: PgOutbox };

/**
 * PostgreSQL behind the Store port. Each `transaction` or `read` takes a pooled connection and runs
 * in its own transaction: writes at READ COMMITTED (every deciding operation is one statement whose
 * guard is in its WHERE or ON CONFLICT, or takes its lock in a statement of its own first: see
 * wakeups.ts), reads at REPEATABLE READ READ ONLY (one snapshot for the whole unit). A unit that
 * meets a deadlock or a serialization failure is rolled back and run again from its start.
 *
 * Events: `emit` records the event; its outbox row is written (one INSERT for all the unit's
 * events) when the unit's work is done, then the in-transaction subscribers run, and their own
 * events likewise, before COMMIT. After COMMIT, and only then, the events are published and the
 * after-commit callbacks run, as SqliteStore does.
 *
 * Migrations apply when the store opens, under an advisory lock (migrate.ts); units of work wait
 * for them. A connection or resource failure (storageFailure.ts) starts an outage, which a probe
 * or the next committed write ends.
 */
export class PostgresStore implements Store {
  private readonly pool: pg.Pool;
  /** The schema migration; null until asked for, and again after it failed for storage reasons (it is tried again). */
  private ready: Promise<void> | null = null;
  private readonly counter = { statements: 0 };
  private writeUnits = 0;
  private closed = false;
  private readonly timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  private readonly log: Pick<Logger, 'info' | 'warn' | 'error'>;
  private readonly outage: StorageOutage;
  /** The server processes of the pool's connections: a wakeup they signal was offered in-process already (notify.ts). */
  private readonly backends = new Set<number>();
  /** The heartbeat's own connection (autocommit), and the call running on it. */
  private autocommitClient: Promise<pg.Client> | null = null;
  private autocommitTail: Promise<unknown> = Promise.resolve();
  private autocommitConnected: pg.Client | null = null;
  private readonly sessions = new WeakMap<pg.PoolClient, { sql: PgConnection; repos: Repos }>();

  constructor(private readonly options: PostgresStoreOptions) {
    this.timers = options.timers ?? wallClock;
    this.log = options.log ?? pino({ level: 'silent' });
    this.outage = new StorageOutage({
      now: options.now, timers: this.timers, log: this.log, logFields: {}, toStorageUnavailable, probe: () => this.writeProbe(),
    });
    // pipeline: a query is written at once, not after the previous one's answer, which lets a
    // unit's BEGIN travel with its first statement (connection.ts); PgConnection still runs one statement at a time.
    this.pool = new pg.Pool({
      connectionString: options.url, max: options.poolSize ?? DEFAULT_POOL_SIZE, types: numericTypes, pipeline: true,
    } as pg.PoolConfig);
    // An idle connection that breaks (the server restarted) is dropped by the pool; the next unit gets a new one.
    this.pool.on('error', (error) => this.log.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool drops it'));
    this.pool.on('connect', (client) => {
      this.backends.add(backendPid(client));
      // A connection in use when it breaks (the server shutting down) fails its unit's next
      // statement, which reports it; pg also emits 'error' on it, which with no listener ends the process.
      client.on('error', (error) => this.log.info({ err: error.message }, 'a PostgreSQL connection in use failed; its unit reports it'));
    });
    this.pool.on('remove', (client) => this.backends.delete(backendPid(client)));
    void this.whenReady().catch(() => undefined);
  }

  private async open(): Promise<void> {
    const client = await this.pool.connect();
    try {
      const applied = await migratePostgres(client);
      if (applied.length > 0) this.log.info({ migrations: applied }, 'applied PostgreSQL migrations');
    } finally {
      client.release();
    }
  }

  /**
   * Resolves once the schema is migrated; rejects with the reason it could not be. A server that
   * cannot be reached (a storage failure) is tried again by the next caller; any other failure (a
   * migration that does not apply) is the store's own, told to onFatal, and final.
   */
  whenReady(): Promise<void> {
    this.ready ??= this.open().catch((error) => {
      const storage = toStorageUnavailable(error);
      if (storage) {
        this.ready = null;
        throw this.outage.failure(storage);
      }
      this.options.onFatal?.(error);
      throw error;
    });
    return this.ready;
  }

  /** The replica's LISTEN/NOTIFY connection (notify.ts), counted with the store's statements; started by the caller. */
  openSignals(replica: string): PgSignals {
    return new PgSignals({
      url: this.options.url, replica, counter: this.counter, timers: this.timers, log: this.log,
      isOwnBackend: (pid) => this.backends.has(pid),
    });
  }

  statementsExecuted(): number {
    return this.counter.statements;
  }

  transactionsExecuted(): number {
    return this.writeUnits;
  }

  storageHealth(): StorageHealth {
    return { ...this.outage.health(), walBytes: null };
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    this.writeUnits++;
    return this.unit('write', work);
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.unit('read', work);
  }

  query<T>(work: (reads: Reads) => Promise<T>): Promise<T> {
    return this.unit('read', work);
  }

  /**
   * One statement committed by itself (no BEGIN/COMMIT): the replica heartbeat. It runs on a
   * connection of its own, not the pool's: with the pool saturated (thousands of units waiting for
   * a connection), a heartbeat queued behind them came after its leases expired, and the replica
   * let every agent go. Calls run one after another. Emits nothing.
   */
  autocommit<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const run = this.autocommitTail.then(() => this.autocommitNow(work));
    this.autocommitTail = run.catch(() => undefined);
    return run;
  }

  private async autocommitNow<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the store is closed');
    await this.whenReady();
    let client: pg.Client;
    try {
      client = await this.ownConnection();
    } catch (error) {
      throw this.outage.failure(error);
    }
    try {
      const value = await work(readOnlyTx(this.reposOn(new PgConnection(client, this.counter, false, this.options.statementProfile ?? null))));
      this.outage.recovered();
      return value;
    } catch (error) {
      const storage = toStorageUnavailable(error);
      if (storage) this.dropOwnConnection(client);
      throw this.outage.failure(error);
    }
  }

  /** The heartbeat's connection, opened on first use and again after it broke. */
  private ownConnection(): Promise<pg.Client> {
    this.autocommitClient ??= (async () => {
      const client = new pg.Client({ connectionString: this.options.url, types: numericTypes });
      client.on('error', (error) => {
        this.log.warn({ err: error }, 'the heartbeat\'s PostgreSQL connection failed; the next heartbeat opens another');
        this.dropOwnConnection(client);
      });
      await client.connect();
      this.backends.add(backendPid(client));
      this.autocommitConnected = client;
      return client;
    })().catch((error: unknown) => {
      this.autocommitClient = null;
      throw error;
    });
    return this.autocommitClient;
  }

  private dropOwnConnection(client: pg.Client): void {
    this.backends.delete(backendPid(client));
    if (this.autocommitConnected === client) {
      this.autocommitConnected = null;
      this.autocommitClient = null;
    }
    client.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.outage.stop();
    await this.ready?.catch(() => undefined);
    await this.autocommitTail;
    const own = await this.autocommitClient?.catch(() => null);
    this.autocommitClient = null;
    await own?.end().catch(() => undefined);
    await this.pool.end();
  }

  private async unit<T>(kind: 'write' | 'read', work: (tx: UnitTx) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the store is closed');
    await this.whenReady();
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        throw this.outage.failure(error);
      }
      const events: DomainEvent[] = [];
      const callbacks: (() => void)[] = [];
      const { sql, repos } = this.sessionOf(client);
      let value: T;
      try {
        sql.begin(kind === 'write' ? 'BEGIN' : 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const tx = kind === 'write' ? this.writableTx(repos, events, callbacks) : readOnlyTx(repos);
        value = await work(tx);
        if (kind === 'write') await this.settleEvents(tx, repos.outbox, events);
        // A statement failed and the work went on (it caught the error): PostgreSQL aborted the
        // transaction all the same, and COMMIT would quietly roll it back.
        if (sql.firstError !== null) throw sql.firstError;
        if (this.options.statementProfile) await this.profiledCommit(this.options.statementProfile, sql, kind);
        else await sql.end('COMMIT');
        client.release();
      } catch (thrown) {
        const broken = await rollback(sql);
        client.release(broken ? true : undefined);
        const error = sql.firstError ?? thrown;
        if (attempt < MAX_ATTEMPTS && await this.pauseBeforeRetry(error, attempt, kind)) continue;
        throw this.outage.failure(error);
      }
      if (kind === 'write') this.outage.recovered();
      if (events.length > 0) this.options.publish(events);
      for (const callback of callbacks) callback();
      return value;
    }
  }

  /** The unit's COMMIT, timed into the profile when it was sent (a unit that ran no statement sends none). */
  private async profiledCommit(profile: StatementProfile, sql: PgConnection, kind: 'write' | 'read'): Promise<void> {
    const start = performance.now();
    if (await sql.end('COMMIT')) profile.commit(performance.now() - start, kind === 'write');
  }

  /**
   * After a deadlock or a serialization failure, logs it and waits a little (true: run the unit
   * again); false for any other failure.
   */
  private async pauseBeforeRetry(error: unknown, attempt: number, kind: 'write' | 'read'): Promise<boolean> {
    const code = sqlState(error);
    if (code === null || !RETRYABLE.has(code)) return false;
    const delay = retryDelayMs(attempt);
    this.log.warn({ code, attempt, retry_in_ms: delay, err: error },
      `a ${kind} transaction was rolled back by PostgreSQL (${code === '40P01' ? 'deadlock' : 'serialization failure'}); running it again`);
    // A real timer, not the injected clock: a few ms to step out of the other side's way.
    await sleep(delay);
    return true;
  }

  /**
   * Writes the outbox rows of the events emitted so far and runs their in-transaction subscribers;
   * the events those emit in turn get theirs next, until none is left. An event carries its row's
   * id before any subscriber sees it.
   */
  private async settleEvents(tx: Tx, outbox: PgOutbox, events: DomainEvent[]): Promise<void> {
    const { durable, withinTransaction, owner = null, outboxClaimMs } = this.options;
    const claimUntil = outboxClaimMs === undefined || owner === null ? null : this.options.now() + outboxClaimMs;
    for (let settled = 0; settled < events.length;) {
      const batch = events.slice(settled);
      const recorded = batch.filter((event) => !durable || durable(event.type));
      const ids = await outbox.record(recorded, owner, claimUntil);
      recorded.forEach((event, index) => { (event as { id: number }).id = ids[index]!; });
      settled = events.length;
      if (withinTransaction) for (const event of batch) await withinTransaction(tx, event);
    }
  }

  /**
   * The statement door and repositories of a pooled connection, made once per connection: a unit
   * reuses them rather than building twenty repositories and their statement texts each time.
   */
  private sessionOf(client: pg.PoolClient): { sql: PgConnection; repos: Repos } {
    let session = this.sessions.get(client);
    if (!session) {
      const sql = new PgConnection(client, this.counter, true, this.options.statementProfile ?? null);
      session = { sql, repos: this.reposOn(sql) };
      this.sessions.set(client, session);
    }
    return session;
  }

  private reposOn(sql: PgConnection): Repos {
    return {
      ...sharedRepos(postgresDialect(sql)),
      tasks: new PgTasks(sql),
      wakeups: new PgWakeups(sql),
      routines: new PgRoutines(sql),
      snapshots: new PgSnapshots(sql),
      outbox: new PgOutbox(sql),
      replicas: new PgReplicas(sql),
    };
  }

  private writableTx(repos: Repos, events: DomainEvent[], callbacks: (() => void)[]): UnitTx {
    const { now } = this.options;
    return {
      ...repos,
      emit<K extends EventType>(type: K, payload: EventOf<K>['payload']) {
        // The id is the outbox row's, written before commit (settleEvents).
        events.push({ id: NO_OUTBOX_ROW, type, payload, at: now() } as DomainEvent);
      },
      afterCommit(callback: () => void) {
        callbacks.push(callback);
      },
    };
  }

  /** A transaction that must take a transaction id (a write, in effect): a read-only or unreachable server refuses it. */
  private async writeProbe(): Promise<ProbeOutcome> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN; SELECT pg_current_xact_id(); ROLLBACK');
    } finally {
      client.release();
    }
    return 'written';
  }
}

function sqlState(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** The server process behind a pooled connection (set once it connected). */
function backendPid(client: pg.ClientBase): number {
  return (client as unknown as { processID: number }).processID;
}

function readOnlyTx(repos: Repos): UnitTx {
  return {
    ...repos,
    emit() {
      throw new Error('emit() called inside a read: events must leave with a write transaction');
    },
    afterCommit() {
      throw new Error('afterCommit() called inside a read: there is no commit to wait for');
    },
  };
}

/** Rolls back, never throwing; true when the connection is unusable afterwards (the pool must drop it). */
async function rollback(sql: PgConnection): Promise<boolean> {
  try {
    await sql.end('ROLLBACK');
    return false;
  } catch {
    return true;
  }
}
