/**
 * The office event subscribers for tasks and comments, end to end: kanban moves, subtasks
 * completing, blockers resolving and the self-comment guard. Real SQLite, real HTTP, real
 * child-process agents (test/fixtures).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient, TERMINAL, type Query } from '../helpers/client.js';
import { seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { get, post, listWakeups, listRuns, createAgent, createTask, settled, waitForWakeupEnd, waitForRun, quiet, agentAtRest } = apiClient(() => h);

const move = (taskId: string, state: string, note?: string): Promise<any> =>
  post(`/api/office/tasks/${taskId}/move`, { state, ...(note ? { note } : {}) }, 200);

const comment = (taskId: string, body: string, authorType: 'user' | 'agent', authorId: string): Promise<any> =>
  post(`/api/office/tasks/${taskId}/comments`, { body, author_type: authorType, author_id: authorId });

/** A planner with the tasks Design and Schema, and a developer with Build, blocked by both. */
async function buildBlockedByTwo(harness: Harness) {
  const { workspaceId, agentId: planner } = await seedAgent(harness);
  const developer = await createAgent(workspaceId, { name: 'Developer' });
  const design = await createTask({ workspace_id: workspaceId, title: 'Design', assignee_agent_instance_id: planner });
  const schema = await createTask({ workspace_id: workspaceId, title: 'Schema', assignee_agent_instance_id: planner });
  const build = await createTask({
    workspace_id: workspaceId, title: 'Build', assignee_agent_instance_id: developer, blocked_by: [design.id, schema.id],
  });
  return { planner, developer, design, schema, build };
}

/** The wakeups matching `query`, once there is at least one and all have ended (events settled first). */
function allEnded(query: Query, what: string): Promise<any[]> {
  return h!.waitFor(async () => {
    await settled();
    const list = await listWakeups(query);
    return list.length > 0 && list.every((w) => TERMINAL.has(w.status)) ? list : null;
  }, what);
}

