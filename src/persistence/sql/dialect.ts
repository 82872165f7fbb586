import type { TableSpec } from '../tables.js';

export type MaybePromise<T> = T | Promise<T>;
type Params = Record<string, unknown> | unknown[];

/**
 * What a repository asks of its connection. sqlite/connection.ts answers at once and postgres/connection.ts with
 * promises; the statements written once (this folder) await either. Parameters are written
 * SQLite's way (`?` or `@name`): postgres/connection.ts numbers them.
 */
export interface SqlRunner {
  run(sql: string, params?: Params): MaybePromise<{ changes: number }>;
  get<T>(sql: string, params?: Params): MaybePromise<T | undefined>;
  all<T>(sql: string, params?: Params): MaybePromise<T[]>;
}

/** On a duplicate key: fail, do nothing, or replace the row's other columns (the key is `replaceOn`). */
export type OnConflict = 'error' | 'ignore' | { replaceOn: readonly string[] };

/** An INSERT of `keys` (as `@key` parameters) into `table`, written so that both dialects take it. */
export function insertStatement(table: string, keys: readonly string[], conflict: OnConflict = 'error'): string {
  let text = `INSERT INTO ${table} (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`;
  if (conflict === 'ignore') text += ' ON CONFLICT DO NOTHING';
  else if (conflict !== 'error') {
    const rest = keys.filter((k) => !conflict.replaceOn.includes(k));
    text += ` ON CONFLICT (${conflict.replaceOn.join(', ')}) DO UPDATE SET ${rest.map((k) => `${k} = excluded.${k}`).join(', ')}`;
  }
  return text;
}

/**
 * A change of one row by a transition: `patch` columns set from parameters, `sets` columns from SQL
 * (over the row as it is, and the transition's parameters).
 */
export interface RowChange<T> {
  patch?: Partial<T>;
  sets?: Record<string, string>;
}

/**
 * The UPDATE of a guarded transition on one row (`@__key` its key): it changes the row only while
 * `guard` holds when the statement runs, and returns the row as it left it (`returning`).
 */
export function transitionStatement<T>(table: string, key: string, columns: ReadonlySet<string>, change: RowChange<T>, guard: string, returning: string) {
  const patch = (change.patch ?? {}) as Record<string, unknown>;
  const keys = Object.keys(patch).filter((k) => patch[k] !== undefined);
  const sets = change.sets ?? {};
  for (const column of [...keys, ...Object.keys(sets)]) {
    if (!columns.has(column)) throw new Error(`Unknown column '${column}' for table ${table}`);
  }
  const assignments = [...keys.map((k) => `${k} = @__set_${k}`), ...Object.entries(sets).map(([k, sql]) => `${k} = ${sql}`)];
  if (assignments.length === 0) throw new Error(`A transition of ${table} changes no column`);
  const values = Object.fromEntries(keys.map((k) => [`__set_${k}`, patch[k]]));
  return { text: `UPDATE ${table} SET ${assignments.join(', ')} WHERE ${key} = @__key AND (${guard}) RETURNING ${returning}`, values };
}

/** One table's row plumbing (sqlite/table.ts, postgres/table.ts): inserts, transitions, decoded reads. */
export interface RowTable<T extends object> {
  insert(row: T, conflict?: OnConflict): MaybePromise<boolean>;
  /** Inserts the row only while `condition` (SQL over the row's @parameters) holds. */
  insertIf(row: T, condition: string): MaybePromise<boolean>;
  /**
   * A guarded transition of the row `id` (transitionStatement), in one statement: the row as it left
   * it, or undefined when the guard did not hold (or no such row). `params` are the guard's.
   */
  transition(id: string, change: RowChange<T>, guard: string, params?: Record<string, unknown>, returning?: string): MaybePromise<T | undefined>;
  get(id: string): MaybePromise<T | undefined>;
  one(text: string, params?: Params): MaybePromise<T | undefined>;
  many(text: string, params?: Params): MaybePromise<T[]>;
  /** SQL for one row of `alias` as a JSON object, with `extra` fields (name: SQL), to read it beside another table's row in one statement. */
  jsonObjectSql(alias: string, extra?: Record<string, string>): string;
  /** A row read through jsonObjectSql, parsed: the fallbacks and booleans of decode. */
  decodeObject(row: Record<string, unknown>): T;
  /** A row as a statement returned it, decoded. */
  decode(row: Record<string, unknown>): T;
}

/**
 * Where SQLite and PostgreSQL differ, for the statements the two share: everything else in a
 * shared statement is text both accept (`ON CONFLICT ... DO NOTHING`, `excluded.`, `RETURNING`).
 */
export interface Dialect extends SqlText {
  readonly sql: SqlRunner;
  table<T extends object>(spec: TableSpec<T>): RowTable<T>;
  /**
   * Runs `write` and, when it changed a row, `follow` (an UPDATE ending in its WHERE clause), as one
   * unit; whether `write` changed a row. One statement on PostgreSQL (a data-modifying WITH); two
   * back to back on SQLite, whose synchronous connection lets nothing in between.
   */
  writeThen(write: string, follow: string, params: Record<string, unknown>): MaybePromise<boolean>;
  /**
   * writeThen for a `write` that ends in RETURNING: the row it returned, if any, and `follow` run
   * only when there was one.
   */
  returningThen<T>(write: string, follow: string, params: Record<string, unknown>): MaybePromise<T | undefined>;
}

