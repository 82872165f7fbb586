/**
 * Claude Code as an executor kind (API.md, "Agent CLIs"), through a real child process that replays
 * the program's recorded output (test/fixtures/agents): what a run records, a reported error whatever
 * the exit code, resumed sessions and their refusal, each limit form, the transcript and budgets.
 * Real SQLite, real HTTP server.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { invocationsOf, programExecutor } from '../helpers/agentPrograms.js';
import { apiClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/** The scheduler's MCP server, handed over in a per-run file (its token is in no argument). */
const CLAUDE_MCP_ARGS = ['--mcp-config', expect.stringMatching(/office-mcp-[^/]+\/claude-mcp\.json$/), '--allowedTools', 'mcp__office-scheduler'];

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, listRuns, listWakeups, listActivity, createWorkspace, createAgent, waitForRun } = apiClient(() => h);

const BUFFER_SEC = 1;

async function claudeAgent(workspaceId: string, options: Parameters<typeof programExecutor>[1], name = 'Claude') {
  return createAgent(workspaceId, { name, executor: programExecutor('claude_code', options) });
}

/** A failed first run's wakeup, once it waits for its retry. */
async function retryOf(agentId: string) {
  return h!.waitFor(async () => {
    const [w] = await listWakeups({ agent_id: agentId });
    return w?.status === 'scheduled_retry' ? w : undefined;
  }, 'the wakeup to wait for its retry');
}

describe('claude_code: what a run records', () => {
  it('GIVEN a claude_code agent with no command WHEN its session succeeds THEN `claude` is found on PATH and the run records total_cost_usd, usage (cache reads and writes counted as input), the session id and the answer', async () => {
    h = await startHarness();
    const record = mkdtempSync(join(h.dir, 'record-'));
    const ws = await createWorkspace();
    const agentId = await claudeAgent(ws, { record, onPath: true, executor: { model: 'claude-opus-5-5' } });
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Write the changelog', description: 'BRIEF-4411', assignee_agent_instance_id: agentId });

    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the Claude Code run');
    expect(run).toMatchObject({
      executor_kind: 'claude_code', cost_usd: 0.00018040000000000002, cost_note: null,
      usage: { input_tokens: 21, output_tokens: 6, cached_input_tokens: 7 },
      result_json: { result: 'Done: the task is handled.' },
    });
    expect(run.cli_session_id).toMatch(/^[0-9a-f-]{36}$/);
    const [invocation] = invocationsOf(record, run.id);
    expect(invocation!.argv).toEqual(['-p', ...CLAUDE_MCP_ARGS, '--output-format', 'stream-json', '--verbose', '--model', 'claude-opus-5-5']);
    // The per-run MCP config, with the run token in it, is gone once the session ended.
    expect(existsSync(invocation!.argv[2]!)).toBe(false);
    expect(invocation!.prompt).toBe(run.assembled_prompt);
    expect(invocation!.prompt).toContain(`# Task ${task.id}: Write the changelog`);
    expect(invocation!.session_id).toBe(run.cli_session_id);

    const transcript = await get(`/api/office/runs/${run.id}/transcript`);
    expect(transcript).toMatchObject({ run_id: run.id, agent_id: agentId, truncated: false });
    expect(transcript.events.map((e: any) => e.type)).toEqual(['system', 'assistant', 'result']);
    expect(transcript.events[1]).toMatchObject({ seq: 2, stream: 'stdout', text: 'Done: the task is handled.' });
  });

  it('GIVEN a pause_agent budget below one run\'s reported cost WHEN the run ends THEN the next wakeup finds the budget spent and pauses the agent', async () => {
    h = await startHarness();
    const record = mkdtempSync(join(h.dir, 'record-'));
    const ws = await createWorkspace();
    const agentId = await claudeAgent(ws, { record });
    await post('/api/office/budgets', { scope: 'agent', scope_id: agentId, limit_usd: 0.0001, period: 'daily', action_on_exceed: 'pause_agent' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'first' }, 202);
    await waitForRun({ agent_id: agentId }, 'succeeded', 'the first run');
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'second' }, 202);
    const agent = await h.waitFor(async () => {
      const a = await get(`/api/office/agents/${agentId}`);
      return a.status === 'paused' ? a : null;
    }, 'the budget to pause the agent');
    expect(agent.paused_reason).toMatch(/agent budget exceeded: 0\.00 of 0\.0001 USD/);
    expect(await listRuns({ agent_id: agentId })).toHaveLength(1);
  });

  it('GIVEN Claude Code answers subtype "success" with is_error true and exit code 0 THEN the run fails and is retried', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const record = mkdtempSync(join(h.dir, 'record-'));
    const ws = await createWorkspace();
    const agentId = await claudeAgent(ws, { record, scenario: 'is_error_exit0' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const wakeup = await retryOf(agentId);
    const [run] = await listRuns({ wakeup_id: wakeup.id });
    expect(run).toMatchObject({ status: 'failed', result_json: { error: expect.stringContaining('disabled Claude subscription access') } });
    expect(run.error).toContain('Your organization has disabled Claude subscription access');
  });
});

