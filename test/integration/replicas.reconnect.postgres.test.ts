/**
 * What a replica missed while its listening connection was down (README, "Signals, not polling"):
 * the NOTIFYs sent meanwhile are lost, so after it listens again it reads from the rows what they
 * would have said. Two replicas in this process on one database, each with its own injected clock:
 * the listener's reconnect waits on that clock, so the test decides how long the connection stays
 * down, and the cron ticks come only when the test moves time.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { signalsApplicationName, RELAY_CHANNEL } from '../../src/persistence/postgres/notify.js';
import { waitFor } from '../helpers/harness.js';
import { advance, createAgent, holderAndOther, replicasPerTest, seedWorkspace, type InProcessReplica } from '../helpers/replicas.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
/** A step of the listener's clock: past its first reconnect delays (100 ms, then 250 ms, ± a fifth). */
const RECONNECT_STEP_MS = 400;

const cluster = replicasPerTest();
const quick = () => ({ ok: true });

function startReplica(id: string): Promise<InProcessReplica> {
  return cluster.start(id, { at: T0, functions: new Map([['quick', quick]]) });
}

/**
 * The test's view of the replicas' signals: which replica listens on which backend, and the routine
 * changes they relay (the test LISTENs too; it never sends, so no replica counts it).
 */
async function watchSignals(databaseUrl: string) {
  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  const relayed: string[] = [];
  sql.on('notification', (notification) => { relayed.push(notification.payload ?? ''); });
  await sql.query(`LISTEN ${RELAY_CHANNEL}`);
  const listenerPid = async (replica: InProcessReplica) => (await sql.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [signalsApplicationName(replica.id)])).rows[0]?.pid;
  return {
    close: () => sql.end(),
    /**
     * Drops `replica`'s listening connection, runs `change` through another replica, waits until that
     * replica has relayed the routine change (to nobody listening on `replica`'s side), then moves
     * `replica`'s clock until its listener has reconnected.
     */
    async whileNotListening(replica: InProcessReplica, change: () => Promise<string>): Promise<void> {
      const before = await waitFor(() => listenerPid(replica), `${replica.id}'s listening connection`);
      await sql.query('SELECT pg_terminate_backend($1)', [before]);
      await waitFor(async () => (await listenerPid(replica)) === undefined, `${replica.id}'s listening connection to be gone`);
      const routineId = await change();
      await waitFor(() => relayed.some((payload) => payload.includes(`"kind":"routine_changed","routine_id":"${routineId}"`)),
        'the routine change relayed by the other replica');
      await waitFor(async () => {
        replica.clock.increment(RECONNECT_STEP_MS);
        const pid = await listenerPid(replica);
        return pid !== undefined && pid !== before;
      }, `${replica.id} listening again on a new connection`);
    },
  };
}

describe('a replica whose listening connection was down', () => {
  it('runs the cron of a routine created through another replica for an agent it holds while it was not listening, once it listens again', async () => {
    const r1 = await startReplica('r1');
    const r2 = await startReplica('r2');
    const ws = await seedWorkspace(r1);
    const agent = await createAgent(r1, ws);
    const { owner, elsewhere } = await holderAndOther(r1, r2, agent);
    const signals = await watchSignals(cluster.databaseUrl);
    try {
      let routineId = '';
      await signals.whileNotListening(owner, async () => {
        const routine = await elsewhere.api('POST', '/api/office/routines', {
          workspace_id: ws, name: 'Every minute', assignee_agent_instance_id: agent, concurrency_policy: 'always_enqueue',
          triggers: [{ kind: 'schedule', cron_expression: '* * * * *' }],
        });
        expect(routine.status).toBe(201);
        expect(owner.scheduler.triggers.size).toBe(0);
        routineId = routine.body.id;
        return routineId;
      });
      await waitFor(() => owner.scheduler.triggers.size === 1, 'the trigger actor to start on the holder after the reconnect');
      expect(elsewhere.scheduler.triggers.size).toBe(0);

      await advance([r1, r2], 60_000);
      const [fired] = await waitFor(async () => {
        const runs = await owner.scheduler.store.query((tx) => tx.routines.runsOf(routineId, 10));
        return runs.length === 1 ? runs : null;
      }, 'the first cron fire');
      expect(fired!.scheduled_for! % 60_000).toBe(0);
    } finally {
      await signals.close();
    }
  });

  it('stops the trigger actor of a routine paused through another replica while it was not listening, once it listens again', async () => {
    const r1 = await startReplica('r1');
    const r2 = await startReplica('r2');
    const ws = await seedWorkspace(r1);
    const agent = await createAgent(r1, ws);
    const { owner, elsewhere } = await holderAndOther(r1, r2, agent);
    const routine = await elsewhere.api('POST', '/api/office/routines', {
      workspace_id: ws, name: 'Every minute', assignee_agent_instance_id: agent, concurrency_policy: 'always_enqueue',
      triggers: [{ kind: 'schedule', cron_expression: '* * * * *' }],
    });
    await waitFor(() => owner.scheduler.triggers.size === 1, 'the trigger actor to start on the holder');
    const signals = await watchSignals(cluster.databaseUrl);
    try {
      await signals.whileNotListening(owner, async () => {
        expect((await elsewhere.api('PATCH', `/api/office/routines/${routine.body.id}`, { status: 'paused' })).status).toBe(200);
        return routine.body.id;
      });
      await waitFor(() => owner.scheduler.triggers.size === 0, 'the trigger actor to stop on the holder after the reconnect');
    } finally {
      await signals.close();
    }
  });
});
