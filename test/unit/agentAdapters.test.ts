/**
 * Each adapter's line parser on the programs' recorded outputs (test/fixtures/agents/recordings,
 * real captures and reported forms, each with its source): session id, answer, usage, cost, the
 * error a session reports whatever its exit code, the rate-limit signal and a refused resume.
 */
import { describe, expect, it } from 'vitest';
import { PROGRAM_ADAPTERS } from '../../src/executors/adapters/index.js';
import type { ProgramAdapter } from '../../src/executors/adapters/types.js';
import { scenarios as claude } from '../fixtures/agents/recordings/claude.mjs';
import { scenarios as codex } from '../fixtures/agents/recordings/codex.mjs';
import { scenarios as gemini } from '../fixtures/agents/recordings/gemini.mjs';
import type { Scenario } from '../fixtures/agents/recordings/scenario.mjs';
import { substitute } from '../fixtures/agents/replay.mjs';

const SESSION = '5f8e2a4c-0000-4000-8000-00000000abcd';
const ANSWER = 'The migration is done.';

/** The parser's reading of a scenario's output, as the executor streams it: stdout lines, then stderr's. */
function parse(adapter: ProgramAdapter, scenario: Scenario | undefined, resumeSessionId: string | null = null) {
  if (!scenario) throw new Error('no such scenario');
  const filled = substitute(scenario, resumeSessionId ?? SESSION, ANSWER);
  const parser = adapter.parser({ resumeSessionId });
  const events = [];
  for (const line of filled.stdout) events.push(...parser.line('stdout', typeof line === 'string' ? line : JSON.stringify(line)));
  for (const line of filled.stderr.split('\n')) events.push(...parser.line('stderr', line));
  return { ...parser.result(), events };
}

