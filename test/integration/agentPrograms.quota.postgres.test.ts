/**
 * A shared quota lives in the database (API.md, "A quota is shared by everyone who uses it"): a
 * limit that one replica's session hit holds an agent another replica runs. Two replicas in this
 * process on one PostgreSQL, real child processes replaying Claude Code.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { programExecutor } from '../helpers/agentPrograms.js';
import { waitFor } from '../helpers/harness.js';
import { replicasPerTest } from '../helpers/replicas.js';

const cluster = replicasPerTest();

describe('a shared quota across replicas', () => {
  it('GIVEN two claude_code agents on one credential held by two replicas WHEN one session hits its limit THEN the other replica holds its agent until the reset, with no session launched and no retry spent', async () => {
    const at = Date.now();
    const [a, b] = [await cluster.start('replica-a', { at }), await cluster.start('replica-b', { at })];
    const record = mkdtempSync(join(tmpdir(), 'office-quota-pg-'));
    const ws = (await a!.api('POST', '/api/office/workspaces', { name: 'Acme' })).body.id;
    // A replica takes an agent in the transaction that creates it, and the clocks stand still: no hand-over moves them.
    const agentOn = async (replica: typeof a, name: string) => (await replica!.api('POST', '/api/office/agents', {
      workspace_id: ws, name, role: 'worker', cooldown_sec: 0, executor: programExecutor('claude_code', { record, scenario: 'rate_limit_event_rejected' }),
    })).body.id as string;
    const limited = await agentOn(a, 'Limited');
    const held = await agentOn(b, 'Held');
    expect(a!.scheduler.supervisor.view(limited)).not.toBeNull();
    expect(b!.scheduler.supervisor.view(held)).not.toBeNull();

    await a!.api('POST', `/api/office/agents/${limited}/wake`, { reason: 'hit the limit' });
    await waitFor(async () => ((await a!.api('GET', `/api/office/wakeups?agent_id=${limited}`)).body as any[])[0]?.status === 'scheduled_retry', 'the limited wakeup to wait');
    const woke = await a!.api('POST', `/api/office/agents/${held}/wake`, { reason: 'work' });
    const hold = await waitFor(async () => {
      const w = (await b!.api('GET', `/api/office/wakeups/${woke.body.wakeup.id}`)).body;
      return w.activity?.some((e: any) => e.code === 'wakeup_held_by_quota') ? w : null;
    }, 'the other replica to hold its agent');
    expect(hold).toMatchObject({ status: 'queued', retry_count: 0 });
    expect((await b!.api('GET', `/api/office/runs?agent_id=${held}`)).body).toEqual([]);
    const [quota] = (await b!.api('GET', '/api/office/quotas')).body;
    expect(quota.key).toBe('claude_code:default');
  }, 60_000);
});
