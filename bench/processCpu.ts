/**
 * CPU time by process, read from /proc (Linux), for the replica benches: each replica's, and the
 * PostgreSQL server's (every process named postgres: the postmaster and its backends). With the
 * window's length it says how many cores were busy, and with the wakeups started what one costs.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on every Linux port in use). */
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds of `pid` so far; 0 once it has exited or where /proc is absent. */
export function cpuSecondsOf(pid: number): number {
  try {
    // comm, the second field, is in parentheses and may hold spaces: the fields are read after it.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of every process named `postgres` so far, with the pids seen: a backend that exits
 * between two readings takes its time with it, so a window's figure counts the backends that live
 * through it (the pools' connections do).
 */
export function postgresCpu(): Map<number, number> {
  const seen = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return seen;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    seen.set(Number(entry), cpuSecondsOf(Number(entry)));
  }
  return seen;
}

/** CPU seconds spent between two readings of postgresCpu, by the processes in both. */
export function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? seconds);
  return total;
}
