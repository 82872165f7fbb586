/**
 * The integration tests' API shortcuts against the running harness. GET helpers assert 200 and
 * create helpers 201 (the failure message names the method, the path and the answer's body), and
 * return the body, or the new id where that is all a test needs.
 *
 *   let h: Harness | undefined;
 *   const { listWakeups, getTask, createTask } = apiClient(() => h);
 *
 * The harness is read at each call, so the client can be made once per file while each test
 * starts its own.
 */
import { expect } from 'vitest';
import { fixtureAgent, type Harness } from './harness.js';

/** Wakeup statuses after which nothing more happens to the wakeup. */
export const TERMINAL = new Set(['finished', 'failed', 'cancelled', 'skipped', 'coalesced']);

/** Query-string filters of the list routes, e.g. `{ agent_id, source: 'comment' }`. */
export type Query = Record<string, string>;

export interface ApiClientOptions {
  /** Headers sent with every call, read at call time (e.g. the user's API token while a test sets one). */
  headers?: () => Record<string, string>;
}

export function apiClient(current: () => Harness | undefined, options: ApiClientOptions = {}) {
  const harness = (): Harness => {
    const h = current();
    if (!h) throw new Error('apiClient: no harness is running');
    return h;
  };

  /** Any call: asserts the status (200 unless told otherwise) and returns the body. */
  async function call(method: string, path: string, body?: unknown, expected = 200): Promise<any> {
    const res = await harness().api(method, path, body, options.headers?.() ?? {});
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(expected);
    return res.body;
  }

  const get = (path: string): Promise<any> => call('GET', path);
  const post = (path: string, body: unknown, expected = 201): Promise<any> => call('POST', path, body, expected);
  const patch = (path: string, body: unknown): Promise<any> => call('PATCH', path, body);
  const list = (resource: string) => (query: Query = {}): Promise<any[]> => get(`/api/office/${resource}?${new URLSearchParams(query)}`);

  const listWakeups = list('wakeups');
  const listRuns = list('runs');
  const listActivity = list('activity');
  const getWakeup = (id: string): Promise<any> => get(`/api/office/wakeups/${id}`);

  /**
   * Once every subscriber has handled every committed event (so the wakeups they produce are
   * written). The bus counts an event a subscriber's transaction emits before that subscriber ends,
   * so one idle covers the whole cascade; work an actor starts later (a dispatch) is not an event.
   */
  async function settled(): Promise<void> {
    await harness().scheduler.events.idle();
  }

  /** The wakeup, once its status is one of `statuses`. */
  function waitForWakeupStatus(id: string, statuses: string | Iterable<string>, what: string, timeoutMs?: number): Promise<any> {
    const accepted = new Set(typeof statuses === 'string' ? [statuses] : statuses);
    return harness().waitFor(async () => {
      const w = await getWakeup(id);
      return accepted.has(w.status) ? w : null;
    }, what, timeoutMs);
  }

  /** The agent's live actor (GET /agents/:id, `actor`), once `check` holds of it. */
  function waitForAgentActor(agentId: string, check: (actor: any) => boolean, what: string): Promise<any> {
    return harness().waitFor(async () => {
      const { actor } = await get(`/api/office/agents/${agentId}`);
      return actor && check(actor) ? actor : null;
    }, what);
  }

  return {
    call,
    get,
    post,
    patch,

    listWakeups,
    listRuns,
    listActivity,
    getWakeup,
    getTask: (id: string): Promise<any> => get(`/api/office/tasks/${id}`),
    getAgent: (id: string): Promise<any> => get(`/api/office/agents/${id}`),

    /** A workspace; returns its id. */
    createWorkspace: async (name = 'Acme'): Promise<string> => (await post('/api/office/workspaces', { name })).id,
    /** An agent: a worker on succeed.mjs with no cooldown unless `body` says otherwise; returns its id. */
    createAgent: async (workspaceId: string, body: Record<string, unknown>): Promise<string> =>
      (await post('/api/office/agents', {
        workspace_id: workspaceId, role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs'), ...body,
      })).id,
    /** A task from the whole request body; returns the task. */
    createTask: (body: Record<string, unknown>): Promise<any> => post('/api/office/tasks', body),
    /** A task with that title for `assignee` (or no one); returns its id. */
    createTaskId: async (workspaceId: string, title: string, assignee: string | null): Promise<string> =>
      (await post('/api/office/tasks', { workspace_id: workspaceId, title, assignee_agent_instance_id: assignee })).id,

    settled,
    waitForWakeupStatus,
    /** The wakeup, once it has ended (any terminal status). */
    waitForWakeupEnd: (id: string, what = `wakeup ${id} to end`, timeoutMs?: number): Promise<any> =>
      waitForWakeupStatus(id, TERMINAL, what, timeoutMs),
    /** The first run matching `query` whose status is `status`, once there is one. */
    waitForRun: (query: Query, status: string, what: string, timeoutMs?: number): Promise<any> =>
      harness().waitFor(async () => (await listRuns(query)).find((r) => r.status === status), what, timeoutMs),
    waitForAgentActor,
    /**
     * The agent's actor, once it holds nothing: no wakeup waits in its inbox (so no timer is armed
     * for one) and none is being dispatched. From then on only a new wakeup can start a run.
     */
    agentAtRest: (agentId: string, what = `the actor of agent ${agentId} to be at rest`): Promise<any> =>
      waitForAgentActor(agentId, (actor) => actor.queued === 0 && actor.running === 0 && /\.idle$/.test(actor.state), what),
    /** Every wakeup of the agent, once all of them have ended (and so no process of it is running). */
    async quiet(agentId: string): Promise<any[]> {
      await settled();
      return harness().waitFor(async () => {
        const all = await listWakeups({ agent_id: agentId });
        return all.every((w) => TERMINAL.has(w.status)) ? all : null;
      }, `agent ${agentId} to be quiet`);
    },
  };
}
