/**
 * The served /openapi.json is something users generate clients from: it must be valid OpenAPI,
 * lint clean with redocly's recommended rules, describe every operation fully, and generate types
 * under which a typed client script compiles strictly and then works against a real server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { API_DOCUMENT_FILE, API_TYPES_FILE, REGENERATE, apiTypesOf, documentText } from './apiTypes.js';
import { runScenario } from './client.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const CLIENT_SCRIPT = fileURLToPath(new URL('./client.ts', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Finished { code: number; stdout: string; stderr: string }

/** A child process's outcome, whatever its exit code. */
function spawnChecked(command: string, args: string[], cwd: string): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

let h: Harness;
let dir: string;
let document: any;
let lint: Promise<Finished>;
let compile: Promise<Finished>;

beforeAll(async () => {
  h = await startHarness();
  document = (await h.api('GET', '/openapi.json')).body;
  dir = mkdtempSync(join(tmpdir(), 'office-contract-'));
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
  // The two slow checks are child processes: they run side by side while the other tests do.
  lint = spawnChecked(BIN('redocly'), ['lint', '--extends', 'recommended', '--format', 'json', join(dir, 'openapi.json')], dir);
  compile = spawnChecked(BIN('tsc'), [
    '--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--lib', 'es2023,dom', '--types', 'node', CLIENT_SCRIPT,
  ], ROOT);
});

afterAll(async () => {
  await Promise.all([lint, compile]);
  await h?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the OpenAPI document', () => {
  it('validates as OpenAPI 3.1', async () => {
    const result = await validate(structuredClone(document));
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(document.openapi).toBe('3.1.0');
  });

  it('redocly lint with the recommended rules reports no errors', async () => {
    const { stdout, stderr } = await lint;
    const report = JSON.parse(stdout || '{}') as { totals?: { errors: number }; problems?: { ruleId: string; severity: string; message: string; location: unknown }[] };
    const errors = (report.problems ?? []).filter((p) => p.severity === 'error');
    expect(report.totals, stderr).toBeDefined();
    expect(errors, JSON.stringify(errors, null, 2)).toEqual([]);
  });

  it('every operation has a unique operationId, a summary, one declared tag, a security rule and a declared success body', () => {
    const declaredTags = new Set((document.tags as { name: string }[]).map((t) => t.name));
    const ids: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        ids.push(op.operationId);
        expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
        expect(op.summary, where).toBeTruthy();
        expect(op.tags, where).toHaveLength(1);
        expect(declaredTags.has(op.tags[0]), where).toBe(true);
        expect(op.security, where).toBeDefined();
        const statuses = Object.keys(op.responses);
        expect(statuses.some((s) => /^2\d\d$/.test(s)), where).toBe(true);
        expect(op.responses['200']?.description, where).not.toBe('Default Response');
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(40);
  });

  it('documents the webhook with its optional body of any type, its signature schemes, its delivery headers and 202, 200 and 401', () => {
    const op = document.paths['/api/routine-triggers/{public_id}/fire'].post;
    expect(op.requestBody.required).toBe(false);
    expect(Object.keys(op.requestBody.content)).toEqual(['*/*']);
    expect(op.security).toEqual([{}, { webhookBearer: [] }, { webhookSignature: [] }]);
    expect(document.components.securitySchemes.webhookSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Hub-Signature-256' });
    expect(document.components.securitySchemes.webhookBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(op.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name)).toEqual(['x-delivery-id', 'x-github-delivery']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '202', '401']));
  });

  it('declares the router\'s answers to a path id over its length limit (the harness checks the answer against the document)', async () => {
    expect((await h.api('GET', `/api/office/tasks/${'x'.repeat(300)}/comments`)).status).toBe(404);
    expect(Object.keys(document.paths['/api/office/tasks/{id}/comments'].get.responses)).toEqual(expect.arrayContaining(['404', '414']));
    expect(Object.keys(document.paths['/api/office/tasks'].get.responses)).not.toContain('414');
  });

  it('says that the body of a manual fire is optional', () => {
    expect(document.paths['/api/office/routines/{id}/fire'].post.requestBody.required).toBe(false);
  });

  it('the committed openapi.json is the served document', () => {
    const committed = readFileSync(API_DOCUMENT_FILE, 'utf8');
    expect(committed === documentText(document), `openapi.json differs from the served /openapi.json: run \`${REGENERATE}\` and commit both files`).toBe(true);
  });

  it('the committed src/client/openapi.d.ts is what openapi-typescript generates from the served document', async () => {
    const committed = readFileSync(API_TYPES_FILE, 'utf8');
    expect(committed === await apiTypesOf(document), `src/client/openapi.d.ts is stale: run \`${REGENERATE}\` and commit both files`).toBe(true);
  });

  it('a typed client script compiles against the generated types under tsc --strict', async () => {
    const { code, stdout, stderr } = await compile;
    expect(`${stdout}${stderr}`).toBe('');
    expect(code).toBe(0);
  });

  it('the typed client script creates, fires and reads a run against the real server', async () => {
    const scenario = await runScenario(h.url, fixtureAgent('succeed.mjs'));
    expect(scenario.routineRun.routine_id).toBe(scenario.routine.id);
    expect(scenario.wakeups.some((w) => w.id === scenario.routineRun.linked_wakeup_id && w.explain.length > 0)).toBe(true);
    expect(scenario.run.status).toBe('succeeded');
    expect(scenario.run.agent_id).toBe(scenario.agent.id);

    // Sent as the handlers built them: every field the store holds reaches the client (none dropped by a response schema).
    const stored = await h.scheduler.store.query(async (tx) => ({
      run: await tx.runs.get(scenario.run.id), agent: await tx.agents.get(scenario.agent.id), routineRun: (await tx.routines.runsOf(scenario.routine.id, 1))[0],
    }));
    expect(Object.keys(scenario.run).sort()).toEqual(Object.keys(stored.run!).sort());
    expect(Object.keys(scenario.agent).sort()).toEqual([...Object.keys(stored.agent!), 'actor'].sort());
    expect(Object.keys(scenario.routineRun).sort()).toEqual(Object.keys(stored.routineRun!).sort());
  });
});
