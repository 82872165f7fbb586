/**
 * processWakeup: prepare (claim and every guard, one transaction), launch (outside any
 * transaction), finish (one transaction). The agent actor hears the outcome as DISPATCH_ENDED.
 */
import { backoffDelayMs } from '../domain/backoff.js';
import type { Run, Wakeup } from '../domain/types.js';
import { STORAGE_RETRY_STEPS_MS, isStorageUnavailable } from '../persistence/storageUnavailable.js';
import type { Fence } from '../persistence/store.js';
import type { LaunchResult, LeftoverSession, SessionIdentity } from './launch.js';
import { finishRun, handleWakeupFailure, lateSpendOf, recordCost, type FinishOutcome, type RunResult } from './finish.js';
import type { PipelineContext } from './pipelineContext.js';
import { prepareDispatch, type Preparation } from './prepare.js';
import { TranscriptRecorder } from './transcript.js';

export interface DispatchOutcome {
  ranSession: boolean;
  retryAt: number | null;
  /** Its program's shared quota is exhausted: the agent actor claims nothing of this agent before then. */
  holdUntil?: number | null;
  /** False when the claim found nothing: the wakeup was gone, or its agent's lease is not this fence's. */
  claimed?: boolean;
}

/** The text a run left `running` by a dead process carries into failure handling. */
export const INTERRUPTED_ERROR = 'interrupted: the scheduler stopped while the run was in progress';

/** Why this process stopped a session: the text its run's ending (or its late result) carries. */
const STOP_REASONS = {
  shutdown: INTERRUPTED_ERROR,
  cancelled: 'stopped: its run was cancelled',
  lost: 'interrupted: this replica lost the agent while the run was in progress',
} as const;
type StopReason = keyof typeof STOP_REASONS;

const stopReasonOf = (signal: AbortSignal): string => STOP_REASONS[(signal.reason as StopReason) in STOP_REASONS ? (signal.reason as StopReason) : 'shutdown'];

/** A session this process runs: its agent, how to stop it, and its end. */
interface InFlight {
  agentId: string;
  controller: AbortController;
  done: Promise<unknown>;
}

export class RunPipeline {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly processing = new Set<Promise<unknown>>();
  /** Runs whose outcome waits for the database to be writable, by run id: `stop` ends the wait at shutdown. */
  private readonly unrecorded = new Map<string, { stop: () => void }>();
  private closing = false;

  constructor(private readonly ctx: PipelineContext) {}

  get runningCount(): number {
    return this.inFlight.size;
  }

  get unrecordedCount(): number {
    return this.unrecorded.size;
  }

  /** Claims and runs one wakeup. After close() nothing new is claimed: the row stays queued for the next boot. */
  process(wakeupId: string, fence: Fence): Promise<DispatchOutcome> {
    if (this.closing) return Promise.resolve({ ranSession: false, retryAt: null });
    const work = this.processOne(wakeupId, fence);
    this.processing.add(work);
    void work.finally(() => this.processing.delete(work)).catch(() => undefined);
    return work;
  }