describe('kanban moves (task.moved) on tasks with an assignee', () => {
  it('a move into IN_PROGRESS wakes the assignee with task_assigned, and the agent runs on the task', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const task = await createTask({ workspace_id: workspaceId, title: 'Fix login', assignee_agent_instance_id: agentId });
    await quiet(agentId);
    const before = await listWakeups({ agent_id: agentId, source: 'task_assigned' });
    expect(before).toHaveLength(1);

    await move(task.id, 'IN_PROGRESS');
    const moved = await h.waitFor(async () => {
      const list = await listWakeups({ agent_id: agentId, source: 'task_assigned' });
      return list.find((w) => w.reason === 'moved to In Progress');
    }, 'the task_assigned wakeup of the move');
    expect(moved.payload).toEqual({ task_id: task.id });
    expect(moved.task_id).toBe(task.id);
    const done = await waitForWakeupEnd(moved.id, 'the move wakeup to end');
    expect(done.status).toBe('finished');
    const run = await get(`/api/office/runs/${done.run_id}`);
    expect(run).toMatchObject({ status: 'succeeded', task_id: task.id, agent_id: agentId });
    expect(run.result_json.summary).toBe('handled task_assigned');
  });

  it('a move from IN_REVIEW back to IN_PROGRESS writes the rejection note as a comment and wakes the assignee with a comment wakeup', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const task = await createTask({ workspace_id: workspaceId, title: 'Draft release notes', assignee_agent_instance_id: agentId });
    await move(task.id, 'IN_PROGRESS');
    await move(task.id, 'IN_REVIEW');
    await quiet(agentId);

    await move(task.id, 'IN_PROGRESS', 'The changelog misses the API breaking change');
    const wake = await h.waitFor(async () => (await listWakeups({ agent_id: agentId, source: 'comment' }))[0], 'the rejection wakeup');
    expect(wake.reason).toBe('sent back from review');
    expect(wake.payload).toMatchObject({ task_id: task.id, rejection: true, note: 'The changelog misses the API breaking change' });

    const comments = await get(`/api/office/tasks/${task.id}/comments`);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({ id: wake.payload.comment_id, task_id: task.id, author_type: 'user' });
    expect(comments[0].body).toContain('The changelog misses the API breaking change');

    // The agent sees the note: its run's prompt carries the comment.
    const done = await waitForWakeupEnd(wake.id, 'the rejection wakeup to end');
    expect(done.status).toBe('finished');
    const run = await get(`/api/office/runs/${done.run_id}`);
    expect(run.status).toBe('succeeded');
    expect(run.assembled_prompt).toContain('The changelog misses the API breaking change');
    // Only that move is a rejection: IN_PROGRESS from TODO was a plain task_assigned.
    expect(await listWakeups({ agent_id: agentId, source: 'comment' })).toHaveLength(1);
  });

  it('a move into DONE resolves blockers: the dependent task\'s assignee gets task_blockers_resolved once its last blocker is done', async () => {
    h = await startHarness();
    const { developer, design, schema, build } = await buildBlockedByTwo(h);
    const assigned = await quiet(developer);
    // Build's own assignment wakeup waits for the blockers and runs nothing.
    expect(assigned).toHaveLength(1);
    expect(assigned[0]).toMatchObject({ source: 'task_assigned', status: 'skipped', skip_reason: 'blocked', run_id: null });
    expect(await listRuns({ agent_id: developer })).toEqual([]);

    await move(design.id, 'DONE');
    await settled();
    // One blocker left: nothing for the developer yet.
    expect(await listWakeups({ agent_id: developer, source: 'task_blockers_resolved' })).toEqual([]);

    await move(schema.id, 'DONE');
    const resolved = await h.waitFor(async () => (await listWakeups({ agent_id: developer, source: 'task_blockers_resolved' }))[0], 'task_blockers_resolved');
    expect(resolved.payload.task_id).toBe(build.id);
    expect([...resolved.payload.resolved_blocker_ids].sort()).toEqual([design.id, schema.id].sort());
    const run = await waitForRun({ agent_id: developer }, 'succeeded', 'the developer run');
    expect(run).toMatchObject({ task_id: build.id, wakeup_id: resolved.id });
    await settled();
    expect(await listWakeups({ agent_id: developer, source: 'task_blockers_resolved' })).toHaveLength(1);
  });

  it('GIVEN a task blocked by two others WHEN both blockers reach done in the same instant THEN its assignee gets one task_blockers_resolved wakeup and one run', async () => {
    h = await startHarness();
    const { planner, developer, design, schema, build } = await buildBlockedByTwo(h);
    await quiet(planner);
    await quiet(developer);

    const tasks = h.scheduler.services.tasks;
    await Promise.all([design, schema].map((blocker) => tasks.moveTask(blocker.id, 'DONE', { type: 'user', id: null })));
    // allEnded waited for both moves' subscribers: a second wakeup would be written by now. At rest,
    // the developer's actor has no other run to start.
    const wakes = await allEnded({ agent_id: developer, source: 'task_blockers_resolved' }, 'the blockers wakeup to end');
    await agentAtRest(developer);
    expect(await listWakeups({ agent_id: developer, source: 'task_blockers_resolved' })).toHaveLength(1);
    expect(wakes[0]).toMatchObject({ status: 'finished', payload: { task_id: build.id } });
    const runs = await listRuns({ agent_id: developer });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ task_id: build.id, wakeup_id: wakes[0].id, status: 'succeeded' });
  });

  it('a move into CANCELLED completes the parent\'s children (task_children_completed) and resolves its dependents, like DONE', async () => {
    h = await startHarness();
    const { workspaceId, agentId: lead } = await seedAgent(h, { name: 'Lead' });
    const worker = await createAgent(workspaceId, { name: 'Worker B' });
    const parent = await createTask({ workspace_id: workspaceId, title: 'Epic', assignee_agent_instance_id: lead });
    const child = await createTask({ workspace_id: workspaceId, title: 'Spike', parent_id: parent.id, assignee_agent_instance_id: worker });
    const dependent = await createTask({ workspace_id: workspaceId, title: 'Follow-up', assignee_agent_instance_id: worker, blocked_by: [child.id] });
    await quiet(lead);
    await quiet(worker);
    expect((await listWakeups({ task_id: dependent.id }))[0]).toMatchObject({ status: 'skipped', skip_reason: 'blocked' });

    await move(child.id, 'CANCELLED');
    const wake = await h.waitFor(async () => (await listWakeups({ agent_id: lead, source: 'task_children_completed' }))[0], 'task_children_completed');
    expect(wake.payload).toEqual({ task_id: parent.id });
    const resolved = await h.waitFor(async () => (await listWakeups({ agent_id: worker, source: 'task_blockers_resolved' }))[0], 'task_blockers_resolved');
    expect(resolved.payload).toEqual({ task_id: dependent.id, resolved_blocker_ids: [child.id] });
    const run = await waitForRun({ task_id: dependent.id }, 'succeeded', 'the dependent\'s run');
    expect(run).toMatchObject({ agent_id: worker, wakeup_id: resolved.id });
  });

  it('GIVEN a blocker that was cancelled WHEN a task blocked by it is assigned THEN the assignee runs it instead of skipping it as blocked', async () => {
    h = await startHarness();
    const { workspaceId, agentId: worker } = await seedAgent(h);
    const blocker = await createTask({ workspace_id: workspaceId, title: 'Abandoned spike', assignee_agent_instance_id: null });
    await move(blocker.id, 'CANCELLED');
    const dependent = await createTask({ workspace_id: workspaceId, title: 'Follow-up', assignee_agent_instance_id: worker, blocked_by: [blocker.id] });
    const [assigned] = await quiet(worker);
    expect(assigned).toMatchObject({ task_id: dependent.id, source: 'task_assigned', status: 'finished', skip_reason: null });
    expect(assigned.run_id).toBeTruthy();
    expect((await listRuns({ task_id: dependent.id }))[0]).toMatchObject({ agent_id: worker, status: 'succeeded' });
  });

  it('a move into IN_REVIEW wakes each reviewer with task_assigned {as: reviewer}, not the assignee', async () => {
    h = await startHarness();
    const { workspaceId, agentId: author } = await seedAgent(h, { name: 'Author' });
    const alice = await createAgent(workspaceId, { name: 'Reviewer Alice' });
    const bob = await createAgent(workspaceId, { name: 'Reviewer Bob' });
    const task = await createTask({ workspace_id: workspaceId, title: 'Refactor billing', assignee_agent_instance_id: author, reviewers: [alice, bob] });
    await quiet(author);
    // Assignment wakes only the assignee.
    expect(await listWakeups({ agent_id: alice })).toEqual([]);
    expect(await listWakeups({ agent_id: bob })).toEqual([]);

    await move(task.id, 'IN_REVIEW');
    for (const reviewer of [alice, bob]) {
      const wake = await h.waitFor(async () => (await listWakeups({ agent_id: reviewer }))[0], `the review wakeup of ${reviewer}`);
      expect(wake).toMatchObject({ source: 'task_assigned', reason: 'review requested', task_id: task.id });
      expect(wake.payload).toEqual({ task_id: task.id, as: 'reviewer' });
    }
    // Both reviewers run on the task: the second waits for the first one's checkout (pinned: checkout conflicts wait).
    const reviews = await Promise.all([alice, bob].map(async (reviewer) => (await quiet(reviewer))[0]));
    for (const w of reviews) expect(w).toMatchObject({ status: 'finished', skip_reason: null, run_id: expect.any(String) });
    const authorWakes = await listWakeups({ agent_id: author });
    expect(authorWakes).toHaveLength(1);
    expect(authorWakes[0].reason).toBe('task assigned');
  });

  it('a task with no assignee is ignored: no move (into IN_PROGRESS, IN_REVIEW, back from review, DONE) wakes anyone or writes a rejection comment', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const reviewer = await createAgent(workspaceId, { name: 'Reviewer' });
    const task = await createTask({ workspace_id: workspaceId, title: 'Unowned chore', reviewers: [reviewer] });
    await move(task.id, 'IN_PROGRESS');
    await move(task.id, 'IN_REVIEW');
    await move(task.id, 'IN_PROGRESS', 'not good enough');
    await move(task.id, 'DONE');
    // Every move's subscriber has run: a wakeup any of them wrote would be listed.
    await settled();
    expect(await listWakeups({ workspace_id: workspaceId })).toEqual([]);
    expect(await listRuns({ agent_id: agentId })).toEqual([]);
    expect(await listRuns({ agent_id: reviewer })).toEqual([]);
    expect(await get(`/api/office/tasks/${task.id}/comments`)).toEqual([]);
    expect((await get(`/api/office/tasks/${task.id}`)).state).toBe('DONE');
  });
});

