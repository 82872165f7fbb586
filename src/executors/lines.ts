/**
 * Splits a byte stream into lines as it arrives, so a session's output is read while it runs
 * (its transcript, its rate-limit events) and not only after it exits.
 */
import { StringDecoder } from 'node:string_decoder';

/**
 * A line longer than this is cut: its head is kept and the rest of it is dropped. One line of an
 * agent program's JSON output can hold a whole file a tool read; a runaway one must not grow the
 * scheduler's memory without bound.
 */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  /** The current line passed MAX_LINE_BYTES: drop the rest of it until its newline. */
  private cut = false;

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    let text = this.partial + this.decoder.write(chunk);
    let newline = text.indexOf('\n');
    while (newline >= 0) {
      const line = text.slice(0, newline);
      if (!this.cut) this.emit(line);
      this.cut = false;
      text = text.slice(newline + 1);
      newline = text.indexOf('\n');
    }
    if (!this.cut && text.length > MAX_LINE_BYTES) {
      this.emit(text.slice(0, MAX_LINE_BYTES));
      this.cut = true;
      text = '';
    }
    this.partial = this.cut ? '' : text;
  }

  /** The stream closed: a last line without its newline still counts. */
  end(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (!this.cut && rest.length > 0) this.emit(rest);
  }

  private emit(line: string): void {
    this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }
}
