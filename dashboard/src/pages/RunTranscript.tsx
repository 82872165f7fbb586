/**
 * What a run's session printed (GET /api/office/runs/:id/transcript), with what it prints from here
 * on appended live from the event stream: the assistant's text, its tool calls, errors.
 */
import { useEffect, useState } from 'react';
import { useApi } from '../hooks';
import { useLiveTranscript } from '../live';
import type { LiveTranscriptEvent, Transcript } from '../types';
import { formatTime } from '../format';
import { Empty, ErrorBox, Loading, YourZoneHint } from '../ui';

/** Event types shown as the agent speaking; the rest are shown as its work. */
const SPOKEN = new Set(['assistant', 'agent_message', 'result']);

/**
 * The server writes a running session's events every half second (dispatch/transcript.ts): what
 * it printed before this page listened is read again once that write has surely happened.
 */
const AFTER_FLUSH_MS = 1_000;

/** The hh:mm:ss of an event, in the browser's zone, as the hint above the list says. */
const clockOf = (at: number) => formatTime(new Date(at).toISOString()).slice(11);

export function RunTranscript(props: { runId: string; running: boolean }) {
  const stored = useApi<Transcript>(`/api/office/runs/${props.runId}/transcript`);
  const [live, setLive] = useState<LiveTranscriptEvent[]>([]);
  useLiveTranscript(props.runId, (event) => setLive((events) => [...events, event]));
  const { reload } = stored;
  const storedUpTo = stored.data?.events.at(-1)?.seq ?? 0;
  // Events printed before this page listened, and not written yet when it read: a gap before the first live one.
  const gap = live.length > 0 && live[0]!.seq > storedUpTo + 1;
  useEffect(() => {
    if (!props.running && !gap) return;
    const timer = window.setTimeout(reload, AFTER_FLUSH_MS);
    return () => window.clearTimeout(timer);
  }, [props.running, gap, reload]);
  if (stored.error) return <ErrorBox error={stored.error} />;
  if (!stored.data) return <Loading what="transcript" />;
  const seen = new Set(stored.data.events.map((e) => e.seq));
  const events = [
    ...stored.data.events.map((e) => ({ ...e, at: Date.parse(e.at) })),
    ...live.filter((e) => !seen.has(e.seq)),
  ].sort((a, b) => a.seq - b.seq);
  if (events.length === 0) return <Empty>{props.running ? 'Nothing printed yet.' : 'The session printed nothing.'}</Empty>;
  return (
    <>
      {stored.data.truncated && <p className="muted">Only the last part of the transcript is kept (OFFICE_TRANSCRIPT_MAX_BYTES).</p>}
      <p><YourZoneHint /></p>
      <ol className="transcript" aria-label="Transcript">
        {events.map((e) => (
          <li key={e.seq} data-type={e.type} className={`${e.stream === 'stderr' ? 'stderr' : ''} ${SPOKEN.has(e.type) ? 'spoken' : ''}`.trim()}>
            <time className="muted" dateTime={new Date(e.at).toISOString()}>{clockOf(e.at)}</time> <code>{e.type}</code>
            <pre>{e.text}</pre>
          </li>
        ))}
      </ol>
    </>
  );
}
