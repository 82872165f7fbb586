/**
 * Codex CLI and Gemini CLI as executor kinds (API.md, "Agent CLIs"), through real child processes
 * that replay the programs' recorded outputs (test/fixtures/agents): usage priced by the executor's
 * `prices`, a resumed thread's running total, refused resumes, each limit form, and a Gemini CLI
 * session that would sleep out a quota reset by itself. Real SQLite, real HTTP server.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentProgramKind } from '../../src/domain/agentPrograms.js';
import { invocationsOf, programExecutor, type ProgramOptions } from '../helpers/agentPrograms.js';
import { apiClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/** The scheduler's MCP server for this session only; the token stays in OFFICE_RUN_TOKEN. */
const CODEX_MCP_ARGS = [
  '-c', expect.stringMatching(/^mcp_servers\.office-scheduler\.url="http:\/\/127\.0\.0\.1:\d+\/mcp"$/),
  '-c', 'mcp_servers.office-scheduler.bearer_token_env_var="OFFICE_RUN_TOKEN"',
];

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, post, listRuns, listWakeups, listActivity, createWorkspace, createAgent, waitForRun } = apiClient(() => h);

const BUFFER_SEC = 1;
const PRICES = { input_per_mtok_usd: 1.25, output_per_mtok_usd: 10, cached_input_per_mtok_usd: 0.125 };

async function programAgent(kind: AgentProgramKind, options: Omit<ProgramOptions, 'record'> = {}) {
  const record = mkdtempSync(join(h!.dir, 'record-'));
  const ws = await createWorkspace(`${kind} ${options.scenario ?? 'success'}`);
  // Each agent its own credential: one agent's limit holds no other here (they share no quota).
  const env = { ...(kind === 'codex' ? { CODEX_API_KEY: `key-${ws}` } : { GEMINI_API_KEY: `key-${ws}` }), ...(options.executor?.env as object) };
  const agentId = await createAgent(ws, { name: kind, executor: programExecutor(kind, { ...options, record, executor: { ...options.executor, env } }) });
  return { ws, agentId, record };
}

/** The first run's retry and the activity entry that scheduled it. */
async function failedAndRetried(ws: string, agentId: string) {
  const wakeup = await h!.waitFor(async () => {
    const [w] = await listWakeups({ agent_id: agentId });
    return w?.status === 'scheduled_retry' ? w : undefined;
  }, 'the wakeup to wait for its retry');
  const [run] = await listRuns({ wakeup_id: wakeup.id });
  const [entry] = await listActivity({ workspace_id: ws, code: 'wakeup_retry_scheduled' });
  return { wakeup, run, entry, failedAt: Date.parse(run.finished_at) };
}

/**
 * A task's first run records a session; then the program's own store of sessions is gone (another
 * machine, a cleared home) and a comment wakes the agent: its run's two invocations, the refused
 * resume and the fresh start.
 */
async function resumeAfterTheProgramLostItsSessions(kind: AgentProgramKind) {
  h = await startHarness();
  const { ws, agentId, record } = await programAgent(kind, { sessions: mkdtempSync(join(h.dir, 'sessions-')) });
  const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Port the parser', description: 'BRIEF-9', assignee_agent_instance_id: agentId });
  const first = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first run');
  const { executor } = await call('GET', `/api/office/agents/${agentId}`);
  await call('PATCH', `/api/office/agents/${agentId}`, { executor: { ...executor, env: { ...executor.env, FIXTURE_SESSIONS_DIR: mkdtempSync(join(h.dir, 'empty-')) } } });
  await post(`/api/office/tasks/${task.id}/comments`, { body: 'Also the lexer', author_type: 'user', author_id: 'pm' });
  const second = await h.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.id !== first.id && r.status === 'succeeded'), 'the second run');
  const [refused, fresh] = invocationsOf(record, second.id);
  return { refused: refused!, fresh: fresh! };
}

