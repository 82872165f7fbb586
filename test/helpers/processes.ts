/** Finding the tests' own child processes by their command line, through Linux /proc. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';

/** Pids of live processes whose argv (the /proc cmdline split on NUL) passes `test`; none where there is no /proc. */
export function pidsWhere(test: (argv: string[]) => boolean): number[] {
  if (!existsSync('/proc/self/cmdline')) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (test(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0'))) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}
