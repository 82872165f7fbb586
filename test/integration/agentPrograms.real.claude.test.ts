/**
 * The real Claude Code (the pinned @anthropic-ai/claude-code, installed by `npm run agents:install`)
 * through the scheduler: the real server, real sessions, the claude_code executor with `command`
 * pointing at the installed program and `env` pointing it at the Messages-API stand-in
 * (test/standins/anthropic.ts). What a run records, a resumed session, a subscription's limit, a
 * cancel and a timeout that leave no process behind, and the transcript.
 */
import { expect, it } from 'vitest';
import { describeProgram, noProcessLeft, PROGRAM_START_MS, programPerTest, RATE_LIMIT_BUFFER_SEC, turnBodies, type ExecutorExtras } from '../helpers/realPrograms.js';
import type { Auth } from '../standins/programs.js';

const { api, harness, programAgent, startStalledRun, runUntilTimeout } = programPerTest();
const { call, get, post, listRuns, listWakeups, listActivity, createWorkspace, createAgent, waitForRun } = api;

describeProgram('claude_code', 'claude_code: the real Claude Code against a Messages-API stand-in', (program) => {
  const claudeAgent = (auth: Auth = 'api_key', extras: ExecutorExtras = {}) => programAgent(program, 'Claude', extras, auth);

  it('GIVEN a task WHEN Claude Code runs a shell command and answers THEN the run records its own cost, its usage, its session id and the answer, and the transcript holds its events; WHEN a comment wakes it THEN the next run resumes the session and the model sees the earlier turns', async () => {
    const { ws, agentId, setup } = await claudeAgent();
    setup.standin.plan({ kind: 'tool', command: 'echo office-tool-ran' }, { kind: 'text', text: 'First answer: the tool ran.' });
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Check the build', description: 'BRIEF-5150', assignee_agent_instance_id: agentId });
    const first = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first Claude Code run', PROGRAM_START_MS);

    // Two model calls (the tool call, then the answer), each 11 input + 7 cache reads + 3 cache writes, 6 output.
    expect(first).toMatchObject({
      executor_kind: 'claude_code', cost_note: null,
      usage: { input_tokens: 42, cached_input_tokens: 14, output_tokens: 12 },
      result_json: { result: 'First answer: the tool ran.' },
    });
    // Claude Code's own figure, from its price list: what it printed as total_cost_usd.
    expect(first.cost_usd).toBeCloseTo(0.0003608, 9);
    expect(first.cli_session_id).toMatch(/^[0-9a-f-]{36}$/);
    const [toolCall, toolAnswer] = setup.standin.turns();
    expect(JSON.stringify(toolCall!.body)).toContain('BRIEF-5150');
    // The command really ran: its output came back to the model as the tool's result.
    expect(JSON.stringify(toolAnswer!.body.messages.at(-1))).toMatch(/"tool_result".*office-tool-ran/);

    const transcript = await get(`/api/office/runs/${first.id}/transcript`);
    expect(transcript.truncated).toBe(false);
    expect(transcript.events.map((e: any) => e.type)).toEqual(['system', 'tool_use', 'tool_result', 'assistant', 'result']);
    expect(transcript.events[1].text).toContain('echo office-tool-ran');
    expect(transcript.events[2].text).toBe('office-tool-ran');
    expect(transcript.events.at(-1).text).toBe('First answer: the tool ran.');

    setup.standin.plan({ kind: 'text', text: 'Second answer: the lexer too.' });
    await post(`/api/office/tasks/${task.id}/comments`, { body: 'Also check the lexer', author_type: 'user', author_id: 'pm' });
    const second = await harness().waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.id !== first.id && r.status === 'succeeded'), 'the resumed run', PROGRAM_START_MS);
    expect(second).toMatchObject({ cli_session_id: first.cli_session_id, result_json: { result: 'Second answer: the lexer too.' } });
    expect(second.assembled_prompt).toMatch(/^# Resume/);
    expect(second.assembled_prompt).not.toContain('BRIEF-5150');
    // The model was sent the whole conversation: the first run's prompt, its tool call and answer, then the comment.
    const resumed = turnBodies(setup).at(-1)!;
    for (const earlier of ['BRIEF-5150', 'echo office-tool-ran', 'First answer: the tool ran.', 'Also check the lexer']) expect(resumed).toContain(earlier);
    // Claude Code's total_cost_usd is the session's running total: the run records its own share.
    expect(second.cost_usd).toBeCloseTo(0.0001804, 9);
    expect(second.cli_session_totals.cost_usd).toBeCloseTo(0.0005412, 9);
  }, 2 * PROGRAM_START_MS);

  it('GIVEN a subscription WHEN the stand-in answers its five-hour limit THEN Claude Code\'s rate_limit_event gives the reset, the run fails as rate limited, its retry waits for the reset, and the quota is held', async () => {
    const { ws, agentId, setup } = await claudeAgent('subscription');
    setup.standin.plan({ kind: 'rate_limit', resetInSec: 3 * 3600 });
    const asked = Math.floor(Date.now() / 1000);
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const wakeup = await harness().waitFor(async () => (await listWakeups({ agent_id: agentId })).find((w) => w.status === 'scheduled_retry'), 'the retry', PROGRAM_START_MS);
    // The stand-in answered in between: Claude Code may take seconds to start on a loaded machine.
    const seen = Math.ceil(Date.now() / 1000);
    const [run] = await listRuns({ wakeup_id: wakeup.id });
    expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining("You've hit your 5-hour limit") });
    const [entry] = await listActivity({ workspace_id: ws, code: 'wakeup_retry_scheduled' });
    expect(entry.details).toMatchObject({ rate_limited: true, source: 'rate_limit_parsed', reset_form: 'structured_event' });
    // resetsAt is epoch seconds: the stand-in's reset, as Claude Code passed it on, plus the buffer.
    const reset = Date.parse(wakeup.scheduled_retry_at) - RATE_LIMIT_BUFFER_SEC * 1000;
    expect(reset).toBeGreaterThanOrEqual((asked + 3 * 3600) * 1000);
    expect(reset).toBeLessThanOrEqual((seen + 3 * 3600) * 1000);
    const [quota] = await get('/api/office/quotas');
    expect(quota).toMatchObject({ kind: 'claude_code', agents: [agentId] });
    expect(Date.parse(quota.exhausted_until)).toBe(reset);
    const transcript = await get(`/api/office/runs/${run.id}/transcript`);
    expect(transcript.events.map((e: any) => e.type)).toContain('rate_limit_event');
  }, PROGRAM_START_MS);

  it('GIVEN a session waiting on a stalled model stream WHEN the run is cancelled THEN it ends cancelled and no process of it is left', async () => {
    const { agentId, setup } = await claudeAgent();
    const { run } = await startStalledRun(agentId, setup);
    await call('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'wrong task' });
    await harness().waitFor(async () => (await get(`/api/office/runs/${run.id}`)).status === 'cancelled', 'the run to end cancelled');
    await noProcessLeft(harness(), run.id);
  }, PROGRAM_START_MS);

  it('GIVEN timeout_sec WHEN the model stream stalls THEN the run times out and no process of it is left', async () => {
    const { agentId, setup } = await claudeAgent('api_key', { timeout_sec: 8 });
    const run = await runUntilTimeout(agentId, setup);
    await noProcessLeft(harness(), run.id);
  }, PROGRAM_START_MS);
});
