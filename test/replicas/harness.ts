/**
 * The chaos harness for replicas on PostgreSQL (issue 15; API.md, "Several replicas on PostgreSQL"):
 * 3 real servers (the compiled dist/main.js) on one database with a short OFFICE_LEASE_SEC,
 * real child-process agents (test/fixtures/sleep.mjs), cron routines firing every second, and user
 * wakes sent through every replica's HTTP API. Every few seconds a random replica is SIGKILLed and
 * a new one started in its place; the harness measures how long each of the victim's agents took to
 * run on another replica. Then the routines are paused, the work drains, and the invariants are
 * checked on the rows.
 *
 * Used by `npm run test:replicas` (test/replicas/run.ts: 5 minutes) and by the short version in
 * `npm test` (test/integration/chaos.postgres.test.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { liveSessionsOf } from '../fixtures/lib.mjs';
import { killServer, pidsWhere } from '../helpers/processes.js';
import { rendezvousOwner } from '../../src/actors/replicas.js';
import { startServer } from '../crash/harness.js';
import { prng, type Prng } from '../simulation/prng.js';
import { checkSessionsOfWakeups, checkRows, countRows, type RowCounts } from './invariants.js';

export interface ChaosOptions {
  /** A postgres:// URL of an empty database the replicas may migrate. */
  databaseUrl: string;
  /** How long replicas are killed and restarted while cron fires and wakes arrive. */
  chaosSec: number;
  replicas?: number;
  leaseSec?: number;
  /** The pause before each kill, drawn between these (ms); the next pause starts once the victim's agents run elsewhere. */
  killEveryMs?: [number, number];
  /**
   * When the victim's replacement starts: at once (default; a new replica joins while the victim's
   * leases run out), or once the victim's agents run elsewhere (the failover is then the survivors' alone).
   */
  replaceAfterFailover?: boolean;
  /**
   * Exactly this many kills, however long they take (the short test wants a few): on a loaded
   * machine a replacement's boot can take most of chaosSec, which would leave room for fewer.
   * Without it, kills go on until chaosSec is up.
   */
  kills?: number;
  seed?: number;
  drainTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface Failover {
  kill: number;
  agent: string;
  ms: number;
  /** The replica that runs the agent now; `replacement`: the one started in the victim's place. */
  to: string;
  replacement: boolean;
}

export interface ChaosReport {
  seed: number;
  violations: string[];
  kills: number;
  failovers: Failover[];
  wakesSent: { acknowledged: number; cutOff: number; refused: number };
  counts: RowCounts;
  drainMs: number;
  elapsedMs: number;
  /** Error lines the replicas logged (not violations by themselves: a killed replica's peers log its connection errors). */
  replicaErrors: string[];
  /** Deadlocks and failed heartbeats or rebalancing the replicas logged: how many of each kind, and the first in full. */
  lockTrouble: { kind: string; count: number; first: string }[];
  /** Gaps between consecutive heartbeats of replicas that were alive (ms). */
  heartbeatGaps: number[];
  /** Those longer than the lease: the replica's agents could be taken while it ran. */
  lateHeartbeats: { replica: string; ms: number }[];
}

interface Replica {
  slot: number;
  id: string;
  server: Awaited<ReturnType<typeof startServer>>;
}

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const AGENTS = 6;
/** Routines firing every second, each on its own agent. */
const CRON_ROUTINES = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something truthy; null at the deadline. */
async function until<T>(check: () => Promise<T | null | undefined | false>, deadlineMs: number, everyMs = 200): Promise<T | null> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) return null;
    await sleep(everyMs);
  }
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any } | null> {
  try {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return null; // The replica died with the request in flight: it may or may not have committed.
  }
}

