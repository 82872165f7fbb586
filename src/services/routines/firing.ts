/**
 * Firing a routine: from a person ("Run now"), a webhook delivery, or the due ticks of its
 * schedules. A fire resolves the routine's variables and records its routine run once (a repeated
 * tick or delivery finds the run recorded and fires nothing), then hands the run to routing.ts,
 * which takes its slot and applies the concurrency policy. A cron tick that cannot fire is
 * recorded as a failed run, never thrown back to a trigger that would retry it for ever.
 */
import { createHash } from 'node:crypto';
import type { MissedTicks, Routine, RoutineRun, RoutineTrigger } from '../../domain/routines.js';
import { resolveVariables, type VariableDecl } from '../../domain/templates.js';
import type { Workspace } from '../../domain/types.js';
import type { Tx } from '../../persistence/store.js';
import type { ServiceDeps } from '../deps.js';
import { ServiceError, conflict } from '../errors.js';
import { newId } from '../ids.js';
import { requireRoutine } from './catalogue.js';
import type { RoutineOutcomes } from './outcomes.js';
import type { FireRequest, Prefetched, RoutineRouting } from './routing.js';

export interface FireResult {
  routineRun: RoutineRun;
  /** False when the fire was a repeat (same delivery id, or a tick already fired). */
  created: boolean;
}

/** Stable per-routine offset in [0, jitter_sec): the same routine always lands at the same second. */
export function jitterMsOf(routine: Pick<Routine, 'id' | 'jitter_sec'>): number {
  if (routine.jitter_sec <= 0) return 0;
  const hash = createHash('sha256').update(routine.id).digest().readUInt32BE(0);
  return hash % (routine.jitter_sec * 1000);
}

/**
 * "Active" is judged per fingerprint: the routine's unrendered template and its assignee. The
 * rendered text would differ every day ({{date}}) and never match the run that is still active.
 */
export function dispatchFingerprint(routine: Pick<Routine, 'id' | 'task_template' | 'assignee_agent_instance_id'>): string {
  return createHash('sha256')
    .update(JSON.stringify([routine.id, routine.task_template, routine.assignee_agent_instance_id]))
    .digest('hex')
    .slice(0, 32);
}

