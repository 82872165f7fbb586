/**
 * What a replica hears from the others, and what it tells them (PostgreSQL: LISTEN/NOTIFY, see
 * persistence/postgres/notify.ts; SQLite has one process and none of this).
 *
 * - A wakeup another replica made claimable reaches the agent actor here if this replica holds
 *   the agent: the same entry as the in-process notification after a local commit.
 * - This replica's live feed entries go to the others, and theirs come into its feed marked
 *   `relayed` (never sent on again), so every replica's stream shows every replica's events.
 * - After the listening connection was lost, the open wakeups of the agents held here are read
 *   once and offered again: a signal sent while it was down is lost.
 */
import type { Logger } from 'pino';
import { inboxFromRows } from '../actors/supervisor.js';
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
  /** The agent actors' entry for a queued wakeup (Supervisor.wakeupQueued). */
  wakeupQueued: (agentId: string, wakeupId: string, availableAt: number) => void;
}

const FEED_KINDS = new Set<FeedItem['kind']>(['actor', 'wakeup', 'run', 'routine']);

export class ReplicaSignals {
  constructor(private readonly deps: ReplicaSignalsDeps) {}

  /** Sends every entry this process adds to its live feed to the other replicas; returns how to stop. */
  relayFeedTo(channel: ReplicaChannel): () => void {
    const subscription = this.deps.feed.on('changed', ({ item, relayed }) => {
      if (!relayed) channel.publish(item);
    });
    return () => subscription.unsubscribe();
  }

  /** A wakeup another replica made claimable: offered to its actor if the agent is held here. */
  readonly wakeupQueued = (signal: { agentId: string; wakeupId: string; availableAt: number }): void => {
    if (this.deps.holds(signal.agentId)) this.deps.wakeupQueued(signal.agentId, signal.wakeupId, signal.availableAt);
  };

  /** Live feed entries of another replica, into this replica's feed. */
  readonly relayed = (messages: unknown[]): void => {
    for (const message of messages) {
      if (isFeedItem(message)) this.deps.feed.trigger.publish({ item: message, relayed: true });
    }
  };

  /** The listener was down: one read of the open wakeups, offered again to the actors of the agents held here. */
  readonly reconnected = (): void => {
    this.reofferOpenWakeups().catch((error: unknown) =>
      this.deps.log.warn({ err: error }, 'could not re-read the open wakeups after the listener reconnected; the recovery sweep finds them'));
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

function isFeedItem(message: unknown): message is FeedItem {
  return typeof message === 'object' && message !== null && FEED_KINDS.has((message as { kind?: FeedItem['kind'] }).kind!);
}
