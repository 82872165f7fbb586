/**
 * Live updates: one EventSource on /api/office/stream for the whole app. Every wakeup, run,
 * routine and actor change bumps `version`, which makes the data hooks refetch; actor views are
 * also kept here, so the agent page's state chart moves as the actor moves. The stream is
 * authenticated by the session cookie the browser sends with it (signin.tsx), never by a token in its URL.
 */
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { ActorView, FeedItem, LiveTranscriptEvent } from './types';

/**
 * What running sessions print arrives many times a second: it goes to the run pages that listen
 * (useLiveTranscript), and does not make every query on screen refetch.
 */
const transcripts = new EventTarget();

/** Calls `onEvent` with each event run `runId` prints while the page is open. */
export function useLiveTranscript(runId: string, onEvent: (event: LiveTranscriptEvent) => void): void {
  const latest = useRef(onEvent);
  latest.current = onEvent;
  useEffect(() => {
    const listener = (event: Event) => latest.current((event as CustomEvent<LiveTranscriptEvent>).detail);
    transcripts.addEventListener(runId, listener);
    return () => transcripts.removeEventListener(runId, listener);
  }, [runId]);
}

interface LiveState {
  /** Bumped (debounced) on every change the server reports and on every reconnect. */
  version: number;
  connected: boolean;
  /** Latest actor view per agent id, as the stream reported it. */
  actors: Record<string, ActorView>;
}

const LiveContext = createContext<LiveState>({ version: 0, connected: false, actors: {} });

/** Refetch soon after a change, and once more a little later for rows written just after the event. */
const REFRESH_DELAYS_MS = [120, 1000];

export function LiveProvider(props: { children: ReactNode }) {
  const [state, setState] = useState<LiveState>({ version: 0, connected: false, actors: {} });
  const timers = useRef<number[]>([]);

  useEffect(() => {
    const source = new EventSource('/api/office/stream');
    const bump = () => {
      timers.current.forEach((timer) => window.clearTimeout(timer));
      timers.current = REFRESH_DELAYS_MS.map((delay) =>
        window.setTimeout(() => setState((s) => ({ ...s, version: s.version + 1 })), delay));
    };
    source.onopen = () => {
      setState((s) => ({ ...s, connected: true }));
      bump();
    };
    source.onerror = () => setState((s) => ({ ...s, connected: false }));
    source.addEventListener('hello', (event) => {
      const data = JSON.parse((event as MessageEvent<string>).data) as { agents: Record<string, ActorView> };
      setState((s) => ({ ...s, actors: { ...s.actors, ...data.agents } }));
    });
    const onItem = (event: Event) => {
      const item = JSON.parse((event as MessageEvent<string>).data) as FeedItem;
      if (item.kind === 'actor') setState((s) => ({ ...s, actors: { ...s.actors, [item.agent_id]: item.view } }));
      bump();
    };
    for (const kind of ['actor', 'wakeup', 'run', 'routine', 'task', 'quota']) source.addEventListener(kind, onItem);
    source.addEventListener('transcript', (event) => {
      const { kind: _kind, run_id, agent_id: _agent, cut: _cut, ...printed } = JSON.parse((event as MessageEvent<string>).data) as Extract<FeedItem, { kind: 'transcript' }>;
      transcripts.dispatchEvent(new CustomEvent(run_id, { detail: printed }));
    });
    return () => {
      source.close();
      timers.current.forEach((timer) => window.clearTimeout(timer));
    };
  }, []);

  return <LiveContext.Provider value={state}>{props.children}</LiveContext.Provider>;
}

export function useLive(): LiveState {
  return useContext(LiveContext);
}
