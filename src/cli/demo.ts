/**
 * `npm run demo`: starts the scheduler and makes sure a demo workspace exists, so a newcomer sees
 * wakeups and runs flowing within a minute. The workspace has a coordinator and a worker whose
 * executor is examples/agent.mjs, a routine that wakes the worker every 10 seconds, and a manual
 * routine with a required variable to try Run now with, and a board of tasks in each column (the
 * README's picture). It is looked up by name on every start and never created twice; the demo uses
 * its own database (./data/demo.db) unless OFFICE_DB is set.
 */
import { fileURLToPath } from 'node:url';
import type { RequestBody, Schemas } from '../client/index.js';
import type { ApiClient } from './client.js';

export const DEMO = {
  workspace: 'Demo workspace',
  coordinator: 'Demo coordinator',
  worker: 'Demo worker',
  ticker: 'Demo: tick every 10 seconds',
  ask: 'Demo: ask the worker',
  /** Six fields, seconds first: every 10 seconds. */
  cron: '*/10 * * * * *',
} as const;

const EXAMPLE_AGENT = fileURLToPath(new URL('../../examples/agent.mjs', import.meta.url));

export interface DemoIds {
  workspaceId: string;
  coordinatorId: string;
  workerId: string;
  tickerId: string;
  askId: string;
  created: string[];
}

/** Creates whatever part of the demo workspace is missing; safe to run on every start. */
export async function seedDemo(api: ApiClient): Promise<DemoIds> {
  const created: string[] = [];
  const executor: Schemas['ExecutorSpecInput'] = { kind: 'command', command: process.execPath, args: [EXAMPLE_AGENT], timeout_sec: 60 };

  const workspaces = await api.call(api.office.GET('/api/office/workspaces'));
  let workspace = workspaces.find((w) => w.name === DEMO.workspace);
  if (!workspace) {
    workspace = await api.call(api.office.POST('/api/office/workspaces', { body: { name: DEMO.workspace, timezone: 'UTC' } }));
    created.push(`workspace '${DEMO.workspace}'`);
  }
  const query = { params: { query: { workspace_id: workspace.id } } };

  const agents = await api.call(api.office.GET('/api/office/agents', query));
  const ensureAgent = async (name: string, body: Omit<RequestBody<'createAgent'>, 'workspace_id' | 'name'>) => {
    const found = agents.find((a) => a.name === name);
    if (found) {
      // The checkout may have moved since the last start: point the executor at this one.
      return api.call(api.office.PATCH('/api/office/agents/{id}', { params: { path: { id: found.id } }, body: { executor } }));
    }
    created.push(`agent '${name}'`);
    return api.call(api.office.POST('/api/office/agents', { body: { workspace_id: workspace.id, name, executor, ...body } }));
  };
  const coordinator = await ensureAgent(DEMO.coordinator, { role: 'coordinator', cooldown_sec: 0 });
  // Taskless routine wakeups would be idle-skipped for a worker by default; the demo wants runs.
  const worker = await ensureAgent(DEMO.worker, { role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false });

  const routines = await api.call(api.office.GET('/api/office/routines', query));
  const ensureRoutine = async (name: string, body: Omit<RequestBody<'createRoutine'>, 'workspace_id' | 'name' | 'assignee_agent_instance_id'>) => {
    const found = routines.find((r) => r.name === name && r.status !== 'archived');
    if (found) return found;
    created.push(`routine '${name}'`);
    return api.call(api.office.POST('/api/office/routines', { body: { workspace_id: workspace.id, name, assignee_agent_instance_id: worker.id, ...body } }));
  };
  const ticker = await ensureRoutine(DEMO.ticker, {
    description: 'Wakes the demo worker every 10 seconds without creating a task; each run sees the summary of the last one.',
    task_template: null,
    concurrency_policy: 'coalesce_if_active',
    catch_up_policy: 'skip_missed',
    triggers: [{ kind: 'schedule', cron_expression: DEMO.cron }],
  });
  const ask = await ensureRoutine(DEMO.ask, {
    description: 'Creates a task for the worker with your question. Try Run now: it asks for the question first.',
    task_template: { title: 'Question: {{question}}', description: 'Asked on {{date}} from the demo.' },
    variables: [{ name: 'question', type: 'text', required: true, description: 'What should the worker look into?' }],
    concurrency_policy: 'always_enqueue',
    triggers: [{ kind: 'manual' }],
  });

  if (await seedBoard(api, workspace.id, worker.id)) created.push(`a board of ${BOARD_TASKS} tasks`);

  return { workspaceId: workspace.id, coordinatorId: coordinator.id, workerId: worker.id, tickerId: ticker.id, askId: ask.id, created };
}

/** How many tasks seedBoard creates. */
const BOARD_TASKS = 6;

/**
 * A board with a task in every column, made once, while the workspace has no task of its own. The
 * worker's runs (examples/agent.mjs moves the task it works on to DONE) bring two of them to their
 * column: one to DONE, and one that needs approval to IN REVIEW, with its approval in the Inbox.
 * The tasks that stay where they are have no assignee, or a blocker: an assigned open task would be
 * done by the worker at its next wakeup.
 */
async function seedBoard(api: ApiClient, workspaceId: string, workerId: string): Promise<boolean> {
  const existing = await api.call(api.office.GET('/api/office/tasks', { params: { query: { workspace_id: workspaceId, limit: 1 } } }));
  if (existing.length > 0) return false;
  const task = (title: string, extra: Omit<RequestBody<'createTask'>, 'workspace_id' | 'title'> = {}) => api.call(api.office.POST('/api/office/tasks', { body: { workspace_id: workspaceId, title, ...extra } }));
  const move = (taskId: string, state: Schemas['Task']['state']) => api.call(api.office.POST('/api/office/tasks/{id}/move', { params: { path: { id: taskId } }, body: { state } }));

  await task('Pick a cover image');
  const draft = await task('Draft the Q3 customer digest', { description: 'Two pages, plain words.' });
  await move((await task("Summarise this week's support tickets", { description: 'Someone picked this up by hand.' })).id, 'IN_PROGRESS');
  await move((await task('Send the digest to subscribers', { assignee_agent_instance_id: workerId, blocked_by: [draft.id] })).id, 'BLOCKED');
  await task('Publish the 2.4 release notes', { assignee_agent_instance_id: workerId, requires_approval: true });
  await task('Update the FAQ', { assignee_agent_instance_id: workerId });
  return true;
}
