import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import pg from 'pg';
import type { StatementProfile } from '../shared/statementProfile.js';

type Params = Record<string, unknown> | unknown[] | undefined;

/** A statement written for SQLite (`@name` or `?` parameters) as PostgreSQL takes it: `$n`, and the names in order. */
export interface Positional {
  text: string;
  /** For `@name` statements, the parameter of each `$n`; null for `?` statements (bound in order). */
  names: string[] | null;
}

const cache = new Map<string, Positional>();

/**
 * Turns the `@name` (or `?`) parameters of a statement into PostgreSQL's `$1, $2…`, the same name
 * getting the same number, so that SQL the two dialects agree on is written once. Quoted strings,
 * quoted identifiers and `::` casts are left alone. Cached per text.
 */
export function toPositional(sql: string): Positional {
  const cached = cache.get(sql);
  if (cached) return cached;
  const names: string[] = [];
  let ordinal = 0;
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i]!;
    const skipTo = char === "'" || char === '"' ? sql.indexOf(char, i + 1)
      : char === '-' && sql[i + 1] === '-' ? sql.indexOf('\n', i)
        : -2;
    if (skipTo !== -2) {
      // A quoted string or name, or a comment to the end of its line: copied as it is.
      const stop = skipTo === -1 ? sql.length : skipTo + 1;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (char === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))![0];
      let index = names.indexOf(name);
      if (index === -1) index = names.push(name) - 1;
      out += `$${index + 1}`;
      i += name.length;
    } else if (char === '?') {
      out += `$${++ordinal}`;
    } else {
      out += char;
    }
  }
  if (names.length > 0 && ordinal > 0) throw new Error(`a statement mixes @name and ? parameters: ${sql}`);
  const positional = { text: out, names: ordinal > 0 ? null : names };
  cache.set(sql, positional);
  return positional;
}

/**
 * The one door to a PostgreSQL connection for the repositories, the counterpart of sqlite/connection.ts:
 * statements with SQLite-style parameters, values encoded as SQLite stores them (booleans 0/1,
 * objects as JSON text), and every statement counted. Each statement is prepared once per
 * connection (a named statement), so a hot statement is parsed and planned once.
 *
 * On a pipelined connection (the pool's) a statement is written at once, without waiting for the
 * answers to those before it, and the statements asked for in one tick leave in one socket write:
 * a unit's BEGIN travels with its first statement, and a statement whose answer nobody waits for
 * (a lock taken before the statement that needs it) with the next one. PostgreSQL runs them in
 * order all the same. A write costs a system call, which under load is much of a wakeup's CPU.
 */
export class PgConnection {
  /** The statement in flight on a connection that does not pipeline: the next waits for it. */
  private tail: Promise<unknown> = Promise.resolve();
  /**
   * The first statement error on this connection. PostgreSQL aborts the whole transaction on it,
   * even when the caller catches it and goes on (the later statements then fail with 25P02, and a
   * COMMIT silently rolls back): the unit must end on this error, not on whatever surfaced last.
   */
  firstError: unknown = null;
  /** A BEGIN not sent yet: it goes out with the unit's first statement, in the same write. */
  private pendingBegin: string | null = null;
  /** Whether this tick's statements are being held for one write. */
  private corked = false;

  constructor(
    private readonly client: pg.ClientBase,
    private readonly counter: { statements: number },
    private readonly pipelined = false,
    /** The bench's statement profile: each statement's time from when it is asked for to its answer (the client's view). */
    private readonly profile: StatementProfile | null = null,
  ) {}

  async run(sql: string, params?: Params): Promise<{ changes: number }> {
    const result = await this.query(sql, params);
    return { changes: result.rowCount ?? 0 };
  }

  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async all<T>(sql: string, params?: Params): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async exec(sql: string): Promise<void> {
    this.counter.statements++;
    if (this.profile === null) {
      await this.inTurn(() => this.client.query(sql));
      return;
    }
    const start = performance.now();
    await this.timed(sql, this.inTurn(() => this.client.query(sql)), start);
  }

