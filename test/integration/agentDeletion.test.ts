/**
 * A deleted agent never blocks anyone else's wakeups: its open tasks are unassigned, and an event
 * that still names it (a comment on its finished task, a replayed assignment) skips it with a
 * reason instead of failing, so the event leaves the outbox. Real SQLite, real HTTP, real child processes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, listWakeups, listActivity, createAgent, createTask, settled, quiet, waitForRun, waitForWakeupEnd } = apiClient(() => h);

const move = (taskId: string, state: string): Promise<any> => post(`/api/office/tasks/${taskId}/move`, { state }, 200);

/** Outbox rows still waiting for delivery (or parked): none once every event was handled. */
const outboxRows = () => h!.inspect.rows('event_outbox', {}, { columns: ['id', 'type'] });

async function outboxDrained(): Promise<void> {
  await settled();
  await h!.waitFor(async () => (await outboxRows()).length === 0, 'the outbox to be empty');
}

describe('deleting an agent', () => {
  it('GIVEN X blocks B1 (assigned to P) and B2 (assigned to Q) WHEN P is deleted and X moves to DONE THEN Q gets task_blockers_resolved, B1 is unassigned with an activity entry, and no outbox row is left', async () => {
    h = await startHarness();
    const { workspaceId, agentId: p } = await seedAgent(h, { name: 'P' });
    const q = await createAgent(workspaceId, { name: 'Q' });
    const x = await createTask({ workspace_id: workspaceId, title: 'X' });
    const b1 = await createTask({ workspace_id: workspaceId, title: 'B1', assignee_agent_instance_id: p, blocked_by: [x.id] });
    const b2 = await createTask({ workspace_id: workspaceId, title: 'B2', assignee_agent_instance_id: q, blocked_by: [x.id] });
    await quiet(p);
    await quiet(q);

    expect((await h.api('DELETE', `/api/office/agents/${p}`)).status).toBe(204);
    expect((await get(`/api/office/tasks/${b1.id}`)).assignee_agent_instance_id).toBeNull();
    expect((await get(`/api/office/tasks/${b2.id}`)).assignee_agent_instance_id).toBe(q);
    const unassigned = await listActivity({ workspace_id: workspaceId, code: 'task_unassigned' });
    expect(unassigned).toHaveLength(1);
    expect(unassigned[0]).toMatchObject({ task_id: b1.id, agent_id: p });
    expect(unassigned[0].message).toContain('P was deleted');

    await move(x.id, 'DONE');
    const resolved = await h.waitFor(async () =>
      (await listWakeups({ agent_id: q, source: 'task_blockers_resolved' })).find((w) => w.task_id === b2.id), 'Q\'s task_blockers_resolved');
    expect(resolved.payload.resolved_blocker_ids).toEqual([x.id]);
    await outboxDrained();
    const afterDelete = (await listWakeups({ agent_id: p })).filter((w) => w.source === 'task_blockers_resolved');
    expect(afterDelete).toEqual([]);
  });

  it('GIVEN a task reviewed by P and Q WHEN P is deleted and the task moves to IN_REVIEW THEN Q is woken to review, P is skipped with a reason, and the event leaves the outbox', async () => {
    h = await startHarness();
    const { workspaceId, agentId: author } = await seedAgent(h, { name: 'Author' });
    const p = await createAgent(workspaceId, { name: 'P' });
    const q = await createAgent(workspaceId, { name: 'Q' });
    const task = await createTask({ workspace_id: workspaceId, title: 'Release notes', assignee_agent_instance_id: author, reviewers: [p, q] });
    await quiet(author);
    expect((await h.api('DELETE', `/api/office/agents/${p}`)).status).toBe(204);

    await move(task.id, 'IN_REVIEW');
    const review = await h.waitFor(async () => (await listWakeups({ agent_id: q, task_id: task.id }))[0], 'Q\'s review wakeup');
    expect(review).toMatchObject({ source: 'task_assigned', reason: 'review requested' });
    await outboxDrained();
    expect(await listWakeups({ agent_id: p })).toEqual([]);
    const skipped = await listActivity({ workspace_id: workspaceId, code: 'wakeup_skipped_agent_deleted' });
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ agent_id: p, task_id: task.id });
  });

  it('GIVEN a finished task whose assignee was deleted WHEN someone comments on it THEN the comment event skips the deleted agent with a reason and leaves the outbox', async () => {
    h = await startHarness();
    const { workspaceId, agentId: p } = await seedAgent(h, { name: 'P' });
    const shipped = await createTask({ workspace_id: workspaceId, title: 'Shipped', assignee_agent_instance_id: p });
    await quiet(p);
    await move(shipped.id, 'DONE');
    await quiet(p);
    expect((await h.api('DELETE', `/api/office/agents/${p}`)).status).toBe(204);
    // A finished task keeps its assignee for the record.
    expect((await get(`/api/office/tasks/${shipped.id}`)).assignee_agent_instance_id).toBe(p);
    const before = (await listWakeups({ agent_id: p })).length;

    await call('POST', `/api/office/tasks/${shipped.id}/comments`, { body: 'Why did this ship without docs?', author_type: 'user', author_id: 'pm' }, 201);
    await outboxDrained();
    expect(await listWakeups({ agent_id: p })).toHaveLength(before);
    const skipped = await h.waitFor(async () => (await listActivity({ workspace_id: workspaceId, code: 'wakeup_skipped_agent_deleted' }))[0], 'the skip decision');
    expect(skipped).toMatchObject({ agent_id: p, task_id: shipped.id });
    expect(skipped.message).toMatch(/was deleted/);
  });

  it('GIVEN a session running when its agent is deleted WHEN that session fails THEN its wakeup ends cancelled (agent_deleted) instead of waiting for a retry no actor will ever claim', async () => {
    h = await startHarness();
    // The session outlives its 1 s timeout, so it fails after the deletion.
    const { workspaceId, agentId: p } = await seedAgent(h, { name: 'P', executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '5000' }, 1) });
    const task = await createTask({ workspace_id: workspaceId, title: 'Long job', assignee_agent_instance_id: p });
    const run = await waitForRun({ agent_id: p }, 'running', 'the session to start');
    expect((await h.api('DELETE', `/api/office/agents/${p}`)).status).toBe(204);

    const ended = await waitForWakeupEnd(run.wakeup_id, 'the failed session\'s wakeup to end', 20_000);
    expect(ended).toMatchObject({ status: 'cancelled', cancel_reason: 'agent_deleted', retry_count: 0, task_id: task.id });
    expect((await get(`/api/office/runs/${run.id}`)).status).toBe('failed');
    expect((await listWakeups({ agent_id: p })).filter((w) => w.status === 'scheduled_retry')).toEqual([]);
    await outboxDrained();
  });
});
