/**
 * The spec's Spec -> Build approval pipeline (Subtask sequencing via blockers), end to end with
 * real child-process agents: a planner finishes a requires_approval subtask, the user approves
 * (or rejects) it, and the blocked sibling's developer starts on its own.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient, TERMINAL } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const {
  get, post, patch, listWakeups, listRuns, listActivity, createWorkspace, createAgent, createTask, settled, waitForWakeupEnd, waitForRun, quiet,
} = apiClient(() => h);

type PlannerMode = 'run token (api-call.mjs)' | 'result_json.actions move_task (json-actions.mjs)';

/**
 * Workspace, lead, planner, developer; parent task (lead) with subtasks Spec (requires_approval,
 * planner) and Build (blocked_by Spec, developer). The planner's agent moves Spec to DONE in its
 * run, either through the API with its run token or through a move_task action.
 */
async function setUpPipeline(mode: PlannerMode) {
  h = await startHarness();
  const record = join(h.dir, 'record');
  const workspaceId = await createWorkspace();
  const agent = (name: string, executor: unknown) => createAgent(workspaceId, { name, executor });
  const lead = await agent('Lead', fixtureAgent('succeed.mjs'));
  const planner = await agent('Planner', fixtureAgent('api-call.mjs', {
    FIXTURE_PATH: '/api/office/tasks/{task_id}/move', FIXTURE_BODY: JSON.stringify({ state: 'DONE' }), FIXTURE_RECORD_DIR: record,
  }));
  const developer = await agent('Developer', fixtureAgent('succeed.mjs', { FIXTURE_RECORD_DIR: record }));

  const parent = await createTask({ workspace_id: workspaceId, title: 'Ship OAuth login', assignee_agent_instance_id: lead });
  let spec: any;
  if (mode === 'run token (api-call.mjs)') {
    spec = await createTask({
      workspace_id: workspaceId, title: 'Spec', description: 'Write the OAuth spec', parent_id: parent.id, requires_approval: true,
      assignee_agent_instance_id: planner,
    });
  } else {
    // The action names Spec's id, so Spec exists before the planner's executor is set and the task assigned.
    spec = await createTask({
      workspace_id: workspaceId, title: 'Spec', description: 'Write the OAuth spec', parent_id: parent.id, requires_approval: true,
    });
    await patch(`/api/office/agents/${planner}`, {
      executor: fixtureAgent('json-actions.mjs', {
        FIXTURE_RESULT: JSON.stringify({ summary: 'spec written', actions: [{ type: 'move_task', task_id: spec.id, state: 'DONE' }] }),
        FIXTURE_RECORD_DIR: record,
      }),
    });
  }
  const build = await createTask({
    workspace_id: workspaceId, title: 'Build', description: 'Implement OAuth', parent_id: parent.id, blocked_by: [spec.id],
    assignee_agent_instance_id: developer,
  });
  if (mode !== 'run token (api-call.mjs)') await patch(`/api/office/tasks/${spec.id}`, { assignee_agent_instance_id: planner });
  return { workspaceId, lead, planner, developer, parent, spec, build, record };
}

/** The planner's run ends with Spec in review: an approval and an inbox item wait for the user. */
async function specInReview(p: Awaited<ReturnType<typeof setUpPipeline>>, mode: PlannerMode) {
  const plannerRun = await h!.waitFor(async () =>
    (await listRuns({ agent_id: p.planner })).find((r) => r.task_id === p.spec.id && r.status === 'succeeded'), 'the planner run on Spec');
  if (mode === 'run token (api-call.mjs)') {
    // The API answered the agent's move with the task as it now is.
    expect(plannerRun.result_json).toMatchObject({ status: 200, body: { id: p.spec.id, state: 'IN_REVIEW' } });
  }
  await settled();
  expect((await get(`/api/office/tasks/${p.spec.id}`)).state).toBe('IN_REVIEW');

  const inbox = await get(`/api/office/inbox?workspace_id=${p.workspaceId}`);
  const item = inbox.find((i: any) => i.kind === 'approval' && i.task_id === p.spec.id);
  expect(item).toMatchObject({ agent_id: p.planner, status: 'open' });
  const approval = await get(`/api/office/approvals/${item.ref_id}`);
  expect(approval).toMatchObject({ task_id: p.spec.id, requested_by_agent_id: p.planner, status: 'pending' });
  expect(inbox.filter((i: any) => i.kind === 'approval')).toHaveLength(1);
  return approval;
}

