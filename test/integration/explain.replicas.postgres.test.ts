/**
 * "Why didn't my agent wake?" asked of any replica (API.md: every replica serves the whole API): the
 * explain sentence of a queued wakeup whose agent another replica holds says what holds it there, as
 * the holder itself says it. Two replicas in this process on one database, with clocks that stand
 * still, so a cooldown lasts and no lease changes hands.
 */
import { describe, expect, it } from 'vitest';
import type { AgentFunction } from '../../src/executors/types.js';
import { waitFor } from '../helpers/harness.js';
import { createAgent, holderAndOther, replicasPerTest, seedWorkspace, type InProcessReplica } from '../helpers/replicas.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

const cluster = replicasPerTest();

/** Two replicas with no coalescing window, so that a wake is claimable at once. */
async function twoReplicas(functions: Map<string, AgentFunction>) {
  const env = { OFFICE_COALESCE_WINDOW_MS: '0' };
  return [await cluster.start('r1', { at: T0, functions, env }), await cluster.start('r2', { at: T0, functions, env })] as const;
}

async function wake(through: InProcessReplica, agentId: string, reason: string): Promise<string> {
  const woke = await through.api('POST', `/api/office/agents/${agentId}/wake`, { reason });
  expect(woke.status).toBe(202);
  return woke.body.wakeup.id;
}

async function explainOf(through: InProcessReplica, wakeupId: string): Promise<string> {
  return (await through.api('GET', `/api/office/wakeups/${wakeupId}`)).body.explain;
}

describe('the explain of a wakeup whose agent another replica holds', () => {
  it('says the agent is cooling down, through either replica, while its holder cools it down', async () => {
    const [r1, r2] = await twoReplicas(new Map([['quick', () => ({ ok: true })]]));
    const ws = await seedWorkspace(r1);
    const agent = await createAgent(r1, ws, { cooldown_sec: 600 });
    const { owner, elsewhere } = await holderAndOther(r1, r2, agent);
    const first = await wake(owner, agent, 'first');
    await waitFor(async () => (await owner.api('GET', `/api/office/wakeups/${first}`)).body.status === 'finished', 'the first wakeup to run');

    const second = await wake(elsewhere, agent, 'second');
    await waitFor(() => owner.scheduler.supervisor.view(agent)?.queued === 1, "the second wakeup in the holder's actor, cooling down");
    const there = await explainOf(owner, second);
    expect(there).toMatch(/^queued: cooling down until \d\d:\d\d:\d\d$/);
    expect(await explainOf(elsewhere, second)).toBe(there);
    expect((await elsewhere.api('GET', `/api/office/wakeups?agent_id=${agent}&status=queued`)).body.map((w: any) => w.explain)).toEqual([there]);
  });

  it('says the agent is at capacity, through either replica, while its holder runs as many sessions as it may', async () => {
    let endSession!: () => void;
    const sessionEnds = new Promise<void>((resolve) => { endSession = resolve; });
    const [r1, r2] = await twoReplicas(new Map<string, AgentFunction>([['quick', () => ({ ok: true })], ['long', async () => {
      await sessionEnds;
      return { ok: true };
    }]]));
    const ws = await seedWorkspace(r1);
    const agent = await createAgent(r1, ws, { executor: { kind: 'function', name: 'long' }, max_concurrent_sessions: 1 });
    const { owner, elsewhere } = await holderAndOther(r1, r2, agent);
    try {
      const first = await wake(owner, agent, 'long job');
      await waitFor(async () => (await owner.api('GET', `/api/office/runs?wakeup_id=${first}`)).body[0]?.status === 'running', 'the first session to run');

      const second = await wake(elsewhere, agent, 'meanwhile');
      await waitFor(() => owner.scheduler.supervisor.view(agent)?.queued === 1, "the second wakeup waiting in the holder's actor");
      const there = await explainOf(owner, second);
      expect(there).toMatch(/^queued: agent at capacity \(1\/1\) since \d\d:\d\d:\d\d$/);
      expect(await explainOf(elsewhere, second)).toBe(there);
    } finally {
      endSession();
    }
  });
});