export class RoutineFiring {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly routing: RoutineRouting,
    private readonly outcomes: Pick<RoutineOutcomes, 'failRun'>,
  ) {}

  /** Manual fire ("Run now") from a person: attended, on behalf of `firedBy` (the routine's owner when not given). */
  fireManually(routineId: string, variables: Record<string, unknown>, firedBy?: string | null): Promise<FireResult> {
    return this.deps.store.transaction(async (tx) => {
      const routine = await requireRoutine(tx, routineId);
      const manual = (await tx.routines.triggersOf(routineId)).find((t) => t.kind === 'manual');
      return this.fireIn(tx, routine, { source: 'manual', triggerId: manual?.id ?? null, variables, firedBy: firedBy ?? null });
    });
  }

  /**
   * The webhook fire, after its signature was verified. A repeated delivery id answers with the
   * first delivery's routine run whatever the routine's or the trigger's state now (API.md,
   * "Webhook order"); only a new delivery needs an active routine and an enabled trigger.
   */
  fireWebhook(trigger: RoutineTrigger, variables: Record<string, unknown>, deliveryId: string | null): Promise<FireResult> {
    return this.deps.store.transaction(async (tx) => {
      const earlier = await this.earlierDelivery(tx, trigger.id, deliveryId, this.deps.clock.now());
      if (earlier) return { routineRun: earlier, created: false };
      const routine = await requireRoutine(tx, trigger.routine_id);
      const current = await tx.routines.getTrigger(trigger.id);
      if (!current?.enabled) throw conflict(`webhook trigger '${trigger.public_id}' is disabled; enable it to accept new deliveries`);
      return this.fireIn(tx, routine, { source: 'webhook', triggerId: trigger.id, variables, deliveryId });
    });
  }

  /**
   * The routine run of an earlier delivery with this id, inside the idempotency window. A delivery
   * older than the window is retired, so the same id fires again (as wakeup idempotency keys do).
   */
  private async earlierDelivery(tx: Tx, triggerId: string, deliveryId: string | null, now: number) {
    if (!deliveryId) return undefined;
    await tx.routines.retireDeliveryBefore(triggerId, deliveryId, now - this.deps.config.idempotencyWindowMs);
    return tx.routines.runByDelivery(triggerId, deliveryId);
  }

  /**
   * Fires an active routine. A webhook's repeated delivery id was answered before this (fireWebhook).
   * `recorded`: the run a batch of cron ticks claimed and recorded already (fireCronTicks), which
   * only needs dispatching, with what the batch found out for it.
   */
  async fireIn(tx: Tx, stale: Routine, request: FireRequest, recorded?: { run: RoutineRun } & Prefetched): Promise<FireResult> {
    const now = this.deps.clock.now();
    if (recorded) return { routineRun: await this.routing.dispatchRecorded(tx, stale, recorded.run, request, now, recorded), created: true };
    // Read again: an earlier fire in this transaction (a catch-up tick) may have changed it.
    const routine = await requireRoutine(tx, stale.id);
    if (routine.status !== 'active') throw conflict(`routine '${routine.id}' is ${routine.status}; it fires only when active`);
    const workspace = (await tx.workspaces.get(routine.workspace_id))!;
    const resolved = this.resolveFor(routine, workspace, request, now);
    if (!resolved.ok && request.source === 'cron') {
      // Nobody is there to answer a 400: the tick is recorded as failed, with the reason.
      return this.recordFailedFire(tx, routine, request, resolvedError(resolved));
    }
    if (!resolved.ok) {
      const details = resolved.errors.map((e) => ({ path: `variables.${e.name}`, message: e.message }));
      throw new ServiceError('validation_error', details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
    }
    const run = this.newRun(routine, request, resolved.values, now);
    // The UNIQUE keys make a repeated tick or delivery a no-op, whatever raced to get here.
    if (!(await tx.routines.insertRun(run))) {
      const raced = request.deliveryId && request.triggerId ? await tx.routines.runByDelivery(request.triggerId, request.deliveryId) : undefined;
      return { routineRun: raced ?? run, created: false };
    }
    return { routineRun: await this.routing.dispatchRecorded(tx, routine, run, request, now), created: true };
  }

  /**
   * Fires a batch of cron ticks whose triggers the caller saw due: claims every tick and records
   * its routine run in one store operation, then dispatches each run recorded, in this transaction.
   * A claim lost to another caller fires nothing. Catch-up ticks after the first (rare: only after
   * downtime) fire one by one as before, and stop when a failure has paused the routine.
   * With `refused` (the error of a first attempt), every tick is recorded as a failed run instead.
   * Returns the ids of the triggers whose tick this caller claimed.
   */
  async fireCronTicks(tx: Tx, ticks: readonly CronTicks[], refused: string | null): Promise<Set<string>> {
    const now = this.deps.clock.now();
    const workspaces = new Map<string, Promise<Workspace | undefined>>();
    const workspaceOf = (id: string) => workspaces.get(id) ?? workspaces.set(id, tx.workspaces.get(id)).get(id)!;
    const prepared = await Promise.all(ticks.map(async (tick) => {
      const request = cronRequest(tick, 0);
      const resolved = refused === null
        ? this.resolveFor(tick.routine, (await workspaceOf(tick.routine.workspace_id))!, request, now) : null;
      const values = resolved?.ok ? resolved.values : {};
      return { tick, request, resolved, run: this.newRun(tick.routine, request, values, now) };
    }));
    const won = await tx.routines.claimTicks(prepared.map(({ tick, run }) => ({
      triggerId: tick.trigger.id, expectedNextRunAt: tick.expectedNextRunAt, nextRunAt: tick.nextRunAt, run,
    })), now);
    const byTrigger = new Map(prepared.map((p) => [p.tick.trigger.id, p]));
    const errorOf = ({ resolved }: (typeof prepared)[number]) => refused ?? (resolved && !resolved.ok ? resolvedError(resolved) : null);
    const toDispatch = won.filter((w) => w.recorded && errorOf(byTrigger.get(w.triggerId)!) === null).map((w) => byTrigger.get(w.triggerId)!);
    const slots = await this.takeSlots(tx, toDispatch.map(({ tick, run }) => ({ runId: run.id, agentId: tick.routine.assignee_agent_instance_id })));
    const active = await this.activeRunsOfBatch(tx, toDispatch.map(({ tick, run }) => ({ routine: tick.routine, run })));
    for (const { triggerId, recorded } of won) {
      const fire = byTrigger.get(triggerId)!;
      const { tick, request, run } = fire;
      if (recorded) {
        const error = errorOf(fire);
        if (error !== null) await this.outcomes.failRun(tx, tick.routine, run, error, now);
        else await this.fireIn(tx, tick.routine, request, { run, slotTaken: slots.has(run.id), active: active.get(tick.routine.id) });
      }
      for (let i = 1; i < tick.fire.length; i++) {
        // A catch-up tick may have paused the routine (its failure limit): the later ticks are not fired.
        if ((await tx.routines.get(tick.routine.id))?.status !== 'active') break;
        const later = cronRequest(tick, i);
        if (refused === null) await this.fireIn(tx, tick.routine, later);
        else await this.recordFailedFire(tx, tick.routine, later, refused);
      }
    }
    return new Set(won.map((w) => w.triggerId));
  }

  /** A replayed tick is dated by its schedule, not by the replay: {{date}} is the day it was due. */
  private resolveFor(routine: Routine, workspace: Workspace, request: FireRequest, now: number) {
    return resolveVariables(routine.variables as VariableDecl[], request.variables, new Date(request.scheduledFor ?? now), workspace.timezone);
  }

  private newRun(routine: Routine, request: FireRequest, payload: Record<string, unknown>, now: number): RoutineRun {
    return {
      id: newId('rr'), routine_id: routine.id, trigger_id: request.triggerId, source: request.source, status: 'received',
      skip_reason: null, trigger_payload: payload, linked_task_id: null, linked_wakeup_id: null,
      coalesced_into_run_id: null, dispatch_fingerprint: dispatchFingerprint(routine), scheduled_for: request.scheduledFor ?? null,
      delivery_id: request.deliveryId ?? null, outcome: null, delivery_status: 'none', error: null,
      unattended: request.source !== 'manual',
      on_behalf_of: request.source === 'manual' ? request.firedBy ?? routine.owner_id : routine.owner_id,
      started_at: now, completed_at: null,
    };
  }

  /**
   * A cron tick that could not fire (its variables do not resolve, or the fire itself failed): its
   * routine run goes received -> failed with the error and counts toward the failure limit. Public
   * for the trigger actors, whose tick must move on even when the fire was refused.
   */
  async recordFailedFire(tx: Tx, routine: Routine, request: FireRequest, error: string): Promise<FireResult> {
    const now = this.deps.clock.now();
    const run = this.newRun(routine, { ...request, deliveryId: null }, {}, now);
    if (!(await tx.routines.insertRun(run))) return { routineRun: run, created: false };
    return { routineRun: await this.outcomes.failRun(tx, routine, run, error, now), created: true };
  }

  /**
   * The slots of a batch of fires, taken together where both caps have room for all of them (a few
   * statements for the batch); the fires left out take theirs one by one in dispatch, in order.
   */
  private takeSlots(tx: Tx, runs: { runId: string; agentId: string }[]): Promise<Set<string>> {
    return runs.length === 0 ? Promise.resolve(new Set()) : tx.routines.takeRunSlots(runs, this.deps.config.maxConcurrentRoutineRuns);
  }

  /**
   * The active runs (API.md, "Active") of each routine that fires once in the batch, in one read. A
   * routine firing more than once is left out: its earlier fire in this batch may make it active.
   */
  private async activeRunsOfBatch(tx: Tx, fires: { routine: Routine; run: RoutineRun }[]): Promise<Map<string, RoutineRun[]>> {
    const times = new Map<string, number>();
    for (const { routine } of fires) times.set(routine.id, (times.get(routine.id) ?? 0) + 1);
    const once = fires.filter(({ routine }) => times.get(routine.id) === 1 && routine.concurrency_policy !== 'always_enqueue');
    if (once.length === 0) return new Map();
    const found = await tx.routines.activeRunsOf(once.map(({ routine, run }) => ({ routineId: routine.id, fingerprint: run.dispatch_fingerprint })));
    return new Map(once.map(({ routine }) => [routine.id, found.get(routine.id) ?? []]));
  }
}

/** The due ticks of one schedule trigger, as its actor saw them: the claim's compare-and-set value and the plan. */
export interface CronTicks {
  trigger: RoutineTrigger;
  routine: Routine;
  expectedNextRunAt: number;
  /** Where next_run_at moves when this claim wins. */
  nextRunAt: number | null;
  /** The ticks to fire, oldest first: the due one, then any catch-up ticks. */
  fire: readonly number[];
  /** Ticks dropped beyond the catch-up cap, reported on the last fire. */
  missed: MissedTicks | null;
}

function cronRequest(ticks: CronTicks, index: number): FireRequest {
  const last = index === ticks.fire.length - 1;
  return { source: 'cron', triggerId: ticks.trigger.id, variables: {}, scheduledFor: ticks.fire[index]!, missedTicks: last ? ticks.missed : null };
}

function resolvedError(resolved: { errors: { message: string }[] }): string {
  return resolved.errors.map((e) => e.message).join('; ');
}
