/**
 * The real-program tests' side of test/standins/programs.ts: a describe block that runs only where
 * the pinned program is installed (and fails in CI where it is not), the executor that runs it
 * against its stand-in, and the look at a session's processes that a cancel or a timeout must end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentProgramKind } from '../../src/domain/agentPrograms.js';
import { findProgram, setUpProgram, type Auth, type ProgramSetup, type RealProgram } from '../standins/programs.js';
import { apiClient } from './client.js';
import { startHarness, type Harness } from './harness.js';
import { pidsWithEnv } from './processes.js';

/**
 * `body` with the installed program. Where it is absent the block is skipped, its title saying why
 * and how to install it; in CI (which installs it in .ci/run) an absent program is a failure.
 */
export function describeProgram(kind: AgentProgramKind, title: string, body: (program: RealProgram) => void): void {
  const found = findProgram(kind);
  if ('absent' in found) {
    if (process.env.CI) {
      describe(title, () => {
        it('has the pinned program installed', () => {
          throw new Error(`${found.absent}; CI installs it in .ci/run`);
        });
      });
    } else {
      console.warn(`${title}: skipped, ${found.absent}`);
      describe.skip(`${title} [skipped: ${found.absent}]`, () => {
        it('runs the real program', () => {});
      });
    }
    return;
  }
  describe(`${title} (${found.package}@${found.version})`, () => body(found));
}

export interface ExecutorExtras {
  args?: string[];
  env?: Record<string, string>;
  timeout_sec?: number;
  prices?: Record<string, number>;
}

/** An executor of the program's kind that runs the installed program against its stand-in. */
export function realExecutor(program: RealProgram, setup: ProgramSetup, extras: ExecutorExtras = {}): Record<string, unknown> {
  return { kind: program.kind, command: program.command, model: setup.model, cwd: setup.cwd, ...extras, env: { ...setup.env, ...extras.env } };
}

/**
 * The run's session processes, once some are running and the stand-in has been sent the request it
 * stalls: the program is then waiting on its model, as a stalled session does.
 */
export async function stalledSession(h: Harness, setup: ProgramSetup, runId: string): Promise<number[]> {
  await h.waitFor(() => setup.standin.turns().length > 0, 'the program to call its model', 30_000);
  const pids = pidsWithEnv('OFFICE_RUN_ID', runId);
  expect(pids.length, 'the session has processes to stop').toBeGreaterThan(0);
  return pids;
}

/** Once no process of the run is left (the process group gets SIGTERM, then SIGKILL after the grace). */
export function noProcessLeft(h: Harness, runId: string): Promise<true> {
  return h.waitFor(() => pidsWithEnv('OFFICE_RUN_ID', runId).length === 0, `no process of run ${runId} to be left`, 10_000);
}

/** The JSON of every request the stand-in was sent during the model turns, for finding earlier turns in. */
export const turnBodies = (setup: ProgramSetup): string[] => setup.standin.turns().map((turn) => JSON.stringify(turn.body));

/** How long a real program may take to start and answer: a second or two, more on a busy machine. */
export const PROGRAM_START_MS = 60_000;

/** The margin the scheduler adds after a reset time the program passed on (OFFICE_RATE_LIMIT_BUFFER_SEC). */
export const RATE_LIMIT_BUFFER_SEC = 1;

/**
 * One scheduler and one stand-in per test, both stopped after it. `programAgent` starts them and
 * makes an agent whose executor runs the installed program against its stand-in.
 */
export function programPerTest() {
  let h: Harness | undefined;
  let setup: ProgramSetup | undefined;
  afterEach(async () => {
    await h?.stop();
    await setup?.close();
    h = undefined;
    setup = undefined;
  });
  const api = apiClient(() => h);
  async function programAgent(program: RealProgram, name: string, extras: ExecutorExtras = {}, auth: Auth = 'api_key') {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(RATE_LIMIT_BUFFER_SEC) });
    setup = await setUpProgram(program.kind, h.dir, auth);
    const ws = await api.createWorkspace();
    const agentId = await api.createAgent(ws, { name, executor: realExecutor(program, setup, extras) });
    return { ws, agentId, setup };
  }
  /** Wakes the agent with its stand-in set to stall: its run, once the program waits on its model, and the session's processes. */
  async function startStalledRun(agentId: string, stalling: ProgramSetup) {
    const running = await wakeStalling(agentId, stalling);
    return { run: running, pids: await stalledSession(h!, stalling, running.id) };
  }
  /**
   * Wakes the agent with its stand-in set to stall and waits for its run to end failed. The session
   * is not looked at meanwhile: the timeout may end it at any moment after the program's model call,
   * and on a busy machine that call itself can come seconds after the run started.
   */
  async function runUntilTimeout(agentId: string, stalling: ProgramSetup) {
    const running = await wakeStalling(agentId, stalling);
    const run = await api.waitForRun({ agent_id: agentId }, 'failed', 'the run to time out', PROGRAM_START_MS);
    expect(run).toMatchObject({ id: running.id, error: expect.stringMatching(/^timeout/) });
    expect(stalling.standin.turns().length, 'the program had called its model before it timed out').toBeGreaterThan(0);
    return run;
  }
  async function wakeStalling(agentId: string, stalling: ProgramSetup) {
    stalling.standin.plan({ kind: 'stall' });
    await api.call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    return api.waitForRun({ agent_id: agentId }, 'running', 'the run to start', PROGRAM_START_MS);
  }
  return { api, harness: () => h!, programAgent, startStalledRun, runUntilTimeout };
}
