/**
 * Runs an agent as a local child process: prompt on stdin, run identity in
 * OFFICE_* environment variables, result as the last JSON line on stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
import { KILL_GRACE_MS, identify, killGroup, type SessionIdentity } from './sessions.js';
import type { CommandExecutorSpec, Executor, LaunchRequest, LaunchResult } from './types.js';

/** The supervisor every command session runs under (see the file for why and how). */
const SUPERVISOR = fileURLToPath(new URL('./sessionSupervisor.mjs', import.meta.url));

/**
 * After the child exits, how long to wait for its stdio to close. A
 * backgrounded grandchild can hold the pipes open indefinitely; the run is
 * over once the agent itself has exited.
 */
const STDIO_DRAIN_MS = 2_000;

type SupervisorMessage =
  | { type: 'started'; pid: number }
  | { type: 'error'; message: string }
  | { type: 'exit'; code: number | null; signal: NodeJS.Signals | null };

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
      let session: SessionIdentity | null = null;
      let startError: string | null = null;
      let agentEnd: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      let supervisorEnd: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      let disconnected = false;
      let spawned = false;
      let settled = false;
      let timedOut = false;
      let aborted = false;
      let timeoutTimer: NodeJS.Timeout | undefined;
      let drainTimer: NodeJS.Timeout | undefined;

      // The agent runs under a supervisor that kills its process group if this process dies.
      let supervisor: ChildProcess;
      try {
        supervisor = spawn(process.execPath, [SUPERVISOR], { stdio: ['pipe', 'pipe', 'pipe', 'ipc'], windowsHide: true });
      } catch (error) {
        resolve(failedResult(`${describeError(error)} (session supervisor)`, elapsed()));
        return;
      }
      const tell = (message: Record<string, unknown>) => {
        if (supervisor.connected) supervisor.send(message, () => {});
      };

      const stop = () => {
        // Once the group is known it is killed from here; before that, the supervisor does it.
        if (session) killGroup(session.pgid);
        else tell({ type: 'stop' });
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

      supervisor.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
      supervisor.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
      // EPIPE and friends: the agent is free not to read its prompt.
      supervisor.stdin!.on('error', () => {});
      supervisor.stdout!.on('error', () => {});
      supervisor.stderr!.on('error', () => {});

      supervisor.once('spawn', () => {
        spawned = true;
        tell({ type: 'launch', command: spec.command, args: spec.args ?? [], cwd: spec.cwd,
          env: { ...process.env, ...spec.env, ...officeEnv(request) }, killGraceMs: KILL_GRACE_MS });
        // The agent inherits this pipe: the prompt waits in it until the agent reads.
        supervisor.stdin!.end(request.prompt);
      });

      supervisor.on('message', (message: SupervisorMessage) => {
        if (message.type === 'started') {
          session = identify(message.pid);
          request.onSession?.(session);
          request.onStarted?.();
        } else if (message.type === 'error') {
          startError = `${message.message}${where}`;
        } else if (message.type === 'exit') {
          agentEnd = { code: message.code, signal: message.signal };
        }
      });

      supervisor.on('error', (error) => {
        // After a successful spawn, errors (e.g. a failed send) do not end the run; 'close' does.
        if (spawned) return;
        finish(failedResult(`${describeError(error)} (session supervisor)`, elapsed()));
      });

      supervisor.once('exit', () => {
        drainTimer = setTimeout(() => {
          supervisor.stdout!.destroy();
          supervisor.stderr!.destroy();
        }, STDIO_DRAIN_MS);
        drainTimer.unref();
      });

      // The outcome needs both: every output byte ('close') and every report (the channel's end).
      const conclude = () => {
        if (!supervisorEnd || !disconnected) return;
        const durationMs = elapsed();
        if (startError !== null) {
          finish(failedResult(startError, durationMs));
          return;
        }
        const resultJson = resultFromLines(stdout.toString());
        const stderrTail = tail(stderr.toString());
        if (timedOut) {
          finish(timedOutResult(durationMs, stderrTail, { resultJson, exitCode: agentEnd?.code ?? null }));
          return;
        }
        if (!agentEnd) {
          // The supervisor itself died before the agent ended (someone killed it).
          const how = supervisorEnd.code !== null ? `exit code ${supervisorEnd.code}` : `signal ${supervisorEnd.signal ?? 'unknown'}`;
          finish(failedResult(stderrTail || `the session supervisor ended (${how}) before the agent did`, durationMs, { resultJson }));
          return;
        }
        const { code, signal } = agentEnd;
        if (code === 0 && !aborted) {
          finish(okResult(resultJson, durationMs, 0));
          return;
        }
        let fallback: string;
        if (aborted) fallback = 'aborted';
        else if (code !== null) fallback = `exit code ${code}`;
        else fallback = `killed by signal ${signal ?? 'unknown'}`;
        finish(failedResult(stderrTail || fallback, durationMs, { resultJson, exitCode: code }));
      };
      supervisor.once('close', (code, signal) => {
        supervisorEnd = { code, signal };
        conclude();
      });
      supervisor.once('disconnect', () => {
        disconnected = true;
        conclude();
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
