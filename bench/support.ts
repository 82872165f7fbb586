import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import type { ExecutorSpec } from '../src/domain/executors.js';
import type { AgentFunction } from '../src/executors/types.js';
import { createScheduler } from '../src/scheduler.js';
import type { StatementProfile } from '../src/persistence/shared/statementProfile.js';

export interface Figure {
  id: string;
  name: string;
  value: number;
  unit: string;
  goal: string;
  ok: boolean;
  note?: string;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** A scheduler on a fresh temp database, not listening, silent; its store times its statements into `statementProfile` when given one. */
export async function benchScheduler(env: Record<string, string> = {}, functions?: Map<string, AgentFunction>, start = true, statementProfile?: StatementProfile) {
  const dir = mkdtempSync(join(tmpdir(), 'office-bench-'));
  const dbPath = join(dir, 'office.db');
  const config = loadConfig({ OFFICE_DB: dbPath, OFFICE_LOG_LEVEL: 'silent', OFFICE_RECOVERY_SWEEP_SEC: '0', OFFICE_LOOP_DETECTOR_RUNS: '0', ...env });
  const scheduler = await createScheduler({ config, ...(functions ? { functions } : {}), statementProfile });
  if (start) await scheduler.start({ listen: false });
  return {
    scheduler,
    dbPath,
    dir,
    /** An agent row with no actor behind it: enqueues land in the table and nothing dispatches them. */
    async seedDormantAgent() {
      const workspace = await scheduler.services.org.createWorkspace({ name: 'bench' });
      const now = Date.now();
      const agentId = `agt_dormant_${now}`;
      await scheduler.store.transaction((tx) => tx.agents.insert({
        id: agentId, workspace_id: workspace.id, name: 'dormant', role: 'worker', status: 'idle', paused_reason: null,
        skip_idle_wakeups: true, max_concurrent_sessions: 1, cooldown_sec: 0, last_wakeup_finished_at: null, executor: null,
        daily_run_cap: null, daily_cost_cap_usd: null, max_concurrent_routine_runs: null, warnings: [], deleted_at: null,
        created_at: now, updated_at: now,
      }));
      return { workspaceId: workspace.id, agentId };
    },
    async seedAgents(count: number, options: { maxConcurrent?: number; paused?: boolean; executor?: ExecutorSpec } = {}) {
      const workspace = await scheduler.services.org.createWorkspace({ name: 'bench' });
      const agentIds: string[] = [];
      for (let i = 0; i < count; i++) {
        const agent = await scheduler.services.org.createAgent({
          workspace_id: workspace.id, name: `agent-${i}`, role: 'worker', cooldown_sec: 0,
          max_concurrent_sessions: options.maxConcurrent ?? 1,
          executor: options.executor ?? { kind: 'function', name: 'noop' },
        });
        if (options.paused) await scheduler.services.org.updateAgent(agent.id, { status: 'paused' });
        agentIds.push(agent.id);
      }
      return { workspaceId: workspace.id, agentIds };
    },
    async stop() {
      await scheduler.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function printTable(figures: Figure[]): void {
  const rows = figures.map((f) => [f.id, f.name, formatValue(f.value), f.unit, f.goal || '-', f.goal ? (f.ok ? 'yes' : 'NO') : '-', f.note ?? '']);
  const header = ['id', 'figure', 'value', 'unit', 'goal', 'met', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 100 ? String(Math.round(value)) : value.toFixed(3);
}
