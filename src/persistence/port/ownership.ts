/**
 * Who runs what: agents' leases, the replicas that hold them, and the actors' snapshots (the port's
 * rules: persistence/store.ts).
 *
 * Isolation: every lease operation is one statement; an agent's epoch grows by one each time it
 * changes hands, and statements that act for an owner carry its Fence as a condition. A heartbeat
 * renews and reads liveness in one statement. Snapshots are read back only for the actors the owner
 * holds (`all(kind, owner)`), so a process restores only what its leases give it.
 */
import type { Agent } from '../../domain/types.js';

/**
 * Who may act on an agent: the owner that holds its lease, at the epoch it took it with. Statements
 * that act for an owner (a claim, a finish) carry it as a condition, never as a separate read.
 */
export interface Fence {
  owner_id: string;
  epoch: number;
}

export interface AgentLease extends Fence {
  agent_id: string;
  /** Null: never expires (SQLite: the next boot takes it over). */
  expires_at: number | null;
}

/**
 * Agent ownership. Each operation is one statement, so it is atomic however many owners call it at
 * once: the epoch of an agent grows by one each time it changes hands (an INSERT … ON CONFLICT DO
 * UPDATE that reads and bumps it in the same row lock), and every lease returned is the row as that
 * statement left it. Reads of other repositories scoped by owner (listLive, listUnfinished,
 * snapshots.all) see the leases of the same transaction.
 */
export interface LeaseRepo {
  /**
   * Takes every live agent (and every deleted one that still has a queued or running run) for
   * `owner`, whoever held it, epoch + 1 each (1 for an agent never leased): the SQLite boot, where
   * the database lock proves every earlier owner dead. Returns the leases taken.
   */
  takeAll(owner: string, expiresAt: number | null): Promise<AgentLease[]>;
  /** Takes one agent for `owner` (epoch + 1, or 1): a new agent, in the transaction that creates it. */
  take(agentId: string, owner: string, expiresAt: number | null): Promise<AgentLease>;
  /** An agent's lease, whoever holds it. */
  leaseOf(agentId: string): Promise<AgentLease | undefined>;
  /** The leases `owner` holds, expired or not. */
  held(owner: string): Promise<AgentLease[]>;
  /** Ends `owner`'s leases at `at` (all of them, or those of `agentIds`), keeping their epochs; returns how many. */
  release(owner: string, at: number, agentIds?: readonly string[]): Promise<number>;
}

/** A scheduler process registered on the database, as GET /api/office/replicas shows it. */
export interface Replica {
  id: string;
  started_at: number;
  heartbeat_at: number;
  /** Null: lives as long as its process holds the database (SQLite). */
  expires_at: number | null;
  /** Agents whose unexpired lease it holds. */
  agents_owned: number;
}

/** What one heartbeat learnt: the leases it renewed, who is alive, and whether agents wait for an owner. */
export interface Heartbeat {
  /** The leases of this replica that were still its own and unexpired, now renewed. */
  renewed: { agent_id: string; epoch: number }[];
  /** Ids of the live replicas (this one included), sorted. */
  live: string[];
  /** Agents that need an owner and have no unexpired lease: a dead or leaving replica's. */
  orphans: number;
}

/**
 * Replica membership and the hand-over of agents between replicas (PostgreSQL; SQLite registers
 * its one process and never heartbeats). Expiries are times of the caller's clock.
 */
export interface ReplicaRepo {
  /**
   * Registers replica `id` (started now, alive until `expiresAt`). False, with nothing written,
   * when a live replica (unexpired) already has this id.
   */
  register(id: string, now: number, expiresAt: number | null): Promise<boolean>;
  /** Forgets every other replica: SQLite's boot, where the database lock proves them dead. */
  retireOthers(id: string): Promise<void>;
  /**
   * Renews the replica's heartbeat and every unexpired lease it holds to `expiresAt`, and reads who
   * is alive and how many agents wait for an owner: ONE statement on PostgreSQL (a data-modifying
   * CTE), so an idle replica runs nothing else.
   */
  heartbeat(id: string, now: number, expiresAt: number): Promise<Heartbeat>;
  /** Agents that need an owner (live ones, and deleted ones with an unfinished run) with no lease unexpired at `now`, by id. */
  orphans(now: number): Promise<string[]>;
  /**
   * Takes those of `agentIds` whose lease is absent or expired at `now` for `owner` (epoch + 1, or
   * 1), in one statement that checks the expiry again on the locked row: of two replicas taking one
   * agent, one wins. Returns the leases taken.
   */
  takeOver(owner: string, agentIds: readonly string[], now: number, expiresAt: number): Promise<AgentLease[]>;
  /** The replica leaves: its row expires at `at` (its leases are released by leases.release). */
  leave(id: string, at: number): Promise<void>;
}

/** The actors whose snapshots are stored, and the agent whose lease owns each. */
export type SnapshotKind = 'agent' | 'trigger';

export interface SnapshotRepo {
  save(entries: { actor_id: string; kind: string; snapshot: unknown }[], at: number): Promise<void>;
  get(actorId: string): Promise<unknown | undefined>;
  /**
   * The snapshots of one kind whose actor this owner holds: an agent's snapshot is owned with the
   * agent, a schedule trigger's with its routine's assignee.
   */
  all(kind: SnapshotKind, owner: string): Promise<Map<string, unknown>>;
  delete(actorId: string): Promise<void>;
}