/** The statement text where the two differ (no connection needed). */
export interface SqlText {
  /**
   * `column IN (values)`: SQLite binds a placeholder per value; PostgreSQL binds one JSON array, so
   * that the text is the same for any count (one prepared statement).
   */
  inList(column: string, values: readonly unknown[]): { sql: string; params: unknown[] };
  /** A parameter with its type, where PostgreSQL cannot infer it (compared with NULL, say); SQLite takes it as it is. */
  cast(param: string, type: 'text' | 'bigint' | 'jsonb' | 'integer'): string;
  /**
   * The row lock a subquery takes on PostgreSQL (` FOR UPDATE`, ` FOR SHARE`, or ` FOR UPDATE SKIP LOCKED`
   * to pass over rows another transaction holds); none on SQLite, whose writer holds the database.
   * ` FOR NO KEY UPDATE` serialises writers of the row as FOR UPDATE does, but lets the KEY SHARE
   * lock of a foreign-key check on it through: take it on a row that others reference.
   */
  lock(mode: 'update' | 'no key update' | 'share' | 'update, skip locked'): string;
  /** A boolean expression as 0 or 1, as the columns store it. */
  asInt(expr: string): string;
  /** A query of the elements of a JSON array parameter, as text: for `x IN (...)`. */
  jsonElements(param: string): string;
  /** A scalar subquery: the rows of `from` (FROM ... WHERE ...) in `orderBy`, as a JSON array of objects with `fields` (name: column). */
  jsonRows(fields: Record<string, string>, from: string, orderBy: string): string;
  /** A JSON value a statement returned, parsed (PostgreSQL's driver parses json already; SQLite returns text). */
  parsed<T>(value: unknown): T;
  /**
   * ` ORDER BY orderBy` on the rows an INSERT … SELECT upserts on PostgreSQL, so that concurrent
   * statements lock existing rows in one order and cannot deadlock; nothing on SQLite, whose writer holds the database.
   */
  lockOrder(orderBy: string): string;
  /** A scalar subquery: `column` of the rows of `from` (FROM ... WHERE ...) in `orderBy`, as a JSON array (json_group_array over an ordered subquery on SQLite, json_agg ... ORDER BY on PostgreSQL). */
  jsonValues(column: string, from: string, orderBy: string): string;
  /** A FROM item: the elements of a JSON array parameter as rows of a `value` column, read with `value ->> 'field'` (json_each on SQLite, jsonb_array_elements on PostgreSQL). */
  jsonEach(param: string): string;
  /** ` FOR UPDATE OF alias` on PostgreSQL: the row lock of a join's subquery, on `alias`'s rows only; none on SQLite. */
  lockOf(mode: 'update' | 'share', alias: string): string;
  /** An aggregate of `expr` over the rows, in `orderBy`, as a JSON array, `[]` for none (json_group_array on SQLite, COALESCE(jsonb_agg …, '[]') on PostgreSQL). */
  jsonAgg(expr: string, orderBy: string): string;
  /** A subquery's JSON array or object, to nest in a JSON object: json(…) on SQLite, which may read a subquery's JSON as text; as it is on PostgreSQL. */
  jsonNested(subquery: string): string;
  /**
   * `column` in a term the planner must not seek an index by, where another term names the better
   * index: `+column` on SQLite, whose planner has no statistics and takes the index that matches the
   * most terms; the column as it is on PostgreSQL, whose statistics choose.
   */
  notIndexedBy(column: string): string;
}

/** Strings as a list of SQL literals, for an IN: `'queued', 'running'`. Only for the code's own constants, never for input. */
export const sqlList = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

/** `'name', column` pairs for json_object / json_build_object. */
export const jsonPairs = (fields: Record<string, string>) => Object.entries(fields).map(([name, column]) => `'${name}', ${column}`).join(', ');

/**
 * Whether the fence (@owner, @epoch, at @at) still holds the lease of the agent in `agentColumn`.
 * On PostgreSQL the lease row is share-locked, so a take of the agent waits for the fenced
 * statement's transaction, and a fenced statement that waited for a take sees the new epoch and does nothing.
 */
export function fencedBy(dialect: SqlText, agentColumn: string): string {
  return `EXISTS (SELECT 1 FROM agent_leases l WHERE l.agent_id = ${agentColumn} AND l.owner_id = @owner
    AND l.epoch = @epoch AND (l.expires_at IS NULL OR l.expires_at > ${dialect.cast('@at', 'bigint')})${dialect.lock('share')})`;
}

/**
 * `next` of `value`: at once when the value is there already (SQLite's synchronous connection), else
 * when it comes (PostgreSQL). For the hot paths, where an await would cost SQLite a turn for nothing.
 */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
