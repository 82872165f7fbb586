/**
 * GET /api/office/stats and /stats/timeline through the real server: the charts' numbers come from
 * real wakeups and runs of child-process agents, counted by the database; bad input is a 400
 * naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BUCKETS, WAKEUP_OUTCOMES } from '../../src/domain/stats.js';
import { TERMINAL } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let workspaceId: string;
let agentId: string;
let otherAgentId: string;
const MINUTE = 60_000;

/** Sums one series over every bucket: the runs may straddle a minute boundary. */
const total = (points: Record<string, number | string>[], key: string) => points.reduce((sum, p) => sum + (p[key] as number), 0);

async function wakeAndSettle(agent: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await h.api('POST', `/api/office/agents/${agent}/wake`, { reason: `stats ${i}` })).body.wakeup.id);
  await h.waitFor(async () => {
    const all = await Promise.all(ids.map(async (id) => (await h.api('GET', `/api/office/wakeups/${id}`)).body.status));
    return all.every((status) => TERMINAL.has(status));
  }, 'the wakeups to end');
}

describe('stats for the charts', () => {
  beforeAll(async () => {
    h = await startHarness();
    // Fails its first attempt, then succeeds on the retry (and every run after), reporting a cost.
    ({ workspaceId, agentId } = await seedAgent(h, {
      executor: fixtureAgent('flaky.mjs', { FIXTURE_COUNTER_FILE: `${h.dir}/flaky-attempts`, FIXTURE_FAIL_TIMES: '1', FIXTURE_COST: '0.25' }),
    }));
    otherAgentId = (await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Other', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '1' }),
    })).body.id;
    // The first wakeup's run fails and its retry succeeds; the second succeeds at once.
    await wakeAndSettle(agentId, 1);
    await wakeAndSettle(agentId, 1);
    await wakeAndSettle(otherAgentId, 1);
  }, 60_000);
  afterAll(async () => h?.stop());

  it('counts the ended wakeups per minute by outcome, and the cost per day, for the workspace and for one agent', async () => {
    const { status, body } = await h.api('GET', `/api/office/stats?workspace_id=${workspaceId}&bucket=minute`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ workspace_id: workspaceId, agent_id: null, bucket: 'minute', bucket_sec: 60 });
    // Every bucket of the default hour, zeros included, one minute apart.
    expect(body.wakeups.length).toBeGreaterThanOrEqual(60);
    expect(body.wakeups.length).toBeLessThanOrEqual(61);
    expect(Date.parse(body.wakeups[1].starts_at) - Date.parse(body.wakeups[0].starts_at)).toBe(MINUTE);
    expect(Object.keys(body.wakeups[0]).sort()).toEqual(['starts_at', ...WAKEUP_OUTCOMES].sort());

    // A failed attempt that was retried is no failed wakeup: each of the three ended finished.
    expect(total(body.wakeups, 'finished')).toBe(3);
    for (const outcome of ['skipped', 'coalesced', 'failed', 'cancelled']) expect(total(body.wakeups, outcome), outcome).toBe(0);

    const perAgent = (await h.api('GET', `/api/office/stats?workspace_id=${workspaceId}&agent_id=${otherAgentId}&bucket=minute`)).body;
    expect(total(perAgent.wakeups, 'finished')).toBe(1);
    expect(total(perAgent.wakeups, 'coalesced')).toBe(0);

    const days = (await h.api('GET', `/api/office/stats?workspace_id=${workspaceId}&bucket=day`)).body;
    expect(days.cost).toHaveLength(31);
    expect(days.cost.at(-1).starts_at).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    // Two successful runs of the flaky agent at $0.25 and one of the other at $1; the failed attempt reported nothing.
    expect(total(days.cost, 'cost_usd')).toBeCloseTo(1.5);
    expect(total(days.cost, 'runs')).toBe(3);
  });

  it('lists every run of an agent on its timeline with its status, the failed attempt included', async () => {
    const { status, body } = await h.api('GET', `/api/office/stats/timeline?workspace_id=${workspaceId}&agent_id=${agentId}`);
    expect(status).toBe(200);
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(24 * 60 * MINUTE);
    expect(body.truncated).toBe(false);
    const runs = (await h.api('GET', `/api/office/runs?agent_id=${agentId}`)).body;
    expect(body.runs.map((r: { id: string }) => r.id).sort()).toEqual(runs.map((r: { id: string }) => r.id).sort());
    expect(body.runs.map((r: { status: string }) => r.status)).toEqual(['failed', 'succeeded', 'succeeded']);
    for (const run of body.runs) expect(run).toMatchObject({ agent_id: agentId, started_at: expect.any(String), finished_at: expect.any(String) });
  });

  it('answers a bad query with a 400 that names the field, and an unknown workspace or agent with a 404', async () => {
    const field = async (query: string) => {
      const { status, body } = await h.api('GET', `/api/office/stats${query}`);
      expect(status, query).toBe(400);
      expect(body.error.code).toBe('validation_error');
      return body.error.details.map((d: { path: string }) => d.path);
    };
    expect(await field('')).toContain('querystring.workspace_id');
    expect(await field(`?workspace_id=${workspaceId}&bucket=week`)).toContain('querystring.bucket');
    expect(await field(`?workspace_id=${workspaceId}&from=yesterday`)).toContain('querystring.from');
    expect(await field(`?workspace_id=${workspaceId}&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`)).toEqual(['querystring.to']);
    // One bucket over the limit: named, with how to fix it.
    const tooLong = await h.api('GET', `/api/office/stats?workspace_id=${workspaceId}&bucket=minute&from=2026-01-01T00:00:00Z&to=${new Date(Date.UTC(2026, 0, 1) + (MAX_BUCKETS + 1) * MINUTE).toISOString()}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details[0].path).toBe('querystring.from');
    expect(tooLong.body.error.message).toMatch(/1441 minute buckets, over the limit of 1440/);
    const atLimit = await h.api('GET', `/api/office/stats?workspace_id=${workspaceId}&bucket=minute&from=2026-01-01T00:00:00Z&to=${new Date(Date.UTC(2026, 0, 1) + MAX_BUCKETS * MINUTE).toISOString()}`);
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.wakeups).toHaveLength(MAX_BUCKETS);

    expect((await h.api('GET', `/api/office/stats/timeline?workspace_id=${workspaceId}&from=2025-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`)).body.error.details[0].path).toBe('querystring.from');
    expect((await h.api('GET', '/api/office/stats?workspace_id=ws_nope')).status).toBe(404);
    expect((await h.api('GET', `/api/office/stats/timeline?workspace_id=${workspaceId}&agent_id=agt_nope`)).status).toBe(404);
  });

  // Last: its runs add to the workspace's numbers.
  it('lets a run token read its own workspace\'s stats but not the timeline, whose bars are other agents\' runs', async () => {
    const callAs = async (path: string) => {
      const caller = (await h.api('POST', '/api/office/agents', {
        workspace_id: workspaceId, name: `Caller ${path.length}`, role: 'worker', cooldown_sec: 0,
        executor: fixtureAgent('api-call.mjs', { FIXTURE_METHOD: 'GET', FIXTURE_PATH: path }),
      })).body.id;
      await wakeAndSettle(caller, 1);
      const [run] = (await h.api('GET', `/api/office/runs?agent_id=${caller}`)).body;
      return run.result_json as { status: number; body: any };
    };
    const stats = await callAs(`/api/office/stats?workspace_id=${workspaceId}`);
    expect(stats.status).toBe(200);
    expect(stats.body.workspace_id).toBe(workspaceId);
    const timeline = await callAs(`/api/office/stats/timeline?workspace_id=${workspaceId}`);
    expect(timeline.status).toBe(403);
  });
});
