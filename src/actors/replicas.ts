/**
 * Replica membership: this process as one replica among the scheduler processes on one database,
 * with no leader. It registers under its replica id, and every OFFICE_LEASE_SEC / 3 it runs one
 * heartbeat statement that renews its row and every lease it holds and reads who is alive and
 * whether agents wait for an owner. That is all an idle replica runs. From the answer it decides:
 * - leases it held that were not renewed are lost (another replica took them): their actors and
 *   sessions stop here;
 * - agents it holds that rendezvous hashing gives to another live replica are handed over (their
 *   leases released) once no session of theirs runs here;
 * - agents waiting for an owner that rendezvous hashing gives to it are taken over (epoch + 1, the
 *   fence), then recovered, restored and reconciled with the rows (`adopt`).
 * A replica that cannot renew, and whose leases would expire before its next heartbeat, lets every
 * agent go by itself: another replica may take them then. With SQLite there is one process, which takes every agent at boot under leases
 * that never expire, and never heartbeats: nothing changes there.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Heartbeat, Store, Tx } from '../persistence/store.js';
import type { AgentOwnership } from './ownership.js';

export interface ReplicaMembershipDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  ownership: AgentOwnership;
  /** How long a lease lasts without renewal; null: one process owns everything for good (SQLite). */
  leaseMs: number | null;
  /** Agents just taken over: recover what their last owner left, restore their actors and triggers. */
  adopt: (agentIds: string[]) => Promise<void>;
  /** Agents this replica no longer holds: stop their actors, triggers and sessions. */
  letGo: (agentIds: ReadonlySet<string>) => void;
  /** Whether the agent can be handed over now: no session of it runs here. */
  canHandOver: (agentId: string) => boolean;
  /**
   * After each heartbeat: what a replica learns from the rows while its sessions run (a person's
   * cancel whose signal it missed). Never rejects.
   */
  afterHeartbeat?: () => Promise<void>;
}

/** How long a replica whose id is held by a live registration waits for it to expire, at most, in leases. */
const REGISTER_WAIT_LEASES = 2;

/** A replica heartbeats three times per lease: a lease outlives two missed heartbeats. */
function heartbeatEvery(leaseMs: number): number {
  return Math.max(1, Math.floor(leaseMs / 3));
}

/** 32-bit FNV-1a with a murmur3 finaliser: a fast, well-mixed score for rendezvous hashing. */
function score(replicaId: string, agentId: string): number {
  let hash = 0x811c9dc5;
  const key = `${replicaId}\u0000${agentId}`;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * Rendezvous (highest random weight) hashing: the replica an agent belongs to among `replicas`.
 * Every replica computes the same answer from the same live set, and when a replica joins or leaves
 * only the agents it wins or held move.
 */
export function rendezvousOwner(agentId: string, replicas: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const replica of replicas) {
    const s = score(replica, agentId);
    if (s > bestScore || (s === bestScore && best !== null && replica < best)) {
      best = replica;
      bestScore = s;
    }
  }
  return best;
}

export class ReplicaMembership {
  private timer: unknown = null;
  private leaving = false;
  private ticking: Promise<void> | null = null;
  private lastRenewedAt: number | null = null;
  /** Agents whose lease the last heartbeat renewed while no actor of theirs ran here (see releaseUnheld). */
  private unheldRenewed = new Set<string>();
  private live: readonly string[] = [];
  private renewals = 0;
  /**
   * False while the replica boots, until its actors are up (`start`): its heartbeat already renews
   * the leases join took (a boot of many agents may outlast a lease), but it takes and hands over
   * nothing, since an agent taken while the boot restores the actors of what join took would have its
   * recovery, actor and triggers started twice, or out of order.
   */
  private rebalancing = false;

  constructor(private readonly deps: ReplicaMembershipDeps) {}

  get id(): string {
    return this.deps.ownership.owner;
  }

  /** Heartbeats that renewed this replica's leases since start: a /metrics counter. */
  get leaseRenewals(): number {
    return this.renewals;
  }

