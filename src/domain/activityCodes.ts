/**
 * Every code the scheduler writes, each once, with what it means to the person who reads it:
 *
 * - ACTIVITY_CODES: the `code` of an activity entry (GET /api/office/activity, the log line of
 *   each decision). The recording functions take an ActivityCode, so a code that is not here, or is
 *   misspelt, does not compile.
 * - REASON_CODES: the `skip_reason` or `cancel_reason` of a wakeup or a routine run, and the hold a
 *   queued wakeup waits on. The explain of a wakeup and the dashboard read their words from here.
 *
 * The spec and API.md pin some spellings (wakeup_idle_skipped, recovery_dispatch, assignee_changed,
 * run_cancelled, owner_revoked, cap_reached, ...): a code is never renamed, since stored entries and
 * clients that filter on it keep the old one.
 */

export const ACTIVITY_CODES = {
  // What agents did during their runs (API.md, "Audit").
  task_created: 'An agent created a task or a subtask during its run.',
  task_moved: 'An agent moved a task to another state during its run.',
  comment_created: 'An agent commented on a task during its run.',
  agent_action_rejected: 'An action in a run\'s result was refused, and the run\'s other actions still applied.',
  agent_loop_paused: 'The agent was paused because several runs in a row on one task changed nothing.',

  // What people changed.
  task_unassigned: 'A task lost its assignee because that agent was deleted.',
  approval_resolved: 'A person approved or rejected an approval that an agent had asked for.',
  budget_changed: 'A person changed a budget.',
  budget_deleted: 'A person deleted a budget.',
  inbox_item_resolved: 'A person resolved an inbox item.',
  workspace_deleted: 'A workspace was deleted.',

  // Budgets.
  budget_warning: 'A budget whose action is warn is exceeded; the run went ahead.',
  budget_alert: 'Spending crossed a budget\'s alert threshold; the coordinator, if there is one, is woken.',

  // Routines and their runs.
  routine_owner_changed: 'A routine now runs on behalf of another owner.',
  routine_paused: 'A routine was paused because its owner\'s token was revoked or its assignee was deleted.',
  routine_auto_paused: 'A routine paused itself after too many failed runs in a row.',
  routine_archived: 'A routine was archived: its triggers are disabled and its run history is kept.',
  routine_run_task_created: 'A routine fired and created a task for its assignee.',
  routine_run_dispatched: 'A routine fired and woke its assignee.',
  routine_run_coalesced: 'A routine fired and joined the work of an earlier fire that is still active.',
  routine_run_skipped: 'A routine fired and was skipped: its last fire is still active, or a cap on routine runs was reached.',
  routine_run_failed: 'A routine could not fire: its assignee cannot be woken, or its variables do not resolve.',
  routine_delivery_delivered: 'A routine run\'s result was delivered to the routine\'s delivery URL.',
  routine_delivery_retry_scheduled: 'Delivering a routine run\'s result failed; it is tried again later.',
  routine_delivery_failed: 'Delivering a routine run\'s result gave up after its last attempt.',

  // Why a wakeup was (or was not) turned into a run.
  wakeup_coalesced: 'A wakeup was merged into another wakeup or run that had not started, so one run handles both.',
  wakeup_cap_reached: 'Unattended follow-on work was refused at a cap on routine runs; its wakeup is stored skipped.',
  wakeup_skipped_agent_deleted: 'An event\'s wakeup was not written because its agent was deleted.',
  wakeup_agent_unavailable: 'A wakeup was claimed for a paused, stopped or deleted agent, and finished with no run.',
  wakeup_stale_cancelled: 'A wakeup was cancelled at its claim because its task no longer needs this agent.',
  wakeup_retry_cancelled: 'A retry was cancelled because its task was reassigned or cancelled.',
  wakeup_idle_skipped: 'A wakeup finished with no run because its agent had no actionable tasks.',
  wakeup_waiting_on_blockers: 'A wakeup was skipped because its task is blocked; the task wakes its agent again when its blockers resolve.',
  wakeup_waiting_on_checkout: 'A wakeup waits for another run to release the task it needs; it runs once that run ends.',
  wakeup_deferred_daily_cap: 'A wakeup went back to the queue because its agent reached a daily cap.',
  wakeup_held_by_quota: 'A wakeup went back to the queue until its program\'s shared quota resets; no retry is spent.',
  wakeup_budget_blocked: 'A wakeup was skipped and its agent paused because a budget is exceeded.',
  wakeup_no_executor: 'A wakeup failed because no executor is set on its task, agent, project or workspace.',
  wakeup_setup_error: 'A wakeup failed at once, without retries, because its agent\'s program cannot start.',
  wakeup_cancelled: 'A wakeup was cancelled because its agent was deleted or the token it ran on behalf of was revoked.',
  wakeup_retry_scheduled: 'A run failed or was interrupted, and its wakeup is tried again later.',
  wakeup_escalated: 'A wakeup failed after its last retry: the inbox says so, and the coordinator is woken.',

  // Runs.
  run_cancelled: 'A run was stopped (by a person, or because its owner\'s token was revoked); its wakeup ends cancelled and is not retried.',
  run_result_after_cancel: 'A session ended after its run was cancelled; its result is kept on the run, not recorded.',
  run_result_fenced_out: 'A run ended after this replica lost its agent; its result is kept on the run, not recorded.',
  run_resume_refused: 'An agent program could not resume its earlier session, so the run started afresh with the full prompt.',
  quota_limit_near: 'An agent program said that its quota is near its limit.',

  // Events and recovery.
  event_parked: 'An event could not be delivered after its last retry, and is parked.',
  recovery_dispatch: 'The recovery sweep woke the assignee of a task that never started.',
  recovery_sweep_complete: 'A recovery sweep ended; its entry says how many tasks it dispatched.',
} as const satisfies Record<string, string>;

