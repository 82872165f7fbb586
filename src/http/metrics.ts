/**
 * `/metrics`, with prom-client. Each scheduler has a Registry of its own (never prom-client's global
 * one), so several schedulers in one process (tests, embedders) keep their figures apart; the process
 * and Node.js figures (collectDefaultMetrics) describe the process, so they live in one registry per
 * process that every scheduler's scrape appends.
 *
 * - Histograms, observed in memory where the decisions happen (RunMetrics, a RunObserver the run
 *   pipeline and the cancel are given): per process, as Prometheus expects, and summed across
 *   replicas by the query.
 * - Gauges of wakeups and runs by status, read from the counter rows their triggers keep (one row per
 *   agent): every replica shows the same figures, and a scrape touches no history table.
 * - Another component's figures join by registering on the scheduler's registry
 *   (`new Counter({ …, registers: [scheduler.metrics] })`).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RunPipeline } from '../dispatch/pipeline.js';
import type { Supervisor } from '../actors/supervisor.js';
import type { ReplicaMembership } from '../actors/replicas.js';
import type { TriggerSupervisor } from '../actors/triggers.js';
import type { RunObserver } from '../domain/runObserver.js';
import { RUN_STATUSES, WAKEUP_STATUSES, type Run } from '../domain/types.js';
import type { Store } from '../persistence/store.js';

/**
 * From a wakeup's request to its session's start: a wakeup that is claimed at once starts in
 * milliseconds; the coalescing hold, a cooldown, a busy slot or a daily cap make it seconds to hours.
 */
const WAKEUP_TO_START_BUCKETS_S = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14_400];
/** An agent session lasts from under a second (a function agent) to hours (a coding agent's long task). */
const RUN_DURATION_BUCKETS_S = [0.1, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14_400];
/** What one run spends, in USD: a cent for a short answer, dollars for a long session of a large model. */
const RUN_COST_BUCKETS_USD = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25];

/**
 * How many agents get a cost series of their own in one process; the spend of any agent after them
 * is counted under agent_id="other". Each agent's histogram is 14 series, so this bounds the family
 * at about 1,400 series however many agents a deployment creates; a deployment past it reads the
 * per-agent spend from the API (budgets, stats), which keep every agent's.
 */
export const COST_AGENT_LABELS = 100;
export const OTHER_AGENTS = 'other';

const SECOND_MS = 1000;

/** From one instant to a later one, in seconds (0 if the clock stepped back); null for a time that is no number. */
function secondsBetween(fromMs: number, toMs: number): number | null {
  const ms = toMs - fromMs;
  return Number.isFinite(ms) ? Math.max(0, ms) / SECOND_MS : null;
}

/** The histograms of runs, observed after each milestone commits (RunObserver). */
export class RunMetrics implements RunObserver {
  private readonly wakeupToStart: Histogram;
  private readonly duration: Histogram<'status'>;
  private readonly cost: Histogram<'agent_id'>;
  private readonly costAgents = new Set<string>();

  constructor(registry: Registry) {
    this.wakeupToStart = new Histogram({
      name: 'office_wakeup_to_start_seconds',
      help: 'From a wakeup\'s request to its run\'s session start, for first attempts (a retry waits for the backoff the scheduler chose).',
      buckets: WAKEUP_TO_START_BUCKETS_S, registers: [registry],
    });
    this.duration = new Histogram({
      name: 'office_run_duration_seconds',
      help: 'How long runs\' sessions ran, from their start to their end, by how the run ended (runs whose session never started are not counted).',
      labelNames: ['status'], buckets: RUN_DURATION_BUCKETS_S, registers: [registry],
    });
    this.cost = new Histogram({
      name: 'office_run_cost_usd',
      help: `What runs spent (as recorded in the cost ledger), by agent; agents after the first ${COST_AGENT_LABELS} of this process count as agent_id="${OTHER_AGENTS}".`,
      labelNames: ['agent_id'], buckets: RUN_COST_BUCKETS_USD, registers: [registry],
    });
  }

  sessionStarted(run: Pick<Run, 'agent_id' | 'attempt' | 'started_at'>, requestedAt: number): void {
    if (run.attempt !== 1 || run.started_at === null) return;
    const seconds = secondsBetween(requestedAt, run.started_at);
    if (seconds !== null) this.wakeupToStart.observe(seconds);
  }

  runEnded(run: Pick<Run, 'agent_id' | 'status' | 'started_at' | 'finished_at'>): void {
    if (run.started_at === null || run.finished_at === null) return;
    const seconds = secondsBetween(run.started_at, run.finished_at);
    if (seconds !== null) this.duration.observe({ status: run.status }, seconds);
  }

