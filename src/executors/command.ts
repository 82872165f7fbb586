/**
 * Runs an agent as a local child process: prompt on stdin, run identity in OFFICE_* environment
 * variables, result as the last JSON line on stdout. This is the adapter of last resort: the agent
 * programs the scheduler knows by name have their own (agentProgram.ts).
 */
import { failedResult, notStartedResult, okResult, parseJsonObject, tail, timedOutResult } from './output.js';
import { endingOf, runProcess, sessionEnvironment, spawnFailedResult } from './process.js';
import type { CommandExecutorSpec, Executor, TranscriptEvent } from './types.js';


export const commandExecutor: Executor<CommandExecutorSpec> = {
  async launch(spec, request) {
    let lastJsonLine: Record<string, unknown> | null = null;
    const outcome = await runProcess({
      command: spec.command, args: spec.args ?? [], cwd: spec.cwd,
      env: sessionEnvironment(spec.env, request), stdin: request.prompt, timeoutSec: spec.timeout_sec,
    }, request, (stream, line) => {
      if (stream === 'stdout') lastJsonLine = parseJsonObject(line) ?? lastJsonLine;
      const event: TranscriptEvent = { stream, type: 'line', text: line };
      request.onTranscript?.([event]);
    });
    if (outcome.notStarted) return notStartedResult(outcome.durationMs);
    if (outcome.spawnError !== null) return spawnFailedResult(outcome);
    const resultJson = lastJsonLine ?? { result: tail(outcome.stdoutTail) };
    const exit = { resultJson, exitCode: outcome.exitCode };
    if (outcome.timedOut) return timedOutResult(outcome.durationMs, outcome.stderrTail, exit);
    if (outcome.watchdogError !== null) return failedResult(outcome.watchdogError, outcome.durationMs, exit);
    if (outcome.exitCode === 0 && !outcome.aborted) return okResult(resultJson, outcome.durationMs, 0);
    return failedResult(outcome.stderrTail || endingOf(outcome), outcome.durationMs, exit);
  },
};
