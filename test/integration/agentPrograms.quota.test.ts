/**
 * A quota is shared by everyone who uses it (API.md, "Agent CLIs"): one Claude Code session's limit
 * holds every agent whose executor has the same quota key, with no retry spent and no session
 * launched, until the reset; then they start spread out, not all at once. An agent on another
 * credential is not held. Real SQLite, real HTTP, real child processes; time on an injected clock.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { SimulatedClock } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import { programExecutor } from '../helpers/agentPrograms.js';
import { apiClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, listRuns, listWakeups, listActivity, createWorkspace, createAgent, waitForRun } = apiClient(() => h);

const BUFFER_SEC = 1;
const SPREAD_SEC = 30;
/** rate_limit_event_rejected's resetsAt: three hours after the replayer ran. */
const RESET_IN_MS = 10_800_000;

describe('a shared quota', () => {
  it('GIVEN two claude_code agents on one credential WHEN one session hits its limit THEN the other is held in its queue with no retry spent until the reset, then both start spread out; an agent on another credential runs meanwhile', async () => {
    const clock = new SimulatedClock();
    clock.set(Date.now());
    h = await startHarness({ OFFICE_RATE_LIMIT_BUFFER_SEC: String(BUFFER_SEC), OFFICE_QUOTA_RELEASE_SPREAD_SEC: String(SPREAD_SEC) }, undefined, clock);
    const record = mkdtempSync(join(h.dir, 'record-'));
    const ws = await createWorkspace();
    const first = await createAgent(ws, { name: 'First', executor: programExecutor('claude_code', {
      record, scenarios: ['rate_limit_event_rejected', 'success'], counter: join(h.dir, 'first.count'),
    }) });
    const second = await createAgent(ws, { name: 'Second', executor: programExecutor('claude_code', { record }) });
    const other = await createAgent(ws, { name: 'Other account', executor: programExecutor('claude_code', { record, executor: { env: { CLAUDE_CODE_OAUTH_TOKEN: 'another-subscription' } } }) });

    await call('POST', `/api/office/agents/${first}/wake`, { reason: 'hit the limit' }, 202);
    const retry = await h.waitFor(async () => {
      const [w] = await listWakeups({ agent_id: first });
      return w?.status === 'scheduled_retry' ? w : undefined;
    }, 'the limited wakeup to wait for its retry');
    const [failed] = await listRuns({ agent_id: first });
    const reset = Date.parse(retry.scheduled_retry_at) - BUFFER_SEC * 1000;
    expect(Math.abs(reset - (Date.parse(failed.finished_at) + RESET_IN_MS))).toBeLessThan(5_000);

    const [quota] = await get('/api/office/quotas');
    expect(quota).toMatchObject({ key: 'claude_code:default', kind: 'claude_code', exhausted_until: new Date(reset).toISOString(), reason: expect.stringContaining("You've hit your 5-hour limit") });
    expect([...quota.agents].sort()).toEqual([first, second].sort());

    // The second agent's wakeup is held: still queued, no retry spent, no session launched.
    const { wakeup: held } = await call('POST', `/api/office/agents/${second}/wake`, { reason: 'work' }, 202);
    const [hold] = await h.waitFor(async () => {
      const entries = (await listActivity({ workspace_id: ws, code: 'wakeup_held_by_quota' })).filter((a) => a.wakeup_id === held.id);
      return entries.length > 0 ? entries : null;
    }, 'the second agent to be held by the quota');
    const secondStartsAt = reset + BUFFER_SEC * 1000 + (SPREAD_SEC * 1000) / 2;
    expect(hold.details).toMatchObject({ quota_key: 'claude_code:default', slot: 1, starts_at: new Date(secondStartsAt).toISOString() });
    const waiting = await get(`/api/office/wakeups/${held.id}`);
    expect(waiting).toMatchObject({ status: 'queued', retry_count: 0 });
    expect(waiting.explain).toBe(`queued: waiting for the claude_code quota to reset at ${new Date(reset).toISOString()}; starts at ${new Date(secondStartsAt).toISOString()}`);
    expect(await listRuns({ agent_id: second })).toEqual([]);
    expect((await get(`/api/office/agents/${second}`)).actor.quota_held_until).toBe(new Date(secondStartsAt).toISOString());

    // Nothing stops silently: one inbox item for the exhaustion, however many agents it holds.
    const announced = (await get(`/api/office/inbox?workspace_id=${ws}&status=open`)).filter((i: any) => i.kind === 'quota.exhausted');
    expect(announced).toEqual([expect.objectContaining({ ref_id: 'claude_code:default', title: `The Claude Code quota is exhausted until ${new Date(reset).toISOString()}` })]);

    // Another subscription is another quota.
    await call('POST', `/api/office/agents/${other}/wake`, { reason: 'work' }, 202);
    await waitForRun({ agent_id: other }, 'succeeded', 'the agent on another credential');

    // At the reset (and its buffer) the limited agent retries first; the held one follows its share of the spread later.
    clock.increment(reset + BUFFER_SEC * 1000 - clock.now() + 100);
    const retried = await waitForRun({ agent_id: first, wakeup_id: retry.id }, 'succeeded', 'the retry after the reset');
    expect(await listRuns({ agent_id: second })).toEqual([]);
    clock.increment(secondStartsAt - clock.now());
    const released = await waitForRun({ agent_id: second }, 'succeeded', 'the held agent after its share of the spread');
    expect(Date.parse(released.started_at) - Date.parse(retried.started_at)).toBeGreaterThanOrEqual((SPREAD_SEC * 1000) / 2 - 200);
    expect((await get(`/api/office/wakeups/${held.id}`)).retry_count).toBe(0);
    expect(await get('/api/office/quotas')).toEqual([]);
  });
});