  costRecorded(agentId: string, costUsd: number): void {
    // prom-client throws on a value that is no number; an observer must never fail the run it observes.
    if (Number.isFinite(costUsd)) this.cost.observe({ agent_id: this.costLabelOf(agentId) }, costUsd);
  }

  private costLabelOf(agentId: string): string {
    if (this.costAgents.has(agentId)) return agentId;
    if (this.costAgents.size >= COST_AGENT_LABELS) return OTHER_AGENTS;
    this.costAgents.add(agentId);
    return agentId;
  }
}

export interface MetricSources {
  store: Store;
  supervisor: Supervisor;
  triggers: TriggerSupervisor;
  pipeline: RunPipeline;
  replicas?: ReplicaMembership;
  /** Rows pruned by retention since start, by table (kept in memory: a scrape runs no SQL for them). */
  retention?: { prunedTotals(): Record<string, number> };
}

/** The process's own figures (CPU, memory, event loop lag, GC, handles): one collector per process. */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A gauge whose value is read from the scheduler's parts at each scrape (no SQL). */
function readGauge(registry: Registry, name: string, help: string, read: () => number): Gauge {
  return new Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
}

/**
 * The scheduler's gauges and its statement counter, on `registry` beside the run histograms. A scrape
 * runs two statements (the sums of the counter rows), and reports the statements executed before it.
 */
export class SchedulerMetrics {
  private readonly statements: Counter;
  private readonly wakeups: Gauge<'status'>;
  private readonly runs: Gauge<'status'>;

  constructor(private readonly registry: Registry, private readonly sources: MetricSources) {
    const { store, supervisor, triggers, pipeline, replicas } = sources;
    this.statements = new Counter({ name: 'office_sql_statements_total', help: 'SQL statements executed since start (excluding this scrape).', registers: [registry] });
    readGauge(registry, 'office_agent_actors', 'Agent actors alive.', () => supervisor.size);
    readGauge(registry, 'office_trigger_actors', 'Schedule trigger actors alive.', () => triggers.size);
    if (replicas) {
      readGauge(registry, 'office_agents_owned', 'Agents whose lease this replica holds.', () => replicas.agentsOwned);
      new Counter({
        name: 'office_lease_renewals_total', help: 'Heartbeats that renewed this replica\'s agent leases (PostgreSQL: one statement each).', registers: [registry],
        collect() { this.reset(); this.inc(replicas.leaseRenewals); },
      });
      readGauge(registry, 'office_replicas_live', 'Live replicas on the database, as this replica\'s last heartbeat saw them.', () => replicas.liveReplicas.length);
    }
    if (sources.retention) {
      const retention = sources.retention;
      new Counter({
        name: 'office_retention_pruned_total', help: 'Rows retention pruned since start (OFFICE_RETENTION_DAYS), by table.', labelNames: ['table'], registers: [registry],
        collect() {
          this.reset();
          for (const [table, n] of Object.entries(retention.prunedTotals())) this.inc({ table }, n);
        },
      });
    }
    readGauge(registry, 'office_runs_in_flight', 'Sessions running in this process.', () => pipeline.runningCount);
    readGauge(registry, 'office_runs_unrecorded', 'Finished runs whose outcome waits in memory for the database to be writable.', () => pipeline.unrecordedCount);
    readGauge(registry, 'office_storage_writable', '1 while writes reach the database, 0 while they fail (full disk, read-only, I/O error).',
      () => (store.storageHealth().writable ? 1 : 0));
    if (store.storageHealth().walBytes !== null) {
      readGauge(registry, 'office_sqlite_wal_bytes', 'Size of the SQLite write-ahead log file.', () => store.storageHealth().walBytes ?? 0);
    }
    this.wakeups = new Gauge({
      name: 'office_wakeups', registers: [registry], labelNames: ['status'],
      help: 'Wakeup requests by status (kept counters: an ended wakeup stays counted once history is pruned).',
    });
    this.runs = new Gauge({
      name: 'office_runs', registers: [registry], labelNames: ['status'],
      help: 'Runs by status (kept counters: an ended run stays counted once history is pruned).',
    });
  }

  /** Prometheus text format: this scheduler's figures, then the process's. */
  async render(): Promise<string> {
    const { store } = this.sources;
    const statementsBefore = store.statementsExecuted();
    const counts = await store.query(async (tx) => ({ wakeups: await tx.wakeups.countByStatus(), runs: await tx.runs.countByStatus() }));
    this.statements.reset();
    this.statements.inc(statementsBefore);
    for (const status of WAKEUP_STATUSES) this.wakeups.set({ status }, counts.wakeups[status] ?? 0);
    for (const status of RUN_STATUSES) this.runs.set({ status }, counts.runs[status] ?? 0);
    return `${await this.registry.metrics()}\n${await processMetrics().metrics()}`;
  }
}
