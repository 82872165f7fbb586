/**
 * Retention with several replicas on PostgreSQL: each replica's timer fires its pass, and one of
 * them prunes while the other finds the pass already taken.
 */
import { describe, expect, it } from 'vitest';
import { RETENTION_FIRST_PASS_MS } from '../../src/services/retention.js';
import { advance, createAgent, replicasPerTest, seedWorkspace } from '../helpers/replicas.js';
import { wakeupRow } from '../store/rows.js';

const DAY = 86_400_000;
const replicas = replicasPerTest();

describe('retention on several replicas', () => {
  it('one replica prunes each pass', async () => {
    const t0 = Date.UTC(2026, 2, 2, 9);
    const env = { OFFICE_RETENTION_DAYS: '30' };
    const r1 = await replicas.start('office-1', { at: t0, env });
    const r2 = await replicas.start('office-2', { at: t0, env });
    const workspaceId = await seedWorkspace(r1);
    const agentId = await createAgent(r1, workspaceId);
    const agent = { id: agentId, workspace_id: workspaceId };
    const old = [0, 1, 2].map((i) => wakeupRow(agent, t0 - 40 * DAY, { status: 'finished', finished_at: t0 - 40 * DAY + i }));
    const recent = wakeupRow(agent, t0 - DAY, { status: 'finished', finished_at: t0 - DAY });
    await r1.scheduler.store.transaction(async (tx) => {
      for (const w of [...old, recent]) await tx.wakeups.insert(w);
    });

    await advance([r1, r2], RETENTION_FIRST_PASS_MS);
    for (const r of [r1, r2]) await r.scheduler.retention.current();

    const pruned = [r1, r2].map((r) => r.scheduler.retention.prunedTotals().agent_wakeup_requests).sort();
    expect(pruned).toEqual([0, 3]);
    // Within the interval no replica starts another pass.
    expect(await Promise.all([r1, r2].map((r) => r.scheduler.retention.pass()))).toEqual([null, null]);
    const kept = await r2.scheduler.store.read(async (tx) => Promise.all([...old, recent].map(async (w) => (await tx.wakeups.get(w.id))?.id)));
    expect(kept).toEqual([undefined, undefined, undefined, recent.id]);
  });
});
