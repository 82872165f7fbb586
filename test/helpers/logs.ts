/** What the tests that read log lines share: a pino logger whose JSON lines are kept, parsed. */
import { Writable } from 'node:stream';
import pino, { type Level } from 'pino';

/** A pino logger at `level` whose JSON lines land in `lines`, parsed, in the order written. */
export function capturingLogger(level: Level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}
