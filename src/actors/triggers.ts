/**
 * Trigger actors: one per enabled schedule trigger of an active routine, on the replica that holds
 * the routine's assignee (beside its agent actor). Each waits for its stored next_run_at; firing
 * claims the tick with a compare-and-set, computes catch-up after downtime, and fires through the
 * routine firing service in the same transaction. The compare-and-set and UNIQUE (trigger_id,
 * scheduled_for) keep a tick fired once, whichever replica fires it.
 */
import type { Logger } from 'pino';
import { fromPromise, type Actor, type InspectionEvent } from 'xstate';
import { lastFireAtOrBefore, missedTicks, nextFireAfter } from '../domain/cron.js';
import type { Routine, RoutineTrigger } from '../domain/routines.js';
import { sleepUntil } from '../machines/sleepUntil.js';
import type { Clock } from '../domain/clock.js';
import { triggerMachine, type FireDueInput, type FireDueOutput, type TriggerMachine } from '../machines/trigger.js';
import type { Store, Tx } from '../persistence/store.js';
import { ActorHost } from './actorHost.js';
import { SnapshotWriter } from './snapshotWriter.js';
import { InvalidWakeupPayloadError } from '../domain/wakeupSources.js';
import { ServiceError } from '../services/errors.js';
import type { RoutineChangeListener } from '../services/routines/changes.js';
import { jitterMsOf, type CronTicks, type RoutineFiring } from '../services/routines/firing.js';

const SNAPSHOT_KIND = 'trigger';
/** A broken trigger (database write failing) tries again after this, doubling up to an hour. */
const FIRE_RETRY_BASE_MS = 5_000;
const FIRE_RETRY_MAX_MS = 3_600_000;
/**
 * Fires claimed and dispatched in one transaction. Large enough that a herd of ten thousand ticks
 * due in the same second costs ten transactions and a few statements each beyond the fires' own;
 * small enough that one holds the connection (and the event loop) for well under a second (a fire
 * costs about half a millisecond), so that requests answer in between.
 */
const FIRE_BATCH_SIZE = 1_000;

