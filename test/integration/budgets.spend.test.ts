/** The budget list says what each budget's scope spent in its current period (the Settings page draws it). */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, waitForWakeupEnd } = apiClient(() => h);

describe('budget spend', () => {
  it('lists each budget with the cost its scope reported in the current period, and when that period began', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Spender', executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '0.6' }) });
    await call('POST', '/api/office/budgets', { scope: 'agent', scope_id: agentId, limit_usd: 2, period: 'daily', action_on_exceed: 'warn', alert_threshold_pct: 80 }, 201);
    await call('POST', '/api/office/budgets', { scope: 'workspace', scope_id: workspaceId, limit_usd: 10, period: 'total', action_on_exceed: 'warn' }, 201);
    const before = await get(`/api/office/budgets?workspace_id=${workspaceId}`);
    expect(before.map((b: { spent_usd: number }) => b.spent_usd)).toEqual([0, 0]);

    for (const reason of ['first', 'second']) {
      const wake = await call('POST', `/api/office/agents/${agentId}/wake`, { reason }, 202);
      expect((await waitForWakeupEnd(wake.wakeup.id)).status).toBe('finished');
    }

    const budgets = await get(`/api/office/budgets?workspace_id=${workspaceId}`);
    const daily = budgets.find((b: { scope: string }) => b.scope === 'agent');
    const total = budgets.find((b: { scope: string }) => b.scope === 'workspace');
    expect(daily.spent_usd).toBeCloseTo(1.2, 6);
    expect(daily.period_started_at).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(total.spent_usd).toBeCloseTo(1.2, 6);
    expect(total.period_started_at).toBeNull();
  });
});
