/**
 * Retention against the real server: a pass prunes the history older than OFFICE_RETENTION_DAYS, and
 * budgets' spend and the stats answer the same after it as before, because they read the cost ledger
 * and the wakeup outcome counters, not the pruned rows. Time is the injected clock: the pass runs
 * when it is moved past the retention window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { RETENTION_FIRST_PASS_MS } from '../../src/services/retention.js';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, waitForWakeupEnd } = apiClient(() => h);

describe('retention', () => {
  it('prunes the runs and wakeups older than the setting, and leaves budgets\' spend and the stats as they were', async () => {
    const clock = new SimulatedClock();
    const t0 = Math.floor(Date.now() / HOUR) * HOUR;
    clock.set(t0);
    h = await startHarness({ OFFICE_RETENTION_DAYS: '30', OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Spender', executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '0.25' }) });
    await call('POST', '/api/office/budgets', { scope: 'workspace', scope_id: workspaceId, limit_usd: 100, period: 'total', action_on_exceed: 'warn' }, 201);
    await call('POST', '/api/office/budgets', { scope: 'agent', scope_id: agentId, limit_usd: 100, period: 'total', action_on_exceed: 'warn' }, 201);

    const runIds: string[] = [];
    for (const reason of ['first', 'second', 'third']) {
      const wake = await call('POST', `/api/office/agents/${agentId}/wake`, { reason }, 202);
      const ended = await waitForWakeupEnd(wake.wakeup.id);
      expect(ended.status).toBe('finished');
      runIds.push(ended.run_id);
    }
    const from = new Date(t0 - HOUR).toISOString();
    const to = new Date(t0 + 2 * HOUR).toISOString();
    const answers = async () => ({
      spent: (await get(`/api/office/budgets?workspace_id=${workspaceId}`)).map((b: { scope: string; spent_usd: number }) => [b.scope, b.spent_usd]),
      stats: await get(`/api/office/stats?workspace_id=${workspaceId}&bucket=hour&from=${from}&to=${to}`),
      agentStats: await get(`/api/office/stats?workspace_id=${workspaceId}&agent_id=${agentId}&bucket=minute&from=${from}&to=${to}`),
    });
    const before = await answers();
    expect(before.spent).toEqual([['workspace', 0.75], ['agent', 0.75]]);
    expect(JSON.stringify(before.stats)).toContain('"finished":3');
    expect(await get(`/api/office/runs/${runIds[0]}`)).toMatchObject({ id: runIds[0] });

    // Past the window and the first pass's delay: the timer fires the pass.
    clock.set(t0 + 31 * DAY + RETENTION_FIRST_PASS_MS);
    const pruned = await h.scheduler.retention.current();
    expect(pruned).toMatchObject({ runs: 3, agent_wakeup_requests: 3 });
    expect(await h.inspect.count('runs', { agent_id: agentId })).toBe(0);
    await call('GET', `/api/office/runs/${runIds[0]}`, undefined, 404);

    expect(await answers()).toEqual(before);
    const metrics = (await h.api('GET', '/metrics')).body as string;
    expect(metrics).toContain('office_retention_pruned_total{table="runs"} 3');
    expect(metrics).toContain('office_retention_pruned_total{table="agent_wakeup_requests"} 3');
  });

  it('keeps everything with OFFICE_RETENTION_DAYS=0', async () => {
    const clock = new SimulatedClock();
    clock.set(Date.now());
    h = await startHarness({ OFFICE_RETENTION_DAYS: '0', OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, clock);
    const { agentId } = await seedAgent(h, { name: 'Keeper', executor: fixtureAgent('succeed.mjs') });
    const wake = await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'once' }, 202);
    await waitForWakeupEnd(wake.wakeup.id);
    clock.set(clock.now() + 10_000 * DAY);
    expect(h.scheduler.retention.current()).toBeNull();
    expect(await h.inspect.count('runs', { agent_id: agentId })).toBe(1);
  });
});