  private async processOne(wakeupId: string, fence: Fence): Promise<DispatchOutcome> {
    const { store, clock } = this.ctx;
    const claimSpan = this.ctx.tracing.claiming();
    const prepared: Preparation = await store.transaction((tx) => prepareDispatch(this.ctx, tx, wakeupId, clock.now(), fence));
    const runSpan = claimSpan.claimed(prepared);
    if (prepared.kind === 'gone') return { ranSession: false, retryAt: null, claimed: false };
    if (prepared.kind === 'deferred') return { ranSession: false, retryAt: prepared.until, holdUntil: prepared.holdAgent ? prepared.until : null };
    if (prepared.kind === 'waiting') return { ranSession: false, retryAt: null };
    if (prepared.kind === 'ended') {
      if (prepared.agentChanged) this.ctx.agentChanged(prepared.wakeup.agent_id);
      return { ranSession: false, retryAt: null };
    }
    const { run } = prepared;
    if (this.ctx.fenceOf(prepared.agent.id).epoch !== fence.epoch) {
      // The agent was handed over or lost while the claim committed: no session starts here. Its new
      // owner finds the run unfinished and settles it (interrupted, then retried) like any left behind.
      this.ctx.log.warn({ run_id: run.id, wakeup_id: prepared.wakeup.id, agent_id: prepared.agent.id, epoch: fence.epoch },
        'not launching a claimed run: this process no longer holds its agent');
      runSpan.end(null);
      return { ranSession: false, retryAt: null };
    }
    const controller = new AbortController();
    const transcript = new TranscriptRecorder(this.ctx.transcripts, run.id, prepared.agent.id);
    // A queued run starts only if it is still queued when its session is about to start: a cancel
    // (or a new owner's recovery) before then leaves it ended, and no session starts.
    let starting: Promise<number | null> | null = null;
    const start = () => (starting ??= this.markStarted(run, prepared.wakeup.requested_at));
    // A function agent's run starts with its claim, which has committed.
    if (run.status === 'running') this.ctx.observer.sessionStarted(run, prepared.wakeup.requested_at);
    // Registered before the launch: a cancel between the claim and the spawn finds the session to stop.
    // `done`: the session's end, which a shutdown waits for (through its grace period) before it aborts.
    let launchEnded!: () => void;
    const entry: InFlight = { agentId: prepared.agent.id, controller, done: new Promise<void>((resolve) => { launchEnded = resolve; }) };
    this.inFlight.set(run.id, entry);
    try {
      // A session launched while the server is still starting waits for the URL it calls back on.
      const apiUrl = await this.ctx.apiUrl();
      const launched = this.ctx.launch(prepared.spec, {
        runId: run.id,
        wakeupId: prepared.wakeup.id,
        agentId: prepared.agent.id,
        workspaceId: prepared.agent.workspace_id,
        taskId: run.task_id,
        source: prepared.wakeup.source,
        prompt: run.assembled_prompt,
        context: run.context_snapshot,
        apiUrl,
        runToken: prepared.token,
        sessionKey: run.session_key,
        signal: controller.signal,
        ...(run.status === 'queued' ? { mayStart: async () => (await start()) !== null } : {}),
        onSession: (session) => void this.recordSession(run, session),
        onTranscript: transcript.add,
        resume: prepared.resume,
        traceContext: runSpan.carrier,
      });
      // An executor should answer with a failed result, never throw; if one does, it is a failed run all the same.
      const result: LaunchResult | { ok: false; resultJson: Record<string, unknown>; error: string; started?: undefined } =
        await launched.catch((error: unknown) => ({ ok: false, resultJson: {}, error: `executor error: ${String(error)}` }));
      // Read at once: a session that ended on its own before a shutdown abort is not interrupted.
      const interrupted = controller.signal.aborted;
      launchEnded();
      await transcript.flush();
      // Nothing started: the run ended before its session could (cancelled, or settled by a new owner), and whoever ended it ended its wakeup.
      if (result.started === false) return { ranSession: false, retryAt: null };
      const recorded: RunResult = {
        ok: result.ok && !interrupted,
        resultJson: result.resultJson,
        error: interrupted ? stopReasonOf(controller.signal) : result.error,
        interrupted,
        report: 'report' in result ? result.report : undefined,
        quotaKey: prepared.quotaKey,
        resumedSessionId: prepared.resume?.sessionId ?? null,
        setupError: 'setupError' in result ? result.setupError : undefined,
      };
      const startedAt = starting ? await starting : run.started_at;
      // The run's close follows its transcript: a reader of an ended run sees all it printed.
      const outcome = await runSpan.finishing(() => this.finish({ ...prepared.wakeup, run_id: run.id }, { ...run, status: 'running', started_at: startedAt }, recorded, clock.now(), fence));
      runSpan.end(recorded);
      return { ranSession: true, retryAt: outcome?.retryAt ?? null };
    } finally {
      launchEnded();
      this.inFlight.delete(run.id);
      runSpan.end(null);
    }
  }

