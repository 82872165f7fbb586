/**
 * What a run is told: the continuation summary of a lightweight routine (built after a successful
 * taskless run, injected into the next one, kept through a failure), the session key, and the
 * resume delta of a task-bound (agent, task) pair. Real child-process agents; their records
 * (FIXTURE_RECORD_DIR) show what the process actually received.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const SECTIONS = ['## Active focus', '## Open blockers', '## Recent decisions', '## Next action'];

const {
  call, get, listRuns, createWorkspace, createAgent, waitForWakeupStatus, waitForWakeupEnd, waitForRun,
} = apiClient(() => h);

function recordOf(dir: string, runId: string): { env: Record<string, string>; prompt: string } {
  return JSON.parse(readFileSync(join(dir, `${runId}.json`), 'utf8'));
}

async function summariesOf(agentId: string): Promise<any[]> {
  return get(`/api/office/agents/${agentId}/summaries`);
}

/** Fires the routine by hand and returns its wakeup once it has ended (retries included). */
async function fireAndWait(routineId: string): Promise<any> {
  const fired = await call('POST', `/api/office/routines/${routineId}/fire`, {}, 202);
  expect(fired.routine_run.status).toBe('dispatched');
  return waitForWakeupEnd(fired.routine_run.linked_wakeup_id, 'the routine wakeup to end');
}

describe('continuation summary (lightweight routine)', () => {
  it('is built after a successful taskless run under routine:<id>, injected into the next run\'s prompt, kept through a failed run, and rebuilt after the next success', async () => {
    // A retry far enough out to look at the summary between the failure and the retry.
    h = await startHarness({ OFFICE_BACKOFF: '1500ms' });
    const record = join(h.dir, 'record');
    const workspaceId = await createWorkspace();
    const agentId = await createAgent(workspaceId, {
      name: 'Upstream watcher', skip_idle_wakeups: false,
      executor: fixtureAgent('json-actions.mjs', {
        FIXTURE_RESULT: JSON.stringify({ summary: 'Reviewed upstream PR #4521; nothing to merge yet' }), FIXTURE_RECORD_DIR: record,
      }),
    });
    const routine = await call('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Check upstream PRs', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }],
    }, 201);

    // 1. The first run has nothing injected; afterwards the summary exists.
    const w1 = await fireAndWait(routine.id);
    expect(w1.status).toBe('finished');
    const run1 = await get(`/api/office/runs/${w1.run_id}`);
    expect(run1).toMatchObject({ status: 'succeeded', task_id: null, routine_id: routine.id, summary_injected: '' });
    expect(run1.assembled_prompt).not.toContain('# Continuation summary');
    const after1 = await h.waitFor(async () => (await summariesOf(agentId)).find((s) => s.updated_by_run_id === run1.id), 'the first summary');
    expect(after1.scope).toBe(`routine:${routine.id}`);
    expect(await summariesOf(agentId)).toHaveLength(1);
    for (const section of SECTIONS) expect(after1.content).toContain(section);
    expect(after1.content).toContain('Reviewed upstream PR #4521; nothing to merge yet');

    // 2. The next run gets it prepended, as stored and as the process received it.
    await call('PATCH', `/api/office/agents/${agentId}`, {
      executor: fixtureAgent('json-actions.mjs', { FIXTURE_RESULT: JSON.stringify({ summary: 'Merged upstream PR #4530' }), FIXTURE_RECORD_DIR: record }),
    });
    const w2 = await fireAndWait(routine.id);
    const run2 = await get(`/api/office/runs/${w2.run_id}`);
    expect(run2.status).toBe('succeeded');
    expect(run2.summary_injected).toBe(after1.content);
    for (const section of SECTIONS) {
      expect(run2.summary_injected).toContain(section);
      expect(run2.assembled_prompt).toContain(section);
    }
    expect(run2.summary_injected).toContain('Reviewed upstream PR #4521; nothing to merge yet');
    expect(run2.assembled_prompt.startsWith('# Continuation summary\n')).toBe(true);
    expect(run2.assembled_prompt).toContain('Reviewed upstream PR #4521; nothing to merge yet');
    expect(run2.assembled_prompt.indexOf('## Next action')).toBeLessThan(run2.assembled_prompt.indexOf('# Wakeup'));
    expect(recordOf(record, run2.id).prompt).toBe(run2.assembled_prompt);
    const after2 = await h.waitFor(async () => (await summariesOf(agentId)).find((s) => s.updated_by_run_id === run2.id), 'the second summary');
    // Newest decision first, the earlier one kept.
    expect(after2.content.indexOf('Merged upstream PR #4530')).toBeGreaterThan(-1);
    expect(after2.content.indexOf('Merged upstream PR #4530')).toBeLessThan(after2.content.indexOf('Reviewed upstream PR #4521'));

    // 3. A failed run leaves the summary exactly as it was; the retry still gets it.
    await call('PATCH', `/api/office/agents/${agentId}`, {
      executor: fixtureAgent('flaky.mjs', { FIXTURE_COUNTER_FILE: join(h.dir, 'counter'), FIXTURE_FAIL_TIMES: '1', FIXTURE_RECORD_DIR: record }),
    });
    const fired = await call('POST', `/api/office/routines/${routine.id}/fire`, {}, 202);
    const wakeupId = fired.routine_run.linked_wakeup_id;
    const waiting = await waitForWakeupStatus(wakeupId, 'scheduled_retry', 'the failed attempt');
    const failedRun = await get(`/api/office/runs/${waiting.run_id}`);
    expect(failedRun.status).toBe('failed');
    expect(failedRun.summary_injected).toBe(after2.content);
    const kept = await summariesOf(agentId);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ scope: `routine:${routine.id}`, updated_by_run_id: run2.id, content: after2.content });

    const w3 = await waitForWakeupEnd(wakeupId, 'the retry to end');
    expect(w3).toMatchObject({ status: 'finished', retry_count: 1 });
    const retryRun = await get(`/api/office/runs/${w3.run_id}`);
    expect(retryRun.status).toBe('succeeded');
    expect(retryRun.summary_injected).toBe(after2.content);
    const after3 = await h.waitFor(async () => (await summariesOf(agentId)).find((s) => s.updated_by_run_id === retryRun.id), 'the rebuilt summary');
    expect(after3.content).toContain('handled routine');
    expect(after3.content).toContain('Merged upstream PR #4530');
  });
});

