/**
 * `npm run demo`: starts the scheduler and makes sure a demo workspace exists, so a newcomer sees
 * wakeups and runs flowing within a minute. The workspace has a coordinator and a worker whose
 * executor is examples/agent.mjs, a routine that wakes the worker every 10 seconds, and a manual
 * routine with a required variable to try Run now with. It is looked up by name on every start
 * and never created twice; the demo uses its own database (./data/demo.db) unless OFFICE_DB is set.
 */
import { fileURLToPath } from 'node:url';
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

interface Named { id: string; name: string; status?: string }

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
  const executor = { kind: 'command', command: process.execPath, args: [EXAMPLE_AGENT], timeout_sec: 60 };

  const workspaces = await api.get<Named[]>('/api/office/workspaces');
  let workspace = workspaces.find((w) => w.name === DEMO.workspace);
  if (!workspace) {
    workspace = await api.post<Named>('/api/office/workspaces', { name: DEMO.workspace, timezone: 'UTC' });
    created.push(`workspace '${DEMO.workspace}'`);
  }
  const query = `?workspace_id=${encodeURIComponent(workspace.id)}`;

  const agents = await api.get<Named[]>(`/api/office/agents${query}`);
  const ensureAgent = async (name: string, body: Record<string, unknown>) => {
    const found = agents.find((a) => a.name === name);
    if (found) {
      // The checkout may have moved since the last start: point the executor at this one.
      return api.patch<Named>(`/api/office/agents/${found.id}`, { executor });
    }
    created.push(`agent '${name}'`);
    return api.post<Named>('/api/office/agents', { workspace_id: workspace.id, name, executor, ...body });
  };
  const coordinator = await ensureAgent(DEMO.coordinator, { role: 'coordinator', cooldown_sec: 0 });
  // Taskless routine wakeups would be idle-skipped for a worker by default; the demo wants runs.
  const worker = await ensureAgent(DEMO.worker, { role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false });

  const routines = await api.get<Named[]>(`/api/office/routines${query}`);
  const ensureRoutine = async (name: string, body: Record<string, unknown>) => {
    const found = routines.find((r) => r.name === name && r.status !== 'archived');
    if (found) return found;
    created.push(`routine '${name}'`);
    return api.post<Named>('/api/office/routines', { workspace_id: workspace.id, name, assignee_agent_instance_id: worker.id, ...body });
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

  return { workspaceId: workspace.id, coordinatorId: coordinator.id, workerId: worker.id, tickerId: ticker.id, askId: ask.id, created };
}
