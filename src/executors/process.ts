/**
 * One agent session as a child process: spawned without a shell in a process group of its own,
 * watched by a watchdog that stops the group if the scheduler dies, its prompt on stdin, its output
 * read line by line while it runs, stopped by a timeout or an abort. What the output means is the
 * caller's: the generic command reading (command.ts) or an agent program's adapter (agentProgram.ts).
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { agentEnvironment } from '../domain/agentEnvironment.js';
import { LineSplitter } from './lines.js';
import { TailBuffer, describeError, failedResult, startStopwatch, tail, timeoutMs } from './output.js';
import { KILL_GRACE_MS, identify, killGroup } from './sessions.js';
import type { LaunchRequest, LaunchResult, OutputStream } from './types.js';

/**
 * After the child exits, how long to wait for its stdio to close. A
 * backgrounded grandchild can hold the pipes open indefinitely; the run is
 * over once the agent itself has exited.
 */
const STDIO_DRAIN_MS = 2_000;

/**
 * The session watchdog, one small shell per running session, so that sessions die with their
 * scheduler however it dies: SIGKILL of its pid, or of its whole process group (what systemd, a
 * container stop and a terminal's Ctrl-C send). It leads a process group of its own, so a signal to
 * the scheduler's group does not reach it. It reads its stdin, a pipe whose other end only this
 * process holds, until EOF: the kernel closes that pipe when the scheduler dies. Then it stops the
 * session's process group: SIGTERM, and SIGKILL after the grace period. It ignores INT, TERM and
 * HUP: the scheduler drains first, and its exit then closes the pipe. When the session ends on its
 * own the watchdog is killed and touches nothing. A shell costs about a megabyte, where a Node
 * process per session cost some 40 MB and a Node start.
 */
const WATCHDOG_SCRIPT = [
  "trap '' INT TERM HUP",
  'while read -r _; do :; done',
  'kill -0 -"$1" 2>/dev/null || exit 0',
  'kill -TERM -"$1" 2>/dev/null',
  'sleep "$2"',
  'kill -KILL -"$1" 2>/dev/null',
].join('\n');

/** argv[0] of every watchdog, so an operator (or a test) can tell them apart in `ps`. */
export const WATCHDOG_NAME = 'office-session-watchdog';

function startWatchdog(pgid: number, graceMs: number): ChildProcess {
  const graceSec = String(Math.ceil(graceMs / 1000));
  const watchdog = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, WATCHDOG_NAME, String(pgid), graceSec], {
    stdio: ['pipe', 'ignore', 'ignore'],
    // Its own process group: a kill of the scheduler's group must leave it to do its work.
    detached: true,
    windowsHide: true,
  });
  return watchdog;
}

/** The run's identity, as every command session receives it (API.md, "Executors"). */
export function officeEnv(request: LaunchRequest): Record<string, string> {
  return {
    OFFICE_RUN_ID: request.runId,
    OFFICE_WAKEUP_ID: request.wakeupId,
    OFFICE_AGENT_ID: request.agentId,
    OFFICE_WORKSPACE_ID: request.workspaceId,
    OFFICE_TASK_ID: request.taskId ?? '',
    OFFICE_WAKE_SOURCE: request.source,
    OFFICE_API_URL: request.apiUrl,
    OFFICE_RUN_TOKEN: request.runToken,
    OFFICE_SESSION_KEY: request.sessionKey ?? '',
  };
}

/** A session's environment: the scheduler's allow-listed variables, the executor's `env`, the run's identity. */
export function sessionEnvironment(executorEnv: Readonly<Record<string, string>> | undefined, request: LaunchRequest): Record<string, string> {
  return agentEnvironment({
    host: request.environment?.host ?? process.env,
    extraNames: request.environment?.extraNames ?? [],
    executorEnv,
    runVariables: officeEnv(request),
    traceContext: request.traceContext,
  });
}

export interface ProcessInvocation {
  command: string;
  args: readonly string[];
  cwd?: string | undefined;
  env: Record<string, string>;
  /** Written to the session's stdin, which is then closed. */
  stdin: string;
  timeoutSec: number | undefined;
}

/** How a session's process ended, and the tails of what it wrote. */
export interface ProcessOutcome {
  /** It never ran: the program is missing, not executable, or its arguments are invalid. */
  spawnError: string | null;
  /**
   * It never ran because of how it is set up (the program not found or not executable, the working
   * directory missing): no retry can help, a person must fix it. What is missing and where it was looked for.
   */
  setupError: string | null;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Stopped by the request's signal (a cancel, a shutdown, a lost agent). */
  aborted: boolean;
  /** The watchdog could not start, so the session was stopped: nothing would stop it if the scheduler died. */
  watchdogError: string | null;
  /** It was not started at all: the run was cancelled (or settled elsewhere) before it could be. */
  notStarted: boolean;
  stdoutTail: string;
  stderrTail: string;
  durationMs: number;
}

