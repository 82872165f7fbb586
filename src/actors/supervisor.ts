/**
 * The supervisor: a plain registry of independent actors, one per agent (not children of one
 * machine, which grows quadratically), sharing one actor system (ActorHost). It routes wakeups and
 * agent changes to the right actor, hands claimed wakeups to the pipeline, and stores each actor's
 * snapshot after it changes. It runs the actors of the agents this process owns (see
 * AgentOwnership), and each claim carries its fence.
 */
import type { Logger } from 'pino';
import type { Actor, InspectionEvent } from 'xstate';
import type { Agent, Wakeup } from '../domain/types.js';
import { agentMachine, describeAgentActor, restorableSnapshot, type AgentMachine, type AgentSettings, type InboxEntry } from '../machines/agent.js';
import { sleepUntil } from '../machines/sleepUntil.js';
import type { Clock } from '../domain/clock.js';
import { STORAGE_RETRY_STEPS_MS, isStorageUnavailable } from '../persistence/storageUnavailable.js';
import type { Fence, Store } from '../persistence/store.js';
import type { WakeupNotifier } from '../services/deps.js';
import type { DispatchOutcome } from '../dispatch/pipeline.js';
import type { AgentOwnership } from './ownership.js';
import { ActorHost } from './actorHost.js';
import { SnapshotWriter } from './snapshotWriter.js';

const SNAPSHOT_KIND = 'agent';
/** After a pipeline error the wakeup is offered again after a pause that doubles, up to an hour. */
const PIPELINE_ERROR_RETRY_MS = 5_000;
const PIPELINE_ERROR_RETRY_MAX_MS = 3_600_000;
/**
 * A storage outage is not the wakeup's fault and ends on its own: the wakeup is offered again at the
 * cadence the store probes at while writes fail (its slowest step), not after a pause that doubles,
 * which would leave it waiting about as long as the outage lasted after writing works again.
 */
const STORAGE_OUTAGE_RETRY_MS = STORAGE_RETRY_STEPS_MS[STORAGE_RETRY_STEPS_MS.length - 1]!;

/** How long a wakeup whose pipeline failed waits before it is offered again. */
export function pipelineRetryDelay(error: unknown, attempts: number): number {
  if (isStorageUnavailable(error)) return STORAGE_OUTAGE_RETRY_MS;
  return Math.min(PIPELINE_ERROR_RETRY_MAX_MS, PIPELINE_ERROR_RETRY_MS * 2 ** (attempts - 1));
}

export interface SupervisorDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** Which agents this process owns, and at which epoch. */
  ownership: AgentOwnership;
  /** Claims and runs one wakeup of `agentId`, fenced by `fence`. */
  process: (wakeupId: string, fence: Fence) => Promise<DispatchOutcome>;
  inspect?: ((event: InspectionEvent) => void) | undefined;
  /** Told whenever an agent actor's view changes (the live feed); not for a transition that leaves it as it was. */
  onActorChange?: ((agentId: string, view: AgentActorView) => void) | undefined;
}

export function settingsOf(agent: Agent): AgentSettings {
  return {
    mode: agent.deleted_at !== null || agent.status === 'stopped' ? 'stopped' : agent.status === 'paused' ? 'paused' : 'active',
    maxConcurrent: agent.max_concurrent_sessions,
    cooldownMs: agent.cooldown_sec * 1000,
  };
}

/** Rows win: what the database says is waiting, and when each may be claimed. */
export function inboxFromRows(wakeups: Wakeup[]): InboxEntry[] {
  return wakeups
    .filter((w) => w.status === 'queued' || w.status === 'scheduled_retry')
    .map((w) => ({ wakeupId: w.id, availableAt: w.status === 'scheduled_retry' ? w.scheduled_retry_at ?? w.available_at : w.available_at }));
}

export function cooldownFromRows(agent: Agent, now: number): number | null {
  if (agent.last_wakeup_finished_at === null || agent.cooldown_sec === 0) return null;
  const until = agent.last_wakeup_finished_at + agent.cooldown_sec * 1000;
  return until > now ? until : null;
}

/**
 * An agent snapshot without the last time its actor observed: an actor idle again after a run
 * differs only there, and a restored actor takes the time from the events it gets at boot.
 */
function fingerprintWithoutClock(snapshot: unknown): string {
  const { context, ...rest } = snapshot as { context: Record<string, unknown> };
  return JSON.stringify({ ...rest, context: { ...context, now: undefined } });
}