describe('Spec (requires_approval) -> Build (blocked_by Spec): the approval pipeline', () => {
  for (const mode of ['run token (api-call.mjs)', 'result_json.actions move_task (json-actions.mjs)'] as const) {
    it(`planner completes Spec via ${mode}: Spec goes to review; on approval Spec is DONE, the developer gets task_blockers_resolved and starts on Build, and the planner hears approval_resolved`, async () => {
      const p = await setUpPipeline(mode);

      // Build's own assignment wakeup waits for its blocker: skipped 'blocked', no run.
      const buildAssigned = await h!.waitFor(async () => {
        const list = await listWakeups({ agent_id: p.developer, source: 'task_assigned' });
        return list.length === 1 && TERMINAL.has(list[0].status) ? list[0] : null;
      }, 'Build\'s task_assigned wakeup to end');
      expect(buildAssigned).toMatchObject({ task_id: p.build.id, status: 'skipped', skip_reason: 'blocked', run_id: null });
      expect(buildAssigned.explain).toMatch(/blocked/);
      const waiting = await listActivity({ wakeup_id: buildAssigned.id });
      expect(waiting.map((a) => a.code)).toContain('wakeup_waiting_on_blockers');

      const approval = await specInReview(p, mode);
      // In review is not done: the developer has still not run.
      expect(await listRuns({ agent_id: p.developer })).toEqual([]);
      expect(await listWakeups({ agent_id: p.developer, source: 'task_blockers_resolved' })).toEqual([]);
      await quiet(p.planner);

      // The planner's next run only hears the decision (its fixture would otherwise move Spec again).
      await patch(`/api/office/agents/${p.planner}`, { executor: fixtureAgent('succeed.mjs', { FIXTURE_RECORD_DIR: p.record }) });
      const resolved = await post(`/api/office/approvals/${approval.id}/resolve`, { status: 'approved', decision_note: 'LGTM' }, 200);
      expect(resolved).toMatchObject({ id: approval.id, status: 'approved', decision_note: 'LGTM' });
      expect((await get(`/api/office/tasks/${p.spec.id}`)).state).toBe('DONE');

      const unblocked = await h!.waitFor(async () => (await listWakeups({ agent_id: p.developer, source: 'task_blockers_resolved' }))[0], 'task_blockers_resolved for the developer');
      expect(unblocked.payload).toEqual({ task_id: p.build.id, resolved_blocker_ids: [p.spec.id] });
      const devDone = await waitForWakeupEnd(unblocked.id);
      expect(devDone.status).toBe('finished');
      const devRun = await get(`/api/office/runs/${devDone.run_id}`);
      expect(devRun).toMatchObject({ status: 'succeeded', task_id: p.build.id, agent_id: p.developer });
      expect(devRun.result_json.summary).toBe('handled task_blockers_resolved');
      const devEnv = JSON.parse(readFileSync(join(p.record, `${devRun.id}.json`), 'utf8')).env;
      expect(devEnv).toMatchObject({ OFFICE_TASK_ID: p.build.id, OFFICE_WAKE_SOURCE: 'task_blockers_resolved' });
      expect(devRun.assembled_prompt).toContain('Implement OAuth');

      // The planner asked for the approval, so it hears the decision, and runs on it.
      const decision = await h!.waitFor(async () => (await listWakeups({ agent_id: p.planner, source: 'approval_resolved' }))[0], 'approval_resolved for the planner');
      expect(decision.payload).toMatchObject({ approval_id: approval.id, status: 'approved', decision_note: 'LGTM' });
      const decisionDone = await waitForWakeupEnd(decision.id);
      expect(decisionDone).toMatchObject({ status: 'finished', cancel_reason: null });
      const decisionRun = await get(`/api/office/runs/${decisionDone.run_id}`);
      expect(decisionRun.status).toBe('succeeded');
      expect(decisionRun.assembled_prompt).toContain('LGTM');

      // Build is still open, so the parent's assignee is not told its children completed.
      await settled();
      expect(await listWakeups({ agent_id: p.lead, source: 'task_children_completed' })).toEqual([]);
      expect((await get(`/api/office/tasks/${p.build.id}`)).state).toBe('TODO');
      expect(await listWakeups({ agent_id: p.developer, source: 'task_blockers_resolved' })).toHaveLength(1);
    });
  }

  it('on rejection Spec goes back to IN_PROGRESS with the note: a rejection comment, a comment wakeup and approval_resolved for the planner, and Build stays blocked', async () => {
    const p = await setUpPipeline('run token (api-call.mjs)');
    const approval = await specInReview(p, 'run token (api-call.mjs)');
    await quiet(p.planner);
    await quiet(p.developer);
    await patch(`/api/office/agents/${p.planner}`, { executor: fixtureAgent('succeed.mjs', { FIXTURE_RECORD_DIR: p.record }) });

    const rejected = await post(`/api/office/approvals/${approval.id}/resolve`, { status: 'rejected', decision_note: 'Cover token refresh' }, 200);
    expect(rejected.status).toBe('rejected');
    expect((await get(`/api/office/tasks/${p.spec.id}`)).state).toBe('IN_PROGRESS');

    const commentWake = await h!.waitFor(async () => (await listWakeups({ agent_id: p.planner, source: 'comment' }))[0], 'the rejection comment wakeup');
    expect(commentWake.payload).toMatchObject({ task_id: p.spec.id, rejection: true, note: 'Cover token refresh' });
    const comments = await get(`/api/office/tasks/${p.spec.id}/comments`);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({ id: commentWake.payload.comment_id, author_type: 'user' });
    expect(comments[0].body).toContain('Cover token refresh');

    const decision = await h!.waitFor(async () => (await listWakeups({ agent_id: p.planner, source: 'approval_resolved' }))[0], 'approval_resolved');
    expect(decision.payload).toMatchObject({ approval_id: approval.id, status: 'rejected', decision_note: 'Cover token refresh', task_id: p.spec.id });

    // The planner runs again on Spec and sees the note.
    const wakes = await quiet(p.planner);
    const runs = (await listRuns({ agent_id: p.planner })).filter((r) => r.status === 'succeeded');
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.some((r) => r.assembled_prompt.includes('Cover token refresh'))).toBe(true);
    expect(wakes.find((w) => w.id === commentWake.id)!.status).toMatch(/^(finished|coalesced)$/);

    // No blocker resolved: Build stays blocked, the developer never ran.
    expect(await listWakeups({ agent_id: p.developer, source: 'task_blockers_resolved' })).toEqual([]);
    expect(await listRuns({ agent_id: p.developer })).toEqual([]);
  });

  it('moving an approved (DONE) task to DONE again is a no-op: no new approval, it stays DONE and nothing is woken again', async () => {
    const p = await setUpPipeline('run token (api-call.mjs)');
    const approval = await specInReview(p, 'run token (api-call.mjs)');
    await quiet(p.planner);
    await patch(`/api/office/agents/${p.planner}`, { executor: fixtureAgent('succeed.mjs') });
    await post(`/api/office/approvals/${approval.id}/resolve`, { status: 'approved' }, 200);
    await waitForRun({ agent_id: p.developer }, 'succeeded', 'the developer run');

    const again = await post(`/api/office/tasks/${p.spec.id}/move`, { state: 'DONE' }, 200);
    expect(again.state).toBe('DONE');
    await settled();
    const inbox = await get(`/api/office/inbox?workspace_id=${p.workspaceId}`);
    expect(inbox.filter((i: any) => i.kind === 'approval')).toHaveLength(1);
    expect((await get(`/api/office/tasks/${p.spec.id}`)).state).toBe('DONE');
    expect(await listWakeups({ agent_id: p.developer, source: 'task_blockers_resolved' })).toHaveLength(1);
    expect(await listWakeups({ agent_id: p.planner, source: 'approval_resolved' })).toHaveLength(1);
  });
});
