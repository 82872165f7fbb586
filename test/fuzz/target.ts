/**
 * The fuzz target: the real app (createScheduler, fastify, zod, services, SQLite on a temp file)
 * with nothing that can run on its own while a request is judged. Its clock is XState's
 * SimulatedClock and never moves, so no cron fire, cooldown, retry or coalescing hold can write
 * behind a request's back; the periodic recovery sweep is off; no agent function is registered and
 * every command or URL the fuzzer sends is rewritten to something that cannot run. What a
 * request sets off at once (an event subscriber, a claim that ends at once) is waited for with
 * `settle()` before the next request.
 *
 * Writes are counted by SQLite triggers on every table into `_fuzz_writes`: a rolled-back write
 * rolls back its count too, so the counter moves only when the database really changed, UPDATEs
 * included (row counts alone would miss them).
 */
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../src/config.js';
import type { SqliteStore } from '../../src/persistence/sqlite/store.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { sqliteFaults } from '../helpers/storage.js';

export interface Route {
  method: string;
  /** Fastify form: /api/office/tasks/:id */
  path: string;
  bodySchema: JsonSchema | null;
  querySchema: JsonSchema | null;
}

export type JsonSchema = Record<string, any>;

export interface Fingerprint {
  writes: number;
  rows: Record<string, [number, number]>;
}

export interface FuzzTarget {
  scheduler: Scheduler;
  store: SqliteStore;
  routes: Route[];
  /** Known ids by prefix (ws, agt, tsk, ...), grown from every 2xx answer. */
  ids: Map<string, string[]>;
  webhooks: { publicId: string; mode: 'none' | 'bearer' | 'hmac_sha256'; secret: string | null }[];
  bodyLimit: number;
  fingerprint(): Fingerprint;
  settle(): Promise<void>;
  learn(body: unknown): void;
  /** A deleted row's id is no use to later requests. */
  forget(id: string): void;
  close(): Promise<void>;
}

/** Routes the fuzzer leaves alone, and why. */
export const SKIPPED_ROUTES: Record<string, string> = {
  'GET /api/office/stream': 'server-sent events: the response never ends by design',
};

/** Parses `app.printRoutes({ commonPrefix: false })`: every route the app registered, hidden ones included. */
export function routesOf(printed: string): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of printed.split('\n')) {
    const match = /^((?:│   |    )*)(?:├── |└── )(\S*)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    const full = (stack[depth - 1] ?? '') + match[2]!;
    stack[depth] = full;
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) {
      routes.push({ method, path: full.startsWith('/') ? full : `/${full}` });
    }
  }
  return routes;
}

