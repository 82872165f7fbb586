/**
 * Failover between replica processes (API.md, "Several replicas on PostgreSQL"): two real servers
 * (the compiled dist/main.js) on one PostgreSQL database with a short lease, a real agent process running on
 * one of them, and a SIGKILL of that replica. Its agent's actor must run on the survivor within
 * OFFICE_LEASE_SEC + 5 s, its run end `interrupted` and be retried there, and nothing run twice.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../crash/harness.js';
import { FIXTURES, request, waitFor } from '../helpers/harness.js';
import { killServer, pidsWhere } from '../helpers/processes.js';
import { freshDatabase } from '../store/postgresFactory.js';

const LEASE_SEC = 2;

type Server = Awaited<ReturnType<typeof startServer>>;
const servers: Server[] = [];
let database: Awaited<ReturnType<typeof freshDatabase>> | null = null;
let dir: string | null = null;
let token: string | null = null;

afterEach(async () => {
  for (const server of servers.splice(0)) await killServer(server);
  if (token) for (const pid of pidsWhere((argv) => argv.includes(`--test-token=${token}`))) process.kill(pid, 'SIGKILL');
  token = null;
  await database?.drop();
  database = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

async function boot(env: Record<string, string>): Promise<Server> {
  const server = await startServer(env);
  servers.push(server);
  await waitFor(async () => (await fetch(`${server.url}/readyz`).catch(() => null))?.status === 200, '/readyz');
  return server;
}

describe('hand-over between replica processes', () => {
  it('GIVEN agents on a replica WHEN it gets SIGTERM THEN the survivor runs them at its next heartbeat, long before their lease could expire, and the leaving replica is no longer listed', async () => {
    database = await freshDatabase();
    // The leaving replica's last heartbeat is at most a third of a lease before the signal, so its
    // leases cannot expire within two thirds of a lease after it: only a hand-over moves the agents sooner.
    const lease = 24;
    const env = {
      OFFICE_DATABASE_URL: database.url, OFFICE_LEASE_SEC: String(lease), OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'warn', OFFICE_RECOVERY_SWEEP_SEC: '0',
    };
    const leaving = await boot({ ...env, OFFICE_REPLICA_ID: 'leaving' });
    const api = (server: Server, method: string, path: string, body?: unknown) => request(server.url, method, path, body);
    const ws = await api(leaving, 'POST', '/api/office/workspaces', { name: 'Acme' });
    const agents: string[] = [];
    for (let i = 0; i < 3; i++) {
      const agent = await api(leaving, 'POST', '/api/office/agents', {
        workspace_id: ws.body.id, name: `Worker ${i}`, role: 'worker', cooldown_sec: 0, executor: { kind: 'command', command: process.execPath, args: [join(FIXTURES, 'succeed.mjs')] },
      });
      agents.push(agent.body.id);
    }
    // One heartbeat of the survivor is a third of the lease: the agents are settled on the leaving replica first.
    const survivor = await boot({ ...env, OFFICE_REPLICA_ID: 'survivor' });
    const replicaOf = async (agentId: string) => (await api(survivor, 'GET', `/api/office/agents/${agentId}`)).body.actor?.replica;

    leaving.proc.kill('SIGTERM');
    const signalledAt = Date.now();
    expect((await leaving.exited).code).toBe(0);
    await waitFor(async () => (await Promise.all(agents.map(replicaOf))).every((replica) => replica === 'survivor'),
      'the survivor to run every agent', (lease / 3 + 6) * 1000);
    expect(Date.now() - signalledAt).toBeLessThan((lease * 2) / 3 * 1000);
    expect((await api(survivor, 'GET', '/api/office/replicas')).body.map((r: any) => [r.id, r.agents_owned])).toEqual([['survivor', 3]]);
    const woke = await api(survivor, 'POST', `/api/office/agents/${agents[0]}/wake`, { reason: 'after the hand-over' });
    await waitFor(async () => (await api(survivor, 'GET', `/api/office/wakeups/${woke.body.wakeup.id}`)).body.status === 'finished', 'a wakeup to run on the survivor');
  });
});

describe.runIf(process.platform === 'linux')('failover between replica processes', () => {
  it('GIVEN a replica running an agent session WHEN it is SIGKILLed THEN the survivor runs the agent within OFFICE_LEASE_SEC + 5 s, the run ends interrupted and is retried there once, and only live replicas are listed', async () => {
    database = await freshDatabase();
    dir = mkdtempSync(join(tmpdir(), 'office-failover-'));
    token = randomUUID();
    const env = {
      OFFICE_DATABASE_URL: database.url, OFFICE_LEASE_SEC: String(LEASE_SEC), OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'warn',
      OFFICE_BACKOFF: '200ms', OFFICE_BACKOFF_JITTER: '0', OFFICE_RECOVERY_SWEEP_SEC: '0', OFFICE_SHUTDOWN_GRACE_MS: '1000',
    };
    // The agent's sleep comes from its server's environment: long on the replica that dies, short on the survivor.
    const doomed = await boot({ ...env, OFFICE_REPLICA_ID: 'doomed', FIXTURE_SLEEP_MS: '60000' });
    const api = (server: Server, method: string, path: string, body?: unknown) => request(server.url, method, path, body);
    const ws = await api(doomed, 'POST', '/api/office/workspaces', { name: 'Acme' });
    const agent = await api(doomed, 'POST', '/api/office/agents', {
      workspace_id: ws.body.id, name: 'Worker', role: 'worker', cooldown_sec: 0,
      executor: { kind: 'command', command: process.execPath, args: [join(FIXTURES, 'sleep.mjs'), `--test-token=${token}`] },
    });
    expect(agent.status).toBe(201);
    const agentId = agent.body.id as string;
    const woke = await api(doomed, 'POST', `/api/office/agents/${agentId}/wake`, { reason: 'long job' });
    const wakeupId = woke.body.wakeup.id as string;
    const [firstRun] = await waitFor(async () => {
      const runs = (await api(doomed, 'GET', `/api/office/runs?wakeup_id=${wakeupId}`)).body;
      return runs.length === 1 && runs[0].status === 'running' ? runs : null;
    }, 'the session to start on the doomed replica');

    const survivor = await boot({ ...env, OFFICE_REPLICA_ID: 'survivor', FIXTURE_SLEEP_MS: '100' });
    // A replica running a session of the agent keeps it, whatever rendezvous hashing says.
    expect((await api(survivor, 'GET', `/api/office/agents/${agentId}`)).body.actor).toMatchObject({ replica: 'doomed', running: 1 });
    expect((await api(survivor, 'GET', '/api/office/replicas')).body.map((r: any) => r.id)).toEqual(['doomed', 'survivor']);

    doomed.proc.kill('SIGKILL');
    const killedAt = Date.now();
    await doomed.exited;
    await waitFor(async () => (await api(survivor, 'GET', `/api/office/agents/${agentId}`)).body.actor?.replica === 'survivor',
      'the agent to run on the survivor', (LEASE_SEC + 5) * 1000);
    expect(Date.now() - killedAt).toBeLessThan((LEASE_SEC + 5) * 1000);
    expect((await api(survivor, 'GET', '/api/office/replicas')).body.map((r: any) => r.id)).toEqual(['survivor']);

    const wakeup = await waitFor(async () => {
      const w = (await api(survivor, 'GET', `/api/office/wakeups/${wakeupId}`)).body;
      return w.status === 'finished' ? w : null;
    }, 'the retry to finish on the survivor');
    expect(wakeup.retry_count).toBe(1);
    const runs = (await api(survivor, 'GET', `/api/office/runs?wakeup_id=${wakeupId}`)).body;
    expect(runs.map((r: any) => [r.id === firstRun.id ? 'first' : 'retry', r.status]).sort()).toEqual([['first', 'interrupted'], ['retry', 'succeeded']]);
  });
});