export interface TriggerSupervisorDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  routines: Pick<RoutineFiring, 'fireCronTicks'>;
  /** The owner this process acts as: a trigger's snapshot is restored by the owner of its routine's assignee. */
  owner: string;
  /** Whether this process holds the agent: a trigger's actor runs where its routine's assignee is held. Every agent when absent. */
  holds?: ((agentId: string) => boolean) | undefined;
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
  /** Set by stop(): no actor starts after it. */
  private stopped = false;
  private readonly actors = new Map<string, Actor<TriggerMachine>>();
  private readonly routineIds = new Map<string, string>();
  /** The assignee of each trigger's routine, as of the actor's start: whose lease the actor follows. */
  private readonly assignees = new Map<string, string>();
  private readonly snapshots: SnapshotWriter;

  /** Fires whose timers went off in this turn of the event loop, claimed together in the next. */
  private readonly dueFires: { input: FireDueInput; resolve: (output: FireDueOutput) => void }[] = [];
  /** One provided machine for every trigger actor (the actor's input says which trigger). */
  private readonly machine: TriggerMachine;
  /** The one actor system of every trigger actor (ActorHost). */
  private readonly host: ActorHost;

  constructor(private readonly deps: TriggerSupervisorDeps) {
    this.host = new ActorHost(deps.inspect);
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
    await this.restore(null);
  }

  /** The assignees just taken over: their routines' trigger actors start here, from their stored snapshots. */
  async adopt(agentIds: readonly string[]): Promise<void> {
    if (agentIds.length > 0) await this.restore(new Set(agentIds));
  }

  /** These assignees are another replica's now: their triggers' actors stop here (their snapshots stay for the new owner). */
  release(agentIds: ReadonlySet<string>): void {
    for (const [triggerId, assignee] of [...this.assignees]) {
      if (agentIds.has(assignee)) this.dropActor(triggerId);
    }
  }

  private async restore(only: ReadonlySet<string> | null): Promise<void> {
    const { live, snapshots } = await this.deps.store.read(async (tx) => ({
      live: await tx.routines.liveScheduleTriggers(),
      snapshots: await tx.snapshots.all(SNAPSHOT_KIND, this.deps.owner),
    }));
    let restored = 0;
    for (const { trigger, routine } of live) {
      const assignee = routine.assignee_agent_instance_id;
      if (!this.runsHere(assignee) || (only && !only.has(assignee)) || this.actors.has(trigger.id)) continue;
      this.start(trigger, routine, snapshots.get(trigger.id));
      restored++;
    }
    this.deps.log.info({ triggers: restored, taken_over: only !== null }, 'trigger actors restored');
  }

  private runsHere(assignee: string): boolean {
    return this.deps.holds?.(assignee) ?? true;
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
    // A routine whose assignee another replica holds has its trigger actors there.
    const here = routine !== undefined && this.runsHere(routine.assignee_agent_instance_id);
    const wanted = new Map(
      triggers.filter((t) => here && routine?.status === 'active' && t.kind === 'schedule' && t.enabled).map((t) => [t.id, t]),
    );
    for (const id of [...this.actors.keys()]) {
      if (this.routineIds.get(id) !== routineId || wanted.has(id)) continue;
      // Moved to an assignee held elsewhere: the snapshot is the new holder's to restore.
      if (routine && !here) this.dropActor(id);
      else this.stopActor(id);
    }
    for (const trigger of wanted.values()) {
      const actor = this.actors.get(trigger.id);
      if (actor) {
        this.assignees.set(trigger.id, routine!.assignee_agent_instance_id);
        actor.send({ type: 'RESCHEDULE', nextRunAt: trigger.next_run_at, jitterMs: jitterMsOf(routine!) });
      }
      else this.start(trigger, routine!, undefined);
    }
  }

  /**
   * Rows win, for every routine at once: after this replica may have missed routine changes (its
   * listening connection was down, and the changes made through other replicas went unheard), the
   * live schedule triggers of the assignees held here get an actor (started, or moved to the stored
   * next_run_at), and an actor whose trigger is no longer live here is re-read on its own (stopped,
   * or left to the replica that holds its new assignee).
   */
  async reconcileHeld(): Promise<{ started: number; rescheduled: number; refreshed: number }> {
    const { live, snapshots } = await this.deps.store.read(async (tx) => ({
      live: await tx.routines.liveScheduleTriggers(),
      snapshots: await tx.snapshots.all(SNAPSHOT_KIND, this.deps.owner),
    }));
    const wanted = live.filter(({ routine }) => this.runsHere(routine.assignee_agent_instance_id));
    const wantedIds = new Set(wanted.map(({ trigger }) => trigger.id));
    const stale = new Set([...this.routineIds].filter(([triggerId]) => !wantedIds.has(triggerId)).map(([, routineId]) => routineId));
    let started = 0;
    let rescheduled = 0;
    for (const { trigger, routine } of wanted) {
      if (!this.actors.has(trigger.id)) {
        this.start(trigger, routine, snapshots.get(trigger.id));
        started++;
      } else if (this.followRow(trigger, routine)) rescheduled++;
    }
    for (const routineId of stale) await this.refresh(routineId);
    const counts = { started, rescheduled, refreshed: stale.size };
    this.deps.log.info(counts, 'trigger actors reconciled with the rows of the routines whose assignees are held here');
    return counts;
  }

  /** An actor whose trigger's row moved (its next_run_at, or its routine's jitter) is told so; false when nothing moved. */
  private followRow(trigger: RoutineTrigger, routine: Routine): boolean {
    const actor = this.actors.get(trigger.id)!;
    this.routineIds.set(trigger.id, routine.id);
    this.assignees.set(trigger.id, routine.assignee_agent_instance_id);
    const { nextRunAt, jitterMs } = actor.getSnapshot().context;
    // Not a RESCHEDULE for nothing: it would clear a failing trigger's backoff.
    if (nextRunAt === trigger.next_run_at && jitterMs === jitterMsOf(routine)) return false;
    actor.send({ type: 'RESCHEDULE', nextRunAt: trigger.next_run_at, jitterMs: jitterMsOf(routine) });
    return true;
  }

  view(triggerId: string) {
    const snapshot = this.actors.get(triggerId)?.getSnapshot();
    return snapshot ? { state: String(snapshot.value), next_run_at: snapshot.context.nextRunAt } : null;
  }

  async stop(): Promise<void> {
    // From here a refresh or a reconcile that lands late (a change heard during shutdown) starts nothing.
    this.stopped = true;
    await this.flush();
    for (const actor of this.actors.values()) this.host.stopActor(actor);
    this.actors.clear();
    this.host.stop();
  }

  flush(): Promise<void> {
    return this.snapshots.flush();
  }

  private start(trigger: RoutineTrigger, routine: Routine, snapshot: unknown): void {
    if (this.stopped) {
      this.deps.log.info({ trigger_id: trigger.id, routine_id: routine.id }, 'not starting a trigger actor: this replica is stopping; the next boot or holder starts it');
      return;
    }
    // The subscription below outlives this call: it keeps the id, not the whole row.
    const triggerId = trigger.id;
    const machine = this.machine;
    const input = { triggerId, nextRunAt: trigger.next_run_at, jitterMs: jitterMsOf(routine) };
    let actor: Actor<TriggerMachine>;
    try {
      actor = this.host.createActor(machine, snapshot ? { input, snapshot: snapshot as never } : { input });
    } catch {
      actor = this.host.createActor(machine, { input });
    }
    // `firing` lasts one claim and is never worth storing: a restore reschedules from the row anyway,
    // and a herd of fires would write every trigger's snapshot twice.
    actor.subscribe((snapshot) => { if (snapshot.value !== 'firing') this.snapshots.markDirty(triggerId); });
    this.actors.set(triggerId, actor);
    this.routineIds.set(triggerId, routine.id);
    this.assignees.set(triggerId, routine.assignee_agent_instance_id);
    actor.start();
    // Rows win over a restored snapshot: the stored next_run_at is the truth.
    if (snapshot) actor.send({ type: 'RESCHEDULE', nextRunAt: trigger.next_run_at, jitterMs: jitterMsOf(routine) });
  }

  private stopActor(triggerId: string): void {
    this.dropActor(triggerId);
    void this.deps.store.transaction((tx) => tx.snapshots.delete(triggerId)).catch(() => undefined);
  }

  /** Stops the actor here, keeping its stored snapshot (another replica restores it). */
  private dropActor(triggerId: string): void {
    const actor = this.actors.get(triggerId);
    if (actor) this.host.stopActor(actor);
    this.actors.delete(triggerId);
    this.routineIds.delete(triggerId);
    this.assignees.delete(triggerId);
    this.snapshots.forget(triggerId);
  }

  /**
   * Fires that fall due together (each trigger's timer is its own callback) are claimed and fired
   * together, a moment later: the batch goes to the store as a few statements rather than a
   * transaction per fire. Never rejects.
   */
  private fireDue(input: FireDueInput): Promise<FireDueOutput> {
    return new Promise((resolve) => {
      this.dueFires.push({ input, resolve });
      if (this.dueFires.length === 1) setImmediate(() => void this.fireWaiting([...this.dueFires.splice(0), ...this.dueBeforeTheirTimers()]));
    });
  }

  /**
   * Triggers already due whose timers have not gone off yet join the batch: timers of one instant
   * go off over several turns of a busy event loop, and a tick left for a later turn would wait
   * behind every run the batch wakes. Such an actor is told where its trigger moved instead of
   * being answered; its own timer, if it goes off first, finds the tick claimed and follows the row.
   */
  private dueBeforeTheirTimers(): { input: FireDueInput; resolve: (output: FireDueOutput) => void }[] {
    const now = this.deps.clock.now();
    const due: { input: FireDueInput; resolve: (output: FireDueOutput) => void }[] = [];
    for (const [triggerId, actor] of this.actors) {
      const snapshot = actor.getSnapshot();
      const { nextRunAt, jitterMs, notBefore, failures } = snapshot.context;
      if (snapshot.value !== 'waiting' || nextRunAt === null || Math.max(nextRunAt + jitterMs, notBefore ?? 0) > now) continue;
      due.push({
        input: { triggerId, expectedNextRunAt: nextRunAt, failures },
        resolve: (output) => {
          if (!output.failed && output.nextRunAt !== nextRunAt) actor.send({ type: 'RESCHEDULE', nextRunAt: output.nextRunAt, jitterMs });
        },
      });
    }
    return due;
  }

  /**
   * Every chunk's transaction is queued at once, so that the runs the first chunk wakes (queued
   * behind them in the store) cannot delay the fires of the next.
   */
  private async fireWaiting(waiting: { input: FireDueInput; resolve: (output: FireDueOutput) => void }[]): Promise<void> {
    const chunks: (typeof waiting)[] = [];
    for (let i = 0; i < waiting.length; i += FIRE_BATCH_SIZE) chunks.push(waiting.slice(i, i + FIRE_BATCH_SIZE));
    await Promise.all(chunks.map(async (chunk) => {
      const outputs = await this.fireBatch(chunk.map((w) => w.input));
      chunk.forEach((w, j) => w.resolve(outputs[j]!));
    }));
  }

  /**
   * One transaction for the whole batch. When it fails, each half is tried on its own, down to a
   * single fire: one broken fire then costs its own tick only, and a fire refused by a rule would be
   * refused again on every retry, so its tick moves on, recorded as failed.
   */
  private async fireBatch(inputs: FireDueInput[]): Promise<FireDueOutput[]> {
    try {
      const results = await this.deps.store.transaction((tx) => this.fireDueIn(tx, inputs, null))
        .catch((error: unknown) => {
          if (inputs.length > 1 || !(error instanceof ServiceError || error instanceof InvalidWakeupPayloadError)) throw error;
          return this.deps.store.transaction((tx) => this.fireDueIn(tx, inputs, error.message));
        });
      for (const result of results) if (result.routineId) this.deps.onFired?.(result.routineId);
      return results.map((result) => ({ nextRunAt: result.nextRunAt, notBefore: null, failed: false }));
    } catch (error) {
      if (inputs.length > 1) {
        const half = Math.ceil(inputs.length / 2);
        return [...await this.fireBatch(inputs.slice(0, half)), ...await this.fireBatch(inputs.slice(half))];
      }
      const input = inputs[0]!;
      const delay = Math.min(FIRE_RETRY_MAX_MS, FIRE_RETRY_BASE_MS * 2 ** input.failures);
      this.deps.log.error({ err: error, trigger_id: input.triggerId, retry_in_ms: delay }, 'cron fire failed; the tick stays unclaimed and is tried again');
      return [{ nextRunAt: input.expectedNextRunAt, notBefore: this.deps.clock.now() + delay, failed: true }];
    }
  }

  /**
   * Reads the batch's triggers, plans each due tick (with catch-up), and hands the plans to the
   * routine firing service, which claims and records them in one store operation. With `refused` (the
   * error of a first attempt), each tick is recorded as a failed routine run instead.
   */
  private async fireDueIn(tx: Tx, inputs: FireDueInput[], refused: string | null): Promise<{ nextRunAt: number | null; routineId: string | null }[]> {
    const now = this.deps.clock.now();
    const rows = new Map((await tx.routines.scheduleTriggers(inputs.map((input) => input.triggerId))).map((row) => [row.trigger.id, row]));
    const due: CronTicks[] = [];
    const plans = new Map<string, Pick<CronTicks, 'nextRunAt' | 'fire' | 'missed'>>();
    const results = inputs.map((input) => {
      const row = rows.get(input.triggerId);
      if (!row || !row.trigger.enabled || row.routine.status !== 'active' || row.trigger.next_run_at === null) {
        return { nextRunAt: null, routineId: null };
      }
      // Another actor or replica already moved past this tick: follow the row, fire nothing.
      if (row.trigger.next_run_at !== input.expectedNextRunAt) return { nextRunAt: row.trigger.next_run_at, routineId: null };
      const ticks = this.planFor(row.trigger, row.routine, input.expectedNextRunAt, now, plans);
      due.push(ticks);
      return { nextRunAt: ticks.nextRunAt, routineId: row.routine.id };
    });
    const claimed = await this.deps.routines.fireCronTicks(tx, due, refused);
    for (const [i, input] of inputs.entries()) {
      const result = results[i]!;
      if (result.routineId === null || claimed.has(input.triggerId)) continue;
      // Lost the compare-and-set since the read above: follow the row.
      results[i] = { nextRunAt: (await tx.routines.getTrigger(input.triggerId))?.next_run_at ?? null, routineId: null };
    }
    return results;
  }

  /**
   * The ticks to fire and where next_run_at moves. Herds share their schedule (every coordinator's
   * every-five-minutes heartbeat), so within a batch a plan is computed once per schedule, policy and due tick.
   */
  private planFor(
    trigger: RoutineTrigger, routine: Routine, due: number, now: number, plans: Map<string, Pick<CronTicks, 'nextRunAt' | 'fire' | 'missed'>>,
  ): CronTicks {
    const zone = trigger.timezone ?? 'UTC';
    const key = JSON.stringify([trigger.cron_expression, zone, routine.catch_up_policy, routine.catch_up_max, due]);
    let plan = plans.get(key);
    if (!plan) {
      const { fire, missed } = planTicks(routine, trigger, due, now);
      const last = fire[fire.length - 1]!;
      plan = { fire, missed, nextRunAt: nextFireAfter(trigger.cron_expression!, zone, new Date(Math.max(now, last)))?.getTime() ?? null };
      plans.set(key, plan);
    }
    return { trigger, routine, expectedNextRunAt: due, ...plan };
  }
}
