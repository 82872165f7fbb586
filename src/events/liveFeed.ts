import { createStore } from '@xstate/store';
import { z } from 'zod';

export type FeedItem =
  | { kind: 'actor'; agent_id: string; view: Record<string, unknown> }
  | { kind: 'wakeup'; wakeup_id: string; agent_id: string; status: string }
  | { kind: 'run'; run_id: string; agent_id: string; status: string }
  | { kind: 'routine'; routine_id: string }
  /** A task changed (src/events/taskFeed.ts); null for an approval about no task. */
  | { kind: 'task'; task_id: string | null }
  /** A running session printed this (dispatch/transcript.ts); `text` cut to LIVE_TRANSCRIPT_CHARS, the run keeps it whole. */
  | { kind: 'transcript'; run_id: string; agent_id: string; seq: number; at: number; stream: string; type: string; text: string; cut: boolean }
  /** A shared quota was exhausted or warned (services/quotas.ts). */
  | { kind: 'quota'; key: string };

/**
 * How much of one transcript event's text the live feed carries: replicas relay feed entries by
 * NOTIFY, whose payloads stay under 8000 bytes; the whole text is in GET /runs/:id/transcript.
 */
export const LIVE_TRANSCRIPT_CHARS = 2_000;

/**
 * The live read model behind the dashboard's stream: the latest view of every agent actor, and a
 * typed `changed` event for each change, so a page updates without reloading.
 */
export function createLiveFeed() {
  return createStore({
    context: { agents: {} as Record<string, Record<string, unknown>>, sequence: 0 },
    schemas: {
      // `relayed`: the item happened on another replica (relayed to this one), not in this process.
      emitted: { changed: z.object({ item: z.custom<FeedItem>(), sequence: z.number(), relayed: z.boolean() }) },
    },
    on: {
      publish: (context, event: { item: FeedItem; relayed?: boolean }, enqueue) => {
        const sequence = context.sequence + 1;
        enqueue.emit.changed({ item: event.item, sequence, relayed: event.relayed ?? false });
        // Updated in place: copying every agent's view on each change is quadratic (10,000 agents at boot).
        if (event.item.kind === 'actor') context.agents[event.item.agent_id] = event.item.view;
        return { agents: context.agents, sequence };
      },
    },
  });
}

export type LiveFeed = ReturnType<typeof createLiveFeed>;
