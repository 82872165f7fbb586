import { z } from 'zod';

/**
 * One payload schema per wakeup source, checked where a wakeup is enqueued.
 * The column is free-form JSON so a new source needs no migration; the types live here.
 */
const id = z.string().min(1).max(200);
const json = z.record(z.string(), z.unknown());

export const WAKEUP_PAYLOAD_SCHEMAS = {
  routine: z.strictObject({
    routine_id: id,
    routine_run_id: id.optional(),
    variables: z.record(z.string(), z.unknown()).default({}),
    missed_ticks: z.number().int().nonnegative().optional(),
    missed_since: z.string().optional(),
    scheduled_for: z.string().optional(),
    // A fire coalesced into a heavy routine's active task: the wakeup is about that task.
    task_id: id.optional(),
  }),
  comment: z.strictObject({ task_id: id, comment_id: id, rejection: z.boolean().optional(), note: z.string().optional() }),
  agent_error: z.strictObject({ agent_profile_id: id, run_id: id.nullable(), error: z.string().max(65_536) }),
  self: z.strictObject({ reason: z.string().min(1).max(2000), payload: json.optional(), task_id: id.optional() }),
  user: z.strictObject({ user_id: id, reason: z.string().max(2000).optional(), context: json.optional() }),
  // `as: reviewer` marks the wakeup of a reviewer when a task enters review; staleness follows the reviewer list.
  task_assigned: z.strictObject({ task_id: id, as: z.enum(['assignee', 'reviewer']).optional() }),
  task_blockers_resolved: z.strictObject({ task_id: id, resolved_blocker_ids: z.array(id).min(1) }),
  task_children_completed: z.strictObject({ task_id: id }),
  approval_resolved: z.strictObject({
    approval_id: id,
    status: z.enum(['approved', 'rejected']),
    decision_note: z.string().nullable(),
    task_id: id.nullable().optional(),
  }),
  budget_alert: z.strictObject({ agent_instance_id: id, budget_pct: z.number().nonnegative(), budget_id: id.optional() }),
} as const;

export type WakeupSource = keyof typeof WAKEUP_PAYLOAD_SCHEMAS;
export const WAKEUP_SOURCES = Object.keys(WAKEUP_PAYLOAD_SCHEMAS) as WakeupSource[];
export type WakeupPayload<S extends WakeupSource> = z.infer<(typeof WAKEUP_PAYLOAD_SCHEMAS)[S]>;

export class InvalidWakeupPayloadError extends Error {
  override name = 'InvalidWakeupPayloadError';
  constructor(
    readonly source: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(`Invalid payload for wakeup source '${source}': ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
  }
}

export function isWakeupSource(value: string): value is WakeupSource {
  return Object.hasOwn(WAKEUP_PAYLOAD_SCHEMAS, value);
}

export function parseWakeupPayload(source: string, payload: unknown): Record<string, unknown> {
  if (!isWakeupSource(source)) {
    throw new InvalidWakeupPayloadError(source, [{ path: 'source', message: `expected one of ${WAKEUP_SOURCES.join(', ')}` }]);
  }
  const parsed = WAKEUP_PAYLOAD_SCHEMAS[source].safeParse(payload);
  if (!parsed.success) {
    throw new InvalidWakeupPayloadError(
      source,
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  }
  return parsed.data as Record<string, unknown>;
}

/** The task a wakeup is about, if any: staleness, checkout and resume all key on it. */
export function taskIdOf(payload: Record<string, unknown>): string | null {
  return typeof payload.task_id === 'string' ? payload.task_id : null;
}

/**
 * Sources that describe aggregate state rather than one piece of work. Holding them for the
 * coalescing window lets a burst (five parents completing, two triggers firing) collapse into
 * one run; direct work (an assignment, a comment) dispatches at once for latency.
 */
export const HELD_FOR_COALESCING: ReadonlySet<WakeupSource> = new Set<WakeupSource>([
  'routine',
  'task_children_completed',
  'budget_alert',
]);

/** Only a lightweight routine fire may be skipped for having nothing to do; events always proceed. */
export function isIdleSkippable(source: WakeupSource, payload: Record<string, unknown>): boolean {
  return source === 'routine' && taskIdOf(payload) === null;
}
