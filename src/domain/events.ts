import type { Provenance } from './provenance.js';
import type { TaskState } from './types.js';

/** What caused a write (absent: attended, as before it was carried): the wakeups it leads to inherit it. */
interface Caused {
  provenance?: Provenance;
}

/** Domain events. Each leaves with the transaction that caused it (see persistence/outbox). */
export interface EventPayloads {
  'task.created': { task_id: string; workspace_id: string } & Caused;
  'task.assigned': { task_id: string; workspace_id: string; agent_id: string | null; previous_agent_id: string | null } & Caused;
  'task.moved': Caused & {
    task_id: string;
    workspace_id: string;
    from: TaskState;
    to: TaskState;
    by: { type: 'user' | 'agent' | 'system'; id: string | null };
    note?: string | null;
  };
  'comment.created': { comment_id: string; task_id: string; author_type: 'user' | 'agent'; author_id: string } & Caused;
  'approval.created': { approval_id: string; task_id: string | null; requested_by_agent_id: string };
  'approval.resolved': {
    approval_id: string;
    task_id: string | null;
    requested_by_agent_id: string;
    status: 'approved' | 'rejected';
    decision_note: string | null;
  };
  'agent.created': { agent_id: string; workspace_id: string; role: string };
  'agent.updated': { agent_id: string };
  'agent.deleted': { agent_id: string };
  'run.finished': {
    run_id: string;
    wakeup_id: string;
    agent_id: string;
    task_id: string | null;
    status: 'succeeded' | 'failed' | 'interrupted' | 'cancelled';
    cost_usd: number | null;
  } & Caused;
  'budget.threshold_crossed': { budget_id: string; workspace_id: string; agent_id: string | null; budget_pct: number; period_key: string; threshold_pct: number };
}

export type EventType = keyof EventPayloads;

export interface DomainEventOf<K extends EventType> {
  /**
   * The outbox row id: stable across a replay, so subscribers can derive idempotency keys from it.
   * 0 when no row was written: nothing had to handle the event after its commit (NO_OUTBOX_ROW).
   */
  id: number;
  type: K;
  payload: EventPayloads[K];
  at: number;
}

export type DomainEvent = { [K in EventType]: DomainEventOf<K> }[EventType];
export type EventOf<K extends EventType> = DomainEventOf<K>;

/** The id of an event that left no outbox row: only in-transaction subscribers (or none) handled it. */
export const NO_OUTBOX_ROW = 0;
