/**
 * What a replica hears from the others, and what it tells them (PostgreSQL: LISTEN/NOTIFY, see
 * persistence/postgres/notify.ts; SQLite has one process and none of this).
 *
 * - A wakeup another replica made claimable reaches the agent actor here if this replica holds
 *   the agent: the same entry as the in-process notification after a local commit. So does one
 *   another replica withdrew (its feed entry says `cancelled`).
 * - This replica's live feed entries go to the others, and theirs come into its feed marked
 *   `relayed` (never sent on again), so every replica's stream shows every replica's events.
 * - So do its committed domain events (their ids and types, and their payloads when small): an
 *   agent changed through any replica reaches the actor of the replica that holds it.
 * - After the listening connection was lost, the open wakeups of the agents held here are read
 *   once and offered again, and so are the schedule triggers of their routines (a routine created,
 *   changed or reassigned through another replica meanwhile): a signal sent while it was down is lost.
 * - Another replica's claim on outbox events is a deadline: once it passes, this replica takes
 *   whatever the claim still holds (nothing, if its owner delivered it; a dead owner's events
 *   otherwise) and delivers it. One take per deadline heard, and none while nothing is claimed.
 *   Claims made before it listened were not heard: when it starts listening (at start, and after a
 *   reconnect) it reads the first of them to expire, once, and takes them from then on.
 */
import type { Logger } from 'pino';
import { inboxFromRows } from '../actors/supervisor.js';
import type { DomainEvent } from '../domain/events.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../persistence/store.js';
import type { FeedItem, LiveFeed } from './liveFeed.js';

/** The connection to the other replicas, as this side sees it. */
export interface ReplicaChannel {
  /** Sends a small message to every other replica, after the current turn. */
  publish(message: unknown): void;
}

export interface ReplicaSignalsDeps {
  store: Store;
  feed: LiveFeed;
  log: Pick<Logger, 'info' | 'warn'>;
  /** Whether this replica holds the agent's lease (its actor runs here). */
  holds: (agentId: string) => boolean;
  /** Re-reads an agent's settings into its actor (LiveNotifier.agentChanged). */
  agentChanged: (agentId: string) => void;
  /** Re-reads a routine's triggers (TriggerSupervisor.routineChanged): their actors run where its assignee is held. */
  routineChanged: (routineId: string) => void;
  /** Re-reads the triggers of every routine whose assignee is held here (TriggerSupervisor.reconcileHeld). */
  reconcileTriggers: () => Promise<unknown>;
  /** The agent actors' entry for a queued wakeup (Supervisor.wakeupQueued). */
  wakeupQueued: (agentId: string, wakeupId: string, availableAt: number) => void;
  /** Takes a withdrawn wakeup out of its agent actor's inbox (Supervisor.wakeupWithdrawn). */
  wakeupWithdrawn: (agentId: string, wakeupId: string) => void;
  /** Deadlines of other replicas' outbox claims are timers on this clock. */
  clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;
  /** Takes (for this replica) the outbox events whose claims expired, and delivers them: EventBus.replayUndelivered. */
  takeExpiredEvents: () => Promise<number>;
}

/** After a claim's deadline, a moment for the clocks of two replicas to agree that it passed. */
const CLAIM_DEADLINE_GRACE_MS = 100;

const FEED_KINDS = new Set<FeedItem['kind']>(['actor', 'wakeup', 'run', 'routine', 'task', 'transcript', 'quota']);

/** A committed domain event as relayed: its payload only when small (NOTIFY carries under 8000 bytes). */
export interface RelayedEvent {
  kind: 'event';
  id: number;
  type: DomainEvent['type'];
  payload: DomainEvent['payload'] | null;
}

/** Payloads above this are left out of a relayed event: a receiver reads what it needs by id. */
const MAX_RELAYED_PAYLOAD_BYTES = 1_000;

/** A routine created or changed on another replica: the one holding its assignee starts, moves or stops its trigger actors. */
interface RoutineChange {
  kind: 'routine_changed';
  routine_id: string;
}

