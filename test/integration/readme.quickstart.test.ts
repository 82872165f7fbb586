/**
 * The README's quickstart, followed step by step as a newcomer would, with the commands read from
 * the README itself, so that a step that stops being true fails here:
 * - `npm start` at a terminal (a pseudo-terminal, through util-linux `script`): its summary, then the
 *   dashboard and the API answering, then Ctrl-C;
 * - the test command, on one small file (the whole suite would run this file again);
 * - "Wake Claude Code on a schedule": its three calls, with the ids they answer.
 * `npm ci` is not run: it would replace the node_modules this run uses. `npm run agents:install`
 * downloads some 900 MB, so only its presence is checked.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { request, waitFor } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { pidsWithEnv } from '../helpers/processes.js';

const REPO = new URL('../..', import.meta.url).pathname;
const README = readFileSync(join(REPO, 'README.md'), 'utf8');
const PACKAGE = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const dir = mkdtempSync(join(tmpdir(), 'office-readme-'));
/** Inherited by everything `npm start` starts: what is left of it is found by it. */
const MARK = 'OFFICE_README_TEST_RUN';
const mark = randomUUID();
/** This run's environment without vitest's own variables, which would make a nested run think it is a worker of this one. */
const env: NodeJS.ProcessEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST'))), [MARK]: mark, CI: '' };

afterAll(() => {
  for (const pid of pidsWithEnv(MARK, mark)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The shell blocks of the README, in order, each as its lines. */
function shellBlocks(): string[][] {
  return [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trimEnd().split('\n'));
}

/** What a terminal shows: without colours and carriage returns. */
function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '');
}

/** A command line of a block without its `# comment`. */
function command(line: string): string {
  return line.replace(/\s+#.*$/, '').trim();
}

const quickstart = shellBlocks()[0]!;

describe('the README quickstart', () => {
  it('starts with `npm start`, whose defaults are the address and database it names', () => {
    expect(command(quickstart[0]!)).toBe('npm ci && npm start');
    const claim = /serves the API and dashboard on (http:\/\/\S+), database in (\S+)/.exec(quickstart[0]!)!;
    const defaults = loadConfig({});
    expect(claim[1]).toBe(`http://${defaults.host}:${defaults.port}`);
    expect(claim[2]).toBe(defaults.dbPath);
  });

  it('`npm start` at a terminal prints where the dashboard is, serves it and the API, and stops on Ctrl-C', async () => {
    const port = await freePort();
    const dbPath = join(dir, 'office.db');
    // `script` gives npm a terminal, as a person's shell does; -e: its exit status is the command's.
    const child = spawn('script', ['-qfec', 'npm start', '/dev/null'], {
      cwd: REPO, env: { ...env, OFFICE_DB: dbPath, OFFICE_PORT: String(port) }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    const readable = () => plain(output);
    child.stdout.on('data', (chunk) => { output += chunk; });
    child.stderr.on('data', (chunk) => { output += chunk; });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let done = false;
    void exited.then(() => { done = true; });

    await waitFor(() => /Stop\s+Ctrl-C/.test(readable()) || done, 'the start summary', 60_000);
    const url = `http://127.0.0.1:${port}`;
    expect(readable()).toMatch(new RegExp(`Dashboard\\s+${url}/\\n\\s+Database\\s+SQLite at ${dbPath}\\n\\s+Access\\s+no API token: this machine only\\n`));
    // On a brand-new database the boot says there is nothing to take over, not that earlier owners are fenced out.
    expect(readable()).toContain('no agents yet');
    expect(readable()).not.toContain('fenced out');
    // The summary comes last, after the boot's log lines, where a person looks.
    expect(readable().trimEnd().split('\n').at(-1)).toMatch(/^\s+Stop\s+Ctrl-C/);

    const dashboard = await fetch(`${url}/`);
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers.get('content-type')).toContain('text/html');
    expect((await fetch(`${url}/office/tasks`)).status).toBe(200);
    expect(await request(url, 'GET', '/readyz')).toMatchObject({ status: 200 });
    expect(await request(url, 'GET', '/api/office/workspaces')).toEqual({ status: 200, body: [] });

    child.stdin.write('\x03'); // Ctrl-C, through the terminal: SIGINT to its foreground process group.
    const code = await exited;
    // The scheduler exits 0; npm reports a job interrupted by Ctrl-C as 130 (128 + SIGINT), as shells do.
    expect([0, 130], readable()).toContain(code);
    // It shut down, rather than being killed: its own last words are there.
    expect(readable()).toMatch(/shutting down.*"signal":"SIGINT"/);
    expect(readable()).not.toMatch(/^\s+at /m);
    expect(pidsWithEnv(MARK, mark)).toEqual([]);
  }, 90_000);

  it('then the test command runs vitest', async () => {
    expect(command(quickstart[1]!)).toBe('npm ci && npm run agents:install && npm test');
    expect(PACKAGE.scripts['agents:install']).toBeDefined();
    const run = await runNpm(['test', '--', 'test/unit/backoff.test.ts']);
    expect(run.code, run.output).toBe(0);
    expect(plain(run.output)).toMatch(/Test Files\s+1 passed/);
  }, 90_000);
});

describe('the README: Wake Claude Code on a schedule', () => {
  it("takes its three calls as they are written, with the ids they answer, and schedules the routine at 09:00 in the workspace's zone", async () => {
    const calls = curlCalls(shellBlocks().find((block) => block.some((line) => line.includes('/api/office/routines')))!);
    expect(calls.map((c) => c.path)).toEqual(['/api/office/workspaces', '/api/office/agents', '/api/office/routines']);
    const { scheduler, url } = await startScheduler();
    try {
      const ids: Record<string, string> = {};
      const answers = [];
      for (const call of calls) {
        const body = call.body.replace('ws_…', ids.ws ?? 'ws_…').replace('agt_…', ids.agt ?? 'agt_…');
        const answer = await request(url, 'POST', call.path, body, { 'content-type': 'application/json' });
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
        ids[String(answer.body.id).split('_')[0]!] = answer.body.id;
        answers.push(answer.body);
      }
      const [workspace, agent, routine] = answers;
      expect(workspace.timezone).toBe('Europe/Warsaw');
      expect(agent.executor).toMatchObject({ kind: 'claude_code' });
      const nextRun = new Date(routine.triggers[0].next_run_at);
      const warsaw = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Warsaw', hour: '2-digit', minute: '2-digit' }).format(nextRun);
      expect(warsaw).toBe('09:00');
    } finally {
      await scheduler.stop();
    }
  });
});

/** The `curl … localhost:7700<path> … -d '<body>'` calls of a block, in order. */
function curlCalls(block: string[]): { path: string; body: string }[] {
  const text = block.map((line) => command(line).replace(/\\$/, '')).join(' ');
  return [...text.matchAll(/curl -s localhost:7700(\S+).*?-d '([^']+)'/g)].map((m) => ({ path: m[1]!, body: m[2]! }));
}

async function startScheduler() {
  const { createScheduler } = await import('../../src/scheduler.js');
  const scheduler = await createScheduler({ config: loadConfig({ OFFICE_DB: join(dir, 'claude.db'), OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'silent' }) });
  const { url } = await scheduler.start();
  return { scheduler, url: url! };
}

function runNpm(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => { output += chunk; });
    child.stderr.on('data', (chunk) => { output += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
