/**
 * Durable result delivery (API.md: routine run `delivery_status`). A routine with a `delivery`
 * webhook hears the outcome of each of its runs. The delivery is recorded (routine_deliveries,
 * `pending`) in the transaction that settles the run, so it survives any death of the process after
 * the run; it is then posted, and retried with backoff (OFFICE_BACKOFF, on the injected clock) until
 * it is `delivered` or gives up `failed`. Each attempt is taken with a claim that expires, like an
 * outbox event: a process that dies while posting leaves it to the next boot, or to another replica.
 * A take claims one delivery, for the one attempt that follows: a claim on deliveries still waiting
 * behind other posts would run out while they wait, and another replica would post them too.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ActivityCode } from '../domain/activityCodes.js';
import { deliveryBody, planDeliveryRetry, type PendingDelivery } from '../domain/delivery.js';
import { provenanceOf } from '../domain/provenance.js';
import type { Routine, RoutineRun, RoutineRunOutcome } from '../domain/routines.js';
import type { Clock } from '../domain/clock.js';
import type { Store, Tx } from '../persistence/store.js';
import { recordDecision } from './activity.js';

/** How long a taken delivery is this process's: longer than its one attempt can take, POST and record. */
export const DELIVERY_CLAIM_MS = 60_000;
/** One attempt's POST gives up after this. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** After the database refused a take or a record: the next look. */
const AFTER_STORE_FAILURE_MS = 5_000;

export interface DeliveryDeps {
  store: Store;
  clock: Clock;
  config: Config;
  log: Logger;
  /** Who claims the deliveries this process makes: the store's owner (its replica, or its boot with SQLite). */
  owner: string;
  random: () => number;
  /**
   * The first drain's takes also take the claims of every other owner, whatever they say: SQLite,
   * where the database lock proves the process that claimed them dead. Replicas wait for their
   * claims to expire.
   */
  takeOverAtStart: boolean;
}

export class DeliveryService {
  private stopped = true;
  private takeOver: boolean;
  private draining: Promise<void> | null = null;
  private drainAgain = false;
  private timer: unknown = null;

  constructor(private readonly deps: DeliveryDeps) {
    this.takeOver = deps.takeOverAtStart;
  }

  /**
   * In the transaction that settles a routine run: its delivery, if the routine has one, is recorded
   * `pending` with its first attempt due now, and made once the transaction commits.
   */
  async scheduleIn(tx: Tx, routine: Routine, run: RoutineRun, outcome: RoutineRunOutcome, now: number): Promise<void> {
    if (!routine.delivery) return;
    const scheduled = await tx.deliveries.schedule({
      routine_run_id: run.id, url: routine.delivery.url, body: deliveryBody(routine.id, run.id, outcome), next_attempt_at: now, created_at: now,
    });
    if (scheduled) tx.afterCommit(() => this.kick());
  }

