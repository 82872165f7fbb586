/**
 * The real Codex CLI (the pinned @openai/codex, installed by `npm run agents:install`) through the
 * scheduler: the real server, real sessions, the codex executor with `command` pointing at the
 * installed program and a provider in CODEX_HOME/config.toml pointing it at the Responses-API
 * stand-in (test/standins/openai.ts). What a run records (cost from the executor's `prices`), a
 * resumed thread, a plan's usage limit, a cancel and a timeout that leave no process behind, and
 * the transcript.
 */
import { expect, it } from 'vitest';
import { describeProgram, noProcessLeft, PROGRAM_START_MS, programPerTest, RATE_LIMIT_BUFFER_SEC, turnBodies, type ExecutorExtras } from '../helpers/realPrograms.js';

const { api, harness, programAgent, startStalledRun, runUntilTimeout } = programPerTest();
const { call, get, post, listRuns, listWakeups, listActivity, createWorkspace, createAgent, waitForRun } = api;
const PRICES = { input_per_mtok_usd: 1.25, output_per_mtok_usd: 10, cached_input_per_mtok_usd: 0.125 };

describeProgram('codex', 'codex: the real Codex CLI against a Responses-API stand-in', (program) => {
  const codexAgent = (extras: ExecutorExtras = {}) => programAgent(program, 'Codex', { prices: PRICES, ...extras });

  it('GIVEN a task WHEN Codex runs a shell command and answers THEN the run records its usage, its cost at the executor\'s prices, its thread id and the answer, and the transcript holds its events; WHEN a comment wakes it THEN the next run resumes the thread and the model sees the earlier turns', async () => {
    const { ws, agentId, setup } = await codexAgent();
    setup.standin.plan({ kind: 'tool', command: 'echo office-tool-ran' }, { kind: 'text', text: 'First answer: the tool ran.' });
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Check the build', description: 'BRIEF-5150', assignee_agent_instance_id: agentId });
    const first = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first Codex run', PROGRAM_START_MS);

    // Two model calls (the tool call, then the answer), each 1200 input (1000 cached) and 30 output.
    expect(first).toMatchObject({
      executor_kind: 'codex',
      usage: { input_tokens: 2400, cached_input_tokens: 2000, output_tokens: 60 },
      // (2400 − 2000) × 1.25 + 2000 × 0.125 + 60 × 10, per million.
      cost_usd: 0.00135, cost_note: expect.stringContaining('prices'),
      result_json: { result: 'First answer: the tool ran.' },
    });
    expect(first.cli_session_id).toMatch(/^[0-9a-f-]{36}$/);
    const [toolCall, toolAnswer] = setup.standin.turns();
    expect(JSON.stringify(toolCall!.body)).toContain('BRIEF-5150');
    // The command really ran: its output came back to the model as the call's output.
    expect(JSON.stringify(toolAnswer!.body.input.at(-1))).toMatch(/"function_call_output".*office-tool-ran/);

    const transcript = await get(`/api/office/runs/${first.id}/transcript`);
    // Its stderr (a warning about a CODEX_HOME under /tmp) is there too, as plain lines.
    const printed = transcript.events.filter((e: any) => e.stream === 'stdout');
    expect(printed.map((e: any) => e.type)).toEqual(['thread.started', 'turn.started', 'command_execution', 'agent_message', 'turn.completed']);
    expect(printed[2].text).toMatch(/echo office-tool-ran.*\(exit 0\)/);
    expect(printed[3].text).toBe('First answer: the tool ran.');

    setup.standin.plan({ kind: 'text', text: 'Second answer: the lexer too.' });
    await post(`/api/office/tasks/${task.id}/comments`, { body: 'Also check the lexer', author_type: 'user', author_id: 'pm' });
    const second = await harness().waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.id !== first.id && r.status === 'succeeded'), 'the resumed run', PROGRAM_START_MS);
    expect(second).toMatchObject({ cli_session_id: first.cli_session_id, result_json: { result: 'Second answer: the lexer too.' } });
    expect(second.assembled_prompt).toMatch(/^# Resume/);
    const resumed = turnBodies(setup).at(-1)!;
    for (const earlier of ['BRIEF-5150', 'echo office-tool-ran', 'First answer: the tool ran.', 'Also check the lexer']) expect(resumed).toContain(earlier);
    // Codex reports the thread's running total (3600/3000/90): the run records its own turn.
    expect(second).toMatchObject({ usage: { input_tokens: 1200, cached_input_tokens: 1000, output_tokens: 30 }, cost_usd: 0.000675 });
    expect(second.cli_session_totals.usage).toEqual({ input_tokens: 3600, cached_input_tokens: 3000, output_tokens: 90 });
  }, 2 * PROGRAM_START_MS);

  it('GIVEN a plan\'s usage limit WHEN the stand-in answers usage_limit_reached THEN Codex\'s "try again at" time is the reset, the run fails as rate limited, and its retry waits for it', async () => {
    const { ws, agentId, setup } = await codexAgent();
    setup.standin.plan({ kind: 'rate_limit', resetInSec: 1800 });
    const asked = Date.now();
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const wakeup = await harness().waitFor(async () => (await listWakeups({ agent_id: agentId })).find((w) => w.status === 'scheduled_retry'), 'the retry', PROGRAM_START_MS);
    const [run] = await listRuns({ wakeup_id: wakeup.id });
    expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/You.ve hit your usage limit.*try again at /) });
    const [entry] = await listActivity({ workspace_id: ws, code: 'wakeup_retry_scheduled' });
    expect(entry.details).toMatchObject({ rate_limited: true, source: 'rate_limit_parsed' });
    // Codex writes the reset to the minute, in the local time of the machine (the scheduler's too).
    const reset = Date.parse(wakeup.scheduled_retry_at) - RATE_LIMIT_BUFFER_SEC * 1000;
    const expected = asked + 1800 * 1000;
    expect(reset).toBeGreaterThan(expected - 62_000);
    expect(reset).toBeLessThan(expected + 62_000);
    const [quota] = await get('/api/office/quotas');
    expect(quota).toMatchObject({ kind: 'codex', agents: [agentId] });
  }, PROGRAM_START_MS);

  it('GIVEN a session waiting on a stalled model stream WHEN the run is cancelled THEN it ends cancelled and no process of it is left', async () => {
    const { agentId, setup } = await codexAgent();
    const { run } = await startStalledRun(agentId, setup);
    await call('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'wrong task' });
    await harness().waitFor(async () => (await get(`/api/office/runs/${run.id}`)).status === 'cancelled', 'the run to end cancelled');
    await noProcessLeft(harness(), run.id);
  }, PROGRAM_START_MS);

  it('GIVEN timeout_sec WHEN the model stream stalls THEN the run times out and no process of it is left', async () => {
    const { agentId, setup } = await codexAgent({ timeout_sec: 8 });
    const run = await runUntilTimeout(agentId, setup);
    await noProcessLeft(harness(), run.id);
  }, PROGRAM_START_MS);
});
