/**
 * Trigger actors: one per enabled schedule trigger of an active routine. Each waits for its
 * stored next_run_at; firing claims the tick with a compare-and-set, computes catch-up after
 * downtime, and fires through the routine service in the same transaction.
 */
import type { Logger } from 'pino';
import { createActor, fromPromise, type Actor, type InspectionEvent } from 'xstate';
import { lastFireAtOrBefore, missedTicks, nextFireAfter } from '../domain/cron.js';
import type { Routine, RoutineTrigger } from '../domain/routines.js';
import { sleepUntil, type Clock } from '../machines/clock.js';
import { triggerMachine, type FireDueInput, type FireDueOutput, type TriggerMachine } from '../machines/trigger.js';
import type { Store, Tx } from '../persistence/store.js';
import { SnapshotWriter } from './snapshotWriter.js';
import { InvalidWakeupPayloadError } from '../domain/wakeupSources.js';
import { ServiceError } from '../services/errors.js';
import { jitterMsOf, type RoutineChangeListener, type RoutineService } from '../services/routines.js';

const SNAPSHOT_KIND = 'trigger';
/** A broken trigger (database write failing) tries again after this, doubling up to an hour. */
const FIRE_RETRY_BASE_MS = 5_000;
const FIRE_RETRY_MAX_MS = 3_600_000;

export interface TriggerSupervisorDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  routines: RoutineService;
  /** The owner this process acts as: a trigger's snapshot is restored by the owner of its routine's assignee. */
  owner: string;
  inspect?: ((event: InspectionEvent) => void) | undefined;
  onFired?: ((routineId: string) => void) | undefined;
}

/** The ticks one fire covers, given the routine's catch-up policy. */
export interface TickPlan {
  fire: number[];
  /** Ticks dropped beyond the cap, reported to the agent as "you missed N ticks since X". */
  missed: { count: number; since: number } | null;
}

/**
 * `skip_missed` fires the latest tick not after now, once. `enqueue_missed_with_cap` fires the
 * missed ticks oldest first up to the cap and reports the rest on the last one.
 */
export function planTicks(routine: Pick<Routine, 'catch_up_policy' | 'catch_up_max'>, trigger: Pick<RoutineTrigger, 'cron_expression' | 'timezone'>, due: number, now: number): TickPlan {
  const expression = trigger.cron_expression!;
  const zone = trigger.timezone ?? 'UTC';
  const cap = Math.max(1, routine.catch_up_max);
  if (routine.catch_up_policy === 'skip_missed') {
    const latest = lastFireAtOrBefore(expression, zone, new Date(now))?.getTime() ?? due;
    return { fire: [Math.max(due, latest)], missed: null };
  }
  const later = missedTicks(expression, zone, new Date(due), new Date(now), cap - 1);
  const fire = [due, ...later.ticks.map((t) => t.getTime())];
  const dropped = later.total - later.ticks.length;
  return { fire, missed: dropped > 0 ? { count: dropped, since: fire[fire.length - 1]! } : null };
}

export class TriggerSupervisor implements RoutineChangeListener {
  private readonly actors = new Map<string, Actor<TriggerMachine>>();
  private readonly routineIds = new Map<string, string>();
  private readonly snapshots: SnapshotWriter;

  private readonly openingFires: (() => void)[] = [];
  /** One provided machine for every trigger actor (the actor's input says which trigger). */
  private readonly machine: TriggerMachine;

  constructor(private readonly deps: TriggerSupervisorDeps) {
    this.snapshots = new SnapshotWriter(deps, SNAPSHOT_KIND, (id) => this.actors.get(id)?.getPersistedSnapshot());
    this.machine = triggerMachine.provide({
      actors: {
        sleepUntil: sleepUntil(deps.clock),
        fireDue: fromPromise<FireDueOutput, FireDueInput>(({ input }) => this.fireDue(input)),
      },
    });
  }

  get size(): number {
    return this.actors.size;
  }

  async boot(): Promise<void> {
    const { live, snapshots } = await this.deps.store.read(async (tx) => ({
      live: await tx.routines.liveScheduleTriggers(),
      snapshots: await tx.snapshots.all(SNAPSHOT_KIND, this.deps.owner),
    }));
    for (const { trigger, routine } of live) this.start(trigger, routine, snapshots.get(trigger.id));
    this.deps.log.info({ triggers: live.length }, 'trigger actors restored');
  }

  /** Rows win: the routine's triggers are re-read and their actors started, rescheduled or stopped. */
  routineChanged(routineId: string): void {
    void this.refresh(routineId).catch((error) => this.deps.log.error({ err: error, routine_id: routineId }, 'could not refresh trigger actors'));
  }

  async refresh(routineId: string): Promise<void> {
    const { routine, triggers } = await this.deps.store.read(async (tx) => ({
      routine: await tx.routines.get(routineId),
      triggers: await tx.routines.triggersOf(routineId),
    }));
    const wanted = new Map(
      triggers.filter((t) => routine?.status === 'active' && t.kind === 'schedule' && t.enabled).map((t) => [t.id, t]),
    );
    for (const id of [...this.actors.keys()]) {
      if (this.routineIds.get(id) === routineId && !wanted.has(id)) this.stopActor(id);
    }
    for (const trigger of wanted.values()) {
      const actor = this.actors.get(trigger.id);
      if (actor) actor.send({ type: 'RESCHEDULE', nextRunAt: trigger.next_run_at, jitterMs: jitterMsOf(routine!) });
      else this.start(trigger, routine!, undefined);
    }
  }

