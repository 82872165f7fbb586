/**
 * The compiled build as a user runs it: `npm start`'s own command (JavaScript in dist/, no TypeScript
 * loader) on a temp SQLite file answers its health route and serves the dashboard, and the
 * `office-scheduler` bin runs the compiled CLI, whose `serve` starts the compiled server.
 * test/helpers/buildGlobalSetup.ts compiles dist/ before this file starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { buildReason } from '../../scripts/ensure-build.mjs';
import { CLI_BIN, runCli } from '../helpers/cli.js';
import { pidsWhere, pidsWithEnv } from '../helpers/processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
const LISTENING = /listening on (http:\/\/\S+)/;

let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'office-build-'));
  await ensureDashboard({ log: () => {} });
}, 300_000);

afterEach(async () => {
  await Promise.all(children.splice(0).map(stop));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Spawns a command line of plain words (npm start's, the bin's) and resolves with the URL it says it listens on. */
async function startListening(argv: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env: { PATH: process.env.PATH, OFFICE_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = LISTENING.exec(output);
      if (found) resolve(found[1]!);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code, signal) => reject(new Error(`exited (${code ?? signal}) before listening:\n${output}`)));
  });
  return { child, url };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

/** npm start's command, with `node` as this test's own node binary. */
function startCommand(): string[] {
  const [program, ...args] = START.split(' ');
  expect(program).toBe('node');
  return [process.execPath, ...args];
}

describe('the compiled build', () => {
  it('is current after the build: nothing in src/ is newer than dist/', () => {
    expect(buildReason()).toBeNull();
  });

  it("npm start runs compiled JavaScript: on a fresh SQLite file it migrates, answers /healthz and /readyz, and serves the dashboard", async () => {
    expect(START).not.toMatch(/tsx|\.ts\b/);
    const { url } = await startListening(startCommand(), { OFFICE_DB: join(dir, 'start.db'), OFFICE_LOG_LEVEL: 'warn' });

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // The migrations ran from the .sql files copied beside the compiled store: the API reads and writes tables.
    const created = await fetch(`${url}/api/office/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Built' }) });
    expect(created.status).toBe(201);

    const page = await fetch(`${url}/office/tasks`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<script type="module"');
    expect(html).not.toContain('not built');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    expect((await fetch(`${url}${asset}`)).status).toBe(200);
  }, 60_000);

  it('the office-scheduler bin prints its help from the compiled CLI', async () => {
    for (const args of [['help'], ['--help']]) {
      const result = await runCli(args, {});
      expect(result.stderr, args.join(' ')).toBe('');
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toContain('Usage: office-scheduler <command>');
    }
  }, 60_000);

  it("the bin's serve starts the compiled server, with no TypeScript loader", async () => {
    const db = join(dir, 'serve.db');
    const { url } = await startListening([process.execPath, CLI_BIN, 'serve'], { OFFICE_DB: db, OFFICE_LOG_LEVEL: 'warn' });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    const ours = new Set(pidsWithEnv('OFFICE_DB', db));
    const servers = pidsWhere((argv) => argv.some((arg) => arg.endsWith(join('dist', 'main.js')))).filter((pid) => ours.has(pid));
    expect(servers).toHaveLength(1);
    const argv = readFileSync(`/proc/${servers[0]}/cmdline`, 'utf8').split('\0');
    expect(argv.join(' ')).not.toContain('tsx');
  }, 60_000);
});
