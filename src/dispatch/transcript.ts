/**
 * A run's transcript (API.md, "Transcript"): the events its session prints go to the live feed at
 * once and to the database in small batches, so the run page shows them while the run runs, and a
 * run keeps at most OFFICE_TRANSCRIPT_MAX_BYTES of them, the last ones.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Store, TranscriptEntry } from '../persistence/store.js';
import type { TranscriptEvent } from './launch.js';

/**
 * How long events wait in memory before they are written: a chatty session costs at most two
 * writes a second, and a reader of GET /runs/:id/transcript is at most half a second behind the
 * live feed.
 */
export const TRANSCRIPT_FLUSH_MS = 500;

export interface TranscriptDeps {
  store: Store;
  /** Event times. */
  clock: Pick<Clock, 'now'>;
  /**
   * The flush delay's timers: a write batch, not a deadline of the schedule, so it runs on the
   * wall clock even where tests drive the schedule's time by hand.
   */
  timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  log: Pick<Logger, 'warn'>;
  maxBytes: number;
  /** The live feed: each event as it is printed. */
  publish: (runId: string, agentId: string, entry: TranscriptEntry) => void;
}

export class TranscriptRecorder {
  private seq = 0;
  private pending: TranscriptEntry[] = [];
  private pendingBytes = 0;
  /** Events dropped before they were written: the run is marked truncated with the next write. */
  private dropped = false;
  private timer: unknown = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: TranscriptDeps, private readonly runId: string, private readonly agentId: string) {}

  /** The session printed these (the executor's onTranscript). */
  readonly add = (events: readonly TranscriptEvent[]): void => {
    for (const event of events) {
      // One event larger than the whole cap keeps its end, like the transcript keeps its last events.
      const text = event.text.length > this.deps.maxBytes ? event.text.slice(event.text.length - this.deps.maxBytes) : event.text;
      const entry: TranscriptEntry = { ...event, text, seq: ++this.seq, at: this.deps.clock.now(), bytes: Buffer.byteLength(text) };
      this.pending.push(entry);
      this.pendingBytes += entry.bytes!;
      this.deps.publish(this.runId, this.agentId, entry);
    }
    // What is past the cap before it is even written would be trimmed by the write: drop it here.
    while (this.pendingBytes > this.deps.maxBytes && this.pending.length > 1) {
      this.pendingBytes -= this.pending.shift()!.bytes!;
      this.dropped = true;
    }
    this.timer ??= this.deps.timers.setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, TRANSCRIPT_FLUSH_MS);
  };

  /** Writes what waits; writes never overlap, so events reach the table in order. */
  flush(): Promise<void> {
    if (this.timer !== null) {
      this.deps.timers.clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.pending;
    const dropped = this.dropped;
    this.pending = [];
    this.pendingBytes = 0;
    this.dropped = false;
    if (batch.length === 0) return this.writing;
    this.writing = this.writing.then(() => this.deps.store.transaction((tx) => tx.transcripts.append(this.runId, batch, this.deps.maxBytes, dropped)))
      .catch((error: unknown) => this.deps.log.warn({ err: error, run_id: this.runId, events: batch.length }, 'could not record transcript events; the live feed had them'));
    return this.writing;
  }
}
