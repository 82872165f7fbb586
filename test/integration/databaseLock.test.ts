/**
 * One scheduler process per database file, with a lock the kernel releases when its holder dies:
 * real servers (the compiled dist/main.js) on one temp SQLite file, killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../crash/harness.js';
import { serverArgs } from '../helpers/serverProcess.js';
import { LOCK_WAIT_MS } from '../../src/persistence/sqlite/lock.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
const started: ChildProcess[] = [];
/** Servers started behind a wrapper: killing the wrapper leaves them to pid 1, so they are killed by pid. */
const unreapedServers: number[] = [];

afterEach(async () => {
  for (const pid of unreapedServers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const proc of started.splice(0)) {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await new Promise((resolve) => proc.once('exit', resolve));
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function env(dbPath: string): Record<string, string> {
  return { OFFICE_DB: dbPath, OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'error', OFFICE_RECOVERY_SWEEP_SEC: '0' };
}

async function boot(dbPath: string) {
  const server = await startServer(env(dbPath));
  started.push(server.proc);
  return server;
}

/**
 * A server whose parent never reaps it: `sh` starts it in the background, prints its pid, then
 * becomes `sleep`, which never waits for children. Killed, the server stays a zombie, as it does
 * under a busy or careless parent (pid 1 in a container without an init).
 */
async function bootUnreaped(dbPath: string): Promise<{ pid: number; url: string }> {
  const server = (await serverArgs()).map((arg) => `"${arg}"`).join(' ');
  const wrapper = spawn('/bin/sh', ['-c', `"${process.execPath}" ${server} & echo "server pid $!"; exec sleep 600`], {
    cwd: ROOT, env: { ...process.env, ...env(dbPath) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(wrapper);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 30_000);
    const onOutput = (chunk: Buffer) => {
      output += chunk;
      const pid = /server pid (\d+)/.exec(output);
      const url = /listening on (http:\/\/\S+)/.exec(output);
      if (pid && url) {
        clearTimeout(timer);
        unreapedServers.push(Number(pid[1]));
        resolve({ pid: Number(pid[1]), url: url[1]! });
      }
      // The server's own failure (a refused lock) ends its output; the wrapper lives on in sleep.
      if (/failed to start/.test(output)) {
        clearTimeout(timer);
        reject(new Error(output));
      }
    };
    wrapper.stdout!.on('data', onOutput);
    wrapper.stderr!.on('data', onOutput);
  });
}

function processState(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? null;
  } catch {
    return null;
  }
}

describe('one scheduler process per database file', () => {
  it('10 restarts made 0 ms after a SIGKILL all start, while the killed one is still a zombie', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-lock-'));
    const dbPath = join(dir, 'office.db');
    let server = await bootUnreaped(dbPath);
    for (let restart = 1; restart <= 10; restart++) {
      const killed = server.pid;
      process.kill(killed, 'SIGKILL');
      const next = bootUnreaped(dbPath);
      server = await next.catch((error: Error) => {
        throw new Error(`restart ${restart} was refused: ${error.message}`);
      });
      // The premise: nobody reaped the killed server while its successor started.
      if (process.platform === 'linux') expect(processState(killed)).toBe('Z');
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('a leftover pid lock file naming a live, unrelated process does not block a start', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-lock-'));
    const dbPath = join(dir, 'office.db');
    const unrelated = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    started.push(unrelated);
    writeFileSync(`${dbPath}.lock`, String(unrelated.pid));
    const server = await boot(dbPath);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(existsSync(`${dbPath}.lock`)).toBe(false);
  }, 60_000);

  it('a second scheduler on the same file is refused, says the database is locked, and exits non-zero', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-lock-'));
    const dbPath = join(dir, 'office.db');
    const first = await boot(dbPath);
    const second = spawn(process.execPath, await serverArgs(), {
      cwd: ROOT, env: { ...process.env, ...env(dbPath) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(second);
    let output = '';
    second.stdout!.on('data', (chunk) => (output += chunk));
    second.stderr!.on('data', (chunk) => (output += chunk));
    const began = Date.now();
    const code = await new Promise<number | null>((resolve) => second.once('exit', (c) => resolve(c)));
    expect(code, output).not.toBe(0);
    expect(code, output).not.toBeNull();
    expect(output).toContain('database is locked by another process');
    expect(output).not.toMatch(/listening on/);
    // It waited for the lock before giving up, and the first scheduler is untouched.
    expect(Date.now() - began).toBeGreaterThanOrEqual(LOCK_WAIT_MS);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
