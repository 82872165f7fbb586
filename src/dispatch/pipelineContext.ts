import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Run, Wakeup } from '../domain/types.js';
import type { Clock } from '../domain/clock.js';
import type { Fence, Store, Tx } from '../persistence/store.js';
import type { RoutineOutcomes } from '../services/routines/outcomes.js';
import type { WakeupService } from '../services/wakeups.js';
import type { ExecutorSpec } from '../domain/executors.js';
import type { RunObserver } from '../domain/runObserver.js';
import type { Launch, StopLeftoverSessions } from './launch.js';
import type { TranscriptDeps } from './transcript.js';
import type { WakeupTracing } from '../telemetry/tracing.js';

/** Everything the run pipeline needs, passed in whole at construction. */
export interface PipelineContext {
  store: Store;
  clock: Clock;
  config: Config;
  log: Logger;
  wakeups: WakeupService;
  /** Every end of a claimed wakeup (a finished run, a failure, a launch refused) settles the routine run it carries. */
  routineOutcomes: Pick<RoutineOutcomes, 'recordOutcome'>;
  /** The owner this process acts as: recovery after a crash touches only the agents it holds. */
  owner: string;
  /** The fence of an agent's claims and finishes: this owner at the epoch it holds the agent with. */
  fenceOf: (agentId: string) => Fence;
  launch: Launch;
  /** At boot, before unfinished runs are settled: no session of theirs may still run. */
  stopLeftoverSessions: StopLeftoverSessions;
  /** Jitter source for backoff; seeded in simulations. */
  random: () => number;
  /** The base URL agents call back on, e.g. http://127.0.0.1:7700: known once the server listens (OFFICE_PORT=0 picks the port then). */
  apiUrl: () => string | Promise<string>;
  /** Work that follows a finished run inside its transaction: summaries, agent actions, guards. */
  afterRun: (tx: Tx, finished: FinishedRun, now: number) => Promise<void>;
  /** An agent's status changed inside the pipeline (budget pause, loop guard): its actor must hear. */
  agentChanged: (agentId: string) => void;
  /** The shared quota an executor's sessions spend (QuotaService.keyOf); null for command, http and function agents. */
  quotaKeyOf: (spec: ExecutorSpec) => string | null;
  /**
   * A session's limit named when its quota resets: every agent on the quota waits for it
   * (QuotaService.exhaust, which counts the agents sharing the key for the release spread).
   */
  exhaustQuota: (tx: Tx, exhaustion: { key: string; run: Run; resetAt: number; releaseAt: number; reason: string }, now: number) => Promise<void>;
  /** Where runs' transcripts go: the store, and the live feed. */
  transcripts: TranscriptDeps;
  /** Told of each run's start, end and spend once they commit (the operators' histograms). */
  observer: RunObserver;
  /** The claim, run and finish spans of each wakeup's trace (telemetry/tracing.ts). */
  tracing: Pick<WakeupTracing, 'claiming'>;
}

export interface FinishedRun {
  wakeup: Wakeup;
  /** The run as it was just closed (no need to read it back). */
  run: Run;
  runId: string;
  agentId: string;
  taskId: string | null;
  ok: boolean;
  resultJson: Record<string, unknown>;
  error: string | null;
  /** Whether the run changed its task, as its close recorded it; null when not asked (a failed or taskless run). */
  madeProgress: boolean | null;
}