describe('codex: what a run records', () => {
  it('GIVEN prices on the executor WHEN a Codex session reports tokens only THEN the run\'s cost is (input − cached) × input + cached × cached + output × output', async () => {
    h = await startHarness();
    const { agentId, record } = await programAgent('codex', { executor: { model: 'gpt-5.5', prices: PRICES } });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the Codex run');
    expect(run).toMatchObject({
      usage: { input_tokens: 1200, output_tokens: 30, cached_input_tokens: 1000 },
      cost_usd: 0.000675, cost_note: expect.stringContaining('prices'), result_json: { result: 'Done: the task is handled.' },
    });
    const [invocation] = invocationsOf(record, run.id);
    expect(invocation!.argv).toEqual(['exec', ...CODEX_MCP_ARGS, '--json', '--skip-git-repo-check', '--model', 'gpt-5.5', '-']);
    expect(run.cli_session_id).toBe(invocation!.session_id);
  });

  it('GIVEN no prices WHEN a Codex session reports tokens only THEN the cost is null and cost_note says why', async () => {
    h = await startHarness();
    const { agentId } = await programAgent('codex');
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the Codex run');
    expect(run).toMatchObject({ cost_usd: null, cost_note: 'Codex CLI reports tokens only, and the executor sets no prices' });
  });

  it('GIVEN a resumed thread WHEN turn.completed reports the thread\'s running total THEN the run records only its own usage', async () => {
    h = await startHarness();
    const sessions = mkdtempSync(join(h.dir, 'sessions-'));
    const { ws, agentId, record } = await programAgent('codex', { sessions, executor: { prices: PRICES } });
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Port the parser', description: 'BRIEF-9', assignee_agent_instance_id: agentId });
    const first = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first run');
    await post(`/api/office/tasks/${task.id}/comments`, { body: 'Also the lexer', author_type: 'user', author_id: 'pm' });
    const second = await h.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.id !== first.id && r.status === 'succeeded'), 'the resumed run');
    const [invocation] = invocationsOf(record, second.id);
    expect(invocation!.argv).toEqual(['exec', ...CODEX_MCP_ARGS, '--json', '--skip-git-repo-check', 'resume', first.cli_session_id, '-']);
    expect(invocation!.prompt).toMatch(/^# Resume/);
    // The recorded resumed turn reports 2400 input, 2000 cached, 60 output: the thread's total after two turns.
    expect(second.usage).toEqual({ input_tokens: 1200, output_tokens: 30, cached_input_tokens: 1000 });
    expect(second.cost_usd).toBe(0.000675);
    expect(second.cli_session_totals).toEqual({ usage: { input_tokens: 2400, output_tokens: 60, cached_input_tokens: 2000 } });
  });

  it('GIVEN Codex has no such thread ("no rollout found") THEN the run starts afresh at once with the full prompt', async () => {
    const { refused, fresh } = await resumeAfterTheProgramLostItsSessions('codex');
    expect(refused.scenario).toBe('resume_not_found');
    expect(refused.argv).toContain('resume');
    expect(fresh.argv).not.toContain('resume');
    expect(fresh.prompt).toContain('BRIEF-9');
  });
});

