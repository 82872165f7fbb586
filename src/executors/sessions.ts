/**
 * Agent sessions as operating-system processes: each leads a process group of its own, and a run
 * records the session's pid, group and start time. At boot that record tells whether a session that
 * a dead scheduler left behind still runs, without mistaking a process that reused its pid for it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { Logger } from 'pino';
import type { LeftoverSession, SessionIdentity } from '../dispatch/launch.js';

export type { LeftoverSession, SessionIdentity };

/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/** After the SIGKILL, how long a boot waits for a leftover session to go before it carries on. */
const AFTER_KILL_WAIT_MS = 3_000;
const POLL_MS = 50;

function groupAlive(pgid: number): boolean {
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

function processStartTime(pid: number): string | null {
  if (!hasProc) return null;
  const stat = readStat(pid);
  const boot = bootId();
  return stat && boot ? `${boot}:${stat.starttime}` : null;
}

export function identify(pid: number): SessionIdentity {
  return { pid, pgid: pid, startTime: processStartTime(pid) };
}

/** One look at /proc: every process's stat and, among the live ones, who carries which OFFICE_RUN_ID. */
interface ProcSnapshot {
  byPid: Map<number, ProcStat>;
  liveByGroup: Map<number, ProcStat[]>;
  /** Live processes by the run id in their environment, for the run ids asked about. */
  byRunId: Map<string, number[]>;
}

function snapshot(runIds: ReadonlySet<string> = new Set()): ProcSnapshot {
  const snap: ProcSnapshot = { byPid: new Map(), liveByGroup: new Map(), byRunId: new Map() };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (!stat) continue;
    const pid = Number(entry);
    snap.byPid.set(pid, stat);
    if (isDead(stat)) continue;
    snap.liveByGroup.set(stat.pgrp, [...(snap.liveByGroup.get(stat.pgrp) ?? []), stat]);
    const runId = runIds.size > 0 ? runIdOf(entry) : null;
    if (runId !== null && runIds.has(runId)) snap.byRunId.set(runId, [...(snap.byRunId.get(runId) ?? []), pid]);
  }
  return snap;
}

/** OFFICE_RUN_ID from a process's environment: a session has it, and so does all it starts. */
function runIdOf(pid: string): string | null {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith('OFFICE_RUN_ID='));
    return entry === undefined ? null : entry.slice('OFFICE_RUN_ID='.length);
  } catch {
    return null; // gone, or another user's
  }
}

/**
 * Whether a recorded session still runs: a live process of its group that started no earlier than
 * the session. The kernel hands out no pid that is still some group's id, so if the session's pid
 * now names a process with another start time, the session's group is gone and the group with that
 * id is someone else's.
 */
function sessionRuns(session: SessionIdentity, snap: ProcSnapshot): boolean {
  const [sessionBoot, ticks] = (session.startTime ?? '').split(':');
  // Unknown start (the process had ended when it was recorded) or another boot: nothing of it runs.
  if (!sessionBoot || ticks === undefined || sessionBoot !== bootId()) return false;
  const since = BigInt(ticks);
  const leader = snap.byPid.get(session.pgid);
  if (leader && leader.starttime !== since) return false;
  return (snap.liveByGroup.get(session.pgid) ?? []).some((member) => member.starttime >= since);
}

/** Which of `sessions` still run; where there is no /proc, a live group with the session's id is taken to be it. */
export function stillRunning<T extends { session: SessionIdentity }>(sessions: T[]): T[] {
  if (sessions.length === 0) return [];
  if (!hasProc) return sessions.filter((s) => groupAlive(s.session.pgid));
  const snap = snapshot();
  return sessions.filter(({ session }) => sessionRuns(session, snap));
}

interface Survivor extends LeftoverSession {
  /** The recorded process group still runs. */
  groupRuns: boolean;
  /** Live processes carrying the run's OFFICE_RUN_ID: also an unrecorded session, or one that left its group. */
  pids: number[];
}

function survivors(leftovers: LeftoverSession[]): Survivor[] {
  if (leftovers.length === 0) return [];
  if (!hasProc) {
    return leftovers.filter((l) => l.session !== null && groupAlive(l.session.pgid)).map((l) => ({ ...l, groupRuns: true, pids: [] }));
  }
  const snap = snapshot(new Set(leftovers.map((l) => l.runId)));
  return leftovers
    .map((l) => ({ ...l, groupRuns: l.session !== null && sessionRuns(l.session, snap), pids: snap.byRunId.get(l.runId) ?? [] }))
    .filter((s) => s.groupRuns || s.pids.length > 0);
}

function signalSurvivor(survivor: Survivor, signal: NodeJS.Signals): void {
  if (survivor.groupRuns && survivor.session) signalGroup(survivor.session.pgid, signal);
  for (const pid of survivor.pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone meanwhile.
    }
  }
}

async function waitUntilGone(leftovers: LeftoverSession[], ms: number): Promise<Survivor[]> {
  const deadline = Date.now() + ms;
  let left = survivors(leftovers);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    left = survivors(left);
  }
  return left;
}

const describe = (s: Survivor) => ({ run_id: s.runId, wakeup_id: s.wakeupId, pid: s.session?.pid ?? null, pgid: s.session?.pgid ?? null, pids: s.pids });

/**
 * At boot, before any interrupted run's wakeup is dispatched again: every session a dead scheduler
 * left running is stopped (SIGTERM to its group and to every process carrying its run id, SIGKILL
 * after the grace period), and the boot waits, boundedly, until it is gone. Two sessions of one
 * wakeup must never overlap.
 */
export async function stopLeftoverSessions(leftovers: LeftoverSession[], log: Logger, graceMs: number = KILL_GRACE_MS): Promise<void> {
  const running = survivors(leftovers);
  if (running.length === 0) return;
  for (const survivor of running) {
    log.warn(describe(survivor), 'a session of the stopped scheduler still runs; stopping it before its wakeup runs again');
    signalSurvivor(survivor, 'SIGTERM');
  }
  const stubborn = await waitUntilGone(running, graceMs);
  for (const survivor of stubborn) {
    log.warn(describe(survivor), `the session ignored SIGTERM for ${graceMs} ms; sending SIGKILL`);
    signalSurvivor(survivor, 'SIGKILL');
  }
  for (const survivor of await waitUntilGone(stubborn, AFTER_KILL_WAIT_MS)) {
    log.error(describe(survivor), `the session still runs ${AFTER_KILL_WAIT_MS} ms after SIGKILL (another user's process, or stuck in the kernel); carrying on`);
  }
}