describe('session key', () => {
  it('taskless runs get an empty OFFICE_SESSION_KEY; task-bound runs get task:<task_id>:agent:<agent_id>', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const workspaceId = await createWorkspace();
    const agentId = await createAgent(workspaceId, {
      name: 'Worker', skip_idle_wakeups: false, executor: fixtureAgent('succeed.mjs', { FIXTURE_RECORD_DIR: record }),
    });
    const routine = await call('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Heartbeat', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }],
    }, 201);

    const routineWake = await fireAndWait(routine.id);
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'manual poke' }, 202);
    const task = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Bound work', assignee_agent_instance_id: agentId }, 201);
    const runs = await h.waitFor(async () => {
      const list = await listRuns({ agent_id: agentId });
      return list.length === 3 && list.every((r: any) => r.status === 'succeeded') ? list : null;
    }, 'three runs');

    for (const run of runs) {
      const env = recordOf(record, run.id).env;
      if (run.task_id === null) {
        expect(env.OFFICE_SESSION_KEY, `taskless run ${run.id}`).toBe('');
        expect(env.OFFICE_TASK_ID).toBe('');
        expect(run.session_key ?? null).toBeNull();
      } else {
        expect(env.OFFICE_SESSION_KEY).toBe(`task:${task.id}:agent:${agentId}`);
        expect(env.OFFICE_TASK_ID).toBe(task.id);
      }
    }
    expect(runs.filter((r: any) => r.task_id === null)).toHaveLength(2);
    expect(runs.find((r: any) => r.wakeup_id === routineWake.id).task_id).toBeNull();
  });
});

