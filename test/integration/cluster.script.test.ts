/**
 * `npm run cluster` as a person runs it at a terminal: started in a process group of its own (as a
 * shell starts a foreground job), then Ctrl-C, which the terminal sends to that whole group. It must
 * spread its agents over all three replicas before it says it is ready, and stop with no stack
 * trace and nothing left running: no replica, no agent session, no PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { waitFor } from '../helpers/harness.js';
import { consecutiveFreePorts } from '../helpers/ports.js';
import { pidsWithEnv } from '../helpers/processes.js';

const REPO = new URL('../..', import.meta.url).pathname;
/** Every process the cluster starts inherits it, except agent sessions (an allow-listed environment). */
const MARK = 'OFFICE_CLUSTER_TEST_RUN';
const mark = randomUUID();
let replicaUrls: string[] = [];

/** The cluster's processes still alive: by the mark, and agent sessions by the replica they call back. */
function leftovers(): number[] {
  return [...pidsWithEnv(MARK, mark), ...replicaUrls.flatMap((url) => pidsWithEnv('OFFICE_API_URL', url))];
}

afterAll(() => {
  for (const pid of leftovers()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
});

it('spreads its agents over every replica, and stops on Ctrl-C with no stack trace and nothing left running', async () => {
  const firstPort = await consecutiveFreePorts(3);
  const child = spawn('npm', ['run', 'cluster'], {
    cwd: REPO,
    detached: true,
    env: { ...process.env, [MARK]: mark, OFFICE_PORT: String(firstPort), CLUSTER_RESTART_SEC: '600' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  // 'close': every process holding the output is gone (the script, the replicas, the PostgreSQL helper).
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  let exitCode: number | null | undefined;
  void exited.then(({ code }) => { exitCode = code; });

  await waitFor(() => output.includes('Cluster ready') || exitCode !== undefined, 'the cluster to say it is ready', 80_000);
  expect(exitCode, output).toBeUndefined();
  replicaUrls = [0, 1, 2].map((i) => `http://127.0.0.1:${firstPort + i}`);
  const replicas = await (await fetch(`${replicaUrls[1]}/api/office/replicas`)).json() as { id: string; agents_owned: number }[];
  expect(replicas.map((r) => r.id).sort()).toEqual(['replica-0', 'replica-1', 'replica-2']);
  for (const replica of replicas) expect(replica.agents_owned, JSON.stringify(replicas)).toBeGreaterThan(0);
  for (const replica of replicas) expect(output).toMatch(new RegExp(`${replica.id}\\s+http://\\S+\\s+pid \\d+\\s+runs \\d+ agents?`));
  expect(output).toContain(`${replicaUrls[0]}/office/replicas`);

  process.kill(-child.pid!, 'SIGINT');
  const exit = await exited;
  // npm reports a script stopped by Ctrl-C by dying of SIGINT itself, as a shell expects of a job.
  expect(exit.code === 0 || exit.signal === 'SIGINT', JSON.stringify(exit)).toBe(true);
  expect(output).toContain('stopped; the temp data directory is removed.');
  // A crash prints its stack as lines of `    at …`; the replicas' JSON log lines keep theirs on one line.
  expect(output).not.toMatch(/Unhandled|terminating connection|^\s+at /m);
  // Zombies not yet reaped carry no environment: what is found here is really running.
  expect(leftovers()).toEqual([]);
}, 120_000);
