import type { Run } from './types.js';

/**
 * Told of a run's milestones once they have committed, where they are decided (the run pipeline's
 * start and finish, recovery, a cancel): what operators' histograms are made of. A call is an
 * observation in memory, never a statement, and it must not throw.
 */
export interface RunObserver {
  /** A run's session started, at `run.started_at`; `requestedAt` is when its wakeup was asked for. */
  sessionStarted(run: Pick<Run, 'agent_id' | 'attempt' | 'started_at'>, requestedAt: number): void;
  /** A run ended, in `run.status`, at `run.finished_at`; a run whose session never started has no `started_at`. */
  runEnded(run: Pick<Run, 'agent_id' | 'status' | 'started_at' | 'finished_at'>): void;
  /** A run's spend went into the cost ledger (once per run). */
  costRecorded(agentId: string, costUsd: number): void;
}