describe('subtasks completing (task_children_completed)', () => {
  it('GIVEN a parent with three subtasks assigned to different workers WHEN all three reach done one after another THEN exactly one task_children_completed wakeup is queued for the parent\'s assignee, after the last one', async () => {
    h = await startHarness();
    const { workspaceId, agentId: lead } = await seedAgent(h, { name: 'Lead' });
    const workers = [await createAgent(workspaceId, { name: 'W1' }), await createAgent(workspaceId, { name: 'W2' }), await createAgent(workspaceId, { name: 'W3' })];
    const parent = await createTask({ workspace_id: workspaceId, title: 'Launch', assignee_agent_instance_id: lead });
    const children = [];
    for (const [i, worker] of workers.entries()) {
      children.push(await createTask({ workspace_id: workspaceId, title: `Part ${i + 1}`, parent_id: parent.id, assignee_agent_instance_id: worker }));
    }
    await quiet(lead);
    for (const worker of workers) await quiet(worker);

    await move(children[0].id, 'DONE');
    await move(children[1].id, 'DONE');
    await settled();
    expect(await listWakeups({ agent_id: lead, source: 'task_children_completed' })).toEqual([]);

    await move(children[2].id, 'DONE');
    const wake = await h.waitFor(async () => (await listWakeups({ agent_id: lead, source: 'task_children_completed' }))[0], 'task_children_completed');
    expect(wake.payload).toEqual({ task_id: parent.id });
    const done = await waitForWakeupEnd(wake.id, 'the wakeup to end');
    expect(done.status).toBe('finished');
    const run = await get(`/api/office/runs/${done.run_id}`);
    expect(run).toMatchObject({ status: 'succeeded', task_id: parent.id });
    await settled();
    expect(await listWakeups({ agent_id: lead, source: 'task_children_completed' })).toHaveLength(1);
    expect(await listWakeups({ workspace_id: workspaceId, source: 'task_children_completed' })).toHaveLength(1);
  });

  it('GIVEN three subtasks WHEN all three are moved to done at the same moment THEN the parent\'s assignee still gets one task_children_completed wakeup and one run', async () => {
    h = await startHarness();
    const { workspaceId, agentId: lead } = await seedAgent(h, { name: 'Lead' });
    const workers = [await createAgent(workspaceId, { name: 'W1' }), await createAgent(workspaceId, { name: 'W2' }), await createAgent(workspaceId, { name: 'W3' })];
    const parent = await createTask({ workspace_id: workspaceId, title: 'Launch', assignee_agent_instance_id: lead });
    const children = await Promise.all(workers.map((worker, i) =>
      createTask({ workspace_id: workspaceId, title: `Part ${i + 1}`, parent_id: parent.id, assignee_agent_instance_id: worker })));
    await quiet(lead);
    for (const worker of workers) await quiet(worker);

    await Promise.all(children.map((child) => move(child.id, 'DONE')));
    const wakes = await allEnded({ agent_id: lead, source: 'task_children_completed' }, 'the children wakeup to end');
    expect(wakes).toHaveLength(1);
    expect(wakes[0]).toMatchObject({ status: 'finished', payload: { task_id: parent.id } });
    const parentRuns = (await listRuns({ agent_id: lead })).filter((r) => r.wakeup_id === wakes[0].id);
    expect(parentRuns).toHaveLength(1);
  });
  it('GIVEN no coalescing window WHEN the three subtasks reach done in the same instant (three moves committed before any subscriber runs) THEN the task_children_completed wakeup is still queued once and the parent\'s assignee runs once', async () => {
    // With OFFICE_COALESCE_WINDOW_MS=0 nothing hides a duplicate: each subscriber that sees all
    // children terminal must land on the same wakeup, not one each.
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0' });
    const { workspaceId, agentId: lead } = await seedAgent(h, { name: 'Lead' });
    const parent = await createTask({ workspace_id: workspaceId, title: 'Launch', assignee_agent_instance_id: lead });
    const children = [];
    for (let i = 1; i <= 3; i++) children.push(await createTask({ workspace_id: workspaceId, title: `Part ${i}`, parent_id: parent.id }));
    await quiet(lead);

    // Three writers in the same tick, as when several agents' runs finish together.
    const tasks = h.scheduler.services.tasks;
    await Promise.all(children.map((child) => tasks.moveTask(child.id, 'DONE', { type: 'user', id: null })));
    const wakes = await allEnded({ agent_id: lead, source: 'task_children_completed' }, 'the children wakeup to end');
    await agentAtRest(lead);
    expect(await listWakeups({ agent_id: lead, source: 'task_children_completed' })).toHaveLength(1);
    expect(wakes[0]).toMatchObject({ status: 'finished', payload: { task_id: parent.id } });
    const leadRuns = await listRuns({ agent_id: lead });
    expect(leadRuns.filter((r) => r.wakeup_id === wakes[0].id)).toHaveLength(1);
    expect(leadRuns).toHaveLength(2); // the assignment, then the one children run
  });
});

