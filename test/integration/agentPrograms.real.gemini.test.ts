/**
 * The real Gemini CLI (the pinned @google/gemini-cli, installed by `npm run agents:install`) through
 * the scheduler: the real server, real sessions, the gemini_cli executor with `command` pointing at
 * the installed program and `env` pointing it at the Gemini-API stand-in (test/standins/google.ts).
 * What a run records (cost from the executor's `prices`), a resumed session, an exhausted quota
 * that the program would sleep out by itself, a cancel and a timeout that leave no process behind
 * (Gemini CLI runs as two node processes: it relaunches itself), and the transcript.
 */
import { expect, it } from 'vitest';
import { describeProgram, noProcessLeft, PROGRAM_START_MS, programPerTest, RATE_LIMIT_BUFFER_SEC, turnBodies, type ExecutorExtras } from '../helpers/realPrograms.js';

const { api, harness, programAgent, startStalledRun, runUntilTimeout } = programPerTest();
const { call, get, post, listRuns, listWakeups, listActivity, createWorkspace, createAgent, waitForRun } = api;
const PRICES = { input_per_mtok_usd: 1.25, output_per_mtok_usd: 10, cached_input_per_mtok_usd: 0.125 };
/** In headless mode Gemini CLI offers no shell tool unless it is allowed. */
const ALLOW_ECHO = ['--allowed-tools', 'run_shell_command(echo)'];

describeProgram('gemini_cli', 'gemini_cli: the real Gemini CLI against a Gemini-API stand-in', (program) => {
  const geminiAgent = (extras: ExecutorExtras = {}) => programAgent(program, 'Gemini', { prices: PRICES, ...extras });

  it('GIVEN a task WHEN Gemini CLI runs a shell command and answers THEN the run records its usage, its cost at the executor\'s prices, its session id and the answer, and the transcript holds its events; WHEN a comment wakes it THEN the next run resumes the session and the model sees the earlier turns', async () => {
    const { ws, agentId, setup } = await geminiAgent({ args: ALLOW_ECHO });
    setup.standin.plan({ kind: 'tool', command: 'echo office-tool-ran' }, { kind: 'text', text: 'First answer: the tool ran.' });
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Check the build', description: 'BRIEF-5150', assignee_agent_instance_id: agentId });
    const first = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first Gemini CLI run', PROGRAM_START_MS);

    // Two model calls (the tool call, then the answer), each 5200 prompt tokens (4000 cached) and 12 candidates.
    expect(first).toMatchObject({
      executor_kind: 'gemini_cli',
      usage: { input_tokens: 10400, cached_input_tokens: 8000, output_tokens: 24 },
      // (10400 − 8000) × 1.25 + 8000 × 0.125 + 24 × 10, per million.
      cost_usd: 0.00424, cost_note: expect.stringContaining('prices'),
      result_json: { result: 'First answer: the tool ran.' },
    });
    expect(first.cli_session_id).toMatch(/^[0-9a-f-]{36}$/);
    const [toolCall, toolAnswer] = setup.standin.turns();
    expect(JSON.stringify(toolCall!.body)).toContain('BRIEF-5150');
    // The command really ran: its output came back to the model as the function's response.
    expect(JSON.stringify(toolAnswer!.body.contents.at(-1))).toMatch(/"functionResponse".*office-tool-ran/);

    const transcript = await get(`/api/office/runs/${first.id}/transcript`);
    // Its stderr (a terminal warning, the fallback from ripgrep, the deprecated flag) is there too, as plain lines.
    const printed = transcript.events.filter((e: any) => e.stream === 'stdout');
    expect(printed.map((e: any) => e.type)).toEqual(['init', 'user', 'tool_use', 'tool_result', 'assistant', 'result']);
    expect(printed[2].text).toContain('echo office-tool-ran');
    expect(printed[3].text).toBe('success office-tool-ran');
    expect(printed[4].text).toBe('First answer: the tool ran.');

    setup.standin.plan({ kind: 'text', text: 'Second answer: the lexer too.' });
    await post(`/api/office/tasks/${task.id}/comments`, { body: 'Also check the lexer', author_type: 'user', author_id: 'pm' });
    const second = await harness().waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.id !== first.id && r.status === 'succeeded'), 'the resumed run', PROGRAM_START_MS);
    expect(second).toMatchObject({ cli_session_id: first.cli_session_id, result_json: { result: 'Second answer: the lexer too.' } });
    expect(second.assembled_prompt).toMatch(/^# Resume/);
    const resumed = turnBodies(setup).at(-1)!;
    for (const earlier of ['BRIEF-5150', 'echo office-tool-ran', 'First answer: the tool ran.', 'Also check the lexer']) expect(resumed).toContain(earlier);
    // Gemini CLI counts what this process spent, not the session's total.
    expect(second).toMatchObject({ usage: { input_tokens: 5200, cached_input_tokens: 4000, output_tokens: 12 }, cost_usd: 0.00212 });
  }, 2 * PROGRAM_START_MS);

  it('GIVEN an exhausted capacity WHEN the stand-in answers RESOURCE_EXHAUSTED with a RetryInfo of an hour THEN the session that would sleep it out is stopped, the run fails as rate limited, and its retry waits for the reset Gemini CLI passed on', async () => {
    const { ws, agentId, setup } = await geminiAgent();
    setup.standin.plan({ kind: 'rate_limit', resetInSec: 3600 });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const wakeup = await harness().waitFor(async () => (await listWakeups({ agent_id: agentId })).find((w) => w.status === 'scheduled_retry'), 'the retry', PROGRAM_START_MS);
    const [run] = await listRuns({ wakeup_id: wakeup.id });
    expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining('Your quota will reset after 1h0m0s') });
    // Stopped at its first "Retrying after": it never asked again.
    expect(setup.standin.turns()).toHaveLength(1);
    const [entry] = await listActivity({ workspace_id: ws, code: 'wakeup_retry_scheduled' });
    expect(entry.details).toMatchObject({ rate_limited: true, source: 'rate_limit_parsed' });
    const reset = Date.parse(wakeup.scheduled_retry_at) - RATE_LIMIT_BUFFER_SEC * 1000;
    const failedAt = Date.parse(run.finished_at);
    expect(reset - failedAt).toBeGreaterThan(3590_000);
    expect(reset - failedAt).toBeLessThanOrEqual(3600_000);
    const [quota] = await get('/api/office/quotas');
    expect(quota).toMatchObject({ kind: 'gemini_cli', agents: [agentId] });
    await noProcessLeft(harness(), run.id);
  }, PROGRAM_START_MS);

  it('GIVEN a session waiting on a stalled model stream WHEN the run is cancelled THEN it ends cancelled and no process of it is left', async () => {
    const { agentId, setup } = await geminiAgent();
    const { run, pids } = await startStalledRun(agentId, setup);
    // The program and the copy of itself it relaunched.
    expect(pids.length).toBeGreaterThanOrEqual(2);
    await call('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'wrong task' });
    await harness().waitFor(async () => (await get(`/api/office/runs/${run.id}`)).status === 'cancelled', 'the run to end cancelled');
    await noProcessLeft(harness(), run.id);
  }, PROGRAM_START_MS);

  it('GIVEN timeout_sec WHEN the model stream stalls THEN the run times out and no process of it is left', async () => {
    const { agentId, setup } = await geminiAgent({ timeout_sec: 15 });
    const run = await runUntilTimeout(agentId, setup);
    await noProcessLeft(harness(), run.id);
  }, PROGRAM_START_MS);
});
