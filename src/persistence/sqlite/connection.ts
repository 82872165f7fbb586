import type Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import type { StatementProfile } from '../shared/statementProfile.js';

type Params = Record<string, unknown> | unknown[] | undefined;

/**
 * The one door to the connection: caches prepared statements and counts every
 * statement executed, so idle-time SQL can be measured (and exported on /metrics).
 * With a statement profile (the bench's), each statement's time goes to it too.
 */
export class SqliteConnection {
  statementsExecuted = 0;
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database, private readonly profile: StatementProfile | null = null) {}

  run(sql: string, params?: Params): Database.RunResult {
    this.statementsExecuted++;
    if (this.profile !== null) return this.timed(sql, params, 'run') as Database.RunResult;
    return bind(this.statement(sql), params, 'run') as Database.RunResult;
  }

  get<T>(sql: string, params?: Params): T | undefined {
    this.statementsExecuted++;
    if (this.profile !== null) return this.timed(sql, params, 'get') as T | undefined;
    return bind(this.statement(sql), params, 'get') as T | undefined;
  }

  all<T>(sql: string, params?: Params): T[] {
    this.statementsExecuted++;
    if (this.profile !== null) return this.timed(sql, params, 'all') as T[];
    return bind(this.statement(sql), params, 'all') as T[];
  }

  /**
   * One statement with no parameters and no rows (BEGIN, COMMIT, SAVEPOINT…), prepared once: a
   * transaction's framing costs what the raw driver's own transaction helper costs.
   */
  exec(sql: string): void {
    this.statementsExecuted++;
    if (this.profile !== null) {
      this.timed(sql, undefined, 'run');
      return;
    }
    this.statement(sql).run();
  }

  /** A statement run with a profile: its time from the cache lookup to its last row, failed or not. */
  private timed(sql: string, params: Params, method: 'run' | 'get' | 'all'): unknown {
    const start = performance.now();
    try {
      return bind(this.statement(sql), params, method);
    } finally {
      this.profile!.record(sql, performance.now() - start);
    }
  }

  private statement(sql: string): Database.Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }
}

function bind(statement: Database.Statement, params: Params, method: 'run' | 'get' | 'all'): unknown {
  if (params === undefined) return statement[method]();
  if (Array.isArray(params)) return statement[method](...params.map(toSqlValue));
  return statement[method](toSqlParams(params));
}

function toSqlParams(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(params)) out[key] = toSqlValue(params[key]);
  return out;
}

/** Booleans become 0/1 and objects JSON, so callers pass domain values straight through. */
function toSqlValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}