async function must(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await call(url, method, path, body);
  if (!answer || answer.status >= 300) throw new Error(`${method} ${path} failed during setup: ${JSON.stringify(answer)}`);
  return answer.body;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => {});
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rand: Prng = prng(seed);
  const replicaCount = options.replicas ?? 3;
  const leaseSec = options.leaseSec ?? 3;
  const [pauseMin, pauseMax] = options.killEveryMs ?? [2_000, 5_000];
  const failoverBoundMs = (leaseSec + 5) * 1000;
  const began = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'office-chaos-'));
  const sessionDir = join(dir, 'sessions');
  const token = randomUUID();
  const env: Record<string, string> = {
    OFFICE_DATABASE_URL: options.databaseUrl,
    OFFICE_LEASE_SEC: String(leaseSec),
    OFFICE_PORT: '0',
    OFFICE_LOG_LEVEL: 'warn',
    OFFICE_COALESCE_WINDOW_MS: '200',
    OFFICE_BACKOFF: '200ms,400ms,600ms,800ms',
    OFFICE_BACKOFF_JITTER: '0.2',
    OFFICE_RECOVERY_SWEEP_SEC: '0',
    OFFICE_SHUTDOWN_GRACE_MS: '1000',
    OFFICE_LOOP_DETECTOR_RUNS: '0',
    FIXTURE_SESSION_DIR: sessionDir,
  };
  const violations: string[] = [];
  const replicas: (Replica | null)[] = Array.from({ length: replicaCount }, () => null);
  const sessionDeaths: Promise<string | null>[] = [];
  let generation = 0;
  const wakes = { acknowledged: [] as string[], cutOff: 0, refused: 0 };
  const failovers: Failover[] = [];
  let kills = 0;
  const heartbeatGaps: { replica: string; ms: number }[] = [];
  // Warnings the replicas log about deadlocks and failed heartbeats or rebalancing, counted by kind.
  const lockTrouble = new Map<string, { count: number; first: string }>();
  const watchForLockTrouble = (proc: ChildProcess, id: string) => {
    let partial = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const kind = /"msg":"([^"]*(heartbeat failed|rebalancing agents failed)[^"]*)"/.exec(line)?.[1]
          ?? (/deadlock detected/.test(line) ? `deadlock: ${/"msg":"([^"]{0,120})/.exec(line)?.[1] ?? line.slice(0, 120)}` : null);
        if (!kind) continue;
        const seen = lockTrouble.get(kind);
        if (seen) seen.count++;
        else lockTrouble.set(kind, { count: 1, first: `${id}: ${line.slice(0, 1500)}` });
      }
    });
  };
  /** The output of every replica that ended (its last 20 kB). */
  const outputs: string[] = [];
  let client: pg.Client | null = null;

  // A restarted replica is a new process under a new id, as a restarted container with the
  // default id (host name and pid) would be.
  const nextId = (slot: number) => `replica-${slot}.${++generation}`;
  const boot = async (slot: number, id = nextId(slot)): Promise<Replica> => {
    const server = await startServer({ ...env, OFFICE_REPLICA_ID: id, FIXTURE_GENERATION: id }, 60_000);
    watchForLockTrouble(server.proc, id);
    const replica = { slot, id, server };
    replicas[slot] = replica;
    return replica;
  };
  const live = () => replicas.filter((r): r is Replica => r !== null);
  const anyUrl = () => rand.pick(live()).server.url;
  const ready = (replica: Replica) => until(async () => (await fetch(`${replica.server.url}/readyz`)).status === 200, 60_000);

  try {
    for (let slot = 0; slot < replicaCount; slot++) await ready(await boot(slot));
    log(`${replicaCount} replicas up: ${live().map((r) => `${r.id} ${r.server.url}`).join(', ')}`);

    const url0 = live()[0]!.server.url;
    const ws = await must(url0, 'POST', '/api/office/workspaces', { name: 'Chaos harness' });
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const agent = await must(live()[i % replicaCount]!.server.url, 'POST', '/api/office/agents', {
        workspace_id: ws.id, name: `Chaos worker ${i}`, role: 'worker', cooldown_sec: 0, max_concurrent_sessions: 2, skip_idle_wakeups: false,
        executor: { kind: 'command', command: process.execPath, args: [join(FIXTURES, 'sleep.mjs'), `--chaos-token=${token}`],
          env: { FIXTURE_SLEEP_MS: String(150 + 100 * i) } },
      });
      agents.push(agent.id);
    }
    const routines: string[] = [];
    for (let i = 0; i < CRON_ROUTINES; i++) {
      const routine = await must(live()[i % replicaCount]!.server.url, 'POST', '/api/office/routines', {
        workspace_id: ws.id, name: `Every second ${i}`, assignee_agent_instance_id: agents[i], concurrency_policy: 'always_enqueue',
        catch_up_policy: 'enqueue_missed_with_cap', catch_up_max: 3,
        triggers: [{ kind: 'schedule', cron_expression: '* * * * * *' }],
      });
      routines.push(routine.id);
    }
    client = new pg.Client({ connectionString: options.databaseUrl });
    await client.connect();
    const db = client;

    // User wakes through every replica, one every 250-500 ms, until the chaos ends.
    let chaosOver = false;
    const wakeLoop = (async () => {
      for (let i = 0; !chaosOver; i++) {
        const agentId = rand.pick(agents);
        const answer = await call(anyUrl(), 'POST', `/api/office/agents/${agentId}/wake`, { reason: `chaos-wake-${i}` });
        if (!answer) wakes.cutOff++;
        else if (answer.status >= 200 && answer.status < 300) wakes.acknowledged.push(answer.body.wakeup.id);
        else {
          wakes.refused++;
          if (answer.status >= 500) violations.push(`server error ${answer.status} for a wake: ${JSON.stringify(answer.body)}`);
        }
        await sleep(rand.int(250, 500));
      }
    })();

    // Every replica's heartbeats as PostgreSQL records them: the longest gap between two of a live
    // replica's heartbeats (a gap over the lease lets the others take its agents while it runs).
    const lastBeat = new Map<string, number>();
    const heartbeatLoop = (async () => {
      while (!chaosOver) {
        const { rows } = await db.query('SELECT id, heartbeat_at FROM replicas').catch(() => ({ rows: [] as any[] }));
        const alive = new Set(live().map((r) => r.id));
        for (const row of rows) {
          const at = Number(row.heartbeat_at);
          const before = lastBeat.get(row.id);
          if (before !== undefined && at > before && alive.has(row.id)) {
            heartbeatGaps.push({ replica: row.id, ms: at - before });
          }
          lastBeat.set(row.id, at);
        }
        await sleep(250);
      }
    })();

    // Which replica's actor runs each agent, read through `via`.
    const holders = async (via: string): Promise<Map<string, string | null>> => {
      const list = await must(via, 'GET', `/api/office/agents?workspace_id=${ws.id}`);
      return new Map((list as any[]).map((a) => [a.id, a.actor?.replica ?? null]));
    };

    const chaosEnds = Date.now() + options.chaosSec * 1000;
    const moreKills = () => (options.kills === undefined ? Date.now() < chaosEnds : kills < options.kills);
    while (moreKills()) {
      await sleep(rand.int(pauseMin, pauseMax));
      if (!moreKills()) break;
      // Mostly a replica that runs agents (a failover to measure), sometimes any (one that just joined, say).
      const held = await holders(live()[0]!.server.url);
      const running = live().filter((r) => [...held.values()].includes(r.id));
      const victim = rand.pick(running.length > 0 && rand.chance(0.8) ? running : live());
      const survivor = rand.pick(live().filter((r) => r !== victim));
      const orphans = [...(await holders(survivor.server.url))].filter(([, replica]) => replica === victim.id).map(([agent]) => agent);
      await killServer(victim.server);
      outputs.push(victim.server.output());
      const killedAt = Date.now();
      const kill = ++kills;
      replicas[victim.slot] = null;
      sessionDeaths.push(sessionsGone(sessionDir, victim.id, Number(env.OFFICE_SHUTDOWN_GRACE_MS) + 5_000));
      log(`kill ${kill}: ${victim.id} (held ${orphans.length} agent${orphans.length === 1 ? '' : 's'})`);
      // Its replacement boots meanwhile: a new replica joining while the victim's leases run out.
      const replacementId = nextId(victim.slot);
      const replace = () => boot(victim.slot, replacementId);
      const replacement = options.replaceAfterFailover ? null : replace();
      replacement?.catch(() => undefined); // awaited below; a failed start must not end the process before cleanup
      // Failover: each orphan's actor runs on a live replica other than the victim.
      const pending = new Set(orphans);
      // What the survivor sees meanwhile, for a slow failover's report: the live set and whom
      // rendezvous hashing gives each waiting agent.
      const trace: string[] = [];
      let lastSeen = '';
      await until(async () => {
        const liveIds = new Set([...live().map((r) => r.id), replacementId]);
        const listed = ((await must(survivor.server.url, 'GET', '/api/office/replicas')) as { id: string }[]).map((r) => r.id);
        const seen = `live [${listed.join(', ')}]; rendezvous: ${[...pending].map((agent) => rendezvousOwner(agent, listed)).join(', ')}`;
        if (seen !== lastSeen) trace.push(`${Date.now() - killedAt} ms: ${(lastSeen = seen)}`);
        const now = await holders(survivor.server.url);
        for (const agent of [...pending]) {
          const replica = now.get(agent);
          if (replica && replica !== victim.id && liveIds.has(replica)) {
            pending.delete(agent);
            failovers.push({ kill, agent, ms: Date.now() - killedAt, to: replica, replacement: replica === replacementId });
          }
        }
        return pending.size === 0;
      }, failoverBoundMs + 10_000, 100);
      for (const agent of pending) violations.push(`kill ${kill}: agent ${agent} of ${victim.id} did not run on another replica within ${failoverBoundMs + 10_000} ms`);
      for (const slow of failovers.filter((f) => f.kill === kill && f.ms > failoverBoundMs)) {
        violations.push(`kill ${kill}: agent ${slow.agent} took ${slow.ms} ms to run on another replica (over OFFICE_LEASE_SEC + 5 s = ${failoverBoundMs} ms); `
          + `it went to ${slow.to}${slow.replacement ? ', the replica started in the victim\'s place' : ''}`);
      }
      const moved = failovers.filter((f) => f.kill === kill);
      log(`  failover of ${moved.length} agent(s): ${moved.map((f) => `${f.ms} ms to ${f.to}${f.replacement ? ' (its replacement)' : ''}`).join(', ') || '-'}`);
      if (moved.some((f) => f.ms > (leaseSec + 2) * 1000) || pending.size > 0) {
        log(`  slow failover; replacement ${replacementId}; seen through ${survivor.id}:\n${trace.map((line) => `    ${line}`).join('\n')}`);
      }
      await ready(await (replacement ?? replace()));
    }
    chaosOver = true;
    await wakeLoop;
    await heartbeatLoop;

    // Stop firing, then drain: wait until nothing is open, running or undelivered.
    for (const routine of routines) await must(anyUrl(), 'PATCH', `/api/office/routines/${routine}`, { status: 'paused' });
    const drainStarted = Date.now();
    const drained = await until(async () => {
      const open = await db.query(`SELECT
        (SELECT COUNT(*) FROM agent_wakeup_requests WHERE status IN ('queued', 'claimed', 'scheduled_retry'))
        + (SELECT COUNT(*) FROM runs WHERE status IN ('queued', 'running'))
        + (SELECT COUNT(*) FROM event_outbox WHERE parked_at IS NULL) AS n`);
      return Number(open.rows[0].n) === 0;
    }, options.drainTimeoutMs ?? 120_000, 250);
    const drainMs = Date.now() - drainStarted;
    if (!drained) {
      violations.push(`did not drain within ${options.drainTimeoutMs ?? 120_000} ms`);
      violations.push(...await whyNotDrained(db, live().map((r) => r.server.url)));
    }

    // Stop every replica cleanly: their sessions stop with them.
    for (const replica of live()) replica.server.proc.kill('SIGTERM');
    for (const replica of live()) {
      const exit = await replica.server.exited;
      outputs.push(replica.server.output());
      if (exit.code !== 0) violations.push(`${replica.id} exited with ${exit.code ?? exit.signal} on SIGTERM`);
      replicas[replica.slot] = null;
    }

    violations.push(...await checkRows(db, wakes.acknowledged));
    for (const late of await Promise.all(sessionDeaths)) if (late) violations.push(late);
    violations.push(...checkSessionsOfWakeups(sessionDir));
    return {
      seed,
      violations,
      kills,
      failovers,
      wakesSent: { acknowledged: wakes.acknowledged.length, cutOff: wakes.cutOff, refused: wakes.refused },
      counts: await countRows(db),
      drainMs,
      elapsedMs: Date.now() - began,
      replicaErrors: errorLines(outputs),
      lockTrouble: [...lockTrouble].map(([kind, { count, first }]) => ({ kind, count, first })),
      heartbeatGaps: heartbeatGaps.map((g) => g.ms),
      lateHeartbeats: heartbeatGaps.filter((g) => g.ms > leaseSec * 1000),
    };
  } finally {
    for (const replica of live()) await killServer(replica.server);
    for (const pid of pidsWhere((argv) => argv.includes(`--chaos-token=${token}`))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Exited meanwhile.
      }
    }
    await client?.end().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The killed replica's sessions die with it (API.md: within OFFICE_SHUTDOWN_GRACE_MS + 5 s); the violation if not. */
