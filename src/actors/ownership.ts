/**
 * This process's ownership of agents: its owner id (the replica id) and the epoch of each agent
 * lease it holds. The leases are rows (agent_leases); this keeps the epochs it took, so a claim
 * carries its fence without reading it. With SQLite the one process owns every agent: at boot it
 * takes them all, which fences out whatever a dead process held, and its leases never expire. With
 * PostgreSQL each replica holds a share, under leases that expire unless renewed (replicas.ts).
 * Either way a process takes each new agent in the transaction that creates it.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { AgentLease, Fence, Store, Tx } from '../persistence/store.js';
import { newId } from '../services/ids.js';

/** An owner id per boot, readable in logs and rows: `own_<host>_<pid>_<unique>`. */
export function newOwnerId(): string {
  const host = hostname().replace(/[^A-Za-z0-9-]/g, '-').slice(0, 40) || 'host';
  return `${newId('own')}_${host}_${process.pid}`;
}

export interface OwnershipDeps {
  store: Store;
  log: Logger;
  clock?: Clock;
  /** How long a lease lasts without renewal; null: leases never expire (SQLite). */
  leaseMs?: number | null;
}

export class AgentOwnership {
  private readonly epochs = new Map<string, number>();

  constructor(private readonly deps: OwnershipDeps, readonly owner: string = newOwnerId()) {}

  /** The expiry a lease taken now gets: null when leases never expire. */
  private expiry(): number | null {
    const { clock, leaseMs } = this.deps;
    return leaseMs && clock ? clock.now() + leaseMs : null;
  }

  /**
   * Takes every agent for this process, epoch + 1 each, in one statement: whatever an earlier
   * process held is fenced out (the database lock proves it dead). Never expires.
   */
  async takeAll(): Promise<AgentLease[]> {
    const leases = await this.deps.store.transaction((tx) => tx.leases.takeAll(this.owner, null));
    this.epochs.clear();
    for (const lease of leases) this.epochs.set(lease.agent_id, lease.epoch);
    // A loop, not Math.min(...epochs): a spread of 100,000 arguments overflows the stack.
    let min: number | null = null;
    let max: number | null = null;
    for (const { epoch } of leases) {
      min = min === null ? epoch : Math.min(min, epoch);
      max = max === null ? epoch : Math.max(max, epoch);
    }
    this.deps.log.info({ owner: this.owner, agents: leases.length, epoch_min: min, epoch_max: max },
      leases.length === 0 ? 'no agents yet: this process owns every agent it creates' : `took over the ${leases.length} agent${leases.length === 1 ? '' : 's'} of this database; whatever an earlier process left is fenced out`);
    return leases;
  }

  /** Takes a new agent inside the transaction that creates it; its epoch is kept once that commits. */
  async takeWithin(tx: Tx, agentId: string): Promise<void> {
    const lease = await tx.leases.take(agentId, this.owner, this.expiry());
    tx.afterCommit(() => {
      this.epochs.set(agentId, lease.epoch);
      this.deps.log.info({ owner: this.owner, agent_id: agentId, epoch: lease.epoch }, 'took the lease of a new agent');
    });
  }

  /** The fence of an agent's claims. Epoch 0 when this process holds no lease on it: every fenced statement refuses it. */
  fenceOf(agentId: string): Fence {
    return { owner_id: this.owner, epoch: this.epochs.get(agentId) ?? 0 };
  }

  holds(agentId: string): boolean {
    return this.epochs.has(agentId);
  }

  /** The agents this process holds, with the epoch of each. */
  held(): ReadonlyMap<string, number> {
    return this.epochs;
  }

  /** Leases just taken (a take-over): this process acts for these agents from now on. */
  adopt(leases: readonly Pick<AgentLease, 'agent_id' | 'epoch'>[]): void {
    for (const lease of leases) this.epochs.set(lease.agent_id, lease.epoch);
  }

  /** Agents this process no longer holds (lost, or handed over): nothing here acts for them again. */
  forget(agentIds: Iterable<string>): void {
    for (const agentId of agentIds) this.epochs.delete(agentId);
  }

  /**
   * After a claim that found nothing: whether ownership was the reason (another owner took the agent
   * at a newer epoch, the lease expired, or this process never held it). Then this process lets the
   * agent go: it forgets the epoch, so nothing here acts for the agent again. One read, only on
   * that path; a claim that found nothing for another reason (the wakeup was gone) changes nothing.
   */
  async lostByRefusedClaim(agentId: string, wakeupId: string, fence: Fence, at: number): Promise<boolean> {
    const lease = await this.deps.store.read((tx) => tx.leases.leaseOf(agentId));
    const current = lease !== undefined && lease.owner_id === fence.owner_id && lease.epoch === fence.epoch
      && (lease.expires_at === null || lease.expires_at > at);
    if (current) return false;
    // A newer take by this very process (a boot's takeAll) keeps the agent.
    if (this.epochs.get(agentId) === fence.epoch) this.epochs.delete(agentId);
    this.deps.log.warn({
      owner: fence.owner_id, epoch: fence.epoch, agent_id: agentId, wakeup_id: wakeupId,
      holder: lease?.owner_id ?? null, holder_epoch: lease?.epoch ?? null, lease_expires_at: lease?.expires_at ?? null,
    }, 'claim fenced out: this process does not hold the agent at this epoch; it lets the agent go and leaves the wakeup to its owner');
    return !this.epochs.has(agentId);
  }
}
