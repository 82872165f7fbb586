/**
 * Runs one of the agent programs people run (Claude Code, Codex CLI, Gemini CLI) through its
 * adapter: the adapter chooses the arguments for a fresh or a resumed session and reads the output
 * as it is written; this module turns what it read into the run's outcome and its record (usage,
 * cost, session id), and retries a resume the program refused with the full prompt, once, at once.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCP_PATH, PROGRAM_NAMES, costOfUsage, roundUsd, usageSince, type Usage } from '../domain/agentPrograms.js';
import type { AgentProgramSpec } from '../domain/executors.js';
import type { Invocation, McpHandOff, ParsedSession, ProgramAdapter, ProgramParser } from './adapters/types.js';
import { failedResult, notStartedResult, okResult, timedOutResult } from './output.js';
import { endingOf, runProcess, sessionEnvironment, spawnFailedResult, type ProcessOutcome } from './process.js';
import type { Executor, LaunchRequest, LaunchResult, ResumeRequest, SessionReport, SessionTotals } from './types.js';

interface Attempt {
  outcome: ProcessOutcome;
  session: ParsedSession;
  prompt: string;
  resumed: ResumeRequest | null;
}

export function agentProgramExecutor(adapter: ProgramAdapter): Executor<AgentProgramSpec> {
  const attempt = async (spec: AgentProgramSpec, request: LaunchRequest, prompt: string, resume: ResumeRequest | null): Promise<Attempt> => {
    const resumeSessionId = resume?.sessionId ?? null;
    const parser = adapter.parser({ resumeSessionId });
    const handOff = mcpHandOff(spec, request);
    try {
      const invocation = adapter.invocation({ prompt, model: spec.model, resumeSessionId, extraArgs: spec.args ?? [], mcp: handOff });
      if (handOff) await writeHandOffFiles(handOff, invocation);
      return await run(spec, request, parser, invocation, resumeSessionId, { prompt, resumed: resume });
    } finally {
      if (handOff) await rm(handOff.dir, { recursive: true, force: true });
    }
  };

  const run = async (
    spec: AgentProgramSpec, request: LaunchRequest, parser: ProgramParser, { args, stdin }: Invocation, resumeSessionId: string | null,
    asked: Pick<Attempt, 'prompt' | 'resumed'>,
  ): Promise<Attempt> => {
    // A refused resume is stopped as soon as it shows: a program that starts afresh on the delta
    // prompt instead (Codex starts a new thread) would work on a task it has never been told about.
    // So is a session that would sleep out a quota reset by itself, holding the agent's slot.
    const refused = new AbortController();
    const stop = () => refused.abort();
    if (request.signal?.aborted) stop();
    request.signal?.addEventListener('abort', stop, { once: true });
    try {
      const outcome = await runProcess({
        command: spec.command ?? PROGRAM_NAMES[adapter.kind].command, args, cwd: spec.cwd,
        env: sessionEnvironment(spec.env, request), stdin, timeoutSec: spec.timeout_sec,
      }, { ...request, signal: refused.signal }, (stream, line) => {
        const events = parser.line(stream, line);
        if (events.length > 0) request.onTranscript?.(events);
        const said = parser.result();
        if ((resumeSessionId !== null && said.resumeRefused) || said.waitsForQuota !== null) refused.abort();
      });
      return { outcome, session: parser.result(), ...asked };
    } finally {
      request.signal?.removeEventListener('abort', stop);
    }
  };

  return {
    async launch(spec, request) {
      const resume = request.resume ?? null;
      const first = await attempt(spec, request, request.prompt, resume);
      if (!resume || !first.session.resumeRefused || request.signal?.aborted) {
        return resultOf(adapter, spec, first, false);
      }
      // Not a failed run of its own (API.md, "Resumed sessions"): the session is gone, so the
      // program starts afresh on the full prompt, with the task's title and description.
      const second = await attempt(spec, request, resume.fullPrompt, null);
      return resultOf(adapter, spec, second, true);
    },
  };
}

/**
 * The run's MCP server for the program, unless the executor says `mcp: false`. Its folder is made
 * only for a program that takes its configuration from a file, and only this user can read it.
 */