describe('claude_code adapter', () => {
  const adapter = PROGRAM_ADAPTERS.claude_code;

  it('chooses -p --output-format stream-json --verbose, the model and the resume flag, then the executor\'s args, with the prompt on stdin', () => {
    expect(adapter.invocation({ prompt: 'P', model: 'claude-opus-5-5', resumeSessionId: SESSION, extraArgs: ['--permission-mode', 'acceptEdits'] })).toEqual({
      args: ['-p', '--output-format', 'stream-json', '--verbose', '--model', 'claude-opus-5-5', '--resume', SESSION, '--permission-mode', 'acceptEdits'],
      stdin: 'P',
    });
  });

  it('success: session id from init, the result text, total_cost_usd, and usage with cache reads and writes counted as input', () => {
    const read = parse(adapter, claude.success);
    expect(read).toMatchObject({ sessionId: SESSION, finalText: ANSWER, costUsd: 0.00018040000000000002, error: null, rateLimit: null, resumeRefused: false });
    expect(read.usage).toEqual({ input_tokens: 21, output_tokens: 6, cached_input_tokens: 7 });
    expect(read.events.map((e) => e.type)).toEqual(['system', 'assistant', 'result']);
  });

  it('success_resumed: total_cost_usd is the session\'s running total (the executor subtracts), usage the turn\'s own', () => {
    expect(adapter.runningTotals).toEqual({ usage: false, cost: true });
    expect(parse(adapter, claude.success_resumed, SESSION)).toMatchObject({ costUsd: 0.00036080000000000004, usage: { input_tokens: 21, output_tokens: 6, cached_input_tokens: 7 } });
  });

  it('is_error_exit0: subtype "success" with is_error true is a reported error, whatever the exit code', () => {
    expect(claude.is_error_exit0!.exitCode).toBe(0);
    expect(parse(adapter, claude.is_error_exit0).error).toContain('Your organization has disabled Claude subscription access');
  });

  it('api_error_429: the result text names the 429 for rate-limit parsing; no structured event with an API key', () => {
    const read = parse(adapter, claude.api_error_429);
    expect(read.error).toMatch(/^API Error: Request rejected \(429\)/);
    expect(read.rateLimit).toBeNull();
  });

  it.each(['limit_clock_zone', 'limit_session', 'limit_weekly', 'limit_weekly_captured', 'limit_epoch'])('%s: the limit text is the reported error', (name) => {
    expect(parse(adapter, claude[name]).error).toMatch(/hit your|usage limit reached/);
  });

  it('rate_limit_event_rejected: a structured limit with resetsAt in epoch seconds', () => {
    const now = Math.floor(Date.now() / 1000);
    const read = parse(adapter, claude.rate_limit_event_rejected);
    expect(read.rateLimit?.resetAt).toBeGreaterThanOrEqual((now + 10_800) * 1000);
    expect(read.rateLimit?.resetAt).toBeLessThan((now + 10_810) * 1000);
    expect(read.error).toContain("You've hit your 5-hour limit");
  });

  it('rate_limit_event_warning: allowed_warning is a limit near, not a failure', () => {
    const read = parse(adapter, claude.rate_limit_event_warning);
    expect(read).toMatchObject({ error: null, rateLimit: null, finalText: ANSWER });
    expect(read.limitWarning).toMatch(/^five_hour limit 93% used \(resets /);
  });

  it('resume_not_found: "No conversation found with session ID" is a refused resume', () => {
    expect(parse(adapter, claude.resume_not_found, SESSION).resumeRefused).toBe(true);
  });

  it('killed_mid_stream: the session id is known from the init line though no result came', () => {
    expect(parse(adapter, claude.killed_mid_stream)).toMatchObject({ sessionId: SESSION, finalText: null, usage: null, error: null });
  });
});

describe('codex adapter', () => {
  const adapter = PROGRAM_ADAPTERS.codex;

  it('chooses exec --json --skip-git-repo-check, the model, resume <id>, the executor\'s args, then - for the prompt on stdin', () => {
    expect(adapter.invocation({ prompt: 'P', model: 'gpt-5.5', resumeSessionId: SESSION, extraArgs: ['-s', 'workspace-write'] })).toEqual({
      args: ['exec', '--json', '--skip-git-repo-check', '--model', 'gpt-5.5', 'resume', SESSION, '-s', 'workspace-write', '-'],
      stdin: 'P',
    });
  });

  it('success: the thread id, the last agent message and turn.completed usage (cached input counted in input_tokens)', () => {
    const read = parse(adapter, codex.success);
    expect(read).toMatchObject({ sessionId: SESSION, finalText: ANSWER, costUsd: null, error: null });
    expect(read.usage).toEqual({ input_tokens: 1200, output_tokens: 30, cached_input_tokens: 1000 });
  });

  it('success_resumed: usage is the thread\'s running total, which the executor subtracts', () => {
    expect(adapter.runningTotals).toEqual({ usage: true, cost: false });
    expect(parse(adapter, codex.success_resumed, SESSION).usage?.input_tokens).toBeGreaterThan(1200);
  });

  it('turn_failed: a failed turn is a reported error', () => {
    expect(parse(adapter, codex.turn_failed).error).toBeTruthy();
  });

  it('error_event: a "Reconnecting... 1/5" error event followed by a completed turn is no failure', () => {
    expect(parse(adapter, codex.error_event)).toMatchObject({ error: null, finalText: ANSWER });
  });

  it('retry_in_seconds: "Reconnecting... n/5" notices are not the failure; the last error is', () => {
    const read = parse(adapter, codex.retry_in_seconds);
    expect(read.error).toBeTruthy();
    expect(read.error).not.toMatch(/^Reconnecting/);
  });

  it.each(['limit_try_again_in', 'limit_try_again_at_time', 'limit_try_again_at_date', 'limit_try_again_at_time_captured', 'limit_try_again_at_date_captured'])(
    '%s: the usage-limit text is the reported error', (name) => {
      expect(parse(adapter, codex[name]).error).toMatch(/hit your usage limit/);
    });

  it('resume_not_found: "no rollout found for thread id" is a refused resume', () => {
    expect(parse(adapter, codex.resume_not_found, SESSION).resumeRefused).toBe(true);
  });

  it('resume_unknown_name_starts_new: a new thread id where a resume was asked is a refused resume', () => {
    expect(parse(adapter, codex.resume_unknown_name_starts_new, 'not-a-thread').resumeRefused).toBe(true);
  });

  it('a thread resumed under its own id is not refused', () => {
    expect(parse(adapter, codex.success_resumed, SESSION).resumeRefused).toBe(false);
  });
});

describe('gemini_cli adapter', () => {
  const adapter = PROGRAM_ADAPTERS.gemini_cli;

  it('chooses --output-format stream-json, the model and --resume, then the executor\'s args, with the prompt on stdin', () => {
    expect(adapter.invocation({ prompt: 'P', model: 'gemini-2.5-flash', resumeSessionId: SESSION, extraArgs: ['--skip-trust'] })).toEqual({
      args: ['--output-format', 'stream-json', '--model', 'gemini-2.5-flash', '--resume', SESSION, '--skip-trust'],
      stdin: 'P',
    });
  });

  it('success: session id from init, the assistant deltas joined, stats with cached input inside input_tokens', () => {
    const read = parse(adapter, gemini.success);
    expect(read).toMatchObject({ sessionId: SESSION, error: null, costUsd: null });
    expect(read.finalText).toBeTruthy();
    expect(read.usage).toEqual({ input_tokens: 5200, output_tokens: 12, cached_input_tokens: 4000 });
  });

  it('error_result_stream: a result with status error is a reported error', () => {
    expect(parse(adapter, gemini.error_result_stream).error).toBeTruthy();
  });

  it.each(['quota_reset_after_stream', 'quota_retry_in', 'quota_daily'])('%s: a quota error is a reported error, its cause on stderr', (name) => {
    const read = parse(adapter, gemini[name]);
    expect(read.error).toBeTruthy();
    expect(gemini[name]!.stderr).toMatch(/quota|Quota/);
  });

  it.each(['resume_not_found', 'resume_no_sessions'])('%s: "Error resuming session" is a refused resume', (name) => {
    expect(parse(adapter, gemini[name], SESSION).resumeRefused).toBe(true);
  });
});
