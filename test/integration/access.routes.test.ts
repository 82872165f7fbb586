/**
 * Who may call each route (API.md, "Trust boundaries"), walked over the generated OpenAPI document
 * with a member token against the real server: every operation must have a rule in the table below
 * (API.md's, written out here, not read from the code), the document must declare the same level,
 * and a member's request must be refused (403, nothing written) or let through as the rule says. A
 * new route without a rule fails this file.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAccessRules, withRouteAccess } from '../../src/http/auth.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

const ADMIN = 'access-walk-admin-token';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const COMMAND = { kind: 'command', command: process.execPath, args: ['-e', '0'] };

/** API.md's table. `owner`: a member only on what it owns; `pause_or_resume`: a member only with a body whose only field is status. */
type Rule = 'public' | 'read' | 'member' | 'owner' | 'pause_or_resume' | 'admin';

interface Seeded {
  workspaceId: string; projectId: string; agentId: string; sleeperId: string; taskId: string; approvalId: string; inboxId: string;
  budgetScope: string; budgetId: string; memberTokenId: string; otherTokenId: string;
  mine: { routineId: string; scheduleId: string; manualId: string; runId: string };
  others: { routineId: string; scheduleId: string; runId: string; wakeupId: string };
}

/** One request: path (with its ids), and a body or query where the operation takes one. */
interface Call { method: string; path: string; body?: unknown }
interface Entry {
  rule: Rule;
  /** A member's request that the rule lets through (for `owner`: on what the member owns). */
  allowed?: (s: Seeded) => Call;
  /** A member's request that the rule refuses (`admin`, `owner` on another's, `pause_or_resume` beyond status). */
  refused?: (s: Seeded) => Call;
}

const get = (path: string): Call => ({ method: 'GET', path });
const ws = (s: Seeded) => `workspace_id=${s.workspaceId}`;

