/** What a session printed, as its run's transcript keeps it (API.md, "Transcript"). */

export type OutputStream = 'stdout' | 'stderr';

/**
 * One event of what a session printed: `type` is the program's event type, or `line` for plain
 * output; `text` is the event's text where it has one, the raw line otherwise.
 */
export interface TranscriptEvent {
  stream: OutputStream;
  type: string;
  text: string;
}
