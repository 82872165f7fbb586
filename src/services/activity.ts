import type { Logger } from 'pino';
import type { NewActivity } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';

/**
 * Every skip, cancel, coalesce, retry and escalation is written as an activity entry and logged
 * in the same breath, so "why did my agent (not) wake?" is answerable from the API and the logs.
 */
export async function recordDecision(
  tx: Tx,
  log: Logger,
  entry: NewActivity,
  at: number,
  level: 'info' | 'warn' | 'error' = 'info',
): Promise<void> {
  await tx.activity.insert(entry, at);
  log[level]({ code: entry.code, ...omitEmpty(entry), ...(entry.details ?? {}) }, entry.message || entry.code);
}

function omitEmpty(entry: NewActivity): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of ['workspace_id', 'agent_id', 'task_id', 'wakeup_id', 'run_id', 'routine_id'] as const) {
    if (entry[key]) fields[key] = entry[key];
  }
  return fields;
}
