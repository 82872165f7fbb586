/**
 * What a new user writes first: the package's typed client (office-scheduler/client: openapi-typescript
 * types, openapi-fetch calls). It must compile under `tsc --strict` with no casts, and it runs
 * against a real server in contract.test.ts.
 */
import { createOfficeClient, unwrap, type Schemas } from '../../src/client/index.js';

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
  const api = createOfficeClient({ baseUrl });

  const workspace = await unwrap(api.POST('/api/office/workspaces', { body: { name: 'Contract', timezone: 'Europe/London' } }));
  const agent = await unwrap(api.POST('/api/office/agents', {
    // A lightweight routine's wakeup would be skipped for an idle worker (no tasks): this one always runs.
    body: { workspace_id: workspace.id, name: 'Contract worker', role: 'worker', executor, cooldown_sec: 0, skip_idle_wakeups: false },
  }));
  const task = await unwrap(api.POST('/api/office/tasks', {
    body: { workspace_id: workspace.id, title: 'Read the contract', assignee_agent_instance_id: null },
  }));
  const routine = await unwrap(api.POST('/api/office/routines', {
    body: {
      workspace_id: workspace.id, name: 'Contract routine', assignee_agent_instance_id: agent.id,
      task_template: null, triggers: [{ kind: 'manual' }],
    },
  }));

  // The fire body is optional.
  const { routine_run: routineRun } = await unwrap(api.POST('/api/office/routines/{id}/fire', { params: { path: { id: routine.id } } }));

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const wakeups = await unwrap(api.GET('/api/office/wakeups', { params: { query: { agent_id: agent.id } } }));
    const fired = wakeups.find((w) => w.id === routineRun.linked_wakeup_id);
    if (fired?.run_id) {
      const run = await unwrap(api.GET('/api/office/runs/{id}', { params: { path: { id: fired.run_id } } }));
      if (ENDED_RUN.has(run.status)) return { workspace, agent, task, routine, routineRun, wakeups, run };
    }
    if (Date.now() > deadline) {
      throw new Error(`the routine run ${routineRun.id} reached no ended run within ${timeoutMs} ms; its wakeup: ${fired ? `${fired.status}: ${fired.explain}` : 'none'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