describe('codex: each limit form, through a real child process', () => {
  it('limit_try_again_in: "try again in 3 days 6 hours 57 minutes" schedules the retry that far out + buffer', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { ws, agentId } = await programAgent('codex', { scenario: 'limit_try_again_in' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const { wakeup, entry, failedAt } = await failedAndRetried(ws, agentId);
    expect(entry.details).toMatchObject({ source: 'rate_limit_parsed', reset_form: 'duration' });
    const expected = failedAt + ((3 * 24 + 6) * 3600 + 57 * 60) * 1000 + BUFFER_SEC * 1000;
    expect(Math.abs(Date.parse(wakeup.scheduled_retry_at) - expected)).toBeLessThan(1_000);
  });

  it('limit_try_again_at_time: "try again at 3:35 AM" is the next 3:35 in the host\'s zone + buffer', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { ws, agentId } = await programAgent('codex', { scenario: 'limit_try_again_at_time' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const { wakeup, entry, failedAt } = await failedAndRetried(ws, agentId);
    let reset = DateTime.fromMillis(failedAt, { zone: h.scheduler.config.hostTimeZone }).set({ hour: 3, minute: 35, second: 0, millisecond: 0 });
    if (reset.toMillis() <= failedAt) reset = reset.plus({ days: 1 });
    expect(entry.details).toMatchObject({ source: 'rate_limit_parsed', reset_form: 'clock_host_zone' });
    expect(Date.parse(wakeup.scheduled_retry_at)).toBe(reset.toMillis() + BUFFER_SEC * 1000);
  });

  it('limit_try_again_at_date: a dated reset already past ("Aug 8th, 2026") falls back to backoff, and the entry says why', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { ws, agentId } = await programAgent('codex', { scenario: 'limit_try_again_at_date' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const { entry } = await failedAndRetried(ws, agentId);
    expect(entry.details).toMatchObject({ source: 'backoff', rate_limited: true, unusable_reset: expect.stringContaining('has passed') });
    expect(entry.message).toContain('the limit named no usable reset');
  });

  it('retry_in_seconds: after Codex\'s own five reconnects, "Please try again in 12.5s" schedules now + 12.5 s + buffer', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { ws, agentId } = await programAgent('codex', { scenario: 'retry_in_seconds' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const { wakeup, run, entry, failedAt } = await failedAndRetried(ws, agentId);
    expect(run.error).not.toMatch(/^Reconnecting/);
    expect(entry.details).toMatchObject({ source: 'rate_limit_parsed', reset_form: 'duration' });
    expect(Math.abs(Date.parse(wakeup.scheduled_retry_at) - (failedAt + 12_500 + BUFFER_SEC * 1000))).toBeLessThan(1_000);
  });
});

describe('gemini_cli', () => {
  it('GIVEN a Gemini CLI session WHEN it succeeds THEN the run records its stats as usage and the joined answer', async () => {
    h = await startHarness();
    const { agentId, record } = await programAgent('gemini_cli', { executor: { model: 'gemini-2.5-flash' } });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the Gemini run');
    expect(run).toMatchObject({ usage: { input_tokens: 5200, output_tokens: 12, cached_input_tokens: 4000 }, cost_usd: null });
    expect(run.result_json.result).toBeTruthy();
    expect(invocationsOf(record, run.id)[0]!.argv).toEqual(['--output-format', 'stream-json', '--model', 'gemini-2.5-flash']);
  });

  it('quota_reset_after_stream: "Your quota will reset after 1h49m8s" (exit 173) schedules the retry that far out + buffer', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { ws, agentId } = await programAgent('gemini_cli', { scenario: 'quota_reset_after_stream' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const { wakeup, entry, failedAt } = await failedAndRetried(ws, agentId);
    expect(entry.details).toMatchObject({ source: 'rate_limit_parsed', reset_form: 'duration' });
    expect(Math.abs(Date.parse(wakeup.scheduled_retry_at) - (failedAt + 6_548_000 + BUFFER_SEC * 1000))).toBeLessThan(1_000);
  });

  it('quota_reset_after_waiting: a session that would sleep out the reset by itself is stopped at once, and the retry waits for the reset instead', async () => {
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC) });
    const { ws, agentId } = await programAgent('gemini_cli', { scenario: 'quota_reset_after_waiting' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const { wakeup, run, entry, failedAt } = await failedAndRetried(ws, agentId);
    expect(Date.parse(run.finished_at) - Date.parse(run.started_at)).toBeLessThan(10_000);
    expect(entry.details).toMatchObject({ source: 'rate_limit_parsed', rate_limited: true });
    expect(Math.abs(Date.parse(wakeup.scheduled_retry_at) - (failedAt + 6_548_000 + BUFFER_SEC * 1000))).toBeLessThan(1_000);
  });

  it('GIVEN Gemini CLI has no such session ("Error resuming session", exit 42) THEN the run starts afresh at once with the full prompt', async () => {
    const { refused, fresh } = await resumeAfterTheProgramLostItsSessions('gemini_cli');
    expect(refused.argv).toContain('--resume');
    expect(fresh.argv).not.toContain('--resume');
    expect(fresh.prompt).toContain('BRIEF-9');
  });
});
