/**
 * A workspace with something on every dashboard page, for the tests that walk them all: agents,
 * tasks in several states with a comment, a blocker and an approval, a budget, a routine with a
 * run, finished and failed runs. Real child-process agents do the runs.
 */
import { fixtureAgent, type Harness } from '../helpers/harness.js';

/** What the seed made: the ids the detail pages need. */
export interface Seeded {
  workspaceId: string;
  taskId: string;
  routineId: string;
  runId: string;
  workerId: string;
  coordinatorId: string;
}

/** `headers` authenticate the calls (the server's API token, when it has one). */
export async function seedOffice(h: Harness, headers: Record<string, string> = {}): Promise<Seeded> {
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await h.api(method, path, body, headers);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const ws = await api('POST', '/api/office/workspaces', { name: 'Acme', timezone: 'Europe/Paris' });
  const coordinator = await api('POST', '/api/office/agents', { workspace_id: ws.id, name: 'Coordinator', role: 'coordinator', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs') });
  const worker = await api('POST', '/api/office/agents', { workspace_id: ws.id, name: 'Worker', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false, executor: fixtureAgent('succeed.mjs') });
  const failing = await api('POST', '/api/office/agents', { workspace_id: ws.id, name: 'Failing', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false, executor: fixtureAgent('fail.mjs') });
  const task = await api('POST', '/api/office/tasks', { workspace_id: ws.id, title: 'Write the digest', assignee_agent_instance_id: worker.id, requires_approval: true });
  await api('POST', `/api/office/tasks/${task.id}/comments`, { body: 'Please include refunds.', author_type: 'user', author_id: 'admin' });
  const blocked = await api('POST', '/api/office/tasks', { workspace_id: ws.id, title: 'Publish the digest', blocked_by: [task.id] });
  await api('POST', `/api/office/tasks/${blocked.id}/move`, { state: 'BLOCKED' });
  await api('POST', '/api/office/approvals', { task_id: task.id, requested_by_agent_id: worker.id, title: 'Ship the digest?' });
  await api('POST', '/api/office/budgets', { scope: 'workspace', scope_id: ws.id, limit_usd: 10, period: 'daily', action_on_exceed: 'warn' });
  const routine = await api('POST', '/api/office/routines', {
    workspace_id: ws.id, name: 'Nightly digest', assignee_agent_instance_id: worker.id, task_template: { title: 'Digest' },
    triggers: [{ kind: 'schedule', cron_expression: '0 3 * * *' }, { kind: 'manual' }],
  });
  await api('POST', `/api/office/routines/${routine.id}/fire`, {});
  await api('POST', `/api/office/agents/${failing.id}/wake`, { reason: 'fails' });
  const run = await h.waitFor(async () => (await api('GET', `/api/office/runs?agent_id=${worker.id}`)).find((r: { status: string }) => r.status === 'succeeded'), 'a finished run');
  await h.waitFor(async () => (await api('GET', `/api/office/runs?agent_id=${failing.id}`)).some((r: { status: string }) => r.status === 'failed'), 'a failed run');
  return { workspaceId: ws.id, taskId: task.id, routineId: routine.id, runId: run.id, workerId: worker.id, coordinatorId: coordinator.id };
}

/** Pages that no navigation link reaches: a thing's own page, as [path, name]. */
export const DETAIL_PAGES = (s: Seeded): Array<[string, string]> => [
  [`/office/tasks/${s.taskId}`, 'task'],
  [`/office/routines/${s.routineId}`, 'routine'],
  [`/office/runs/${s.runId}`, 'run'],
  [`/office/agents/${s.workerId}`, 'agent-worker'],
  [`/office/agents/${s.coordinatorId}`, 'agent-coordinator'],
];