const TABLE: Record<string, Entry> = {
  getHealth: { rule: 'public', allowed: () => get('/healthz') },
  getReadiness: { rule: 'public', allowed: () => get('/readyz') },
  getMetrics: { rule: 'public', allowed: () => get('/metrics') },
  fireRoutineWebhook: { rule: 'public', allowed: () => ({ method: 'POST', path: '/api/routine-triggers/no-such-trigger/fire', body: {} }) },
  listReplicas: { rule: 'read', allowed: () => get('/api/office/replicas') },

  createWorkspace: { rule: 'admin', refused: () => ({ method: 'POST', path: '/api/office/workspaces', body: { name: 'Mine now' } }) },
  listWorkspaces: { rule: 'read', allowed: () => get('/api/office/workspaces') },
  getWorkspace: { rule: 'read', allowed: (s) => get(`/api/office/workspaces/${s.workspaceId}`) },
  updateWorkspace: { rule: 'admin', refused: (s) => ({ method: 'PATCH', path: `/api/office/workspaces/${s.workspaceId}`, body: { name: 'Renamed' } }) },
  deleteWorkspace: { rule: 'admin', refused: (s) => ({ method: 'DELETE', path: `/api/office/workspaces/${s.workspaceId}` }) },
  createProject: { rule: 'admin', refused: (s) => ({ method: 'POST', path: '/api/office/projects', body: { workspace_id: s.workspaceId, name: 'P2' } }) },
  listProjects: { rule: 'read', allowed: (s) => get(`/api/office/projects?${ws(s)}`) },
  getProject: { rule: 'read', allowed: (s) => get(`/api/office/projects/${s.projectId}`) },
  updateProject: { rule: 'admin', refused: (s) => ({ method: 'PATCH', path: `/api/office/projects/${s.projectId}`, body: { name: 'Renamed' } }) },

  createAgent: { rule: 'admin', refused: (s) => ({ method: 'POST', path: '/api/office/agents', body: { workspace_id: s.workspaceId, name: 'Mine', role: 'worker' } }) },
  listAgents: { rule: 'read', allowed: (s) => get(`/api/office/agents?${ws(s)}`) },
  getAgent: { rule: 'read', allowed: (s) => get(`/api/office/agents/${s.agentId}`) },
  updateAgent: {
    rule: 'pause_or_resume',
    allowed: (s) => ({ method: 'PATCH', path: `/api/office/agents/${s.agentId}`, body: { status: 'paused' } }),
    refused: (s) => ({ method: 'PATCH', path: `/api/office/agents/${s.agentId}`, body: { status: 'idle', cooldown_sec: 5 } }),
  },
  deleteAgent: { rule: 'admin', refused: (s) => ({ method: 'DELETE', path: `/api/office/agents/${s.agentId}` }) },
  wakeAgent: { rule: 'member', allowed: (s) => ({ method: 'POST', path: `/api/office/agents/${s.agentId}/wake`, body: { reason: 'a member asks' } }) },
  listAgentSummaries: { rule: 'read', allowed: (s) => get(`/api/office/agents/${s.agentId}/summaries`) },

  createTask: { rule: 'member', allowed: (s) => ({ method: 'POST', path: '/api/office/tasks', body: { workspace_id: s.workspaceId, title: 'A member\'s task' } }) },
  listTasks: { rule: 'read', allowed: (s) => get(`/api/office/tasks?${ws(s)}`) },
  getTask: { rule: 'read', allowed: (s) => get(`/api/office/tasks/${s.taskId}`) },
  updateTask: { rule: 'member', allowed: (s) => ({ method: 'PATCH', path: `/api/office/tasks/${s.taskId}`, body: { title: 'Retitled' } }) },
  moveTask: { rule: 'member', allowed: (s) => ({ method: 'POST', path: `/api/office/tasks/${s.taskId}/move`, body: { state: 'IN_PROGRESS' } }) },
  createComment: { rule: 'member', allowed: (s) => ({ method: 'POST', path: `/api/office/tasks/${s.taskId}/comments`, body: { body: 'Noted' } }) },
  listComments: { rule: 'read', allowed: (s) => get(`/api/office/tasks/${s.taskId}/comments`) },
  createApproval: { rule: 'member', allowed: (s) => ({ method: 'POST', path: '/api/office/approvals', body: { requested_by_agent_id: s.agentId, title: 'Ship it?' } }) },
  getApproval: { rule: 'read', allowed: (s) => get(`/api/office/approvals/${s.approvalId}`) },
  resolveApproval: { rule: 'member', allowed: (s) => ({ method: 'POST', path: `/api/office/approvals/${s.approvalId}/resolve`, body: { status: 'approved' } }) },
  createBudget: {
    rule: 'admin',
    refused: (s) => ({ method: 'POST', path: '/api/office/budgets', body: { scope: 'agent', scope_id: s.budgetScope, limit_usd: 5, period: 'daily', action_on_exceed: 'warn' } }),
  },
  listBudgets: { rule: 'read', allowed: (s) => get(`/api/office/budgets?${ws(s)}`) },
  updateBudget: { rule: 'admin', refused: (s) => ({ method: 'PATCH', path: `/api/office/budgets/${s.budgetId}`, body: { limit_usd: 1000 } }) },
  deleteBudget: { rule: 'admin', refused: (s) => ({ method: 'DELETE', path: `/api/office/budgets/${s.budgetId}` }) },

  listWakeups: { rule: 'read', allowed: (s) => get(`/api/office/wakeups?agent_id=${s.sleeperId}`) },
  explainWakeup: { rule: 'read', allowed: (s) => get(`/api/office/wakeups/${s.others.wakeupId}`) },
  listRuns: { rule: 'read', allowed: (s) => get(`/api/office/runs?agent_id=${s.sleeperId}`) },
  getRun: { rule: 'read', allowed: (s) => get(`/api/office/runs/${s.others.runId}`) },
  getRunTranscript: { rule: 'read', allowed: (s) => get(`/api/office/runs/${s.others.runId}/transcript`) },
  listQuotas: { rule: 'read', allowed: () => get('/api/office/quotas?all=true') },
  cancelRun: {
    rule: 'owner',
    allowed: (s) => ({ method: 'POST', path: `/api/office/runs/${s.mine.runId}/cancel`, body: { reason: 'mine to stop' } }),
    refused: (s) => ({ method: 'POST', path: `/api/office/runs/${s.others.runId}/cancel`, body: { reason: 'not mine' } }),
  },
  listActivity: { rule: 'read', allowed: (s) => get(`/api/office/activity?${ws(s)}`) },
  listInbox: { rule: 'read', allowed: (s) => get(`/api/office/inbox?${ws(s)}`) },
  resolveInboxItem: { rule: 'member', allowed: (s) => ({ method: 'POST', path: `/api/office/inbox/${s.inboxId}/resolve` }) },
  getStats: { rule: 'read', allowed: (s) => get(`/api/office/stats?${ws(s)}`) },
  getRunTimeline: { rule: 'read', allowed: (s) => get(`/api/office/stats/timeline?${ws(s)}`) },

  listRoutines: { rule: 'read', allowed: (s) => get(`/api/office/routines?${ws(s)}`) },
  createRoutine: {
    rule: 'member',
    allowed: (s) => ({ method: 'POST', path: '/api/office/routines', body: { workspace_id: s.workspaceId, name: 'Another of mine', assignee_agent_instance_id: s.agentId } }),
  },
  getRoutine: { rule: 'read', allowed: (s) => get(`/api/office/routines/${s.others.routineId}`) },
  updateRoutine: {
    rule: 'owner',
    allowed: (s) => ({ method: 'PATCH', path: `/api/office/routines/${s.mine.routineId}`, body: { name: 'Renamed by its owner' } }),
    refused: (s) => ({ method: 'PATCH', path: `/api/office/routines/${s.others.routineId}`, body: { name: 'Renamed by a stranger' } }),
  },
  listRoutineRuns: { rule: 'read', allowed: (s) => get(`/api/office/routines/${s.others.routineId}/runs`) },
  fireRoutine: {
    rule: 'owner',
    allowed: (s) => ({ method: 'POST', path: `/api/office/routines/${s.mine.routineId}/fire`, body: {} }),
    refused: (s) => ({ method: 'POST', path: `/api/office/routines/${s.others.routineId}/fire`, body: {} }),
  },
  createRoutineTrigger: {
    rule: 'owner',
    allowed: (s) => ({ method: 'POST', path: `/api/office/routines/${s.mine.routineId}/triggers`, body: { kind: 'webhook', signing_mode: 'none' } }),
    refused: (s) => ({ method: 'POST', path: `/api/office/routines/${s.others.routineId}/triggers`, body: { kind: 'manual' } }),
  },
  updateRoutineTrigger: {
    rule: 'owner',
    allowed: (s) => ({ method: 'PATCH', path: `/api/office/routine-triggers/${s.mine.scheduleId}`, body: { enabled: false } }),
    refused: (s) => ({ method: 'PATCH', path: `/api/office/routine-triggers/${s.others.scheduleId}`, body: { enabled: false } }),
  },
  deleteRoutineTrigger: {
    rule: 'owner',
    allowed: (s) => ({ method: 'DELETE', path: `/api/office/routine-triggers/${s.mine.scheduleId}` }),
    refused: (s) => ({ method: 'DELETE', path: `/api/office/routine-triggers/${s.others.scheduleId}` }),
  },
  deleteRoutine: {
    rule: 'owner',
    allowed: (s) => ({ method: 'DELETE', path: `/api/office/routines/${s.mine.routineId}` }),
    refused: (s) => ({ method: 'DELETE', path: `/api/office/routines/${s.others.routineId}` }),
  },
  previewRoutineTrigger: { rule: 'read', allowed: (s) => get(`/api/office/routine-triggers/${s.others.scheduleId}/preview`) },

  createApiToken: { rule: 'admin', refused: () => ({ method: 'POST', path: '/api/office/tokens', body: { name: 'escalate', role: 'admin' } }) },
  listApiTokens: { rule: 'admin', refused: () => get('/api/office/tokens') },
  revokeApiToken: { rule: 'admin', refused: (s) => ({ method: 'DELETE', path: `/api/office/tokens/${s.otherTokenId}` }) },

  getSession: { rule: 'read', allowed: () => get('/api/office/session') },
  signIn: { rule: 'member', allowed: () => ({ method: 'POST', path: '/api/office/session' }) },
  signOut: { rule: 'member', allowed: () => ({ method: 'DELETE', path: '/api/office/session' }) },
};