  view(triggerId: string) {
    const snapshot = this.actors.get(triggerId)?.getSnapshot();
    return snapshot ? { state: String(snapshot.value), next_run_at: snapshot.context.nextRunAt } : null;
  }

  async stop(): Promise<void> {
    await this.flush();
    for (const id of [...this.actors.keys()]) this.actors.get(id)!.stop();
    this.actors.clear();
  }

  flush(): Promise<void> {
    return this.snapshots.flush();
  }

  private start(trigger: RoutineTrigger, routine: Routine, snapshot: unknown): void {
    const machine = this.machine;
    const input = { triggerId: trigger.id, nextRunAt: trigger.next_run_at, jitterMs: jitterMsOf(routine) };
    const options = { input, ...(this.deps.inspect ? { inspect: this.deps.inspect } : {}) };
    let actor: Actor<TriggerMachine>;
    try {
      actor = createActor(machine, snapshot ? { ...options, snapshot: snapshot as never } : options);
    } catch {
      actor = createActor(machine, options);
    }
    actor.subscribe(() => this.snapshots.markDirty(trigger.id));
    this.actors.set(trigger.id, actor);
    this.routineIds.set(trigger.id, routine.id);
    actor.start();
    // Rows win over a restored snapshot: the stored next_run_at is the truth.
    if (snapshot) actor.send({ type: 'RESCHEDULE', nextRunAt: trigger.next_run_at, jitterMs: jitterMsOf(routine) });
  }

  private stopActor(triggerId: string): void {
    this.actors.get(triggerId)?.stop();
    this.actors.delete(triggerId);
    this.routineIds.delete(triggerId);
    this.snapshots.forget(triggerId);
    void this.deps.store.transaction((tx) => tx.snapshots.delete(triggerId)).catch(() => undefined);
  }

  /** Claims the due tick and fires it (and any catch-up ticks) in one transaction. Never rejects. */
  /**
   * Fires that fall due together (each trigger's timer is its own callback) open their transactions
   * together, a moment later, so the store commits them as a group rather than one commit per fire.
   */
  private whenFiresOpen(): Promise<void> {
    return new Promise((resolve) => {
      this.openingFires.push(resolve);
      if (this.openingFires.length === 1) setImmediate(() => { for (const open of this.openingFires.splice(0)) open(); });
    });
  }

  private async fireDue(input: FireDueInput): Promise<FireDueOutput> {
    try {
      await this.whenFiresOpen();
      const result = await this.deps.store.transaction((tx) => this.fireDueIn(tx, input, null))
        .catch((error: unknown) => {
          // A fire refused by a rule would be refused again on every retry: the tick moves on, recorded as failed.
          if (!(error instanceof ServiceError || error instanceof InvalidWakeupPayloadError)) throw error;
          return this.deps.store.transaction((tx) => this.fireDueIn(tx, input, error.message));
        });
      if (result.routineId) this.deps.onFired?.(result.routineId);
      return { nextRunAt: result.nextRunAt, notBefore: null, failed: false };
    } catch (error) {
      const delay = Math.min(FIRE_RETRY_MAX_MS, FIRE_RETRY_BASE_MS * 2 ** input.failures);
      this.deps.log.error({ err: error, trigger_id: input.triggerId, retry_in_ms: delay }, 'cron fire failed; the tick stays unclaimed and is tried again');
      return { nextRunAt: input.expectedNextRunAt, notBefore: this.deps.clock.now() + delay, failed: true };
    }
  }

  /** With `refused` (the error of a first attempt), each tick is recorded as a failed routine run instead. */
  private async fireDueIn(tx: Tx, input: FireDueInput, refused: string | null): Promise<{ nextRunAt: number | null; routineId: string | null }> {
    const now = this.deps.clock.now();
    const trigger = await tx.routines.getTrigger(input.triggerId);
    const routine = trigger ? await tx.routines.get(trigger.routine_id) : undefined;
    if (!trigger || !routine || !trigger.enabled || routine.status !== 'active' || trigger.next_run_at === null) {
      return { nextRunAt: null, routineId: null };
    }
    // Another actor or replica already moved past this tick: follow the row, fire nothing.
    if (trigger.next_run_at !== input.expectedNextRunAt) return { nextRunAt: trigger.next_run_at, routineId: null };
    const plan = planTicks(routine, trigger, trigger.next_run_at, now);
    const next = nextFireAfter(trigger.cron_expression!, trigger.timezone ?? 'UTC', new Date(Math.max(now, plan.fire[plan.fire.length - 1]!)))?.getTime() ?? null;
    if (!(await tx.routines.claimTick(trigger.id, input.expectedNextRunAt, next, now))) {
      const current = await tx.routines.getTrigger(trigger.id);
      return { nextRunAt: current?.next_run_at ?? null, routineId: null };
    }
    for (const [i, tick] of plan.fire.entries()) {
      // A catch-up tick may have paused the routine (its failure limit): the later ticks are not fired.
      if (i > 0 && (await tx.routines.get(routine.id))?.status !== 'active') break;
      const last = i === plan.fire.length - 1;
      const request = { source: 'cron', triggerId: trigger.id, variables: {}, scheduledFor: tick, missedTicks: last ? plan.missed : null } as const;
      if (refused === null) await this.deps.routines.fireIn(tx, routine, request);
      else await this.deps.routines.recordFailedFire(tx, routine, request, refused);
    }
    return { nextRunAt: next, routineId: routine.id };
  }
}
