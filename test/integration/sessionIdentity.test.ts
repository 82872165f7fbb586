/**
 * Telling whether a recorded session still runs (src/executors/sessions.ts), with real processes:
 * by pid, process group and start time, so that a reused pid is never taken for the session.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { identify, stillRunning, stopLeftoverSessions } from '../../src/executors/sessions.js';
import { waitFor } from '../helpers/harness.js';

const spawned: ChildProcess[] = [];
afterEach(() => {
  for (const child of spawned.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});

/** A process leading its own group, as a session does, once `script` has run in it. */
async function groupLeader(script: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `${script}; process.stdout.write("ready")`], {
    detached: true, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...env },
  });
  spawned.push(child);
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return child;
}

const exited = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));
const exitSignal = async (child: ChildProcess) => {
  if (child.exitCode === null && child.signalCode === null) await exited(child);
  return child.signalCode;
};

describe.runIf(process.platform === 'linux')('a recorded session, checked at boot', () => {
  it('runs while its process runs, and not once it has exited', async () => {
    const child = await groupLeader('setTimeout(() => {}, 30000)');
    const session = identify(child.pid!);
    expect(session).toMatchObject({ pid: child.pid, pgid: child.pid });
    expect(session.startTime).toMatch(/^[0-9a-f-]+:\d+$/);
    expect(stillRunning([{ session }])).toHaveLength(1);
    child.kill('SIGKILL');
    await exited(child);
    expect(stillRunning([{ session }])).toEqual([]);
  });

  it('is not mistaken for another process that has its pid (a start time that differs)', async () => {
    const child = await groupLeader('setTimeout(() => {}, 30000)');
    const session = identify(child.pid!);
    const [boot, ticks] = session.startTime!.split(':');
    const earlier = { ...session, startTime: `${boot}:${BigInt(ticks!) - 1n}` };
    const otherBoot = { ...session, startTime: `00000000-0000-0000-0000-000000000000:${ticks}` };
    expect(stillRunning([{ session: earlier }, { session: otherBoot }, { session: { ...session, startTime: null } }])).toEqual([]);
  });

  it('runs while something it started is left in its group after it exited', async () => {
    const child = await groupLeader(
      'require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" }).unref(); setTimeout(() => process.exit(0), 200)',
    );
    const session = identify(child.pid!);
    await exited(child);
    expect(stillRunning([{ session }])).toHaveLength(1);
  });

  it('is stopped at boot: SIGTERM to its group, then SIGKILL when it ignores that', async () => {
    const child = await groupLeader('process.on("SIGTERM", () => {}); setTimeout(() => {}, 30000)');
    const session = identify(child.pid!);
    await waitFor(() => stillRunning([{ session }]).length === 1, 'the session to run');
    const t0 = Date.now();
    await stopLeftoverSessions([{ runId: 'run_x', wakeupId: 'wk_x', session }], pino({ level: 'silent' }), 300);
    expect(stillRunning([{ session }])).toEqual([]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect(await exitSignal(child)).toBe('SIGKILL');
  });

  it('is found at boot by its run id when no session was recorded (or it left its group), and stopped', async () => {
    const runId = `run_${randomUUID()}`;
    const child = await groupLeader('setTimeout(() => {}, 30000)', { OFFICE_RUN_ID: runId });
    const other = await groupLeader('setTimeout(() => {}, 30000)', { OFFICE_RUN_ID: `run_${randomUUID()}` });
    await stopLeftoverSessions([{ runId, wakeupId: 'wk_x', session: null }], pino({ level: 'silent' }), 300);
    expect(await exitSignal(child)).toBe('SIGTERM');
    // A process of another run is none of its business.
    expect(other.exitCode === null && other.signalCode === null).toBe(true);
  });
});
