import type { ExecutorSpec } from '../domain/executors.js';
import type { LaunchRequest, LaunchResult, OutputStream, ResumeRequest, SessionReport, SessionTotals, TranscriptEvent } from '../dispatch/launch.js';

/** The launch contract is the pipeline's (dispatch/launch.ts); executors implement it. */
export type { LaunchRequest, LaunchResult, OutputStream, ResumeRequest, SessionReport, SessionTotals, TranscriptEvent };

export interface Executor<S> {
  launch(spec: S, request: LaunchRequest): Promise<LaunchResult>;
}

export type AgentFunction = (
  request: LaunchRequest,
) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

export type CommandExecutorSpec = Extract<ExecutorSpec, { kind: 'command' }>;
export type HttpExecutorSpec = Extract<ExecutorSpec, { kind: 'http' }>;
export type FunctionExecutorSpec = Extract<ExecutorSpec, { kind: 'function' }>;