/** Bodies that choose an executor, by operation: a member's is a 403 on each, whatever the route's own rule. */
const WITH_EXECUTOR: Record<string, (s: Seeded) => Call> = {
  createWorkspace: () => ({ method: 'POST', path: '/api/office/workspaces', body: { name: 'X', default_executor: COMMAND } }),
  updateWorkspace: (s) => ({ method: 'PATCH', path: `/api/office/workspaces/${s.workspaceId}`, body: { default_executor: COMMAND } }),
  createProject: (s) => ({ method: 'POST', path: '/api/office/projects', body: { workspace_id: s.workspaceId, name: 'X', default_executor: COMMAND } }),
  updateProject: (s) => ({ method: 'PATCH', path: `/api/office/projects/${s.projectId}`, body: { default_executor: COMMAND } }),
  createAgent: (s) => ({ method: 'POST', path: '/api/office/agents', body: { workspace_id: s.workspaceId, name: 'X', role: 'worker', executor: COMMAND } }),
  updateAgent: (s) => ({ method: 'PATCH', path: `/api/office/agents/${s.agentId}`, body: { executor: COMMAND } }),
  createTask: (s) => ({ method: 'POST', path: '/api/office/tasks', body: { workspace_id: s.workspaceId, title: 'X', executor: COMMAND } }),
  updateTask: (s) => ({ method: 'PATCH', path: `/api/office/tasks/${s.taskId}`, body: { executor: COMMAND } }),
};