describe('claude_code: a limit that is near, and a transcript past its cap', () => {
  it('GIVEN a rate_limit_event allowed_warning WHEN the run succeeds THEN it is no failure, and the quota records the warning, which GET /quotas?all=true shows', async () => {
    h = await startHarness();
    const record = mkdtempSync(join(h.dir, 'record-'));
    const ws = await createWorkspace();
    const agentId = await claudeAgent(ws, { record, scenario: 'rate_limit_event_warning' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    await waitForRun({ agent_id: agentId }, 'succeeded', 'the run');
    expect(await get('/api/office/quotas')).toEqual([]);
    const [quota] = await get('/api/office/quotas?all=true');
    expect(quota).toMatchObject({ key: 'claude_code:default', exhausted_until: null, warning: expect.stringMatching(/^five_hour limit 93% used/), agents: [agentId] });
    const [logged] = await listActivity({ workspace_id: ws, code: 'quota_limit_near' });
    expect(logged.message).toContain('five_hour limit 93% used');
  });

  it('GIVEN OFFICE_TRANSCRIPT_MAX_BYTES WHEN a session prints more THEN its run keeps the last events that fit, and says it was truncated', async () => {
    h = await startHarness({ OFFICE_TRANSCRIPT_MAX_BYTES: '1024' });
    const ws = await createWorkspace();
    const script = 'for (let i = 0; i < 100; i++) console.log(`line ${String(i).padStart(3, "0")} ` + "x".repeat(90));';
    const agentId = await createAgent(ws, { name: 'Chatty', executor: { kind: 'command', command: process.execPath, args: ['-e', script] } });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'talk' }, 202);
    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the run');
    const transcript = await get(`/api/office/runs/${run.id}/transcript`);
    expect(transcript.truncated).toBe(true);
    // 99 bytes a line: ten fit in 1024.
    expect(transcript.events.map((e: any) => e.text.slice(0, 8))).toEqual(['line 090', 'line 091', 'line 092', 'line 093', 'line 094', 'line 095', 'line 096', 'line 097', 'line 098', 'line 099']);
    expect(transcript.events.every((e: any) => e.type === 'line' && e.stream === 'stdout')).toBe(true);
  });
});

