/**
 * Secrets in executor configs are write-only (API.md, "Trust boundaries"): the values of an
 * executor's `env` and `headers` records, where people put provider keys and bearer tokens, are
 * stored and used, and answered as SECRET_MASK everywhere else (every response, the activity, the
 * logs). The rules work on any executor object that carries such a record, whatever its kind, so
 * a new kind with an `env` is covered without a line here.
 */
import { EXECUTOR_FIELDS } from './access.js';

/** What a secret value reads as outside the database. */
export const SECRET_MASK = '********';

/** The records of an executor whose values are secrets: an environment, and an HTTP agent's headers. */
export const SECRET_RECORDS = ['env', 'headers'] as const;

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The executor with every value of its secret records masked (names kept: they say what is set). */
export function maskExecutor<T>(executor: T): T {
  if (!isRecord(executor)) return executor;
  const masked: Json = { ...executor };
  for (const record of SECRET_RECORDS) {
    const values = executor[record];
    if (isRecord(values)) masked[record] = Object.fromEntries(Object.keys(values).map((name) => [name, SECRET_MASK]));
  }
  return masked as T;
}

/**
 * `value` with every executor in it masked, however deep: the fields that hold one (`executor`,
 * `default_executor`) of any object. For what leaves the process: responses, activity details.
 */
export function maskExecutorFields<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => maskExecutorFields(item)) as T;
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [key, field] of Object.entries(value)) {
    out[key] = (EXECUTOR_FIELDS as readonly string[]).includes(key) ? maskExecutor(field) : maskExecutorFields(field);
  }
  return out as T;
}

/** A masked value sent back that no stored value of the same name stands behind. */
export interface UnknownMaskedSecret {
  /** Where it is inside the executor, e.g. `env.OPENAI_API_KEY`. */
  path: string;
}

/**
 * A PATCH sets an executor whole. A value sent back as SECRET_MASK (what a client read) keeps the
 * stored value of the same name in the same record, so a client can change the command without
 * knowing the keys; a masked value with none stored under its name is refused.
 */
export function keepStoredSecrets<T>(next: T, stored: unknown): { executor: T } | { unknown: UnknownMaskedSecret } {
  if (!isRecord(next)) return { executor: next };
  const kept: Json = { ...next };
  for (const record of SECRET_RECORDS) {
    const values = next[record];
    if (!isRecord(values)) continue;
    const storedValues = isRecord(stored) && isRecord(stored[record]) ? stored[record] : {};
    const merged: Json = {};
    for (const [name, value] of Object.entries(values)) {
      if (value !== SECRET_MASK) merged[name] = value;
      else if (typeof storedValues[name] === 'string') merged[name] = storedValues[name];
      else return { unknown: { path: `${record}.${name}` } };
    }
    kept[record] = merged;
  }
  return { executor: kept as T };
}

/**
 * pino's `redact` paths for log lines that carry an executor: at the top of a line's fields, or one
 * level down (a request body, an agent, a launch's spec).
 */
export const SECRET_LOG_PATHS: readonly string[] = [...EXECUTOR_FIELDS, 'spec'].flatMap((field) =>
  SECRET_RECORDS.flatMap((record) => [`${field}.${record}.*`, `*.${field}.${record}.*`]));