  /** Makes the deliveries that are due (those an earlier process left too), then waits for the next. */
  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** No new attempt starts; one in flight finishes (bounded by its timeout) and is recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.draining;
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = this.drain().finally(() => { this.draining = null; });
  }

  private async drain(): Promise<void> {
    try {
      do {
        this.drainAgain = false;
        for (let delivery = await this.takeOne(); delivery; delivery = await this.takeOne()) await this.attempt(delivery);
      } while (this.drainAgain && !this.stopped);
      await this.armNext();
    } catch (error) {
      this.deps.log.warn({ err: error }, 'routine result delivery: the database refused a take or a record; looking again shortly');
      this.arm(this.deps.clock.now() + AFTER_STORE_FAILURE_MS);
    }
  }

  /** The delivery due longest, claimed for one attempt; none when nothing is due (or when stopping). */
  private async takeOne(): Promise<PendingDelivery | undefined> {
    if (this.stopped) return undefined;
    const { store, clock, owner, log } = this.deps;
    const now = clock.now();
    const takeOver = this.takeOver;
    const [taken] = await store.transaction((tx) => tx.deliveries.take(owner, { limit: 1, now, claimUntil: now + DELIVERY_CLAIM_MS, takeOver }));
    // Taking over lasts until the dead process's claims are all taken: until a take finds nothing.
    if (!taken) this.takeOver = false;
    else log.debug({ routine_run_id: taken.routine_run_id, attempt: taken.attempts + 1, claimed_until: now + DELIVERY_CLAIM_MS, took_over: takeOver },
      'routine result delivery: claimed for one attempt');
    return taken;
  }

  /** One POST, and its outcome recorded: delivered, a retry after the backoff step, or given up. */
  private async attempt(delivery: PendingDelivery): Promise<void> {
    const { store, clock, config, log, owner, random } = this.deps;
    const error = await post(delivery);
    const attempts = delivery.attempts + 1;
    await store.transaction(async (tx) => {
      const now = clock.now();
      const about = await this.subjectOf(tx, delivery);
      if (error === null) {
        if (await tx.deliveries.finish(delivery.routine_run_id, owner, 'delivered')) {
          await this.decide(tx, about, 'routine_delivery_delivered', `result delivered to ${delivery.url} (attempt ${attempts})`, { attempts }, now, 'info');
        }
        return;
      }
      const plan = planDeliveryRetry(attempts, now, { steps: config.backoffStepsMs, jitter: config.backoffJitter, random });
      if (plan.kind === 'retry') {
        if (await tx.deliveries.retryLater(delivery.routine_run_id, owner, { attempts, next_attempt_at: plan.at, last_error: error })) {
          await this.decide(tx, about, 'routine_delivery_retry_scheduled',
            `result delivery to ${delivery.url} failed (attempt ${attempts}): ${error}; next attempt at ${new Date(plan.at).toISOString()}`,
            { attempts, error, next_attempt_at: new Date(plan.at).toISOString() }, now, 'warn');
        }
        return;
      }
      if (await tx.deliveries.finish(delivery.routine_run_id, owner, 'failed')) {
        await this.decide(tx, about, 'routine_delivery_failed', `result delivery to ${delivery.url} gave up after ${attempts} attempts: ${error}`,
          { attempts, error }, now, 'error');
      }
    }).catch((recordError: unknown) => {
      // Unrecorded, the attempt is made again once its claim expires: a delivery is at least once.
      log.warn({ err: recordError, routine_run_id: delivery.routine_run_id }, 'routine result delivery: could not record an attempt; it is made again');
    });
  }

  /** The routine and workspace an activity entry about this delivery names. */
  private async subjectOf(tx: Tx, delivery: PendingDelivery) {
    const run = await tx.routines.getRun(delivery.routine_run_id);
    const routine = run ? await tx.routines.get(run.routine_id) : undefined;
    return { routine, routineRunId: delivery.routine_run_id };
  }

  private async decide(tx: Tx, about: { routine: Routine | undefined; routineRunId: string }, code: ActivityCode, message: string,
    details: Record<string, unknown>, now: number, level: 'info' | 'warn' | 'error') {
    const { routine } = about;
    // A delivery is its routine run's follow-on work: a cron or webhook fire's is unattended (API.md, "Audit").
    const provenance = provenanceOf(await tx.routines.getRun(about.routineRunId));
    if (!routine) {
      this.deps.log[level]({ code, routine_run_id: about.routineRunId, ...details, ...provenance }, message);
      return;
    }
    await recordDecision(tx, this.deps.log, {
      workspace_id: routine.workspace_id, code, routine_id: routine.id, agent_id: routine.assignee_agent_instance_id, ...provenance,
      message, details: { routine_run_id: about.routineRunId, ...details },
    }, now, level);
  }

  /**
   * A timer for the next due delivery (or expiring claim), and at the latest for the next recovery
   * sweep (OFFICE_RECOVERY_SWEEP_SEC): a delivery another replica recorded after this one last looked,
   * whose replica then died, is found then.
   */
  private async armNext(): Promise<void> {
    const next = await this.deps.store.read((tx) => tx.deliveries.nextDue());
    const sweepSec = this.deps.config.recoverySweepSec;
    const sweep = sweepSec > 0 ? this.deps.clock.now() + sweepSec * 1000 : null;
    const at = next === null ? sweep : sweep === null ? next : Math.min(next, sweep);
    if (at !== null) this.arm(at);
  }

  private arm(at: number): void {
    if (this.stopped) return;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      this.kick();
    }, Math.max(0, at - this.deps.clock.now()));
  }
}

/** Null when the webhook answered 2xx; otherwise what went wrong, for the retry's activity entry. */
async function post(delivery: PendingDelivery): Promise<string | null> {
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(delivery.body),
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? null : `HTTP ${response.status} ${response.statusText}`.trim();
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${(error as Error).message}: ${cause.message}` : (error as Error).message ?? String(error);
  }
}
