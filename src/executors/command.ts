/**
 * Runs an agent as a local child process: prompt on stdin, run identity in
 * OFFICE_* environment variables, result as the last JSON line on stdout.
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  TailBuffer,
  describeError,
  failedResult,
  okResult,
  resultFromLines,
  startStopwatch,
  tail,
  timedOutResult,
  timeoutMs,
} from './output.js';
import { KILL_GRACE_MS, identify, killGroup } from './sessions.js';
import type { CommandExecutorSpec, Executor, LaunchRequest, LaunchResult } from './types.js';

/**
 * After the child exits, how long to wait for its stdio to close. A
 * backgrounded grandchild can hold the pipes open indefinitely; the run is
 * over once the agent itself has exited.
 */
const STDIO_DRAIN_MS = 2_000;

/**
 * The session watchdog, one small shell per running session, so that sessions die with their
 * scheduler however it dies (SIGKILL included). It reads its stdin, a pipe whose other end only
 * this process holds, until EOF: the kernel closes that pipe when the scheduler dies. Then it
 * stops the session's process group: SIGTERM, and SIGKILL after the grace period. It ignores the
 * signals meant for the scheduler's process group (Ctrl-C, a closed terminal): the scheduler
 * drains first, and its exit then closes the pipe. When the session ends on its own the watchdog
 * is killed and touches nothing. A shell costs about a megabyte, where a Node process per session
 * cost some 40 MB and a Node start.
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
  return spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, WATCHDOG_NAME, String(pgid), graceSec], {
    stdio: ['pipe', 'ignore', 'ignore'],
    windowsHide: true,
  });
}

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

export const commandExecutor: Executor<CommandExecutorSpec> = {
  launch(spec, request) {
    const elapsed = startStopwatch();
    if (request.signal?.aborted) return Promise.resolve(failedResult('aborted before start', elapsed()));
    const where = spec.cwd !== undefined ? ` (command '${spec.command}', cwd '${spec.cwd}')` : ` (command '${spec.command}')`;

    return new Promise<LaunchResult>((resolve) => {
      const stdout = new TailBuffer();
      const stderr = new TailBuffer();
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
        child = spawn(spec.command, spec.args ?? [], {
          cwd: spec.cwd,
          env: { ...process.env, ...spec.env, ...officeEnv(request) },
          stdio: ['pipe', 'pipe', 'pipe'],
          // Own process group, so a kill reaches everything the agent started.
          detached: true,
          shell: false,
          windowsHide: true,
        });
      } catch (error) {
        // Invalid arguments (e.g. a NUL byte) throw synchronously instead of emitting 'error'.
        resolve(failedResult(`${describeError(error)}${where}`, elapsed()));
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

      const finish = (result: LaunchResult) => {
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

      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      // EPIPE and friends: the agent is free not to read its prompt.
      child.stdin.on('error', () => {});
      child.stdout.on('error', () => {});
      child.stderr.on('error', () => {});

      child.once('spawn', () => {
        spawned = true;
        child.stdin.end(request.prompt);
        request.onSession?.(identify(child.pid!));
        request.onStarted?.();
      });

      child.on('error', (error) => {
        // After a successful spawn, errors (e.g. a failed kill) do not end the run; 'close' does.
        if (spawned) return;
        watchdog?.kill('SIGKILL');
        finish(failedResult(`${describeError(error)}${where}`, elapsed()));
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
        const resultJson = resultFromLines(stdout.toString());
        const stderrTail = tail(stderr.toString());
        const durationMs = elapsed();
        if (timedOut) {
          finish(timedOutResult(durationMs, stderrTail, { resultJson, exitCode: code }));
          return;
        }
        if (watchdogError !== null) {
          finish(failedResult(watchdogError, durationMs, { resultJson, exitCode: code }));
          return;
        }
        if (code === 0 && !aborted) {
          finish(okResult(resultJson, durationMs, 0));
          return;
        }
        let fallback: string;
        if (aborted) fallback = 'aborted';
        else if (code !== null) fallback = `exit code ${code}`;
        else fallback = `killed by signal ${signal ?? 'unknown'}`;
        finish(failedResult(stderrTail || fallback, durationMs, { resultJson, exitCode: code }));
      });

      const delay = timeoutMs(spec.timeout_sec);
      if (delay !== null) {
        timeoutTimer = setTimeout(() => {
          if (settled) return;
          timedOut = true;
          stop();
        }, delay);
      }
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
