/**
 * The launch contract: what the run pipeline hands an executor and what it gets back, and how a
 * session is identified so that a later boot can find it. The pipeline owns these types; the
 * executors (src/executors) implement them, so imports point from executors to dispatch.
 */
import type { Logger } from 'pino';
import type { SessionTotals, Usage } from '../domain/agentPrograms.js';
import type { ExecutorSpec } from '../domain/executors.js';
import type { OutputStream, TranscriptEvent } from '../domain/transcript.js';
import type { TraceCarrier } from '../telemetry/tracing.js';

export type { SessionTotals };

export type { OutputStream, TranscriptEvent };

/** The session a run resumes (API.md, "Resumed sessions"). */
export interface ResumeRequest {
  /** The program's own session or thread id, as the previous run recorded it. */
  sessionId: string;
  /** What the run sends instead, should the program refuse to resume (session not found). */
  fullPrompt: string;
  /** The session's running totals at the end of the previous run, to subtract. */
  totals: SessionTotals | null;
}

/** What a run records of its session, besides its outcome (API.md, "What a run records"). */
export interface SessionReport {
  usage: Usage | null;
  cost_usd: number | null;
  /** Why cost_usd is null (tokens but no prices, no usage reported), or how it was computed. */
  cost_note: string | null;
  cli_session_id: string | null;
  totals: SessionTotals | null;
  /** The session said, in a structured event, that a limit rejected it; with the reset it named. */
  rateLimit: { resetAt: number | null } | null;
  /** The session said a limit is near (Claude Code's `allowed_warning`): recorded on the quota, not a failure. */
  limitWarning: string | null;
  /** The program refused to resume the session: the run went on at once with the full prompt. */
  resumeRefused: boolean;
  /** The prompt the session was given in the end: the full prompt after a refused resume. */
  prompt: string;
}

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
  /**
   * Asked just before the session starts (before the spawn, before the request is sent): false
   * means it must not start (its run was cancelled, or another owner settled it), and the executor
   * returns at once. Answers the same however often it is asked (a refused resume starts twice).
   */
  mayStart?: () => Promise<boolean>;
  /** Called once the session has actually started (process spawned / request sent). */
  onStarted?: () => void;
  /** Called with the session's process identity, for command sessions, as soon as it runs. */
  onSession?: (session: SessionIdentity) => void;
  /** Each event of what the session prints, as it prints it (command and agent-program sessions). */
  onTranscript?: (events: TranscriptEvent[]) => void;
  /** The session to resume, for an agent program whose previous run on the task recorded one. */
  resume?: ResumeRequest | null;
  /**
   * Where a session's environment comes from (domain/agentEnvironment.ts): the scheduler's own
   * (default process.env) and OFFICE_AGENT_ENV. The executors set it from their options.
   */
  environment?: { host: Readonly<Record<string, string | undefined>>; extraNames: readonly string[] };
  /** The run span's context, while tracing is on: the session's TRACEPARENT (and TRACESTATE), so that a program that traces joins the wakeup's trace. */
  traceContext?: TraceCarrier | null;
}

export interface LaunchResult {
  ok: boolean;
  resultJson: Record<string, unknown>;
  /** Failure text; for command executors the stderr tail. Rate-limit parsing reads it. */
  error: string | null;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** What an agent program's session reported (usage, cost, session id); absent: read from resultJson. */
  report?: SessionReport;
  /** False when the session never started: `mayStart` said no. */
  started?: boolean;
  /** The session could not start for how it is set up (a missing program, a missing cwd): a person must fix it, no retry helps. */
  setupError?: string;
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
