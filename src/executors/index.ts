import type { AgentProgramKind } from '../domain/agentPrograms.js';
import type { AgentProgramSpec, ExecutorSpec } from '../domain/executors.js';
import { PROGRAM_ADAPTERS } from './adapters/index.js';
import { agentProgramExecutor } from './agentProgram.js';
import { commandExecutor } from './command.js';
import { functionExecutor } from './function.js';
import { httpExecutor } from './http.js';
import type { AgentFunction, LaunchRequest, LaunchResult } from './types.js';

export type { AgentFunction, Executor, LaunchRequest, LaunchResult } from './types.js';
export { commandExecutor } from './command.js';
export { functionExecutor } from './function.js';
export { httpExecutor } from './http.js';

export interface Executors {
  launch(spec: ExecutorSpec, request: LaunchRequest): Promise<LaunchResult>;
}

export interface ExecutorOptions {
  /** OFFICE_RUN_TIMEOUT_SEC: the timeout of every run whose executor sets no `timeout_sec`. Required: no run goes on for ever. */
  runTimeoutSec: number;
  /** OFFICE_SHUTDOWN_GRACE_MS: how long a stopped session gets between SIGTERM and SIGKILL, unless its request says. */
  stopGraceMs?: number;
  /** Where sessions' environments come from: the scheduler's (default process.env) and OFFICE_AGENT_ENV. */
  environment?: { host: Readonly<Record<string, string | undefined>>; extraNames: readonly string[] };
}

/** One entry point for every executor kind; `functions` backs the in-process `function` kind. */
export function createExecutors(functions: Map<string, AgentFunction>, options: ExecutorOptions): Executors {
  const fnExecutor = functionExecutor(functions);
  const programs = Object.fromEntries(Object.entries(PROGRAM_ADAPTERS).map(([kind, adapter]) => [kind, agentProgramExecutor(adapter)])) as
    Record<AgentProgramKind, ReturnType<typeof agentProgramExecutor>>;
  return {
    launch(given, request) {
      // No run goes on for ever: a hung agent would hold its slot and stop its agent's queue.
      const spec = given.timeout_sec === undefined ? { ...given, timeout_sec: options.runTimeoutSec } : given;
      request = {
        ...request,
        stopGraceMs: request.stopGraceMs ?? options.stopGraceMs,
        environment: request.environment ?? options.environment,
      };
      switch (spec.kind) {
        case 'command':
          return commandExecutor.launch(spec, request);
        case 'http':
          return httpExecutor.launch(spec, request);
        case 'function':
          return fnExecutor.launch(spec, request);
        case 'claude_code':
        case 'codex':
        case 'gemini_cli':
          return programs[spec.kind].launch(spec as AgentProgramSpec, request);
        default: {
          const unreachable: never = spec;
          throw new Error(`unknown executor kind: ${JSON.stringify(unreachable)}`);
        }
      }
    },
  };
}
