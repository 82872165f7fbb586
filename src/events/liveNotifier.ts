import type { Logger } from 'pino';
import type { WakeupNotifier } from '../services/deps.js';
import type { TranscriptEntry } from '../persistence/store.js';
import { LIVE_TRANSCRIPT_CHARS, type LiveFeed } from './liveFeed.js';

/** The agent actors, as the notifier sees them. */
export interface AgentActors extends WakeupNotifier {
  /** Re-reads the agent's settings into its actor. */
  agentChanged(agentId: string): Promise<void>;
}

/**
 * Tells the agent actors and the live feed what has just been committed: a wakeup queued or
 * withdrawn, an agent changed, an agent actor's new view, a routine that fired. Its methods are
 * arrows, so each can be handed on as a callback.
 *
 * The agent actors are the supervisor, which drives the run pipeline, which needs the wakeup
 * service, which needs this notifier: the scheduler hands it a port to the supervisor, attached
 * once the supervisor is built (wiring/ports.ts, AgentActorsPort).
 */
export class LiveNotifier implements WakeupNotifier {
  constructor(
    private readonly agentActors: AgentActors,
    private readonly feed: LiveFeed,
    private readonly log: Pick<Logger, 'error'>,
  ) {}

  readonly wakeupQueued = (agentId: string, wakeupId: string, availableAt: number): void => {
    this.agentActors.wakeupQueued(agentId, wakeupId, availableAt);
    this.feed.trigger.publish({ item: { kind: 'wakeup', wakeup_id: wakeupId, agent_id: agentId, status: 'queued' } });
  };

  /** Also a feed entry: the stream shows it, and the replica holding the agent hears it (ReplicaSignals.relayed). */
  readonly wakeupWithdrawn = (agentId: string, wakeupId: string): void => {
    this.agentActors.wakeupWithdrawn(agentId, wakeupId);
    this.feed.trigger.publish({ item: { kind: 'wakeup', wakeup_id: wakeupId, agent_id: agentId, status: 'cancelled' } });
  };

  /** Called after commit, where nobody could handle a failure: it is logged. */
  readonly agentChanged = (agentId: string): void => {
    this.agentActors.agentChanged(agentId).catch((error) => this.log.error({ err: error, agent_id: agentId }, 'agent actor update failed'));
  };

  readonly actorChanged = (agentId: string, view: Record<string, unknown>): void => {
    this.feed.trigger.publish({ item: { kind: 'actor', agent_id: agentId, view } });
  };

  /** A routine created, changed, paused or archived: open dashboards re-read it. */
  readonly routineChanged = (routineId: string): void => {
    this.feed.trigger.publish({ item: { kind: 'routine', routine_id: routineId } });
  };

  readonly routineFired = this.routineChanged;

  /** A running session printed this: open run pages append it. */
  readonly transcriptPrinted = (runId: string, agentId: string, entry: TranscriptEntry): void => {
    const cut = entry.text.length > LIVE_TRANSCRIPT_CHARS;
    this.feed.trigger.publish({ item: {
      kind: 'transcript', run_id: runId, agent_id: agentId, seq: entry.seq, at: entry.at, stream: entry.stream, type: entry.type,
      text: cut ? entry.text.slice(0, LIVE_TRANSCRIPT_CHARS) : entry.text, cut,
    } });
  };

  /** A shared quota was exhausted or warned: the quotas page re-reads. */
  readonly quotaChanged = (key: string): void => {
    this.feed.trigger.publish({ item: { kind: 'quota', key } });
  };
}