interface Operation { operationId: string; method: string; path: string; level: unknown; bodyFields: string[] }

let h: Harness;
let memberToken: string;
let seeded: Seeded;
let operations: Operation[];

async function as(token: string | null, call: Call) {
  return h.api(call.method, call.path, call.body, token ? bearer(token) : {});
}

async function admin<T = any>(method: string, path: string, body?: unknown, expected = 201): Promise<T> {
  const res = await as(ADMIN, { method, path, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(expected);
  return res.body;
}

/**
 * What a refused request must leave as it was: every row of every table, except the actors' own
 * bookkeeping (snapshots, leases, replicas), which moves with time and not with requests.
 */
async function everyRow(): Promise<string> {
  const tables = (await h.inspect.tables()).filter((t) => !/snapshot|lease|replica|outbox|schema_migrations/.test(t)).sort();
  const rows = await Promise.all(tables.map(async (t) => [t, await h.inspect.rows(t)] as const));
  return JSON.stringify(rows);
}

async function runningRunOf(wakeupId: string): Promise<string> {
  return h.waitFor(async () => {
    const [run] = (await as(ADMIN, get(`/api/office/runs?wakeup_id=${wakeupId}`))).body;
    // Its session recorded: nothing about the run changes on its own after that while it sleeps.
    return run?.status === 'running' && run.session_pid ? run.id as string : null;
  }, `the session of wakeup ${wakeupId} to be running`);
}

async function seed(): Promise<Seeded> {
  const workspaceId = (await admin('POST', '/api/office/workspaces', { name: 'Acme' })).id;
  const projectId = (await admin('POST', '/api/office/projects', { workspace_id: workspaceId, name: 'Billing' })).id;
  const agentId = (await admin('POST', '/api/office/agents', {
    workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs'),
  })).id;
  const sleeperId = (await admin('POST', '/api/office/agents', {
    workspace_id: workspaceId, name: 'Sleeper', role: 'worker', cooldown_sec: 0, max_concurrent_sessions: 4, skip_idle_wakeups: false,
    executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '600000' }),
  })).id;
  const taskId = (await admin('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Close the books' })).id;
  const approvalId = (await admin('POST', '/api/office/approvals', { requested_by_agent_id: agentId, title: 'Pay the invoice?' })).id;
  const [inbox] = (await admin('GET', `/api/office/inbox?workspace_id=${workspaceId}`, undefined, 200)) as { id: string }[];
  const budgetId = (await admin('POST', '/api/office/budgets', { scope: 'workspace', scope_id: workspaceId, limit_usd: 100, period: 'monthly', action_on_exceed: 'warn' })).id;
  const member = await admin('POST', '/api/office/tokens', { name: 'member', role: 'member' });
  const other = await admin('POST', '/api/office/tokens', { name: 'other', role: 'member' });
  memberToken = member.token;

  const routine = (token: string, name: string) => as(token, { method: 'POST', path: '/api/office/routines', body: {
    workspace_id: workspaceId, name, assignee_agent_instance_id: sleeperId, concurrency_policy: 'always_enqueue',
    triggers: [{ kind: 'manual' }, { kind: 'schedule', cron_expression: '0 3 * * *' }],
  } });
  const mine = (await routine(member.token, 'Mine')).body;
  const theirs = (await routine(ADMIN, 'Theirs')).body;
  const triggerOf = (r: any, kind: string) => r.triggers.find((t: any) => t.kind === kind).id as string;

  // A run done on the member's behalf (its own manual fire), and one that is not (an admin's wake).
  const fired = await as(member.token, { method: 'POST', path: `/api/office/routines/${mine.id}/fire`, body: {} });
  expect(fired.status).toBe(202);
  const woke = await admin('POST', `/api/office/agents/${sleeperId}/wake`, { reason: 'an admin asks' }, 202);
  return {
    workspaceId, projectId, agentId, sleeperId, taskId, approvalId, inboxId: inbox!.id, budgetScope: agentId, budgetId,
    memberTokenId: member.id, otherTokenId: other.id,
    mine: { routineId: mine.id, scheduleId: triggerOf(mine, 'schedule'), manualId: triggerOf(mine, 'manual'), runId: await runningRunOf(fired.body.routine_run.linked_wakeup_id) },
    others: { routineId: theirs.id, scheduleId: triggerOf(theirs, 'schedule'), runId: await runningRunOf(woke.wakeup.id), wakeupId: woke.wakeup.id },
  };
}

