/**
 * What a new user writes first: a typed client generated from /openapi.json (openapi-typescript
 * types, openapi-fetch calls). It must compile under `tsc --strict` with no casts, and it runs
 * against a real server in contract.test.ts.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '../../src/client/openapi.js';

type Schemas = components['schemas'];
export type ExecutorSpec = Schemas['ExecutorSpecInput'];

export interface Scenario {
  workspace: Schemas['Workspace'];
  agent: Schemas['Agent'];
  task: Schemas['Task'];
  routine: Schemas['Routine'];
  routineRun: Schemas['RoutineRun'];
  wakeups: Schemas['Wakeup'][];
  run: Schemas['Run'];
}

const ENDED_RUN: ReadonlySet<Schemas['Run']['status']> = new Set(['succeeded', 'failed', 'interrupted', 'cancelled']);

/** Creates a workspace, an agent, a task and a routine, fires the routine, lists the wakeups and reads the run. */
export async function runScenario(baseUrl: string, executor: ExecutorSpec, timeoutMs = 15_000): Promise<Scenario> {
  const api = createClient<paths>({ baseUrl });

  const workspace = need(await api.POST('/api/office/workspaces', { body: { name: 'Contract', timezone: 'Europe/London' } }), 'create a workspace');
  const agent = need(await api.POST('/api/office/agents', {
    // A lightweight routine's wakeup would be skipped for an idle worker (no tasks): this one always runs.
    body: { workspace_id: workspace.id, name: 'Contract worker', role: 'worker', executor, cooldown_sec: 0, skip_idle_wakeups: false },
  }), 'create an agent');
  const task = need(await api.POST('/api/office/tasks', {
    body: { workspace_id: workspace.id, title: 'Read the contract', assignee_agent_instance_id: null },
  }), 'create a task');
  const routine = need(await api.POST('/api/office/routines', {
    body: {
      workspace_id: workspace.id, name: 'Contract routine', assignee_agent_instance_id: agent.id,
      task_template: null, triggers: [{ kind: 'manual' }],
    },
  }), 'create a routine');

  // The fire body is optional.
  const { routine_run: routineRun } = need(await api.POST('/api/office/routines/{id}/fire', { params: { path: { id: routine.id } } }), 'fire the routine');

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const wakeups = need(await api.GET('/api/office/wakeups', { params: { query: { agent_id: agent.id } } }), 'list the wakeups');
    const fired = wakeups.find((w) => w.id === routineRun.linked_wakeup_id);
    if (fired?.run_id) {
      const run = need(await api.GET('/api/office/runs/{id}', { params: { path: { id: fired.run_id } } }), 'read the run');
      if (ENDED_RUN.has(run.status)) return { workspace, agent, task, routine, routineRun, wakeups, run };
    }
    if (Date.now() > deadline) {
      throw new Error(`the routine run ${routineRun.id} reached no ended run within ${timeoutMs} ms; its wakeup: ${fired ? `${fired.status}: ${fired.explain}` : 'none'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The body of a successful answer, or an error that names the step and the server's error envelope. */
function need<T>(answer: { data?: T; error?: Schemas['Error']; response: Response }, step: string): T {
  if (answer.data === undefined) {
    throw new Error(`${step}: ${answer.response.status} ${answer.error ? `${answer.error.error.code}: ${answer.error.error.message}` : ''}`);
  }
  return answer.data;
}
