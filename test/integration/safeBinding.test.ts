/**
 * Safe binding (API.md, "Running in production"): with no OFFICE_API_TOKEN the server binds only a
 * loopback address, and a request whose Host header names none of the allowed names gets a 421
 * (the precondition of DNS rebinding).
 */
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { serverArgs } from '../helpers/serverProcess.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** A GET with exactly this Host header (fetch would not let a test choose it). */
function getWithHost(url: string, path: string, host: string): Promise<{ status: number; body: any }> {
  const base = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: base.hostname, port: base.port, path, method: 'GET', headers: { host } }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts the real entry point (the compiled dist/main.js) and resolves with how it exited. */
async function runMain(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'office-bind-'));
  const args = await serverArgs();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, OFFICE_DB: join(dir, 'office.db'), OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      // A server that started anyway is the failure this test is about: stop it and report.
      if (stdout.includes('listening on')) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

describe('safe binding', () => {
  it('a start bound to 0.0.0.0 with no OFFICE_API_TOKEN exits non-zero with the reason', async () => {
    const result = await runMain({ OFFICE_HOST: '0.0.0.0' });
    expect(result.stdout).not.toContain('listening on');
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stderr).toContain('OFFICE_HOST');
    expect(result.stderr).toContain('0.0.0.0');
    expect(result.stderr).toContain('OFFICE_API_TOKEN');
  }, 30_000);

  it('a request whose Host header names a foreign host gets 421 misdirected_request in the error envelope', async () => {
    h = await startHarness();
    for (const host of ['evil.example', 'evil.example:7700', 'attacker.127.0.0.1.nip.io', '10.0.0.8']) {
      const res = await getWithHost(h.url, '/api/office/workspaces', host);
      expect(res.status, host).toBe(421);
      expect(res.body, host).toEqual({ error: { code: 'misdirected_request', message: expect.stringContaining('OFFICE_ALLOWED_HOSTS') } });
    }
    expect((await getWithHost(h.url, '/healthz', 'evil.example')).status).toBe(421);
  });

  it('localhost, 127.0.0.1 and [::1] are accepted with any port, and so is the bound address', async () => {
    h = await startHarness({ OFFICE_HOST: '127.0.0.1' });
    for (const host of ['localhost', 'localhost:7700', 'LOCALHOST:1', '127.0.0.1', '127.0.0.1:9999', '[::1]', '[::1]:7700']) {
      const res = await getWithHost(h.url, '/api/office/workspaces', host);
      expect(res.status, host).toBe(200);
    }
  });

  it('names listed in OFFICE_ALLOWED_HOSTS are accepted, with or without a port; others still get 421', async () => {
    h = await startHarness({ OFFICE_ALLOWED_HOSTS: 'office.internal, Scheduler.Example.com' });
    expect((await getWithHost(h.url, '/api/office/workspaces', 'office.internal')).status).toBe(200);
    expect((await getWithHost(h.url, '/api/office/workspaces', 'office.internal:8443')).status).toBe(200);
    expect((await getWithHost(h.url, '/api/office/workspaces', 'scheduler.example.com')).status).toBe(200);
    expect((await getWithHost(h.url, '/api/office/workspaces', 'other.internal')).status).toBe(421);
  });

  it('with OFFICE_API_TOKEN set the server may bind 0.0.0.0, and the Host check still applies', async () => {
    h = await startHarness({ OFFICE_HOST: '0.0.0.0', OFFICE_API_TOKEN: 'bind-token', OFFICE_ALLOWED_HOSTS: 'office.lan' });
    expect((await getWithHost(h.url, '/healthz', 'office.lan:7700')).status).toBe(200);
    expect((await getWithHost(h.url, '/healthz', 'evil.example')).status).toBe(421);
  });
});
