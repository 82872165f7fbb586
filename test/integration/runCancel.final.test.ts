/**
 * A person's cancel is final and spend counts however a run ends (API.md, "Trust boundaries"): the
 * recovery sweep never starts a cancelled task again on its own, the explain names who cancelled,
 * the session's late result says it was cancelled, its reported cost counts toward budgets; and a
 * run is `queued` until its session has started, so a crash in between requeues it with no retry
 * spent. Real SQLite, real HTTP server, real child processes.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { sqliteFaults } from '../helpers/storage.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, listRuns, listWakeups, createWorkspace, createAgent, settled } = apiClient(() => h);

/** A task whose agent's session runs until it is stopped, which prints what it spent when stopped. */
async function runningTask(cost = '7.5') {
  const record = join(h!.dir, 'record');
  const ws = await createWorkspace();
  const agentId = await createAgent(ws, { name: 'Worker', executor: fixtureAgent('reports-on-stop.mjs', { FIXTURE_COST: cost, FIXTURE_RECORD_DIR: record }) });
  const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Long job', assignee_agent_instance_id: agentId });
  const run = await h!.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.status === 'running'), 'the session to start');
  // The session has read its prompt (and will report on a stop): a stop during Node's own start would leave nothing to report.
  await h!.waitFor(() => existsSync(join(record, `${run.id}.json`)), 'the session to have read its prompt');
  return { ws, agentId, taskId: task.id as string, run };
}

describe('a person\'s cancel is final', () => {
  it('GIVEN a person cancelled a task\'s run WHEN the scheduler restarts and sweeps THEN the task is not started again on its own, and a new comment wakes its agent', async () => {
    h = await startHarness();
    const { agentId, taskId, run } = await runningTask();
    await call('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'wrong branch' });
    await h.waitFor(async () => (await get(`/api/office/runs/${run.id}`)).late_result_json, 'the stopped session to report');

    await h.restart();
    await settled();
    expect(await h.scheduler.recovery.sweep()).toBe(0);
    expect((await listWakeups({ agent_id: agentId })).map((w) => [w.status, w.cancel_reason])).toEqual([['cancelled', 'run_cancelled']]);

    await post(`/api/office/tasks/${taskId}/comments`, { body: 'use main instead' });
    await h.waitFor(async () => (await listWakeups({ agent_id: agentId })).some((w) => w.source === 'comment'), 'the comment to wake the agent');
  });

  it('the explain of a cancelled wakeup names who cancelled it and why', async () => {
    h = await startHarness();
    const { run } = await runningTask();
    await call('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'wrong branch' });
    const wakeup = await get(`/api/office/wakeups/${run.wakeup_id}`);
    expect(wakeup.explain).toMatch(/^cancelled: run cancelled by the admin: wrong branch; /);
  });

  it('a cancelled session\'s late result says it was stopped because its run was cancelled, not that the scheduler stopped', async () => {
    h = await startHarness();
    const { run } = await runningTask();
    await call('POST', `/api/office/runs/${run.id}/cancel`, {});
    const stopped = await h.waitFor(async () => {
      const r = await get(`/api/office/runs/${run.id}`);
      return r.late_result_json ? r : null;
    }, 'the stopped session to report');
    expect(stopped).toMatchObject({ status: 'cancelled', late_result_json: { status: 'interrupted', error: 'stopped: its run was cancelled' } });
  });
});

describe('spend counts however a run ends', () => {
  it('GIVEN a $10 pause_agent budget WHEN a run that reported $7.50 is cancelled and a second run costs $7.50 THEN the budget is exceeded and the next wakeup pauses the agent', async () => {
    h = await startHarness();
    const { agentId, run } = await runningTask('7.5');
    await post('/api/office/budgets', { scope: 'agent', scope_id: agentId, limit_usd: 10, period: 'daily', action_on_exceed: 'pause_agent' });
    await call('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'too slow' });
    const cancelled = await h.waitFor(async () => {
      const r = await get(`/api/office/runs/${run.id}`);
      return r.cost_usd !== null ? r : null;
    }, 'the cancelled run to record what its session spent');
    expect(cancelled).toMatchObject({ status: 'cancelled', cost_usd: 7.5 });

    await call('PATCH', `/api/office/agents/${agentId}`, { executor: fixtureAgent('reports-on-stop.mjs', { FIXTURE_COST: '7.5', FIXTURE_SLEEP_MS: '10' }) });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'again' }, 202);
    await h.waitFor(async () => (await listRuns({ agent_id: agentId })).some((r) => r.status === 'succeeded'), 'the second run');
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'once more' }, 202);
    const paused = await h.waitFor(async () => {
      const a = await get(`/api/office/agents/${agentId}`);
      return a.status === 'paused' ? a : null;
    }, 'the budget to pause the agent');
    expect(paused.paused_reason).toContain('15.00 of 10 USD');
  });
});

describe('a run is queued until its session starts', () => {
  it('GIVEN a scheduler that died between a claim and its session\'s start (its run left queued) WHEN it restarts THEN the wakeup runs again as attempt 2 with no retry spent', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const ws = await createWorkspace();
    // A daily cap of 0 holds the wakeup queued, with no timer, until the crash below is staged.
    const agentId = await createAgent(ws, { name: 'Worker', daily_run_cap: 0, executor: fixtureAgent('succeed.mjs', { FIXTURE_RECORD_DIR: record }) });
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Queued job', assignee_agent_instance_id: agentId });
    const [wakeup] = await h.waitFor(async () => {
      const all = await listWakeups({ agent_id: agentId });
      return all.length === 1 && all[0]!.status === 'queued' && all[0]!.skip_reason ? all : null;
    }, 'the wakeup to wait under the cap');

    await h.restart({}, () => {
      // What a claim leaves when its process dies before the spawn: the wakeup claimed, its run queued holding the task.
      const db = sqliteFaults(h!.dbPath);
      const now = Date.now();
      db.run('UPDATE agent_instances SET daily_run_cap = NULL WHERE id = ?', agentId);
      db.run("UPDATE agent_wakeup_requests SET status = 'claimed', claimed_at = ?, skip_reason = NULL WHERE id = ?", now, wakeup!.id);
      db.run(`INSERT INTO runs (id, wakeup_id, workspace_id, agent_id, task_id, attempt, status, executor_kind, assembled_prompt, created_at)
              VALUES ('run_left_queued', ?, ?, ?, ?, 1, 'queued', 'command', 'p', ?)`, wakeup!.id, ws, agentId, task.id, now);
      db.close();
    });
    const finished = await h.waitFor(async () => {
      const w = await get(`/api/office/wakeups/${wakeup!.id}`);
      return w.status === 'finished' ? w : null;
    }, 'the requeued wakeup to run');
    expect(finished.retry_count).toBe(0);
    const runs = (await listRuns({ wakeup_id: wakeup!.id })).sort((a, b) => a.attempt - b.attempt);
    expect(runs.map((r) => [r.attempt, r.status])).toEqual([[1, 'cancelled'], [2, 'succeeded']]);
    expect(runs[0]!.error).toBe('never launched before the scheduler stopped');
    expect(runs[1]!.started_at).not.toBeNull();
  });
});