  /** Agents whose lease this replica holds. */
  get agentsOwned(): number {
    return this.deps.ownership.held().size;
  }

  /** The live replicas as of the last heartbeat (this one alone with SQLite). */
  get liveReplicas(): readonly string[] {
    return this.live;
  }

  /**
   * Registers this replica and takes its agents, before recovery and the actors boot. SQLite: every
   * agent (the database lock proves every earlier process dead). PostgreSQL: the agents waiting for
   * an owner that rendezvous hashing gives to this replica; the others come as live replicas hand
   * them over.
   */
  async join(): Promise<void> {
    const { store, clock, ownership, leaseMs } = this.deps;
    if (leaseMs === null) {
      await store.transaction(async (tx) => {
        await tx.replicas.retireOthers(this.id);
        await tx.replicas.register(this.id, clock.now(), null);
      });
      this.live = [this.id];
      await ownership.takeAll();
      return;
    }
    await this.register(leaseMs);
    const beat = await this.heartbeat(leaseMs);
    this.live = beat.live;
    this.deps.log.info({ replica: this.id, live: beat.live, orphans: beat.orphans, lease_ms: leaseMs }, 'replica joined');
    if (beat.orphans > 0) await this.takeOver(false);
    if (!this.leaving) this.schedule();
  }

  /**
   * Once the actors and triggers of the agents join took are up, and before the rest of the boot
   * (PostgreSQL only): heartbeats also take orphans and hand agents over from now on, and the agents
   * waiting for an owner that this replica wins are taken (and adopted) at once, not a heartbeat
   * later. Peers hand a joining replica its share as soon as they see it, often while it still boots.
   */
  async start(): Promise<void> {
    if (this.deps.leaseMs === null || this.leaving) return;
    this.rebalancing = true;
    if (this.timer === null) this.schedule();
    await this.takeWaitingNow();
  }

  /**
   * One take of the orphans this replica wins, in turn with the heartbeats: after the one in flight
   * (which may have read its answer before rebalancing began); a heartbeat started since takes them itself.
   */
  private async takeWaitingNow(): Promise<void> {
    await this.ticking;
    this.ticking ??= this.takeOver(true)
      .catch((error: unknown) => this.deps.log.warn({ err: error, replica: this.id }, 'taking the agents waiting for this replica failed; its next heartbeat tries again'))
      .finally(() => {
        this.ticking = null;
      });
    await this.ticking;
  }