async function sessionsGone(sessionDir: string, replicaId: string, withinMs: number): Promise<string | null> {
  const gone = await until(async () => liveSessionsOf(sessionDir).every((s: { generation: string | null }) => s.generation !== replicaId), withinMs, 100);
  if (gone) return null;
  return `sessions of killed replica ${replicaId} still alive ${withinMs} ms after the SIGKILL`;
}

/** Error and fatal log lines (pino levels 50 and 60), and anything a replica printed that is not a log line but names an Error. */
function errorLines(outputs: string[]): string[] {
  return outputs.join('\n').split('\n')
    .filter((line) => /"level":(50|60)/.test(line) || (!line.startsWith('{') && /Error/.test(line)));
}

/** For each agent with open work: its lease as stored, and its actor as the replicas describe it. */
async function whyNotDrained(db: pg.Client, urls: string[]): Promise<string[]> {
  const { rows } = await db.query(`SELECT w.agent_id, json_agg(json_build_object('id', w.id, 'status', w.status, 'source', w.source,
      'retry', w.retry_count, 'available_at', w.available_at, 'scheduled_retry_at', w.scheduled_retry_at) ORDER BY w.id) AS open,
      (SELECT row_to_json(l) FROM agent_leases l WHERE l.agent_id = w.agent_id) AS lease
    FROM agent_wakeup_requests w WHERE w.status IN ('queued', 'claimed', 'scheduled_retry') GROUP BY w.agent_id`);
  const found: string[] = [];
  for (const row of rows) {
    const views = await Promise.all(urls.map(async (url) => (await call(url, 'GET', `/api/office/agents/${row.agent_id}`))?.body?.actor ?? null));
    found.push(`not drained: agent ${row.agent_id} at ${Date.now()}: lease ${JSON.stringify(row.lease)}; open ${JSON.stringify(row.open)}; `
      + `actor as each replica describes it: ${JSON.stringify(views)}`);
  }
  return found;
}