export class Supervisor implements WakeupNotifier {
  private readonly actors = new Map<string, Actor<AgentMachine>>();
  private readonly snapshots: SnapshotWriter;
  private readonly pipelineErrors = new Map<string, number>();
  private stopped = false;

  /** One provided machine for every actor: a machine per agent costs time and memory at 10,000 agents. */
  private readonly machine: AgentMachine;
  private readonly host: ActorHost;

  constructor(private readonly deps: SupervisorDeps) {
    this.host = new ActorHost(deps.inspect);
    this.snapshots = new SnapshotWriter(deps, SNAPSHOT_KIND, (id) => this.actors.get(id)?.getPersistedSnapshot(), fingerprintWithoutClock);
    this.machine = agentMachine.provide({
      actions: { dispatch: ({ context }, params) => this.dispatch(context.agentId, params.wakeupId) },
      actors: { sleepUntil: sleepUntil(deps.clock) },
    });
  }

  get size(): number {
    return this.actors.size;
  }

  /** Restores the actor of every agent this process owns from its snapshot, then reconciles it with the rows. */
  async boot(): Promise<void> {
    await this.restore(null);
  }

  /**
   * Agents just taken over from another replica (their leftovers recovered already): each actor is
   * restored from the snapshot its last owner stored, then reconciled with the rows, which win.
   */
  async adopt(agentIds: readonly string[]): Promise<void> {
    if (agentIds.length > 0 && !this.stopped) await this.restore(new Set(agentIds));
  }

  /** These agents are another replica's now: their actors stop here, and their snapshots are left to the new owner. */
  release(agentIds: ReadonlySet<string>): void {
    for (const agentId of agentIds) this.letGo(agentId);
  }

  private async restore(only: ReadonlySet<string> | null): Promise<void> {
    const { owner } = this.deps.ownership;
    const { agents, snapshots, open } = await this.deps.store.read(async (tx) => ({
      agents: await tx.agents.listLive(owner),
      snapshots: await tx.snapshots.all(SNAPSHOT_KIND, owner),
      open: await tx.wakeups.listOpen(),
    }));
    // A wakeup parked behind a checkout is offered like any queued one: boot recovery has released
    // every checkout of the stopped process, and a claim that still meets one parks it again.
    const openByAgent = groupBy(open, (w) => w.agent_id);
    let restored = 0;
    for (const agent of agents) {
      if (only && (!only.has(agent.id) || this.actors.has(agent.id))) continue;
      this.start(agent, snapshots.get(agent.id));
      this.reconcile(agent, openByAgent.get(agent.id) ?? []);
      restored++;
    }
    this.deps.log.info({ owner, agents: restored, open_wakeups: open.length, taken_over: only !== null }, 'agent actors restored');
  }

  addAgent(agent: Agent): void {
    if (this.actors.has(agent.id)) return;
    this.start(agent, undefined);
  }

  async agentChanged(agentId: string): Promise<void> {
    const agent = await this.deps.store.read((tx) => tx.agents.get(agentId));
    const actor = this.actors.get(agentId);
    if (!agent || agent.deleted_at !== null) {
      if (actor) this.host.stopActor(actor);
      this.actors.delete(agentId);
      this.snapshots.forget(agentId);
      await this.deps.store.transaction((tx) => tx.snapshots.delete(agentId));
      return;
    }
    // An agent another owner holds has its actor there, not here.
    if (!actor) return this.deps.ownership.holds(agentId) ? this.addAgent(agent) : undefined;
    actor.send({ type: 'SETTINGS_CHANGED', settings: settingsOf(agent), at: this.deps.clock.now() });
  }

  wakeupQueued(agentId: string, wakeupId: string, availableAt: number): void {
    this.actors.get(agentId)?.send({ type: 'WAKEUP_QUEUED', entry: { wakeupId, availableAt }, at: this.deps.clock.now() });
  }

  wakeupWithdrawn(agentId: string, wakeupId: string): void {
    this.actors.get(agentId)?.send({ type: 'WAKEUP_WITHDRAWN', wakeupId, at: this.deps.clock.now() });
  }

  view(agentId: string) {
    const actor = this.actors.get(agentId);
    return actor ? describeAgentActor(actor.getSnapshot()) : null;
  }

  snapshotOf(agentId: string) {
    return this.actors.get(agentId)?.getSnapshot();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
    for (const actor of this.actors.values()) this.host.stopActor(actor);
    this.actors.clear();
    this.host.stop();
  }

  /** Waits for pending snapshot writes (tests and shutdown). */
  flush(): Promise<void> {
    return this.snapshots.flush();
  }