describe('comments wake the assignee, except its own (self-comment guard)', () => {
  it('the assignee\'s own comment does not wake it; another agent\'s comment and a user\'s comment each do', async () => {
    h = await startHarness();
    const { workspaceId, agentId: owner } = await seedAgent(h, { name: 'Owner' });
    const other = await createAgent(workspaceId, { name: 'Helper' });
    const task = await createTask({ workspace_id: workspaceId, title: 'Investigate flaky CI', assignee_agent_instance_id: owner });
    await quiet(owner);

    const own = await comment(task.id, 'Working on it, found the race.', 'agent', owner);
    // The comment's subscriber has run: a wakeup it wrote would be listed.
    await settled();
    expect(await listWakeups({ agent_id: owner, source: 'comment' })).toEqual([]);
    expect(own).toMatchObject({ author_type: 'agent', author_id: owner });

    const fromOther = await comment(task.id, 'I saw the same on main.', 'agent', other);
    const wakeA = await h.waitFor(async () =>
      (await listWakeups({ agent_id: owner, source: 'comment' })).find((w) => w.payload.comment_id === fromOther.id), 'the wakeup of the other agent\'s comment');
    expect(wakeA.payload).toEqual({ task_id: task.id, comment_id: fromOther.id });
    expect(wakeA.idempotency_key).toBe(`comment:${fromOther.id}`);
    await quiet(owner);

    const fromUser = await comment(task.id, 'Any update?', 'user', 'user-42');
    const wakeU = await h.waitFor(async () =>
      (await listWakeups({ agent_id: owner, source: 'comment' })).find((w) => w.payload.comment_id === fromUser.id), 'the wakeup of the user\'s comment');
    expect(wakeU.payload).toEqual({ task_id: task.id, comment_id: fromUser.id });
    const ended = await quiet(owner);
    expect(ended.filter((w) => w.source === 'comment')).toHaveLength(2);
    // The other agent is not the assignee, so it is never woken by comments on the task.
    expect(await listWakeups({ agent_id: other })).toEqual([]);
  });

  it('a comment on a task with no assignee wakes nobody', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const task = await createTask({ workspace_id: workspaceId, title: 'Backlog idea' });
    await comment(task.id, 'Someone should look at this.', 'user', 'user-1');
    await comment(task.id, 'Agreed.', 'agent', agentId);
    await settled();
    expect(await listWakeups({ workspace_id: workspaceId })).toEqual([]);
  });
});
