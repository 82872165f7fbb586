import type { Logger } from 'pino';
import type { NewActivity } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';
import { maskExecutorFields } from '../domain/secrets.js';

/**
 * Every skip, cancel, coalesce, retry and escalation is written as an activity entry and logged,
 * so "why did my agent (not) wake?" is answerable from the API and the logs. The log line leaves
 * only after the commit: a rolled-back unit must not log things that never happened.
 */
export async function recordDecision(
  tx: Tx,
  log: Logger,
  entry: NewActivity,
  at: number,
  level: 'info' | 'warn' | 'error' = 'info',
): Promise<void> {
  // Never a secret in the audit trail or its log line, whoever wrote the details.
  if (entry.details) entry = { ...entry, details: maskExecutorFields(entry.details) };
  await tx.activity.insert(entry, at);
  // Both audit fields on every line, as on every entry: an unattended decision is told apart at a glance.
  const audit = { unattended: entry.unattended ?? false, on_behalf_of: entry.on_behalf_of ?? null };
  const fields = { code: entry.code, ...omitEmpty(entry), ...(entry.details ?? {}), ...audit };
  tx.afterCommit(() => log[level](fields, entry.message || entry.code));
}

function omitEmpty(entry: NewActivity): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of ['workspace_id', 'agent_id', 'task_id', 'wakeup_id', 'run_id', 'routine_id'] as const) {
    if (entry[key]) fields[key] = entry[key];
  }
  return fields;
}
