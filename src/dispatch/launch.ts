/**
 * The launch contract: what the run pipeline hands an executor and what it gets back, and how a
 * session is identified so that a later boot can find it. The pipeline owns these types; the
 * executors (src/executors) implement them, so imports point from executors to dispatch.
 */
import type { Logger } from 'pino';
import type { ExecutorSpec } from '../domain/executors.js';

/** Everything an executor needs to start one agent session for one run. */
export interface LaunchRequest {
  runId: string;
  wakeupId: string;
  agentId: string;
  workspaceId: string;
  taskId: string | null;
  source: string;
  prompt: string;
  context: Record<string, unknown>;
  apiUrl: string;
  runToken: string;
  sessionKey: string | null;
  /** Aborting stops the session (shutdown, a lost agent, a cancel): SIGTERM, then SIGKILL after `stopGraceMs`. */
  signal?: AbortSignal;
  /**
   * How long a stopped command session (aborted, timed out, or left by a dead scheduler) gets between
   * SIGTERM and SIGKILL of its process group: OFFICE_SHUTDOWN_GRACE_MS. Default: KILL_GRACE_MS.
   */
  stopGraceMs?: number;
  /** Called once the session has actually started (process spawned / request sent). */
  onStarted?: () => void;
  /** Called with the session's process identity, for command sessions, as soon as it runs. */
  onSession?: (session: SessionIdentity) => void;
}

export interface LaunchResult {
  ok: boolean;
  resultJson: Record<string, unknown>;
  /** Failure text; for command executors the stderr tail. Rate-limit parsing reads it. */
  error: string | null;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

/** Starts one run's session through the executor its spec names. */
export type Launch = (spec: ExecutorSpec, request: LaunchRequest) => Promise<LaunchResult>;

/** A session's process identity, recorded on its run. */
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

/** A run that a stopped scheduler left unfinished, with the session it recorded. */
export interface LeftoverSession {
  runId: string;
  wakeupId: string;
  /** What the run recorded; null when its scheduler died before it could. */
  session: SessionIdentity | null;
}

/** Stops whatever still runs of the sessions of these runs (at boot, before their wakeups run again). */
export type StopLeftoverSessions = (leftovers: LeftoverSession[], log: Logger) => Promise<void>;
