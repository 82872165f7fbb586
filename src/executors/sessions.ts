/**
 * Agent sessions as operating-system processes: each leads a process group of its own, and a run
 * records the session's pid, group and start time. At boot that record tells whether a session that
 * a dead scheduler left behind still runs, without mistaking a process that reused its pid for it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { Logger } from 'pino';

/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/** After the SIGKILL, how long a boot waits for a leftover session to go before it carries on. */
const AFTER_KILL_WAIT_MS = 3_000;
const POLL_MS = 50;

export interface SessionIdentity {
  pid: number;
  /** The session's process group: the session leads it, so it equals `pid`. */
  pgid: number;
  /**
   * `<boot id>:<start time in clock ticks since boot>` from /proc (Linux), which no later process
   * with the same pid shares; null where there is no /proc, or when the process was already gone.
   */
  startTime: string | null;
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // EPERM means something exists that we may not signal; treat it as alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** SIGTERM the whole process group, then SIGKILL whatever is left after the grace period. */
export function killGroup(pgid: number, graceMs: number = KILL_GRACE_MS): void {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
  }, graceMs);
  // The escalation must not keep the scheduler alive on its own.
  timer.unref();
}

// /proc -------------------------------------------------------------------------------------

const hasProc = existsSync('/proc/self/stat');
let bootIdCache: string | null | undefined;

function bootId(): string | null {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache;
}

interface ProcStat {
  state: string;
  pgrp: number;
  /** Clock ticks since boot. */
  starttime: bigint;
}

/** Fields 3 (state), 5 (pgrp) and 22 (starttime) of /proc/<pid>/stat; the name before them may hold anything, so parse after its last ')'. */
function readStat(pid: number | string): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '?', pgrp: Number(fields[2]), starttime: BigInt(fields[19] ?? '0') };
  } catch {
    return null;
  }
}

/** A dead process not yet reaped (Z) or being torn down (X) runs nothing. */
const isDead = (stat: ProcStat) => stat.state === 'Z' || stat.state === 'X';

export function processStartTime(pid: number): string | null {
  if (!hasProc) return null;
  const stat = readStat(pid);
  const boot = bootId();
  return stat && boot ? `${boot}:${stat.starttime}` : null;
}

export function identify(pid: number): SessionIdentity {
  return { pid, pgid: pid, startTime: processStartTime(pid) };
}

/**
 * Which of `sessions` still run. On Linux: a live process of the session's group that started no
 * earlier than the session. The kernel hands out no pid that is still some group's id, so if the
 * session's pid now names a process with another start time, the session's group is gone and the
 * group with that id is someone else's. Where there is no /proc, a live group with the session's id
 * is taken to be the session.
 */
export function stillRunning<T extends { session: SessionIdentity }>(sessions: T[]): T[] {
  if (sessions.length === 0) return [];
  if (!hasProc) return sessions.filter((s) => groupAlive(s.session.pgid));
  const boot = bootId();
  const byPid = new Map<number, ProcStat>();
  const liveByGroup = new Map<number, ProcStat[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (!stat) continue;
    byPid.set(Number(entry), stat);
    if (!isDead(stat)) liveByGroup.set(stat.pgrp, [...(liveByGroup.get(stat.pgrp) ?? []), stat]);
  }
  return sessions.filter(({ session }) => {
    const [sessionBoot, ticks] = (session.startTime ?? '').split(':');
    // Unknown start (the process had ended when it was recorded) or another boot: nothing of it runs.
    if (!sessionBoot || ticks === undefined || sessionBoot !== boot) return false;
    const since = BigInt(ticks);
    const leader = byPid.get(session.pgid);
    if (leader && leader.starttime !== since) return false;
    return (liveByGroup.get(session.pgid) ?? []).some((member) => member.starttime >= since);
  });
}

async function waitUntilGone<T extends { session: SessionIdentity }>(sessions: T[], ms: number): Promise<T[]> {
  const deadline = Date.now() + ms;
  let left = stillRunning(sessions);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    left = stillRunning(left);
  }
  return left;
}

export interface LeftoverSession {
  runId: string;
  wakeupId: string;
  session: SessionIdentity;
}

/**
 * At boot, before any interrupted run's wakeup is dispatched again: every session a dead scheduler
 * left running is stopped (SIGTERM to its group, SIGKILL after the grace period), and the boot waits,
 * boundedly, until it is gone. Two sessions of one wakeup must never overlap.
 */
export async function stopLeftoverSessions(leftovers: LeftoverSession[], log: Logger, graceMs: number = KILL_GRACE_MS): Promise<void> {
  const running = stillRunning(leftovers);
  if (running.length === 0) return;
  for (const { runId, wakeupId, session } of running) {
    log.warn({ run_id: runId, wakeup_id: wakeupId, pid: session.pid, pgid: session.pgid },
      'a session of the stopped scheduler still runs; stopping its process group before its wakeup runs again');
    signalGroup(session.pgid, 'SIGTERM');
  }
  const stubborn = await waitUntilGone(running, graceMs);
  for (const { runId, session } of stubborn) {
    log.warn({ run_id: runId, pid: session.pid, pgid: session.pgid }, `the session ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
    signalGroup(session.pgid, 'SIGKILL');
  }
  for (const { runId, session } of await waitUntilGone(stubborn, AFTER_KILL_WAIT_MS)) {
    log.error({ run_id: runId, pid: session.pid, pgid: session.pgid },
      `the session still runs ${AFTER_KILL_WAIT_MS} ms after SIGKILL (another user's process, or stuck in the kernel); carrying on`);
  }
}
