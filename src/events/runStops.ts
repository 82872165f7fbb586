/**
 * A cancelled run's session is stopped where it runs. The cancel (services/runCancel.ts) commits on
 * whichever replica took the request; it announces the run as `cancelled` on the live feed, which
 * every replica's stream shows and which the other replicas receive (ReplicaSignals relays feed
 * entries). Each replica stops the session if it runs there: only the one holding the agent has it.
 */
import type { LiveFeed } from './liveFeed.js';

/** After the cancel's commit: the stream shows it, and the replicas hear it. */
export function announceCancelledRun(feed: LiveFeed, run: { id: string; agent_id: string }): void {
  feed.trigger.publish({ item: { kind: 'run', run_id: run.id, agent_id: run.agent_id, status: 'cancelled' } });
}

/** Stops the session of every run announced cancelled, here or on another replica; returns how to stop listening. */
export function stopCancelledSessions(feed: LiveFeed, stopSession: (runId: string) => void): () => void {
  const subscription = feed.on('changed', ({ item }) => {
    if (item.kind === 'run' && item.status === 'cancelled') stopSession(item.run_id);
  });
  return () => subscription.unsubscribe();
}