export async function createFuzzTarget(): Promise<FuzzTarget> {
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'office-fuzz-'));
  const clock = new SimulatedClock();
  clock.set(Date.UTC(2025, 5, 2, 10));
  const config = loadConfig({
    OFFICE_DB: join(dir, 'office.db'),
    OFFICE_LOG_LEVEL: 'silent',
    OFFICE_PORT: '0',
    OFFICE_RECOVERY_SWEEP_SEC: '0',
    OFFICE_COALESCE_WINDOW_MS: '0',
    OFFICE_LOOP_DETECTOR_RUNS: '0',
    OFFICE_SHUTDOWN_GRACE_MS: '0',
  });
  const scheduler = await createScheduler({ config, clock });
  await scheduler.start({ listen: false });
  const store = scheduler.store as SqliteStore;
  const raw = sqliteFaults(store);
  const { org, tasks, routines } = scheduler.services;

  // A small world for ids to point at.
  const ws = await org.createWorkspace({ name: 'Fuzz' });
  const project = await org.createProject({ workspace_id: ws.id, name: 'Project' });
  const fn = { kind: 'function' as const, name: 'fuzz-unregistered' };
  const worker = await org.createAgent({ workspace_id: ws.id, name: 'Worker', role: 'worker', executor: fn, cooldown_sec: 0 });
  const coordinator = await org.createAgent({ workspace_id: ws.id, name: 'Coordinator', role: 'coordinator', executor: fn, cooldown_sec: 0 });
  const task = await tasks.createTask({ workspace_id: ws.id, title: 'A task', assignee_agent_instance_id: worker.id, project_id: project.id });
  await tasks.createComment(task.id, { body: 'hello', author_type: 'user', author_id: 'u1' });
  await tasks.createApproval({ task_id: task.id, requested_by_agent_id: worker.id, title: 'Approve?' });
  await tasks.createBudget({ scope: 'agent', scope_id: worker.id, limit_usd: 100, period: 'monthly', action_on_exceed: 'warn' });
  const created = await routines.catalogue.create({
    workspace_id: ws.id, name: 'Routine', assignee_agent_instance_id: coordinator.id,
    triggers: [
      { kind: 'schedule', cron_expression: '0 9 * * 1-5', timezone: 'Europe/London' },
      { kind: 'webhook', signing_mode: 'none' },
      { kind: 'webhook', signing_mode: 'bearer', secret: 'bearer-secret' },
      { kind: 'webhook', signing_mode: 'hmac_sha256', secret: 'hmac-secret' },
      { kind: 'manual' },
    ],
  });
  await org.wake(worker.id, { reason: 'seed' });
  await scheduler.events.idle();

  const ids = new Map<string, string[]>();
  const forgotten = new Set<string>();
  const learn = (value: unknown, depth = 0): void => {
    if (depth > 6 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 50)) learn(item, depth + 1);
      return;
    }
    for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
      if (typeof field === 'string' && (key === 'id' || key.endsWith('_id')) && /^[a-z]{2,4}_[0-9a-f]{32}$/.test(field)) {
        if (forgotten.has(field)) continue;
        const prefix = field.slice(0, field.indexOf('_'));
        const list = ids.get(prefix) ?? [];
        if (!list.includes(field)) list.push(field);
        if (list.length > 200) list.shift();
        ids.set(prefix, list);
      } else learn(field, depth + 1);
    }
  };
  for (const table of ['workspaces', 'projects', 'agent_instances', 'tasks', 'comments', 'approvals', 'budgets', 'agent_wakeup_requests', 'runs', 'office_routines', 'office_routine_triggers', 'office_routine_runs', 'inbox_items']) {
    learn(raw.all(`SELECT id FROM ${table}`));
  }
  const webhooks = created.triggers.filter((t) => t.kind === 'webhook').map((t) => ({
    publicId: t.public_id!, mode: t.signing_mode!, secret: t.secret,
  }));

  // Routes: every registered one (printRoutes), with the body and query schemas of the documented ones.
  await scheduler.app.ready();
  const spec = scheduler.app.swagger() as { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, JsonSchema> } };
  const routes: Route[] = [];
  for (const { method, path } of routesOf(scheduler.app.printRoutes({ commonPrefix: false }))) {
    if (method === 'HEAD' || SKIPPED_ROUTES[`${method} ${path}`]) continue;
    const documented = spec.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
    const query = documented?.parameters?.filter((p: any) => p.in === 'query') ?? [];
    routes.push({
      method, path,
      bodySchema: inlineRefs(documented?.requestBody?.content?.['application/json']?.schema ?? null, spec.components?.schemas ?? {}),
      querySchema: query.length ? { type: 'object', properties: Object.fromEntries(query.map((p: any) => [p.name, p.schema ?? {}])) } : null,
    });
  }

  // The write counter.
  const tableRows = raw.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  const tables = tableRows.map((t) => t.name);
  const withoutRowid = new Set(tableRows.filter((t) => /WITHOUT ROWID/i.test(t.sql)).map((t) => t.name));
  raw.exec('CREATE TABLE _fuzz_writes (n INTEGER NOT NULL); INSERT INTO _fuzz_writes VALUES (0);');
  for (const table of tables) {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      raw.exec(`CREATE TRIGGER _fuzz_${table}_${op.toLowerCase()} AFTER ${op} ON ${table} BEGIN UPDATE _fuzz_writes SET n = n + 1; END;`);
    }
  }
  // MAX(rowid) too: an insert and a delete in one request leave the count but not the highest rowid.
  // A table without rowids (counter rows) has its writes counted by the triggers above.
  const counts = tables.map((table) => [table, withoutRowid.has(table)
    ? `SELECT COUNT(*) AS n, 0 AS m FROM ${table}`
    : `SELECT COUNT(*) AS n, COALESCE(MAX(rowid), 0) AS m FROM ${table}`] as const);

  return {
    scheduler, store, routes, ids, webhooks, bodyLimit: config.bodyLimitBytes,
    learn: (body) => learn(body),
    forget(id) {
      forgotten.add(id);
      for (const list of ids.values()) {
        const at = list.indexOf(id);
        if (at >= 0) list.splice(at, 1);
      }
    },
    fingerprint() {
      return {
        writes: raw.get<{ n: number }>('SELECT n FROM _fuzz_writes')!.n,
        rows: Object.fromEntries(counts.map(([table, sql]) => {
          const row = raw.get<{ n: number; m: number }>(sql)!;
          return [table, [row.n, row.m]];
        })),
      };
    },
    async settle() {
      let last = -1;
      let stable = 0;
      for (let i = 0; i < 10_000 && stable < 4; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        const n = store.statementsExecuted();
        stable = n === last ? stable + 1 : 0;
        last = n;
      }
    },
    async close() {
      await scheduler.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function hmacOf(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Request schemas name shared parts (the executor) by `$ref: #/components/schemas/…`: inline them for the generators. */
function inlineRefs(schema: unknown, components: Record<string, JsonSchema>, depth = 0): any {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, components, depth));
  if (schema === null || typeof schema !== 'object' || depth > 20) return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return inlineRefs(components[ref.slice('#/components/schemas/'.length)], components, depth + 1);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlineRefs(value, components, depth + 1)]));
}