/** Events after which the replica holding the agent re-reads its settings into the actor. */
const AGENT_CHANGES = new Set<DomainEvent['type']>(['agent.updated', 'agent.deleted']);

export class ReplicaSignals {
  /** The next deadline armed, and the latest one heard (a later claim heard while a timer waits). */
  private claimTimer: { handle: unknown; at: number } | null = null;
  private latestClaim: number | null = null;
  private stopped = false;
  private channel: ReplicaChannel | null = null;

  constructor(private readonly deps: ReplicaSignalsDeps) {}

  /** No more deadlines: the timer is cleared (the next boot takes whatever is left). */
  stop(): void {
    this.stopped = true;
    if (this.claimTimer) this.deps.clock.clearTimeout(this.claimTimer.handle);
    this.claimTimer = null;
  }

  /** Another replica claimed outbox events until `until`: take what is left of them after that, if anything. */
  readonly outboxClaimed = (claim: { owner: string; until: number }): void => {
    this.latestClaim = Math.max(this.latestClaim ?? claim.until, claim.until);
    if (this.claimTimer && this.claimTimer.at <= claim.until + CLAIM_DEADLINE_GRACE_MS) return;
    // The earliest deadline heard is the next one; the latest follows it (claimDeadlinePassed).
    if (this.claimTimer) this.deps.clock.clearTimeout(this.claimTimer.handle);
    this.armClaimDeadline(claim.until);
  };

  private armClaimDeadline(until: number): void {
    if (this.stopped) return;
    const at = until + CLAIM_DEADLINE_GRACE_MS;
    const handle = this.deps.clock.setTimeout(() => void this.claimDeadlinePassed(at), Math.max(0, at - this.deps.clock.now()));
    this.claimTimer = { handle, at };
  }

  private async claimDeadlinePassed(at: number): Promise<void> {
    // Claims heard from here on arm a deadline of their own.
    this.claimTimer = null;
    const latest = this.latestClaim;
    this.latestClaim = null;
    try {
      const taken = await this.deps.takeExpiredEvents();
      if (taken > 0) this.deps.log.warn({ events: taken }, 'took outbox events whose claim expired (their replica died before delivering them); delivering them here');
    } catch (error) {
      this.deps.log.warn({ err: error }, 'taking the outbox events of an expired claim failed; the next claim deadline or boot takes them');
    }
    // Claims heard while this deadline waited that end after it: one more take at the latest of them.
    if (latest !== null && latest + CLAIM_DEADLINE_GRACE_MS > at) this.outboxClaimed({ owner: 'heard earlier', until: latest });
  }

  /**
   * Sends every entry this process adds to its live feed, and the committed domain events another
   * replica acts on (AGENT_CHANGES), to the other replicas; returns how to stop. Other events stay
   * here: each relayed message is a share of a NOTIFY, and nobody would read them.
   */
  relayTo(channel: ReplicaChannel, committed: { observe(observer: (events: readonly DomainEvent[]) => void): () => void }): () => void {
    this.channel = channel;
    const subscription = this.deps.feed.on('changed', ({ item, relayed }) => {
      if (!relayed) channel.publish(item);
    });
    const stopEvents = committed.observe((events) => {
      for (const event of events) if (AGENT_CHANGES.has(event.type)) channel.publish(relayedEvent(event));
    });
    return () => {
      this.channel = null;
      subscription.unsubscribe();
      stopEvents();
    };
  }

  /**
   * A routine was created or changed through this replica (after its commit): the others hear of
   * it too, since its trigger actors run on whichever replica holds its assignee.
   */
  readonly routineChanged = (routineId: string): void => {
    this.channel?.publish({ kind: 'routine_changed', routine_id: routineId } satisfies RoutineChange);
  };

  /** A wakeup another replica made claimable: offered to its actor if the agent is held here. */
  readonly wakeupQueued = (signal: { agentId: string; wakeupId: string; availableAt: number }): void => {
    if (this.deps.holds(signal.agentId)) this.deps.wakeupQueued(signal.agentId, signal.wakeupId, signal.availableAt);
  };