describe('claude_code: resumed sessions', () => {
  it('GIVEN an earlier run of the agent on the task recorded a session WHEN the next run starts THEN it passes --resume <that id>, gets only the resume delta, and records only its own share of the session\'s running cost', async () => {
    h = await startHarness();
    const record = mkdtempSync(join(h.dir, 'record-'));
    const sessions = mkdtempSync(join(h.dir, 'sessions-'));
    const ws = await createWorkspace();
    const agentId = await claudeAgent(ws, { record, sessions });
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Billing migration', description: 'BRIEF-7731', assignee_agent_instance_id: agentId });
    const first = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first run');

    await post(`/api/office/tasks/${task.id}/comments`, { body: 'New: add a currency column', author_type: 'user', author_id: 'pm' });
    const second = await h.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.id !== first.id && r.status === 'succeeded'), 'the resumed run');

    const [invocation] = invocationsOf(record, second.id);
    expect(invocation!.argv).toEqual(['-p', ...CLAUDE_MCP_ARGS, '--output-format', 'stream-json', '--verbose', '--resume', first.cli_session_id]);
    expect(invocation!.prompt).toMatch(/^# Resume/);
    expect(invocation!.prompt).toContain('New: add a currency column');
    expect(invocation!.prompt).not.toContain('BRIEF-7731');
    expect(second).toMatchObject({ cli_session_id: first.cli_session_id, assembled_prompt: invocation!.prompt });
    // The recorded resumed turn reports the session's total, 0.0003608: this run's own share is the difference.
    expect(second.cost_usd).toBeCloseTo(0.0001804, 9);
    expect(second.cli_session_totals).toEqual({ cost_usd: 0.00036080000000000004 });
  });

  it('GIVEN the program no longer has the session WHEN the run resumes it THEN it is retried at once with the full prompt, in the same run, and logged', async () => {
    h = await startHarness();
    const record = mkdtempSync(join(h.dir, 'record-'));
    const first = mkdtempSync(join(h.dir, 'sessions-'));
    const ws = await createWorkspace();
    const agentId = await claudeAgent(ws, { record, sessions: first });
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Billing migration', description: 'BRIEF-7731', assignee_agent_instance_id: agentId });
    const run1 = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first run');
    // The program's own store of sessions is gone (another machine, a cleared ~/.claude): nothing to resume.
    await call('PATCH', `/api/office/agents/${agentId}`, { executor: programExecutor('claude_code', { record, sessions: mkdtempSync(join(h.dir, 'empty-')) }) });
    await post(`/api/office/tasks/${task.id}/comments`, { body: 'New: add a currency column', author_type: 'user', author_id: 'pm' });

    const run2 = await h.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.id !== run1.id && r.status === 'succeeded'), 'the second run');
    const [refused, fresh] = invocationsOf(record, run2.id);
    expect(refused).toMatchObject({ scenario: 'resume_not_found' });
    expect(refused!.argv).toContain('--resume');
    expect(fresh!.argv).not.toContain('--resume');
    expect(fresh!.prompt).toContain('BRIEF-7731');
    expect(fresh!.prompt).toContain('New: add a currency column');
    expect(run2.assembled_prompt).toBe(fresh!.prompt);
    expect(run2.cli_session_id).toBe(fresh!.session_id);
    expect(await listRuns({ agent_id: agentId })).toHaveLength(2);
    const [logged] = await listActivity({ workspace_id: ws, code: 'run_resume_refused' });
    expect(logged).toMatchObject({ run_id: run2.id, message: expect.stringContaining(`could not resume session ${run1.cli_session_id}`) });
  });

  it('GIVEN a run that resumes nothing (a taskless wake) THEN it gets the full prompt', async () => {
    h = await startHarness();
    const record = mkdtempSync(join(h.dir, 'record-'));
    const ws = await createWorkspace();
    const agentId = await claudeAgent(ws, { record });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'look around' }, 202);
    const run1 = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first run');
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'look again' }, 202);
    const run2 = await h.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.id !== run1.id && r.status === 'succeeded'), 'the second run');
    expect(invocationsOf(record, run2.id)[0]!.argv).not.toContain('--resume');
    expect(run2.assembled_prompt).toMatch(/^# Wakeup/);
  });
});