  /**
   * One heartbeat and what follows from it. Never rejects: a failed heartbeat is logged, and when the
   * leases would expire before the next one this replica lets its agents go by itself.
   */
  tick(): Promise<void> {
    this.ticking ??= this.beat().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  /**
   * SIGTERM, first step: the replica stops heartbeating and leaves the live set, and the agents with
   * no session running here are handed over at once (their leases released): the survivors take
   * them at their next heartbeat. The agents whose sessions still drain follow in `leave`; their
   * leases last until then, or expire a lease after the last heartbeat.
   */
  async handOverIdle(): Promise<void> {
    if (!(await this.stopHeartbeat())) return;
    const idle = [...this.deps.ownership.held().keys()].filter((agentId) => this.deps.canHandOver(agentId));
    await this.hand(idle, 'shutting down: no session of these agents runs here');
  }

  /** SIGTERM, last step (after the sessions drained): every lease left is released. */
  async leave(): Promise<void> {
    if (!(await this.stopHeartbeat())) return;
    await this.hand(null, 'shut down');
  }

  /** False with SQLite, which never heartbeats and keeps its leases for the next boot to take. */
  private async stopHeartbeat(): Promise<boolean> {
    this.leaving = true;
    this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.ticking?.catch(() => undefined);
    return this.deps.leaseMs !== null;
  }

  /** Releases these leases (null: all) and marks the replica gone, in one transaction. */
  private async hand(agentIds: string[] | null, reason: string): Promise<void> {
    const agents = agentIds ?? [...this.deps.ownership.held().keys()];
    const now = this.deps.clock.now();
    this.deps.ownership.forget(agents);
    this.deps.letGo(new Set(agents));
    try {
      await this.deps.store.transaction(async (tx) => {
        await tx.leases.release(this.id, now, agentIds ?? undefined);
        await tx.replicas.leave(this.id, now);
      });
      this.deps.log.info({ replica: this.id, agents: agents.length, reason }, 'replica leaving: handed agents over');
    } catch (error) {
      this.deps.log.warn({ err: error, replica: this.id }, 'could not release the leases on leaving; they expire instead');
    }
  }

  private schedule(): void {
    const every = heartbeatEvery(this.deps.leaseMs!);
    this.timer = this.deps.clock.setTimeout(() => {
      if (this.leaving) return;
      void this.tick().then(() => this.deps.afterHeartbeat?.()).finally(() => {
        if (!this.leaving) this.schedule();
      });
    }, every);
  }

  private async register(leaseMs: number): Promise<void> {
    const { store, clock, log } = this.deps;
    const deadline = clock.now() + REGISTER_WAIT_LEASES * leaseMs;
    for (;;) {
      const now = clock.now();
      if (await store.transaction((tx) => tx.replicas.register(this.id, now, now + leaseMs))) return;
      if (now >= deadline) {
        throw new Error(`replica id '${this.id}' is held by a live replica (its heartbeat is under OFFICE_LEASE_SEC old): `
          + 'give each replica its own OFFICE_REPLICA_ID, or leave it unset (host name and pid)');
      }
      log.warn({ replica: this.id }, 'a live registration holds this replica id; waiting for it to expire');
      await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), Math.max(100, Math.floor(leaseMs / 3))));
    }
  }

  /** The one statement: autocommitted where the store can (no BEGIN/COMMIT around it). */
  private async heartbeat(leaseMs: number): Promise<Heartbeat> {
    const { store, clock } = this.deps;
    const now = clock.now();
    const work = (tx: Tx) => tx.replicas.heartbeat(this.id, now, now + leaseMs);
    const beat = await (store.autocommit ? store.autocommit(work) : store.transaction(work));
    this.renewals++;
    this.lastRenewedAt = now;
    return beat;
  }

  private async beat(): Promise<void> {
    const leaseMs = this.deps.leaseMs!;
    // Taken before the statement: a lease taken while it runs (a new agent) is not in its answer, and is not lost.
    const heldBefore = new Map(this.deps.ownership.held());
    let beat: Heartbeat;
    try {
      beat = await this.heartbeat(leaseMs);
    } catch (error) {
      this.deps.log.warn({ err: error, replica: this.id }, 'lease heartbeat failed');
      this.selfFence(leaseMs);
      return;
    }
    this.letGoOfLost(beat, heldBefore);
    const changed = beat.live.join(',') !== this.live.join(',');
    if (changed) this.deps.log.info({ replica: this.id, live: beat.live, was: this.live }, 'the live replicas changed');
    this.live = beat.live;
    if (this.leaving || !this.rebalancing) return;
    try {
      await this.releaseUnheld(beat);
      await this.handOverMisplaced();
      if (beat.orphans > 0) await this.takeOver(true);
    } catch (error) {
      this.deps.log.warn({ err: error, replica: this.id }, 'rebalancing agents failed; the next heartbeat tries again');
    }
  }

  /**
   * Leases this replica held when its heartbeat started and that it did not renew (at the epoch held)
   * are another's now, unless this replica took the agent again meanwhile.
   */
  private letGoOfLost(beat: Heartbeat, heldBefore: ReadonlyMap<string, number>): void {
    const renewed = new Map(beat.renewed.map((lease) => [lease.agent_id, lease.epoch]));
    const held = this.deps.ownership.held();
    const lost = [...heldBefore]
      .filter(([agentId, epoch]) => renewed.get(agentId) !== epoch && held.get(agentId) === epoch)
      .map(([agentId]) => agentId);
    if (lost.length === 0) return;
    this.deps.ownership.forget(lost);
    this.deps.letGo(new Set(lost));
    this.deps.log.warn({ replica: this.id, agents: lost.length, agent_ids: lost.slice(0, 20) },
      'lost agent leases (expired or taken by another replica): their actors and sessions stop here');
  }

  /**
   * No renewal, and the next heartbeat would come after the leases expire: another replica may take
   * them then, so nothing here acts for them from now (the fence would refuse it anyway; this stops
   * the sessions before a new owner starts its own).
   */
  private selfFence(leaseMs: number): void {
    const held = [...this.deps.ownership.held().keys()];
    if (held.length === 0 || this.lastRenewedAt === null) return;
    if (this.deps.clock.now() + heartbeatEvery(leaseMs) < this.lastRenewedAt + leaseMs) return;
    this.deps.ownership.forget(held);
    this.deps.letGo(new Set(held));
    this.deps.log.error({ replica: this.id, agents: held.length, last_renewed_at: this.lastRenewedAt },
      'no lease renewal, and the leases expire before the next heartbeat: letting every agent go');
  }

  /**
   * Leases the heartbeat renewed for agents this replica runs no actor for: a release whose
   * transaction failed (a deadlock) or a self-fence let the agent go here but left its lease in
   * the database, which every heartbeat would renew for ever, with nobody running the agent. Such a
   * lease is released when two heartbeats in a row find it (one may race with a take in flight),
   * and another replica (or this one) takes the agent as an orphan.
   */
  private async releaseUnheld(beat: Heartbeat): Promise<void> {
    const held = this.deps.ownership.held();
    const unheld = beat.renewed.map((lease) => lease.agent_id).filter((agentId) => !held.has(agentId));
    const stale = unheld.filter((agentId) => this.unheldRenewed.has(agentId));
    this.unheldRenewed = new Set(unheld);
    if (stale.length === 0) return;
    const now = this.deps.clock.now();
    await this.deps.store.transaction((tx) => tx.leases.release(this.id, now, stale));
    this.deps.log.warn({ replica: this.id, agents: stale.length, agent_ids: stale.slice(0, 20) },
      'released leases this replica kept renewing but runs no actor for; the agents go to whichever replica takes them');
  }

  /** Agents that another live replica wins are handed over once no session of theirs runs here. */
  private async handOverMisplaced(): Promise<void> {
    const away = [...this.deps.ownership.held().keys()].filter((agentId) => rendezvousOwner(agentId, this.live) !== this.id);
    const ready = away.filter((agentId) => this.deps.canHandOver(agentId));
    if (ready.length > 0) await this.release(ready, 'another live replica wins them');
  }

  private async release(agentIds: string[], reason: string): Promise<void> {
    if (agentIds.length === 0) return;
    // The actors stop first, so that nothing here claims for these agents while the release commits.
    this.deps.ownership.forget(agentIds);
    this.deps.letGo(new Set(agentIds));
    const now = this.deps.clock.now();
    await this.deps.store.transaction((tx) => tx.leases.release(this.id, now, agentIds));
    this.deps.log.info({ replica: this.id, agents: agentIds.length, reason }, 'handed agents over');
  }

  /** Takes the agents waiting for an owner that rendezvous hashing gives to this replica. */
  private async takeOver(adopt: boolean): Promise<void> {
    const { store, clock, ownership, leaseMs } = this.deps;
    const now = clock.now();
    const orphans = await store.read((tx) => tx.replicas.orphans(now));
    const mine = orphans.filter((agentId) => rendezvousOwner(agentId, this.live) === this.id);
    if (mine.length === 0) return;
    const leases = await store.transaction((tx) => tx.replicas.takeOver(this.id, mine, now, now + leaseMs!));
    if (leases.length === 0) return;
    ownership.adopt(leases);
    this.deps.log.info({ replica: this.id, agents: leases.length, agent_ids: leases.slice(0, 20).map((l) => l.agent_id) },
      'took over agents whose lease had expired or was released');
    if (adopt) await this.deps.adopt(leases.map((lease) => lease.agent_id));
  }
}