beforeAll(async () => {
  h = await startHarness({ OFFICE_API_TOKEN: ADMIN });
  seeded = await seed();
  const doc = (await h.api('GET', '/openapi.json')).body;
  operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({
    operationId: op.operationId as string, method: method.toUpperCase(), path, level: op['x-office-access']?.level,
    bodyFields: Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
  })));
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

describe('one permission rule per route', () => {
  it('every operation of the OpenAPI document has a rule in API.md\'s table, and declares that same rule', () => {
    expect(operations.length).toBeGreaterThan(50);
    const unknown = operations.filter((op) => !(op.operationId in TABLE)).map((op) => `${op.method} ${op.path} (${op.operationId})`);
    expect(unknown, 'operations with no rule in the table: add each with its rule from API.md').toEqual([]);
    const declared = Object.fromEntries(operations.map((op) => [op.operationId, op.level]));
    const expected = Object.fromEntries(operations.map((op) => [op.operationId, TABLE[op.operationId]!.rule]));
    expect(declared).toEqual(expected);
    // Every body that can carry an executor is walked with one below.
    const withExecutor = operations.filter((op) => op.bodyFields.some((f) => f === 'executor' || f === 'default_executor')).map((op) => op.operationId).sort();
    expect(withExecutor).toEqual(Object.keys(WITH_EXECUTOR).sort());
  });

  it('a member gets a 403 that changes nothing for every admin operation, any executor in a body, another owner\'s routine or run, and an agent PATCH beyond its status', async () => {
    const refusals = [
      ...operations.flatMap((op) => {
        const refused = TABLE[op.operationId]?.refused;
        return refused ? [[op.operationId, refused(seeded)] as const] : [];
      }),
      ...Object.entries(WITH_EXECUTOR).map(([id, call]) => [`${id} with an executor`, call(seeded)] as const),
    ];
    expect(refusals.length).toBeGreaterThan(20);
    for (const [what, call] of refusals) {
      const before = await everyRow();
      const res = await as(memberToken, call);
      expect(res.status, `${what}: ${call.method} ${call.path} answered ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(await everyRow(), `${what} changed something`).toBe(before);
    }
  });

  it('a member may call every read and every member operation, and the owner operations on what it owns; the public ones need no token', async () => {
    // Signing out ends nothing a later call needs; deleting a trigger and the routine come after the rest of it.
    const order = (id: string) => ['deleteRoutineTrigger', 'deleteRoutine', 'signOut'].indexOf(id);
    const allowed = operations.filter((op) => TABLE[op.operationId]?.allowed).sort((a, b) => order(a.operationId) - order(b.operationId));
    for (const op of allowed) {
      const entry = TABLE[op.operationId]!;
      const call = entry.allowed!(seeded);
      const res = await as(entry.rule === 'public' ? null : memberToken, call);
      const answer = `${op.operationId}: ${call.method} ${call.path} answered ${res.status} ${JSON.stringify(res.body)}`;
      expect([401, 403], answer).not.toContain(res.status);
      expect(res.status, answer).toBeLessThan(500);
    }
  });

  it('a route registered without an access rule fails the start', async () => {
    const app = Fastify();
    requireAccessRules(app);
    const start = async () => {
      app.get('/api/office/forgotten', async () => 'open to all');
      await app.ready();
    };
    await expect(start()).rejects.toThrow(/GET \/api\/office\/forgotten declares no access rule/);
  });

  it("a library's plugin, which cannot declare access beside its routes, gives each of them the level it is registered with", async () => {
    const app = Fastify();
    requireAccessRules(app);
    const levels: unknown[] = [];
    app.addHook('onRequest', async (request) => { levels.push(request.routeOptions.config.access); });
    await app.register(withRouteAccess('public', async (scope) => {
      await scope.register(async (library) => { library.get('/library/page', async () => 'a page'); });
    }));
    expect((await app.inject({ method: 'GET', url: '/library/page' })).statusCode).toBe(200);
    expect(levels).toEqual(['public']);
    await app.close();
  });
});
