/**
 * A poisoned event: one whose subscribers failed every try. Its outbox row is marked parked, so it
 * is kept for inspection but never replayed again, and an `event.parked` inbox item tells a person
 * which event failed and why. Nothing else waits on it.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Store, Tx } from '../persistence/store.js';
import { recordDecision } from '../services/activity.js';
import { raiseInboxItem } from '../services/inbox.js';
import type { DomainEvent } from '../domain/events.js';

export const PARKED_EVENT_INBOX_KIND = 'event.parked';

export function createEventParker(deps: { store: Store; clock: Clock; log: Logger }) {
  return (event: DomainEvent, error: unknown): Promise<void> => deps.store.transaction(async (tx) => {
    const now = deps.clock.now();
    const reason = errorText(error);
    await tx.outbox.park(event.id, reason, now);
    const about = await subjectOf(tx, event);
    if (!about.workspace_id) {
      tx.afterCommit(() => deps.log.error({ event_type: event.type, event_id: event.id, error: reason }, 'event parked; no workspace to report it in'));
      return;
    }
    const title = `Event ${event.type} #${event.id} could not be delivered`;
    await raiseInboxItem(tx, {
      workspace_id: about.workspace_id, kind: PARKED_EVENT_INBOX_KIND, title,
      body: `${title}: its subscribers failed every retry. It is parked and will not be replayed.\nEvent: ${JSON.stringify(event.payload)}\nError: ${reason}`,
      agent_id: about.agent_id, task_id: about.task_id, ref_id: String(event.id),
    }, now);
    await recordDecision(tx, deps.log, {
      workspace_id: about.workspace_id, code: 'event_parked', agent_id: about.agent_id, task_id: about.task_id,
      message: `${title}; parked after its last retry: ${reason}`,
      details: { event_id: event.id, event_type: event.type, error: reason },
    }, now, 'error');
  });
}

interface Subject {
  workspace_id: string | null;
  agent_id: string | null;
  task_id: string | null;
}

/** The workspace, agent and task an event is about, from its payload (each event names at least one). */
async function subjectOf(tx: Tx, event: DomainEvent): Promise<Subject> {
  const payload = event.payload as Record<string, unknown>;
  const text = (key: string) => (typeof payload[key] === 'string' ? (payload[key] as string) : null);
  const taskId = text('task_id');
  const agentId = text('agent_id') ?? text('requested_by_agent_id');
  const workspaceId = text('workspace_id')
    ?? (taskId ? (await tx.tasks.get(taskId))?.workspace_id : undefined)
    ?? (agentId ? (await tx.agents.get(agentId))?.workspace_id : undefined)
    ?? null;
  return { workspace_id: workspaceId, agent_id: agentId, task_id: taskId };
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 2000);
}
