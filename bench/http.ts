/**
 * `npm run bench:http`: the real server (node --import tsx src/main.ts) in a child process, and
 * autocannon in this one sending a mixed load at a fixed 500 requests/s for 60 s (BENCH_HTTP_SEC,
 * BENCH_HTTP_RATE to change): list reads, task creations that wake agents, agent wakes, wakeup and
 * run reads, activity, metrics. Reports p50/p99 latency, errors and the server's memory growth.
 *
 * Function executors cannot be registered in a child process, so half the agents are paused (their
 * wakeups end at once, with no run) and half run `/bin/true` as their command, a real child
 * process per run that costs next to nothing (BENCH_HTTP_SPAWN=0 pauses them all).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { printTable, type Figure } from './support.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const seconds = Number(process.env.BENCH_HTTP_SEC ?? 60);
const rate = Number(process.env.BENCH_HTTP_RATE ?? 500);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU seconds (user + system) the process has used, from /proc (clock ticks of 1/100 s). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'office-bench-http-'));
const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('OFFICE_')));
const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  cwd: ROOT,
  env: { ...env, OFFICE_DB: join(dir, 'office.db'), OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'warn', OFFICE_COALESCE_WINDOW_MS: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let serverErrors = 0;
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  server.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const line of chunk.toString().split('\n')) if (/"level":(50|60)/.test(line)) serverErrors++;
    const match = /listening on (http:\/\/\S+)/.exec(out);
    if (match) resolve(match[1]!);
  });
  server.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${out}`)));
});

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

try {
  const ws = await api('POST', '/api/office/workspaces', { name: 'HTTP bench' });
  const agents: string[] = [];
  for (let i = 0; i < 20; i++) {
    // BENCH_HTTP_SPAWN=0 pauses them all: the load without any child process.
    const active = i % 2 === 0 && existsSync('/bin/true') && process.env.BENCH_HTTP_SPAWN !== '0';
    const agent = await api('POST', '/api/office/agents', {
      workspace_id: ws.id, name: `agent-${i}`, role: 'worker', cooldown_sec: 0, max_concurrent_sessions: 4,
      executor: { kind: 'command', command: active ? '/bin/true' : '/nonexistent/paused-agent' },
    });
    if (!active) await api('PATCH', `/api/office/agents/${agent.id}`, { status: 'paused' });
    agents.push(agent.id);
  }
  for (let i = 0; i < 200; i++) {
    await api('POST', '/api/office/tasks', { workspace_id: ws.id, title: `seed ${i}`, assignee_agent_instance_id: agents[i % agents.length] });
  }
  await sleep(1000);

  let n = 0;
  const json = { 'content-type': 'application/json' };
  const requests = [
    { method: 'GET', path: `/api/office/tasks?workspace_id=${ws.id}&limit=50` },
    { method: 'POST', path: '/api/office/tasks', headers: json, setupRequest: (req: any) => ({ ...req, body: JSON.stringify({ workspace_id: ws.id, title: `load ${n++}`, assignee_agent_instance_id: agents[n % agents.length] }) }) },
    { method: 'GET', path: `/api/office/agents?workspace_id=${ws.id}` },
    { method: 'GET', path: `/api/office/wakeups?agent_id=${agents[1]}&limit=20` },
    { method: 'POST', path: `/api/office/agents/${agents[3]}/wake`, headers: json, body: JSON.stringify({ reason: 'load' }) },
    { method: 'GET', path: '/api/office/runs?limit=20' },
    { method: 'GET', path: `/api/office/activity?workspace_id=${ws.id}&limit=50` },
    { method: 'GET', path: `/api/office/tasks/${(await api('GET', `/api/office/tasks?workspace_id=${ws.id}&limit=1`))[0].id}` },
    { method: 'GET', path: '/healthz' },
  ];
  // A scrape in every twenty requests (a full GROUP BY over wakeups and runs each time).
  requests.push(...requests.slice(0, 9), { method: 'GET', path: '/metrics' });

  const rssBefore = rssOf(server.pid!);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(server.pid!))), 500);
  process.stderr.write(`mixed load: ${rate} requests/s for ${seconds} s against ${url} (server pid ${server.pid})\n`);
  const cpuBefore = cpuOf(server.pid!);
  const result = await autocannon({ url, connections: 20, duration: seconds, overallRate: rate, timeout: 10, requests });
  clearInterval(sampler);
  const serverCpuPct = ((cpuOf(server.pid!) - cpuBefore) / result.duration) * 100;
  await sleep(1000);
  const rssAfter = rssOf(server.pid!);
  const metrics = await fetch(`${url}/metrics`).then((r) => r.text());
  const open = ['queued', 'claimed', 'scheduled_retry'].map((s) => Number(new RegExp(`office_wakeups\\{status="${s}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0)).reduce((a, b) => a + b, 0);
  const achieved = result.requests.total / result.duration;
  const errors = result.errors + result.timeouts + result['5xx'];

  const figures: Figure[] = [
    { id: 'HTTP', name: `mixed load @${rate}/s for ${seconds} s: p50 latency`, value: result.latency.p50, unit: 'ms', goal: '', ok: true,
      note: `${result.requests.total} requests, ${achieved.toFixed(0)}/s achieved; server CPU ${serverCpuPct.toFixed(0)}% of one core` },
    { id: 'HTTP', name: 'p99 latency', value: result.latency.p99, unit: 'ms', goal: '', ok: true, note: `max ${result.latency.max} ms` },
    { id: 'HTTP', name: 'errors (transport, timeouts, 5xx)', value: errors, unit: 'requests', goal: '0', ok: errors === 0,
      note: `${result['2xx']} 2xx, ${result['4xx']} 4xx, ${result['5xx']} 5xx, ${result.timeouts} timeouts; server error log lines ${serverErrors}` },
    { id: 'HTTP', name: 'server RSS growth', value: rssAfter - rssBefore, unit: 'MB', goal: '', ok: true,
      note: `${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} MB (peak ${rssPeak.toFixed(0)} MB); ${open} wakeups still open after the load` },
  ];
  printTable(figures);
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