function mcpHandOff(spec: AgentProgramSpec, request: LaunchRequest): McpHandOff | null {
  if (spec.mcp === false || !request.apiUrl || !request.runToken) return null;
  return { url: `${request.apiUrl}${MCP_PATH}`, token: request.runToken, dir: join(tmpdir(), `office-mcp-${randomUUID()}`) };
}

async function writeHandOffFiles(handOff: McpHandOff, invocation: Invocation): Promise<void> {
  if (!invocation.files?.length) return;
  await mkdir(handOff.dir, { mode: 0o700 });
  for (const file of invocation.files) await writeFile(file.path, file.content, { mode: 0o600 });
}

function resultOf(adapter: ProgramAdapter, spec: AgentProgramSpec, attempt: Attempt, resumeRefused: boolean): LaunchResult {
  const { outcome, session } = attempt;
  const report = reportOf(adapter, spec, attempt, resumeRefused);
  const resultJson: Record<string, unknown> = session.finalText !== null ? { result: session.finalText } : {};
  if (outcome.notStarted) return notStartedResult(outcome.durationMs);
  if (outcome.spawnError !== null) return { ...spawnFailedResult(outcome), report };
  const exit = { resultJson, exitCode: outcome.exitCode };
  if (outcome.timedOut) return { ...timedOutResult(outcome.durationMs, outcome.stderrTail, exit), report };
  if (outcome.watchdogError !== null) return { ...failedResult(outcome.watchdogError, outcome.durationMs, exit), report };
  // A reported error is a failed run whatever the exit code: Claude Code answers `is_error: true` with exit 0.
  if (outcome.exitCode === 0 && !outcome.aborted && session.error === null) return { ...okResult(resultJson, outcome.durationMs, 0), report };
  // What rate-limit parsing reads: the session's own error (its result text, its error event) and its stderr.
  const error = [session.error, session.waitsForQuota, outcome.stderrTail].filter((text): text is string => Boolean(text)).join('\n') || endingOf(outcome);
  return { ...failedResult(error, outcome.durationMs, { ...exit, resultJson: { ...resultJson, error: session.error ?? error } }), report };
}

/** This run's own usage and cost: a resumed session's running totals less what the previous run recorded. */
function reportOf(adapter: ProgramAdapter, spec: AgentProgramSpec, attempt: Attempt, resumeRefused: boolean): SessionReport {
  const { session, resumed } = attempt;
  const before = resumed?.totals ?? null;
  const usage = session.usage && adapter.runningTotals.usage ? usageSince(session.usage, before?.usage ?? null) : session.usage;
  const reportedCost = session.costUsd !== null && adapter.runningTotals.cost && before?.cost_usd !== undefined
    ? Math.max(0, roundUsd(session.costUsd - before.cost_usd))
    : session.costUsd;
  const totals: SessionTotals = {};
  if (session.usage && adapter.runningTotals.usage) totals.usage = session.usage;
  if (session.costUsd !== null && adapter.runningTotals.cost) totals.cost_usd = session.costUsd;
  return {
    usage,
    ...costOf(reportedCost, usage, spec),
    cli_session_id: session.sessionId,
    totals: Object.keys(totals).length > 0 ? totals : null,
    rateLimit: session.rateLimit,
    limitWarning: session.limitWarning,
    resumeRefused,
    prompt: attempt.prompt,
  };
}

/** The program's own figure, else tokens at the executor's prices; a null cost says why (API.md). */
function costOf(reported: number | null, usage: Usage | null, spec: AgentProgramSpec): Pick<SessionReport, 'cost_usd' | 'cost_note'> {
  if (reported !== null) return { cost_usd: reported, cost_note: null };
  if (usage === null) return { cost_usd: null, cost_note: 'the session reported no cost and no token usage' };
  if (!spec.prices) return { cost_usd: null, cost_note: `${PROGRAM_NAMES[spec.kind].title} reports tokens only, and the executor sets no prices` };
  return { cost_usd: costOfUsage(usage, spec.prices), cost_note: 'computed from the token usage at the executor\'s prices' };
}