  private start(agent: Agent, snapshot: unknown): void {
    // The subscription below outlives this call: it keeps the id, not the whole row (10,000 rows at 10,000 agents).
    const agentId = agent.id;
    const machine = this.machine;
    const input = { agentId: agent.id, settings: settingsOf(agent), now: this.deps.clock.now() };
    let actor: Actor<AgentMachine>;
    try {
      actor = this.host.createActor(machine, snapshot ? { input, snapshot: restorableSnapshot(snapshot) as never } : { input });
    } catch (error) {
      // A snapshot from an older machine may not restore; the rows rebuild everything anyway.
      this.deps.log.warn({ err: error, agent_id: agent.id }, 'discarding an agent snapshot that does not restore');
      actor = this.host.createActor(machine, { input });
    }
    let lastView: AgentActorView | null = null;
    actor.subscribe((state) => {
      this.snapshots.markDirty(agentId);
      if (!this.deps.onActorChange) return;
      const view = describeAgentActor(state);
      if (lastView !== null && sameView(lastView, view)) return;
      lastView = view;
      this.deps.onActorChange(agentId, view);
    });
    this.actors.set(agentId, actor);
    actor.start();
  }

  private reconcile(agent: Agent, open: Wakeup[]): void {
    const now = this.deps.clock.now();
    this.actors.get(agent.id)?.send({
      type: 'RECONCILE',
      settings: settingsOf(agent),
      inbox: inboxFromRows(open),
      cooldownUntil: cooldownFromRows(agent, now),
      at: now,
    });
  }

  private dispatch(agentId: string, wakeupId: string): void {
    const fence = this.deps.ownership.fenceOf(agentId);
    // The machine is mid-transition when it calls this; the pipeline's answer arrives as a new event.
    this.deps.process(wakeupId, fence).then(
      (outcome) => {
        this.pipelineErrors.delete(wakeupId);
        if (outcome.claimed === false) this.checkRefusedClaim(agentId, wakeupId, fence);
        this.ended(agentId, wakeupId, outcome.ranSession, outcome.retryAt, outcome.holdUntil ?? null);
      },
      (error) => {
        const attempts = (this.pipelineErrors.get(wakeupId) ?? 0) + 1;
        this.pipelineErrors.set(wakeupId, attempts);
        const delay = pipelineRetryDelay(error, attempts);
        this.deps.log.error({ err: error, agent_id: agentId, wakeup_id: wakeupId, attempts, retry_in_ms: delay },
          'wakeup pipeline failed; offering the wakeup again');
        this.ended(agentId, wakeupId, false, this.deps.clock.now() + delay);
      },
    );
  }

  /**
   * A claim that found nothing because this process lost the agent (off the hot path: one read): its
   * actor stops here, and its snapshot is left to the new owner.
   */
  private checkRefusedClaim(agentId: string, wakeupId: string, fence: Fence): void {
    this.deps.ownership.lostByRefusedClaim(agentId, wakeupId, fence, this.deps.clock.now()).then(
      (lost) => { if (lost) this.letGo(agentId); },
      (error: unknown) => this.deps.log.warn({ err: error, agent_id: agentId, wakeup_id: wakeupId }, 'could not read the lease of a refused claim'),
    );
  }

  private letGo(agentId: string): void {
    const actor = this.actors.get(agentId);
    if (!actor) return;
    this.actors.delete(agentId);
    this.snapshots.forget(agentId);
    this.host.stopActor(actor);
    this.deps.log.warn({ agent_id: agentId, owner: this.deps.ownership.owner }, 'stopped the actor of an agent another owner holds');
  }

  private ended(agentId: string, wakeupId: string, ranSession: boolean, retryAt: number | null, holdUntil: number | null = null): void {
    if (this.stopped) return;
    this.actors.get(agentId)?.send({ type: 'DISPATCH_ENDED', wakeupId, ranSession, retryAt, holdUntil, at: this.deps.clock.now() });
  }

}

type AgentActorView = ReturnType<typeof describeAgentActor>;

/**
 * Many transitions leave the view as it was (at boot, the reconcile that follows each actor's start
 * mostly does): the feed is told once, not a second time for each of 10,000 agents.
 */
function sameView(a: AgentActorView, b: AgentActorView): boolean {
  return (Object.keys(a) as (keyof AgentActorView)[]).every((key) => a[key] === b[key]);
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item)) ?? [];
    list.push(item);
    groups.set(key(item), list);
  }
  return groups;
}
