import type { RunPipeline } from '../dispatch/pipeline.js';
import type { Supervisor } from '../actors/supervisor.js';
import type { ReplicaMembership } from '../actors/replicas.js';
import type { TriggerSupervisor } from '../actors/triggers.js';
import type { Store } from '../persistence/store.js';

interface MetricSources {
  store: Store;
  supervisor: Supervisor;
  triggers: TriggerSupervisor;
  pipeline: RunPipeline;
  replicas?: ReplicaMembership;
  /** Rows pruned by retention since start, by table (kept in memory: a scrape runs no SQL for them). */
  retention?: { prunedTotals(): Record<string, number> };
}

/** Prometheus text format. The statement counter shows whether an idle process really is idle. */
export async function renderMetrics(sources: MetricSources): Promise<string> {
  const statementsBefore = sources.store.statementsExecuted();
  const storage = sources.store.storageHealth();
  const { wakeups, runs } = await sources.store.query(async (tx) => ({
    wakeups: await tx.wakeups.countByStatus(),
    runs: await tx.runs.countByStatus(),
  }));
  const lines = [
    '# HELP office_sql_statements_total SQL statements executed since start (excluding this scrape).',
    '# TYPE office_sql_statements_total counter',
    `office_sql_statements_total ${statementsBefore}`,
    '# HELP office_agent_actors Agent actors alive.',
    '# TYPE office_agent_actors gauge',
    `office_agent_actors ${sources.supervisor.size}`,
    '# HELP office_trigger_actors Schedule trigger actors alive.',
    '# TYPE office_trigger_actors gauge',
    `office_trigger_actors ${sources.triggers.size}`,
    ...(sources.replicas ? [
      '# HELP office_agents_owned Agents whose lease this replica holds.',
      '# TYPE office_agents_owned gauge',
      `office_agents_owned ${sources.replicas.agentsOwned}`,
      '# HELP office_lease_renewals_total Heartbeats that renewed this replica\'s agent leases (PostgreSQL: one statement each).',
      '# TYPE office_lease_renewals_total counter',
      `office_lease_renewals_total ${sources.replicas.leaseRenewals}`,
      '# HELP office_replicas_live Live replicas on the database, as this replica\'s last heartbeat saw them.',
      '# TYPE office_replicas_live gauge',
      `office_replicas_live ${sources.replicas.liveReplicas.length}`,
    ] : []),
    '# HELP office_runs_in_flight Sessions running in this process.',
    '# TYPE office_runs_in_flight gauge',
    `office_runs_in_flight ${sources.pipeline.runningCount}`,
    '# HELP office_runs_unrecorded Finished runs whose outcome waits in memory for the database to be writable.',
    '# TYPE office_runs_unrecorded gauge',
    `office_runs_unrecorded ${sources.pipeline.unrecordedCount}`,
    '# HELP office_storage_writable 1 while writes reach the database, 0 while they fail (full disk, read-only, I/O error).',
    '# TYPE office_storage_writable gauge',
    `office_storage_writable ${storage.writable ? 1 : 0}`,
    ...(storage.walBytes === null ? [] : [
      '# HELP office_sqlite_wal_bytes Size of the SQLite write-ahead log file.',
      '# TYPE office_sqlite_wal_bytes gauge',
      `office_sqlite_wal_bytes ${storage.walBytes}`,
    ]),
    '# HELP office_wakeups Wakeup requests by status.',
    '# TYPE office_wakeups gauge',
    ...Object.entries(wakeups).map(([status, n]) => `office_wakeups{status="${status}"} ${n}`),
    '# HELP office_runs Runs by status.',
    '# TYPE office_runs gauge',
    ...Object.entries(runs).map(([status, n]) => `office_runs{status="${status}"} ${n}`),
    ...(sources.retention ? [
      '# HELP office_retention_pruned_total Rows retention pruned since start (OFFICE_RETENTION_DAYS), by table.',
      '# TYPE office_retention_pruned_total counter',
      ...Object.entries(sources.retention.prunedTotals()).map(([table, n]) => `office_retention_pruned_total{table="${table}"} ${n}`),
    ] : []),
  ];
  return `${lines.join('\n')}\n`;
}