  /**
   * Opens a transaction with `statement` (a BEGIN), sent with the first statement that follows, in
   * one write. A unit that runs no statement sends neither, nor its COMMIT (`end`). Starts a new
   * unit on this connection: the last unit's error is forgotten.
   */
  begin(statement: string): void {
    this.counter.statements++;
    this.pendingBegin = statement;
    this.firstError = null;
  }

  /** COMMIT or ROLLBACK; nothing is sent when the transaction never began on the server. True when it was sent. */
  async end(statement: 'COMMIT' | 'ROLLBACK'): Promise<boolean> {
    if (this.pendingBegin !== null) {
      this.pendingBegin = null;
      return false;
    }
    await this.exec(statement);
    return true;
  }

  private query(sql: string, params: Params): Promise<pg.QueryResult> {
    this.counter.statements++;
    const { text, names } = toPositional(sql);
    const values = params === undefined ? [] : Array.isArray(params)
      ? params.map(toSqlValue)
      : (names ?? []).map((name) => toSqlValue((params as Record<string, unknown>)[name]));
    if (this.profile === null) return this.inTurn(() => this.withBegin(() => this.client.query({ name: statementName(text), text, values })));
    const start = performance.now();
    return this.timed(sql, this.inTurn(() => this.withBegin(() => this.client.query({ name: statementName(text), text, values }))), start);
  }

  /** Records `sql`'s time from `start` to its answer, failed or not, and passes the answer on. */
  private timed<T>(sql: string, answer: Promise<T>, start: number): Promise<T> {
    const record = () => this.profile!.record(sql, performance.now() - start);
    return answer.then((value) => { record(); return value; }, (error: unknown) => { record(); throw error; });
  }

  /** Runs `send`, preceded on the wire by the pending BEGIN if there is one; fails with the BEGIN's failure first. */
  private async withBegin(send: () => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    const begin = this.pendingBegin;
    if (begin === null) return send();
    this.pendingBegin = null;
    let began: Promise<pg.QueryResult>;
    if (this.profile === null) began = this.client.query(begin);
    else {
      const start = performance.now();
      began = this.timed(begin, this.client.query(begin), start);
    }
    const sent = send();
    const [beginOutcome, outcome] = await Promise.allSettled([began, sent]);
    if (beginOutcome.status === 'rejected') throw beginOutcome.reason;
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  }

  /**
   * Sends `run`'s statement: at once on a pipelined connection (held for the tick's one write),
   * else after the statement before it has answered, in the order asked, instead of relying on the
   * driver's deprecated queueing of concurrent queries.
   */
  private inTurn<T>(run: () => Promise<T>): Promise<T> {
    const sent = this.pipelined ? (this.corkForThisTick(), run()) : this.tail.then(run, run);
    const result = sent.catch((error: unknown) => {
      this.firstError ??= error;
      throw error;
    });
    if (!this.pipelined) this.tail = result.catch(() => undefined);
    return result;
  }

  /** Holds the socket's writes until the end of this tick, so that what the unit asked for in it leaves in one write. */
  private corkForThisTick(): void {
    if (this.corked) return;
    const stream = (this.client as unknown as { connection: { stream: Writable } }).connection.stream;
    this.corked = true;
    stream.cork();
    process.nextTick(() => {
      this.corked = false;
      stream.uncork();
    });
  }
}

const names = new Map<string, string>();

/** A short stable name per statement text, for the connection's prepared statements. */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `s${names.size}`;
    names.set(text, name);
  }
  return name;
}

/** Booleans become 0/1 and objects JSON, as in SQLite: the columns are the same. */
export function toSqlValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}

/**
 * BIGINT (ms times, counts) and NUMERIC (sums of BIGINT) come back as numbers, as SQLite gives them:
 * every value the store reads is far below 2^53.
 */
const NUMBER_TYPES = new Set([pg.types.builtins.INT8, pg.types.builtins.NUMERIC]);
export const numericTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    NUMBER_TYPES.has(oid) ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};
