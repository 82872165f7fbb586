/**
 * The recovery sweep: assigned TODO tasks inside the workspace's lookback window whose current
 * assignee has no queued, claimed, waiting or finished (with a run) wakeup for them since the task
 * was last assigned get a `task_assigned` wakeup. It runs at boot, then every
 * OFFICE_RECOVERY_SWEEP_SEC, and for one agent when it is resumed; each workspace is swept in one
 * transaction, so two sweeps can never dispatch the same task twice. A process sweeps only the tasks
 * of agents it owns (with SQLite, every agent).
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { budgetVerdict } from '../domain/budgets.js';
import { recoveryKey } from '../domain/idempotency.js';
import { CAP_REACHED, provenanceOf } from '../domain/provenance.js';
import type { Agent, Task, Wakeup, Workspace } from '../domain/types.js';
import type { Clock } from '../domain/clock.js';
import type { Store, Tx } from '../persistence/store.js';
import { recordDecision } from '../services/activity.js';
import { budgetStandings, dailyCapOf } from '../services/budgetStanding.js';
import type { WakeupService } from '../services/wakeups.js';

const HOUR_MS = 3_600_000;

export interface RecoveryDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  config: Config;
  wakeups: WakeupService;
  /** Whether this process holds the agent's lease; every agent when absent (a sweeper that owns nothing in particular). */
  owns?: (agentId: string) => boolean;
}

export class RecoverySweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly deps: RecoveryDeps) {}

  /** Sweeps once now and then on the configured interval (0 turns the interval off). */
  start(): Promise<number> {
    const first = this.sweep();
    if (this.deps.config.recoverySweepSec > 0) {
      this.timer = setInterval(() => void this.sweep(), this.deps.config.recoverySweepSec * 1000);
      this.timer.unref();
    }
    return first;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Sweeps the tasks of one agent now: a resumed agent's open tasks are dispatched at once, not at
   * the next interval (its wakeups that ended while it was paused are not replayed). Whichever
   * replica the resume came through sweeps, holder of the agent or not: the wakeups it writes reach
   * the holder like any other, and their recovery keys keep a second sweep from doubling them.
   */
  async sweepAgent(agentId: string): Promise<number> {
    try {
      const workspace = await this.deps.store.read(async (tx) => {
        const agent = await tx.agents.get(agentId);
        return agent ? tx.workspaces.get(agent.workspace_id) : undefined;
      });
      return workspace ? await this.deps.store.transaction((tx) => this.sweepWorkspace(tx, workspace, agentId)) : 0;
    } catch (error) {
      this.deps.log.error({ err: error, agent_id: agentId }, 'recovery sweep of a resumed agent failed; the next sweep picks its tasks up');
      return 0;
    }
  }

  /** One sweep over every workspace; a sweep already in progress is joined, not doubled. */
  sweep(): Promise<number> {
    this.running ??= this.sweepAll().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async sweepAll(): Promise<number> {
    let total = 0;
    try {
      const workspaces = await this.deps.store.read((tx) => tx.workspaces.list());
      for (const workspace of workspaces) {
        total += await this.deps.store.transaction((tx) => this.sweepWorkspace(tx, workspace));
      }
    } catch (error) {
      this.deps.log.error({ err: error }, 'recovery sweep failed; it runs again at the next interval');
    }
    return total;
  }

  private async sweepWorkspace(tx: Tx, workspace: Workspace, agentId?: string): Promise<number> {
    const now = this.deps.clock.now();
    const since = now - workspace.recovery_lookback_hours * HOUR_MS;
    let dispatched = 0;
    for (const task of await tx.tasks.recoveryCandidates(since, workspace.id, agentId)) {
      // The periodic sweep leaves each agent to the replica holding it.
      if (agentId === undefined && this.deps.owns && !this.deps.owns(task.assignee_agent_instance_id!)) continue;
      const agent = await tx.agents.get(task.assignee_agent_instance_id!);
      if (!agent || (await this.skipReason(tx, agent, task, now))) continue;
      const outcome = await this.recover(tx, agent, task, now);
      // A live recovery key means this task was already recovered: nothing is dispatched now. A
      // refusal at a routine-run cap was logged as such; a later sweep tries again.
      if (outcome.kind === 'duplicate' || outcome.kind === 'refused') continue;
      await recordDecision(tx, this.deps.log, {
        workspace_id: workspace.id, code: 'recovery_dispatch', agent_id: agent.id, task_id: task.id, ...provenanceOf(task),
        message: `recovered task ${task.id} for ${agent.name}`, details: { task_id: task.id, agent: agent.id },
      }, now);
      dispatched++;
    }
    await recordDecision(tx, this.deps.log, {
      workspace_id: workspace.id, code: 'recovery_sweep_complete', message: `recovery sweep dispatched ${dispatched}`,
      details: { dispatched_count: dispatched },
    }, now);
    return dispatched;
  }

  private async recover(tx: Tx, agent: Agent, task: Task, now: number) {
    const request = {
      agent_id: agent.id, source: 'task_assigned' as const, reason: 'recovered: assigned task never started',
      payload: { task_id: task.id }, idempotency_key: recoveryKey(task.id, task.updated_at), recovered: true,
      // A task made by unattended work is recovered for the same person, under the same caps.
      provenance: provenanceOf(task),
    };
    const outcome = await this.deps.wakeups.enqueue(tx, request, now);
    // A live key means the task was already recovered, unless that recovery ended with no run
    // because its agent was paused, or was refused at a routine-run cap: it never worked on the
    // task, so the key is freed for this one.
    if (outcome.kind !== 'duplicate' || !neverRan(outcome.wakeup)) return outcome;
    await tx.wakeups.retireKey(outcome.wakeup.id);
    return this.deps.wakeups.enqueue(tx, request, now);
  }

  /** The spec's per-candidate guards: paused or stopped agent, budget exhausted (queued work is excluded by the query). */
  private async skipReason(tx: Tx, agent: Agent, task: Task, now: number): Promise<string | null> {
    if (agent.status === 'paused' || agent.status === 'stopped' || agent.deleted_at !== null) return 'agent_unavailable';
    // The same budgets and caps the pipeline checks: dispatching work it would refuse helps nobody.
    if (budgetVerdict(await budgetStandings(tx, agent, task.project_id, now)).kind === 'block') return 'budget_exhausted';
    return dailyCapOf(tx, agent, now);
  }
}

/** A recovery that ended without working on its task: its agent was paused, or a routine-run cap refused it. */
function neverRan(wakeup: Wakeup): boolean {
  if (wakeup.run_id !== null) return false;
  return wakeup.status === 'finished' || (wakeup.status === 'skipped' && wakeup.skip_reason === CAP_REACHED);
}
