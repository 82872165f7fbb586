import type { SessionIdentity } from './sessions.js';
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
  /** Aborting kills the session (used on shutdown). */
  signal?: AbortSignal;
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

export interface Executor<S> {
  launch(spec: S, request: LaunchRequest): Promise<LaunchResult>;
}

export type AgentFunction = (
  request: LaunchRequest,
) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

export type CommandExecutorSpec = Extract<ExecutorSpec, { kind: 'command' }>;
export type HttpExecutorSpec = Extract<ExecutorSpec, { kind: 'http' }>;
export type FunctionExecutorSpec = Extract<ExecutorSpec, { kind: 'function' }>;
