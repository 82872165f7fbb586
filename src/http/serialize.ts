/**
 * Times are epoch milliseconds inside and ISO-8601 UTC strings on the wire. Every field whose
 * name ends in `_at` or `_until` (and `scheduled_for`) is converted on the way out, recursively. Every
 * executor's secrets are masked on the way out (domain/secrets.ts): no response carries them.
 */
import { EXECUTOR_FIELDS } from '../domain/access.js';
import { maskExecutor } from '../domain/secrets.js';

const TIME_FIELD = /(_at|_until|^scheduled_for)$/;

// `any`: the wire shapes are declared by domain/responseSchemas.ts, and the integration suite checks
// every response against them (test/helpers/contract.ts).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function toApi<T>(value: T): any {
  if (Array.isArray(value)) return value.map((item) => toApi(item));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if ((EXECUTOR_FIELDS as readonly string[]).includes(key)) out[key] = maskExecutor(field);
    else out[key] = TIME_FIELD.test(key) && typeof field === 'number' ? new Date(field).toISOString() : toApi(field);
  }
  return out;
}