describe('full prompt for a run that resumes no session (API.md, "Resumed sessions")', () => {
  it('a command agent\'s second run on the same task resumes nothing, so it gets the full prompt again: title, description and every comment', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const workspaceId = await createWorkspace();
    const agentId = await createAgent(workspaceId, { name: 'Worker', executor: fixtureAgent('succeed.mjs', { FIXTURE_RECORD_DIR: record }) });
    const description = 'Full brief: migrate the billing tables to the v2 schema, keep the invoices readable, DESCRIPTION-MARKER-7731.';
    const task = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Billing migration', description }, 201);
    await call('POST', `/api/office/tasks/${task.id}/comments`, { body: 'Earlier context: staging is frozen until Monday', author_type: 'user', author_id: 'pm' }, 201);
    await call('PATCH', `/api/office/tasks/${task.id}`, { assignee_agent_instance_id: agentId });

    const run1 = await waitForRun({ agent_id: agentId }, 'succeeded', 'the first run');
    expect(run1.assembled_prompt).not.toMatch(/^# Resume/);
    expect(run1.assembled_prompt).toContain('DESCRIPTION-MARKER-7731');
    expect(run1.assembled_prompt).toContain('Earlier context: staging is frozen until Monday');

    await call('POST', `/api/office/tasks/${task.id}/comments`, { body: 'New: the v2 schema also needs a currency column', author_type: 'user', author_id: 'pm' }, 201);
    const run2 = await h.waitFor(async () => {
      const list = await listRuns({ agent_id: agentId });
      return list.length === 2 && list[0].status === 'succeeded' ? list[0] : null;
    }, 'the second run');
    expect(run2.task_id).toBe(task.id);
    expect(run2.assembled_prompt).not.toMatch(/^# Resume/);
    expect(run2.assembled_prompt).toContain(`# Task ${task.id}: Billing migration`);
    expect(run2.assembled_prompt).toContain('DESCRIPTION-MARKER-7731');
    expect(run2.assembled_prompt).toContain('Earlier context: staging is frozen until Monday');
    expect(run2.assembled_prompt).toContain('New: the v2 schema also needs a currency column');
    // What the process read on stdin.
    expect(recordOf(record, run2.id).prompt).toBe(run2.assembled_prompt);
    expect(recordOf(record, run2.id).env.OFFICE_SESSION_KEY).toBe(recordOf(record, run1.id).env.OFFICE_SESSION_KEY);
  });

  it('another agent on the same task starts fresh (the delta is per (agent, task) pair)', async () => {
    h = await startHarness();
    const workspaceId = await createWorkspace();
    const first = await createAgent(workspaceId, { name: 'First' });
    const second = await createAgent(workspaceId, { name: 'Second' });
    const task = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Handover', description: 'HANDOVER-BRIEF', assignee_agent_instance_id: first }, 201);
    await waitForRun({ agent_id: first }, 'succeeded', 'the first agent run');
    await call('PATCH', `/api/office/tasks/${task.id}`, { assignee_agent_instance_id: second });
    const run = await waitForRun({ agent_id: second }, 'succeeded', 'the second agent run');
    expect(run.assembled_prompt).not.toMatch(/^# Resume/);
    expect(run.assembled_prompt).toContain('HANDOVER-BRIEF');
  });
});

describe('summaries of an unknown agent', () => {
  it('GET /api/office/agents/<unknown>/summaries answers 404 not_found, not an empty list', async () => {
    h = await startHarness();
    const res = await h.api('GET', '/api/office/agents/ag_does_not_exist/summaries');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.stringContaining('ag_does_not_exist') } });
    const ws = await createWorkspace();
    const agentId = await createAgent(ws, { name: 'Known' });
    expect(await summariesOf(agentId)).toEqual([]);
  });
});
