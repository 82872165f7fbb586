/**
 * The invariants of the chaos harness, read from the rows on PostgreSQL once the work has drained:
 * the crash harness's checks (test/simulation/invariants.ts, written for SQLite) that replicas must
 * keep, in PostgreSQL's dialect, plus the sessions the fixture agents recorded.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';

const OPEN_WAKEUP = "('queued', 'claimed', 'scheduled_retry')";
/** `key#expired:<id>` is a retired key; it still names the same request. */
const BASE_KEY = "split_part(w.idempotency_key, '#expired:', 1)";

function sample(rows: unknown[], max = 5): string {
  return JSON.stringify(rows.slice(0, max)) + (rows.length > max ? ` (+${rows.length - max} more)` : '');
}

/** The violations found in the rows; `acknowledgedWakes` are the wakeup ids the API answered with. */
export async function checkRows(db: pg.Client, acknowledgedWakes: string[]): Promise<string[]> {
  const violations: string[] = [];
  const check = async (name: string, sql: string, params: unknown[] = []) => {
    const { rows } = await db.query(sql, params);
    if (rows.length > 0) violations.push(`${name}: ${rows.length} ${sample(rows)}`);
  };
  await check('cron tick fired more than once (duplicate fire per trigger and scheduled_for)',
    `SELECT trigger_id, scheduled_for, COUNT(*) AS n FROM office_routine_runs WHERE scheduled_for IS NOT NULL
     GROUP BY trigger_id, scheduled_for HAVING COUNT(*) > 1`);
  await check('cron tick with more than one wakeup',
    `SELECT ${BASE_KEY} AS key, COUNT(*) AS n FROM agent_wakeup_requests w WHERE w.idempotency_key LIKE 'routine:%'
     GROUP BY 1 HAVING COUNT(*) > 1`);
  await check('wakeup not terminal after draining',
    `SELECT id, agent_id, status, source, retry_count FROM agent_wakeup_requests WHERE status IN ${OPEN_WAKEUP}`);
  await check('run stuck running/queued after draining', "SELECT id, wakeup_id, agent_id, status FROM runs WHERE status IN ('queued', 'running')");
  await check('wakeup with two succeeded runs',
    "SELECT wakeup_id, COUNT(*) AS n FROM runs WHERE status = 'succeeded' GROUP BY wakeup_id HAVING COUNT(*) > 1");
  await check('idempotency key with two succeeded runs',
    `SELECT ${BASE_KEY} AS key, COUNT(*) AS n FROM runs r JOIN agent_wakeup_requests w ON w.id = r.wakeup_id
     WHERE r.status = 'succeeded' AND w.idempotency_key IS NOT NULL GROUP BY 1 HAVING COUNT(*) > 1`);
  await check('run started after its wakeup already had a succeeded run',
    `SELECT later.id, later.wakeup_id FROM runs later JOIN runs ok ON ok.wakeup_id = later.wakeup_id
     WHERE ok.status = 'succeeded' AND later.attempt > ok.attempt`);
  await check('succeeded run whose wakeup is not finished',
    `SELECT r.id AS run_id, w.id AS wakeup_id, w.status FROM runs r JOIN agent_wakeup_requests w ON w.id = r.wakeup_id
     WHERE r.status = 'succeeded' AND w.status <> 'finished'`);
  await check('agent still `working` with nothing running',
    `SELECT id, name FROM agent_instances a WHERE status = 'working'
     AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND r.status = 'running')`);
  await check('task still checked out by an ended wakeup',
    `SELECT t.id, t.checkout_wakeup_id, w.status FROM tasks t JOIN agent_wakeup_requests w ON w.id = t.checkout_wakeup_id
     WHERE w.status NOT IN ${OPEN_WAKEUP}`);
  await check('event still undelivered in the outbox after draining', 'SELECT id, type FROM event_outbox WHERE parked_at IS NULL');
  await check('event parked: its subscribers failed every retry', 'SELECT id, type, parked_error FROM event_outbox WHERE parked_at IS NOT NULL');
  await check('dispatched routine run without its wakeup',
    `SELECT rr.id FROM office_routine_runs rr WHERE rr.status = 'dispatched'
     AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.id = rr.linked_wakeup_id)`);
  await check('acknowledged wake lost (no wakeup row)',
    'SELECT id FROM unnest($1::text[]) AS id WHERE NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.id = id)', [acknowledgedWakes]);
  return violations;
}

export interface RowCounts {
  cronFires: number;
  routineRunsByStatus: Record<string, number>;
  wakeups: number;
  wakeupsByStatus: Record<string, number>;
  runs: number;
  runsByStatus: Record<string, number>;
  lateResults: number;
  /** Deadlocks PostgreSQL detected (and broke by failing one transaction) on this database. */
  deadlocks: number;
  /** Runs that ended failed or interrupted, by their error (the first 80 characters). */
  unsuccessfulRunsByError: Record<string, number>;
}

async function countBy(db: pg.Client, table: string, column: string, where = 'TRUE'): Promise<Record<string, number>> {
  const { rows } = await db.query(`SELECT ${column} AS k, COUNT(*) AS n FROM ${table} WHERE ${where} GROUP BY 1 ORDER BY 1`);
  return Object.fromEntries(rows.map((r) => [r.k, Number(r.n)]));
}

const total = (by: Record<string, number>) => Object.values(by).reduce((a, b) => a + b, 0);

export async function countRows(db: pg.Client): Promise<RowCounts> {
  const wakeupsByStatus = await countBy(db, 'agent_wakeup_requests', 'status');
  const runsByStatus = await countBy(db, 'runs', 'status');
  const routineRunsByStatus = await countBy(db, 'office_routine_runs', 'status', "source = 'cron'");
  const late = await db.query('SELECT COUNT(*) AS n FROM runs WHERE late_result_json IS NOT NULL');
  return {
    cronFires: total(routineRunsByStatus),
    routineRunsByStatus,
    wakeups: total(wakeupsByStatus),
    wakeupsByStatus,
    runs: total(runsByStatus),
    runsByStatus,
    lateResults: Number(late.rows[0].n),
    deadlocks: Number((await db.query('SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0].n),
    unsuccessfulRunsByError: await countBy(db, 'runs', "status || ': ' || COALESCE(left(error, 80), '-')", "status IN ('failed', 'interrupted')"),
  };
}

interface SessionRecord {
  pid: number;
  run_id: string | null;
  wakeup_id: string | null;
  generation: string | null;
  others_alive: { pid: number; run_id: string | null; wakeup_id: string | null; generation: string | null }[];
}

/** No session of a wakeup started while another session of the same wakeup was alive, on any replica. */
export function checkSessionsOfWakeups(sessionDir: string): string[] {
  if (!existsSync(sessionDir)) return [];
  const violations: string[] = [];
  for (const file of readdirSync(sessionDir).filter((f) => f.endsWith('.json'))) {
    let session: SessionRecord;
    try {
      session = JSON.parse(readFileSync(join(sessionDir, file), 'utf8')) as SessionRecord;
    } catch {
      continue; // written by a session killed mid-write
    }
    for (const other of session.others_alive) {
      if (other.wakeup_id !== null && other.wakeup_id === session.wakeup_id) {
        violations.push(`two sessions of wakeup ${session.wakeup_id} overlapped: run ${session.run_id} (${session.generation}) started while run ${other.run_id} (${other.generation}) was alive`);
      }
    }
  }
  return violations;
}