describe('claude_code: each limit form, through a real child process', () => {
  /** Each agent has its own credential, so that one's limit holds no other (they share no quota). */
  async function limitedRun(scenario: string, env: Record<string, string> = {}) {
    const record = mkdtempSync(join(h!.dir, 'record-'));
    const ws = await createWorkspace(scenario);
    const agentId = await claudeAgent(ws, { record, scenario, executor: { env: { CLAUDE_CODE_OAUTH_TOKEN: `token-${scenario}`, ...env } } }, scenario);
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: scenario }, 202);
    const wakeup = await retryOf(agentId);
    const [run] = await listRuns({ wakeup_id: wakeup.id });
    const [entry] = (await listActivity({ workspace_id: ws, code: 'wakeup_retry_scheduled' }));
    return { wakeup, run, entry, failedAt: Date.parse(run.finished_at) };
  }

  const nextLocal = (zone: string, hour: number, minute: number, after: number) => {
    let at = DateTime.fromMillis(after, { zone }).set({ hour, minute, second: 0, millisecond: 0 });
    if (at.toMillis() <= after) at = at.plus({ days: 1 });
    return at.toMillis();
  };

  /** Epoch forms are relative to when the replayer ran, a moment before the run's end. */
  const near = (actual: string, expected: number) => expect(Math.abs(Date.parse(actual) - expected)).toBeLessThan(5_000);

  it.each([['rate_limit_event_rejected', 10_800], ['limit_clock_zone', 10_800], ['limit_session', 10_800], ['limit_weekly_captured', 345_600]])(
    '%s: the rate_limit_event\'s resetsAt (%i s on) wins over the text, and the retry is at it + buffer', async (scenario, inSec) => {
      h ??= await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
      const { wakeup, entry, failedAt } = await limitedRun(scenario);
      expect(entry.details).toMatchObject({ source: 'rate_limit_parsed', reset_form: 'structured_event', rate_limited: true, retry_count: 1 });
      near(wakeup.scheduled_retry_at, failedAt + inSec * 1000 + BUFFER_SEC * 1000);
    });

  // A version from before rate_limit_event (Claude Code 2.1.45 added it) printed the text alone.
  it.each([
    ['limit_clock_zone', 'clock_with_zone', (failedAt: number) => nextLocal('Europe/Warsaw', 17, 0, failedAt)],
    ['limit_session', 'clock_with_zone', (failedAt: number) => nextLocal('America/New_York', 15, 10, failedAt)],
    ['limit_epoch', 'usage_limit_epoch', (failedAt: number) => failedAt + 7_200_000],
  ])('%s without the structured event: the text\'s reset (%s) + buffer', async (scenario, form, expectedReset) => {
    h ??= await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { wakeup, entry, failedAt } = await limitedRun(scenario, { FIXTURE_WITHOUT: 'rate_limit_event' });
    expect(entry.details).toMatchObject({ source: 'rate_limit_parsed', reset_form: form, rate_limited: true });
    const reset = expectedReset(failedAt);
    if (form === 'usage_limit_epoch') near(wakeup.scheduled_retry_at, reset + BUFFER_SEC * 1000);
    else expect(Date.parse(wakeup.scheduled_retry_at)).toBe(reset + BUFFER_SEC * 1000);
  });

  it('limit_weekly without the structured event: "resets Sep 15 at 7pm" names no zone, so it is read in the host\'s zone', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { wakeup, entry, failedAt } = await limitedRun('limit_weekly', { FIXTURE_WITHOUT: 'rate_limit_event' });
    const zone = h.scheduler.config.hostTimeZone;
    let reset = DateTime.fromMillis(failedAt, { zone }).set({ month: 9, day: 15, hour: 19, minute: 0, second: 0, millisecond: 0 });
    if (reset.toMillis() <= failedAt) reset = reset.plus({ years: 1 });
    expect(entry.details).toMatchObject({ source: 'rate_limit_parsed', reset_form: 'date_clock_host_zone' });
    expect(Date.parse(wakeup.scheduled_retry_at)).toBe(reset.toMillis() + BUFFER_SEC * 1000);
  });

  it('api_error_429: a rate limit with no reset time falls back to backoff', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { entry } = await limitedRun('api_error_429');
    expect(entry.details).toMatchObject({ source: 'backoff', rate_limited: true, parsed_reset_at: null });
  });
});