export type ActivityCode = keyof typeof ACTIVITY_CODES;

/** The sentence of a code read back from the log; undefined for a code no longer written. */
export function activitySentence(code: string): string | undefined {
  return Object.hasOwn(ACTIVITY_CODES, code) ? ACTIVITY_CODES[code as ActivityCode] : undefined;
}

/**
 * Each sentence also reads as the end of a wakeup's explain ("cancelled: task was reassigned to
 * Agent B", "skipped: no actionable tasks"), through reasonClause: write it so that it still reads
 * with its first letter in lower case and without its period.
 */
export const REASON_CODES = {
  // cancel_reason: the wakeup's task moved on before its claim (the spec's staleness check).
  task_not_found: 'The task no longer exists.',
  assignee_changed: 'Task was reassigned.',
  task_terminal: 'Task is already finished (done, cancelled or archived).',
  review_participant_changed: 'The agent is no longer a reviewer of the task.',
  // cancel_reason: a retry whose task moved on while it waited.
  retry_stale_assignee: 'Retry dropped because the task was reassigned.',
  retry_task_cancelled: 'Retry dropped because the task was cancelled.',
  // cancel_reason: stopped by a person, or for one (API.md, "Stopping a run", "Trust boundaries").
  run_cancelled: 'Its run was cancelled by a person; not retried.',
  owner_revoked: 'The token it ran on behalf of was revoked; not retried.',

  // skip_reason of a wakeup that ended with no run (agent_deleted is also a cancel_reason).
  agent_paused: 'Agent is paused.',
  agent_stopped: 'Agent is stopped.',
  agent_deleted: 'Agent was deleted.',
  no_actionable_tasks: 'No actionable tasks.',
  blocked: 'The task is blocked; it wakes again when its blockers resolve.',
  budget_exceeded: 'Budget exceeded; agent paused.',
  // Written only before a checkout conflict waited (pinned): older rows still carry it.
  checkout_conflict: 'Another run held the task.',

  // skip_reason of a routine run, and of unattended follow-on work refused at a cap.
  cap_reached: 'A cap on routine runs was reached.',
  active_run: 'Its last fire is still active.',

  // skip_reason of a wakeup back in the queue: what it waits for.
  daily_run_cap: 'Daily run cap reached.',
  daily_cost_cap: 'Daily cost cap reached.',
  quota_exhausted: 'Waiting for its program\'s quota to reset.',
} as const satisfies Record<string, string>;

export type ReasonCode = keyof typeof REASON_CODES;

export function isReasonCode(value: string | null | undefined): value is ReasonCode {
  return typeof value === 'string' && Object.hasOwn(REASON_CODES, value);
}

/** A reason's sentence as the end of another ("cancelled: the task no longer exists"). */
export function reasonClause(code: ReasonCode): string {
  const sentence = REASON_CODES[code];
  return sentence.charAt(0).toLowerCase() + sentence.slice(1, -1);
}