  /**
   * Records the result, as of `endedAt`. If the database cannot be written (a full disk, a read-only
   * file), the outcome stays in memory and the same finish is retried on a capped backoff until it
   * is recorded; the agent actor hears nothing meanwhile, so it claims no new work for this slot.
   * If the transaction fails otherwise (an action that cannot apply, a constraint), the run is still
   * closed in a second one, without follow-ups, so nothing stays claimed or running.
   * Null when the pipeline closes before the outcome could be recorded: the next boot marks the run
   * interrupted.
   */
  private async finish(wakeup: Wakeup, run: Run, result: RunResult, endedAt: number, fence: Fence): Promise<FinishOutcome | null> {
    const { store, log } = this.ctx;
    const wakeupId = wakeup.id;
    let recording = result;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const outcome = await store.transaction((tx) => finishRun(this.ctx, tx, wakeup, run, recording, endedAt, fence));
          if (attempt > 0) log.info({ run_id: run.id, wakeup_id: wakeupId, attempts: attempt + 1 }, 'recorded the run outcome once the database could be written again');
          return outcome;
        } catch (error) {
          if (isStorageUnavailable(error)) {
            if (!(await this.waitToRecordAgain(wakeupId, run, recording, attempt, error))) return null;
            continue;
          }
          if (recording.followUps === false) throw error;
          log.error({ err: error, run_id: run.id, wakeup_id: wakeupId }, 'recording the run failed; closing it without follow-ups');
          recording = {
            ok: false, resultJson: result.resultJson, followUps: false,
            error: `the run's result could not be recorded: ${(error as Error).message}`,
          };
        }
      }
    } finally {
      this.unrecorded.delete(run.id);
    }
  }

  /** Waits out one backoff step; false when the pipeline closes first (the outcome is then logged, not recorded). */
  private async waitToRecordAgain(wakeupId: string, run: Run, result: RunResult, attempt: number, error: unknown): Promise<boolean> {
    const { clock, log } = this.ctx;
    const context = { run_id: run.id, wakeup_id: wakeupId, agent_id: run.agent_id, outcome_ok: result.ok, outcome_error: result.error };
    if (!this.closing) {
      const delay = backoffDelayMs(attempt, STORAGE_RETRY_STEPS_MS, 0, this.ctx.random);
      log.warn({ ...context, err: error, attempt: attempt + 1, retry_in_ms: delay },
        'the database cannot be written: keeping the run outcome in memory and trying again');
      const waited = await new Promise<boolean>((resolve) => {
        const handle = clock.setTimeout(() => resolve(true), delay);
        this.unrecorded.set(run.id, { stop: () => { clock.clearTimeout(handle); resolve(false); } });
      });
      if (waited) return true;
    }
    log.error({ ...context, err: error, result_json: result.resultJson },
      'shutting down with a run outcome that could not be recorded (the database cannot be written); the next start marks the run interrupted');
    return false;
  }

  /** The queued run becomes running as its session starts; null when it had ended (no session may start). */
  private async markStarted(run: Run, requestedAt: number): Promise<number | null> {
    const at = this.ctx.clock.now();
    const started = await this.ctx.store.transaction((tx) => tx.runs.markStarted(run.id, at));
    if (started) this.ctx.observer.sessionStarted({ ...run, started_at: at }, requestedAt);
    else this.ctx.log.info({ run_id: run.id, wakeup_id: run.wakeup_id, agent_id: run.agent_id }, 'not starting a session: its run ended before it could start (cancelled, or settled by another owner)');
    return started ? at : null;
  }

  /**
   * The sessions running here whose runs a person cancelled are stopped: the cancel is a row, and
   * its signal between replicas may have been lost (a dropped listening connection). One statement,
   * and only while sessions run here.
   */
  async stopCancelledSessions(): Promise<void> {
    const ids = [...this.inFlight.keys()];
    if (ids.length === 0) return;
    try {
      const cancelled = await this.ctx.store.read((tx) => tx.runs.cancelledAmong(ids));
      for (const runId of cancelled) this.stopSession(runId);
    } catch (error) {
      this.ctx.log.warn({ err: error, runs: ids.length }, 'could not read whether the runs running here were cancelled; the next heartbeat asks again');
    }
  }

  /** The session's pid, group and start time go on the run: what the next boot checks (recoverAfterCrash). */
  private async recordSession(run: Run, session: SessionIdentity): Promise<void> {
    const { store, log } = this.ctx;
    await store.transaction(async (tx) => tx.runs.recordSession(run.id, {
      session_pid: session.pid, session_pgid: session.pgid, session_start_time: session.startTime,
    })).catch((error: unknown) => log.warn({ err: error, run_id: run.id, pid: session.pid }, 'could not record the session on its run'));
  }

  /** Whether a session of this agent runs in this process now. */
  runsFor(agentId: string): boolean {
    for (const entry of this.inFlight.values()) if (entry.agentId === agentId) return true;
    return false;
  }

  /**
   * A person cancelled this run (its row already says `cancelled`, its wakeup too): its session, if
   * it runs here, is stopped the way a timeout or a shutdown stops it. The result that follows is
   * fenced out by the cancel (runs.close finds the run no longer running): it is kept as the run's
   * late_result_json and never makes it succeeded. False when no session of the run runs here.
   */
  stopSession(runId: string): boolean {
    const entry = this.inFlight.get(runId);
    if (!entry) return false;
    if (!entry.controller.signal.aborted) {
      entry.controller.abort('cancelled' satisfies StopReason);
      this.ctx.log.info({ run_id: runId, agent_id: entry.agentId }, 'stopping a session: its run was cancelled');
    }
    return true;
  }

  /**
   * This process lost these agents: their sessions are stopped (the abort path). Each ends
   * `interrupted`, and its finish, fenced out, only keeps the result as late_result_json: the new
   * owner settles the run. Returns how many sessions were told to stop.
   */
  abortFor(agentIds: ReadonlySet<string>): number {
    let aborted = 0;
    for (const [runId, entry] of this.inFlight) {
      if (!agentIds.has(entry.agentId) || entry.controller.signal.aborted) continue;
      entry.controller.abort('lost' satisfies StopReason);
      aborted++;
      this.ctx.log.warn({ run_id: runId, agent_id: entry.agentId }, 'stopping a session: this replica lost its agent');
    }
    return aborted;
  }

  /**
   * At boot, or for the agents just taken over from a dead replica (`agentIds`): runs left
   * `running` become `interrupted` and their wakeups go through failure handling as one attempt;
   * claims that never launched go back to the queue ("never started" is not "started and lost").
   * First, any session of those runs that still runs here is stopped: two sessions of one wakeup
   * never overlap. Each close is fenced by this owner's lease of the agent.
   */
  async recoverAfterCrash(agentIds?: readonly string[]): Promise<{ interrupted: number; requeued: number }> {
    const { store, clock, log } = this.ctx;
    if (agentIds?.length === 0) return { interrupted: 0, requeued: 0 };
    const unfinished = await store.read((tx) => tx.runs.listUnfinished(this.ctx.owner, agentIds));
    await this.ctx.stopLeftoverSessions(unfinished.map(leftoverSession), log);
    return store.transaction(async (tx) => {
      const now = clock.now();
      let interrupted = 0;
      let requeued = 0;
      for (const run of await tx.runs.listUnfinished(this.ctx.owner, agentIds)) {
        const wakeup = await tx.wakeups.get(run.wakeup_id);
        if (run.status === 'queued' || !wakeup) {
          // In the status it was read in: a session that started meanwhile is not cancelled under it.
          await tx.runs.abandon(run.id, run.status === 'queued' ? 'queued' : 'running', 'never launched before the scheduler stopped', now);
          continue;
        }
        // A session fenced out before this settles the run may have reported what it spent.
        const spend = lateSpendOf(run);
        const closed = await tx.runs.close(run.id, { status: 'interrupted', finished_at: now, error: INTERRUPTED_ERROR, result_json: run.result_json, ...spend }, null,
          this.ctx.fenceOf(run.agent_id));
        if (!closed.closed) continue;
        if (spend.cost_usd !== null && spend.cost_usd !== undefined && spend.cost_usd > 0) await recordCost(this.ctx, tx, run, spend.cost_usd, now);
        tx.afterCommit(() => this.ctx.observer.runEnded({ agent_id: run.agent_id, status: 'interrupted', started_at: run.started_at, finished_at: now }));
        this.ctx.wakeups.offerToCheckoutWaiters(tx, closed.checkoutWaiters);
        const interruptedRun: Run = { ...run, status: 'interrupted' };
        if (wakeup.status === 'claimed') {
          await handleWakeupFailure(this.ctx, tx, wakeup, interruptedRun, { ok: false, resultJson: {}, error: INTERRUPTED_ERROR, interrupted: true }, now);
        }
        interrupted++;
      }
      // A claim whose process died before launch: the claim query is the truth, so it is queued again.
      for (const wakeup of await tx.wakeups.requeueClaimed(this.ctx.owner, agentIds)) {
        if (wakeup.task_id) await this.ctx.wakeups.releaseCheckout(tx, wakeup.task_id, wakeup.id);
        requeued++;
      }
      await tx.agents.idleLeftWorking(this.ctx.owner, agentIds ?? null);
      if (interrupted || requeued) log.warn({ interrupted, requeued, agents: agentIds?.length ?? 'all' }, 'recovered work left behind by a stopped process');
      return { interrupted, requeued };
    });
  }

  /** On shutdown: nothing new is claimed; sessions still running after the grace period are aborted. */
  async drain(graceMs: number): Promise<void> {
    this.closing = true;
    // An outcome waiting for storage gives up now, with a loud log line, instead of holding shutdown.
    for (const waiting of this.unrecorded.values()) waiting.stop();
    // A claim already in preparation either launches (and is drained below) or ends without a run.
    await Promise.race([Promise.allSettled([...this.processing]), new Promise((resolve) => setTimeout(resolve, 50).unref())]);
    const pending = [...this.inFlight.values()];
    if (pending.length === 0) return;
    const timeout = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.allSettled(pending.map((p) => p.done)), timeout]);
    for (const { controller } of this.inFlight.values()) controller.abort('shutdown' satisfies StopReason);
    await Promise.allSettled([...this.inFlight.values()].map((p) => p.done));
  }
}

/** A run's session as the run recorded it (command runs that started), or found by its run id. */
function leftoverSession(run: Run): LeftoverSession {
  const session = run.session_pid == null
    ? null
    : { pid: run.session_pid, pgid: run.session_pgid ?? run.session_pid, startTime: run.session_start_time ?? null };
  return { runId: run.id, wakeupId: run.wakeup_id, session };
}
