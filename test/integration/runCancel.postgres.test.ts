/**
 * Stopping a run through a replica that does not run its session (API.md, "Several replicas on
 * PostgreSQL" and "Governance"): the cancel commits there, and the stop reaches the replica holding
 * the agent, whose session's process group is killed. Two replicas in this process on one database,
 * each with its own HTTP server and a clock that stands still (no lease changes hands meanwhile).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fixtureAgent, waitFor } from '../helpers/harness.js';
import { pidsWhere } from '../helpers/processes.js';
import { replicasPerTest, type InProcessReplica } from '../helpers/replicas.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const GRACE_MS = 1_000;

type Replica = InProcessReplica;

const cluster = replicasPerTest();

function startReplica(id: string): Promise<Replica> {
  return cluster.start(id, { at: T0, env: { OFFICE_SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
}

/** Two replicas, and a run whose session (a stubborn process, marked) runs on one of them. */
async function sessionOnOneOfTwo(termDelayMs: string) {
  const a = await startReplica('replica-a');
  const replicas = [a, await startReplica('replica-b')];
  const marker = `office-cancel-pg-${randomUUID()}`;
  const executor = fixtureAgent('stubborn.mjs', { FIXTURE_SLEEP_MS: '3600000', FIXTURE_TERM_DELAY_MS: termDelayMs });
  const workspaceId = (await a.api('POST', '/api/office/workspaces', { name: 'Acme' })).body.id;
  const agent = await a.api('POST', '/api/office/agents', {
    workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0,
    executor: { ...executor, args: [...(executor as { args: string[] }).args, marker] },
  });
  expect(agent.status).toBe(201);
  const woke = await a.api('POST', `/api/office/agents/${agent.body.id}/wake`, { reason: 'long job' });
  expect(woke.status).toBe(202);
  await waitFor(() => pidsWhere((argv) => argv.includes(marker)).length === 1, 'the session to start');
  const run = await waitFor(async () => {
    const [r] = (await a.api('GET', `/api/office/runs?wakeup_id=${woke.body.wakeup.id}`)).body;
    return r?.status === 'running' ? r : null;
  }, 'the run to be running');
  const holder = replicas.find((r) => r.scheduler.supervisor.view(agent.body.id) !== null)!;
  return { replicas, a, marker, workspaceId, agentId: agent.body.id as string, run, holder, elsewhere: replicas.find((r) => r !== holder)! };
}

describe.runIf(process.platform === 'linux')('cancelling a run across replicas', () => {
  it("a cancel through the replica that does not hold the agent stops the session on the one that does: its process group is killed within OFFICE_SHUTDOWN_GRACE_MS, and the run and its wakeup end cancelled", async () => {
    const { replicas, a, marker, workspaceId, run, holder, elsewhere } = await sessionOnOneOfTwo('30000');
    expect(replicas.map((r) => r.id)).toContain(holder.id);

    const cancelledAt = Date.now();
    const answer = await elsewhere.api('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'stop it' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: run.id, status: 'cancelled' });

    // The session ignores SIGTERM: only its holder's SIGKILL of the group, after the grace period, ends it.
    await waitFor(() => pidsWhere((argv) => argv.includes(marker)).length === 0, 'the session to be killed by its replica', GRACE_MS + 5_000);
    expect(Date.now() - cancelledAt).toBeLessThan(GRACE_MS + 3_000);
    const wakeup = (await a.api('GET', `/api/office/wakeups/${run.wakeup_id}`)).body;
    expect(wakeup).toMatchObject({ status: 'cancelled', cancel_reason: 'run_cancelled', retry_count: 0 });
    await waitFor(async () => (await a.api('GET', `/api/office/activity?workspace_id=${workspaceId}&code=run_result_after_cancel`)).body.length === 1,
      "the session's late result to be refused");
    expect((await elsewhere.api('GET', `/api/office/runs/${run.id}`)).body.status).toBe('cancelled');
  }, 60_000);

  it('a cancel whose signal the holder never heard (a dropped relay) still stops the session: the cancel is the run\'s row, which the holder reads after its next heartbeat', async () => {
    const { marker, agentId: agent, run, holder, elsewhere } = await sessionOnOneOfTwo('100');
    // The cancel as the other replica commits it, without the relayed stop: as if its NOTIFY was lost.
    await elsewhere.scheduler.store.transaction(async (tx) => {
      const lease = (await tx.leases.leaseOf(agent))!;
      await tx.runs.close(run.id, { status: 'cancelled', result_json: {}, error: 'cancelled by token admin', cost_usd: null, finished_at: T0 }, null, lease);
    });
    expect(pidsWhere((argv) => argv.includes(marker))).toHaveLength(1);
    holder.clock.increment(5_000);
    await waitFor(() => pidsWhere((argv) => argv.includes(marker)).length === 0, 'the holder to stop the session after its heartbeat', GRACE_MS + 5_000);
  }, 60_000);
});