  /** Live feed entries of another replica, into this replica's feed; its domain events, to the agents they change. */
  readonly relayed = (messages: unknown[]): void => {
    for (const message of messages) {
      if (isFeedItem(message)) this.feedItemElsewhere(message);
      else if (isRelayedEvent(message)) this.committedElsewhere(message);
      else if (isRoutineChange(message)) this.deps.routineChanged(message.routine_id);
    }
  };

  /**
   * Into this replica's stream; and a wakeup withdrawn elsewhere (a scheduled retry cancelled by a
   * reassignment) leaves its actor's inbox here, instead of waiting there until its retry time.
   */
  private feedItemElsewhere(item: FeedItem): void {
    this.deps.feed.trigger.publish({ item, relayed: true });
    if (item.kind === 'wakeup' && item.status === 'cancelled' && this.deps.holds(item.agent_id)) {
      this.deps.wakeupWithdrawn(item.agent_id, item.wakeup_id);
    }
  }

  private committedElsewhere(event: RelayedEvent): void {
    const agentId = (event.payload as { agent_id?: unknown } | null)?.agent_id;
    if (AGENT_CHANGES.has(event.type) && typeof agentId === 'string' && this.deps.holds(agentId)) this.deps.agentChanged(agentId);
  }

  /**
   * Listening: outbox claims made before were not heard, so the first of them to expire is read
   * (one read; nothing is armed when there is none). After a reconnect, one read of the open
   * wakeups, offered again to the actors of the agents held here, and one of the live schedule
   * triggers, reconciled with the trigger actors here (the boot reads both itself).
   */
  readonly listening = async (reconnected: boolean): Promise<void> => {
    try {
      // Its own id's included: a replica restarted under the same id holds none of its earlier boot's claims.
      const until = await this.deps.store.read((tx) => tx.outbox.nextClaimExpiry());
      if (until !== null) this.outboxClaimed({ owner: 'claimed before this replica listened', until });
    } catch (error) {
      this.deps.log.warn({ err: error }, 'could not read the outbox claims made before listening; the next claim heard or boot takes their events');
    }
    if (!reconnected) return;
    await Promise.all([
      this.reofferOpenWakeups().catch((error: unknown) =>
        this.deps.log.warn({ err: error }, 'could not re-read the open wakeups after the listener reconnected; the recovery sweep finds them')),
      this.deps.reconcileTriggers().catch((error: unknown) =>
        this.deps.log.warn({ err: error }, 'could not re-read the schedule triggers after the listener reconnected; a routine changed meanwhile is re-read at its next change, or at the next boot')),
    ]);
  };

  async reofferOpenWakeups(): Promise<number> {
    const open = await this.deps.store.read((tx) => tx.wakeups.listOpen());
    const held = open.filter((wakeup) => this.deps.holds(wakeup.agent_id));
    const byId = new Map(held.map((wakeup) => [wakeup.id, wakeup.agent_id]));
    const entries = inboxFromRows(held);
    for (const entry of entries) this.deps.wakeupQueued(byId.get(entry.wakeupId)!, entry.wakeupId, entry.availableAt);
    this.deps.log.info({ offered: entries.length }, 'offered the open wakeups of the agents held here again after the listener reconnected');
    return entries.length;
  }
}

function relayedEvent(event: DomainEvent): RelayedEvent {
  const small = JSON.stringify(event.payload).length <= MAX_RELAYED_PAYLOAD_BYTES;
  return { kind: 'event', id: event.id, type: event.type, payload: small ? event.payload : null };
}

function isRelayedEvent(message: unknown): message is RelayedEvent {
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'event';
}

function isRoutineChange(message: unknown): message is RoutineChange {
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'routine_changed'
    && typeof (message as { routine_id?: unknown }).routine_id === 'string';
}

function isFeedItem(message: unknown): message is FeedItem {
  return typeof message === 'object' && message !== null && FEED_KINDS.has((message as { kind?: FeedItem['kind'] }).kind!);
}
