/**
 * Runs an agent as a local child process: prompt on stdin, run identity in
 * OFFICE_* environment variables, result as the last JSON line on stdout.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
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
import type { CommandExecutorSpec, Executor, LaunchRequest, LaunchResult } from './types.js';

/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/**
 * After the child exits, how long to wait for its stdio to close. A
 * backgrounded grandchild can hold the pipes open indefinitely; the run is
 * over once the agent itself has exited.
 */
const STDIO_DRAIN_MS = 2_000;

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

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    // EPERM means something exists that we may not signal; treat it as alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM the child's whole process group, then SIGKILL whatever is left after the grace period. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return; // ESRCH: the group is already gone.
  }
  const timer = setTimeout(() => {
    if (!groupAlive(pid)) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Exited between the check and the kill.
    }
  }, KILL_GRACE_MS);
  // The escalation must not keep the scheduler alive on its own.
  timer.unref();
}

export const commandExecutor: Executor<CommandExecutorSpec> = {
  launch(spec, request) {
    const elapsed = startStopwatch();
    if (request.signal?.aborted) return Promise.resolve(failedResult('aborted before start', elapsed()));

    return new Promise<LaunchResult>((resolve) => {
      const stdout = new TailBuffer();
      const stderr = new TailBuffer();
      let spawned = false;
      let settled = false;
      let timedOut = false;
      let aborted = false;
      let timeoutTimer: NodeJS.Timeout | undefined;
      let drainTimer: NodeJS.Timeout | undefined;

      let child: ChildProcessWithoutNullStreams;
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
        resolve(failedResult(`${describeError(error)} (command '${spec.command}')`, elapsed()));
        return;
      }

      const stop = () => {
        if (child.pid !== undefined) killGroup(child.pid);
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

      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      // EPIPE and friends: the agent is free not to read its prompt.
      child.stdin.on('error', () => {});
      child.stdout.on('error', () => {});
      child.stderr.on('error', () => {});

      child.once('spawn', () => {
        spawned = true;
        child.stdin.end(request.prompt);
        request.onStarted?.();
      });

      child.on('error', (error) => {
        // After a successful spawn, errors (e.g. a failed kill) do not end the run; 'close' does.
        if (spawned) return;
        const where = spec.cwd !== undefined ? ` (command '${spec.command}', cwd '${spec.cwd}')` : ` (command '${spec.command}')`;
        finish(failedResult(`${describeError(error)}${where}`, elapsed()));
      });

      child.once('exit', () => {
        drainTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, STDIO_DRAIN_MS);
        drainTimer.unref();
      });

      child.once('close', (code, signal) => {
        const out = stdout.toString();
        const resultJson = resultFromLines(out);
        const durationMs = elapsed();
        if (code === 0 && !timedOut && !aborted) {
          finish(okResult(resultJson, durationMs, 0));
          return;
        }
        if (timedOut) {
          finish(timedOutResult(durationMs, tail(stderr.toString()), { resultJson, exitCode: code }));
          return;
        }
        let fallback: string;
        if (aborted) fallback = 'aborted';
        else if (code !== null) fallback = `exit code ${code}`;
        else fallback = `killed by signal ${signal ?? 'unknown'}`;
        const errText = tail(stderr.toString()) || fallback;
        finish(failedResult(errText, durationMs, { resultJson, exitCode: code }));
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