/** Runs one session to its end; `onLine` hears each line of its output as it is written. */
export async function runProcess(
  invocation: ProcessInvocation,
  request: LaunchRequest,
  onLine: (stream: OutputStream, line: string) => void,
): Promise<ProcessOutcome> {
  const elapsed = startStopwatch();
  const outcome = (fields: Partial<ProcessOutcome>): ProcessOutcome => ({
    spawnError: null, setupError: null, exitCode: null, signal: null, timedOut: false, aborted: false, watchdogError: null, notStarted: false,
    stdoutTail: '', stderrTail: '', durationMs: elapsed(), ...fields,
  });
  if (request.signal?.aborted) return outcome({ aborted: true });
  if (request.mayStart && !(await request.mayStart())) return outcome({ aborted: true, notStarted: true });
  if (request.signal?.aborted) return outcome({ aborted: true });
  const where = invocation.cwd !== undefined ? ` (command '${invocation.command}', cwd '${invocation.cwd}')` : ` (command '${invocation.command}')`;

  return new Promise<ProcessOutcome>((resolve) => {
    const stdout = new TailBuffer();
    const stderr = new TailBuffer();
    const stdoutLines = new LineSplitter((line) => onLine('stdout', line));
    const stderrLines = new LineSplitter((line) => onLine('stderr', line));
    let spawned = false;
    let settled = false;
    let timedOut = false;
    let aborted = false;
    let watchdogError: string | null = null;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    let child: ChildProcessWithoutNullStreams;
    let watchdog: ChildProcess | null = null;
    try {
      child = spawn(invocation.command, [...invocation.args], {
        cwd: invocation.cwd,
        env: invocation.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        // Own process group, so a kill reaches everything the agent started.
        detached: true,
        shell: false,
        windowsHide: true,
      });
    } catch (error) {
      // Invalid arguments (e.g. a NUL byte) throw synchronously instead of emitting 'error'.
      resolve(outcome({ spawnError: `${describeError(error)}${where}` }));
      return;
    }

    const graceMs = request.stopGraceMs ?? KILL_GRACE_MS;
    const stop = () => {
      if (child.pid !== undefined) killGroup(child.pid, graceMs);
    };
    const onAbort = () => {
      if (settled) return;
      aborted = true;
      stop();
    };

    const finish = (result: ProcessOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };

    // In the same tick as the spawn (the boot check, by OFFICE_RUN_ID, covers a death in between).
    // A session that nothing would stop if the scheduler died must not run.
    const unwatched = (error: unknown) => {
      watchdogError = `the session watchdog (/bin/sh) could not start: ${describeError(error)}`;
      stop();
    };
    if (child.pid !== undefined) {
      try {
        const started = startWatchdog(child.pid, graceMs);
        let running = false;
        started.once('spawn', () => { running = true; });
        // After its spawn, an error is a failed kill of a watchdog that is already gone.
        started.on('error', (error) => { if (!running) unwatched(error); });
        watchdog = started;
        started.stdin!.on('error', () => {});
      } catch (error) {
        unwatched(error);
      }
    }

    child.stdout.on('data', (chunk: Buffer) => { stdout.push(chunk); stdoutLines.push(chunk); });
    child.stderr.on('data', (chunk: Buffer) => { stderr.push(chunk); stderrLines.push(chunk); });
    // EPIPE and friends: the agent is free not to read its prompt.
    child.stdin.on('error', () => {});
    child.stdout.on('error', () => {});
    child.stderr.on('error', () => {});

    child.once('spawn', () => {
      spawned = true;
      child.stdin.end(invocation.stdin);
      request.onSession?.(identify(child.pid!));
      request.onStarted?.();
    });

    child.on('error', (error) => {
      // After a successful spawn, errors (e.g. a failed kill) do not end the run; 'close' does.
      if (spawned) return;
      watchdog?.kill('SIGKILL');
      finish(outcome({ spawnError: `${describeError(error)}${where}`, setupError: setupErrorOf(error, invocation) }));
    });

    child.once('exit', () => {
      // The session ended on its own terms: its watchdog must not touch the group afterwards.
      watchdog?.kill('SIGKILL');
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, STDIO_DRAIN_MS);
      drainTimer.unref();
    });

    child.once('close', (code, signal) => {
      stdoutLines.end();
      stderrLines.end();
      finish(outcome({
        exitCode: code, signal, timedOut, aborted, watchdogError,
        stdoutTail: stdout.toString(), stderrTail: tail(stderr.toString()),
      }));
    });

    const delay = timeoutMs(invocation.timeoutSec);
    if (delay !== null) {
      timeoutTimer = setTimeout(() => {
        if (settled) return;
        timedOut = true;
        stop();
      }, delay);
    }
    request.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A spawn that failed for how the session is set up, said for a person: what is missing, and where it was looked for. */
function setupErrorOf(error: unknown, invocation: ProcessInvocation): string | null {
  const code = (error as NodeJS.ErrnoException).code;
  const { command } = invocation;
  if (code === 'ENOENT') {
    // A missing cwd fails the spawn with ENOENT too; looked at only once a spawn failed, never on the way to a start.
    if (invocation.cwd !== undefined && !existsSync(invocation.cwd)) return `the working directory '${invocation.cwd}' does not exist (the executor's cwd)`;
    if (command.includes('/')) return `the program '${command}' does not exist`;
    return `the program '${command}' was not found on the session's PATH (${invocation.env.PATH ?? 'PATH is not set'}); install it, or name it by its full path in the executor's command`;
  }
  if (code === 'EACCES') return `the program '${command}' is not executable (check its permissions)`;
  if (code === 'ENOTDIR') return `a directory in the path of '${command}' or of the working directory is a file`;
  return null;
}

/** A session that never ran: its error, and whether it is one of setup. */
export function spawnFailedResult(outcome: ProcessOutcome): LaunchResult {
  const said = outcome.setupError !== null && outcome.spawnError !== outcome.setupError ? `${outcome.setupError} (${outcome.spawnError})` : outcome.setupError;
  const result = failedResult(said ?? outcome.spawnError ?? 'the session could not start', outcome.durationMs);
  return outcome.setupError !== null ? { ...result, setupError: outcome.setupError } : result;
}

/** Why a session that did not succeed ended, when its output says nothing better. */
export function endingOf(outcome: ProcessOutcome): string {
  if (outcome.aborted) return 'aborted';
  if (outcome.exitCode !== null) return `exit code ${outcome.exitCode}`;
  return `killed by signal ${outcome.signal ?? 'unknown'}`;
}
