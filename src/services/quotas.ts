/**
 * Shared quotas (API.md, "A quota is shared by everyone who uses it"): the quota key of an
 * executor, the agents whose executors share one, and the reset a session's limit recorded.
 */
import { agentEnvironment } from '../domain/agentEnvironment.js';
import { PROGRAM_NAMES, quotaKeyOf } from '../domain/agentPrograms.js';
import { isAgentProgramSpec, resolveExecutor, type ExecutorSpec } from '../domain/executors.js';
import { firstLine } from '../domain/explain.js';
import type { Quota } from '../domain/quotas.js';
import type { Run } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';
import type { ServiceDeps } from './deps.js';
import { raiseInboxItem } from './inbox.js';

export interface QuotaView extends Pick<Quota, 'key' | 'kind' | 'exhausted_until' | 'release_at' | 'reason' | 'warning' | 'warned_at'> {
  /** The agents whose executors have this key. */
  agents: string[];
}

export class QuotaService {
  /**
   * `host` is the scheduler's environment: a key is made of the values the session would see
   * (the allow-listed variables, OFFICE_AGENT_ENV, the executor's `env`), not of the executor alone.
   */
  constructor(private readonly deps: Pick<ServiceDeps, 'config' | 'log'> & { host: Readonly<Record<string, string | undefined>> }) {}

  /** The quota key of an executor's sessions; null for command, http and function agents, which share none. */
  readonly keyOf = (spec: ExecutorSpec): string | null => {
    if (!isAgentProgramSpec(spec)) return null;
    return quotaKeyOf(spec.kind, agentEnvironment({ host: this.deps.host, extraNames: this.deps.config.agentEnvNames, executorEnv: spec.env }));
  };

  /**
   * The live agents whose own executor, or else their workspace's default, has this key. A task's
   * override or a project's default applies to some of an agent's runs only, so it does not count.
   */
  async agentsWithKey(tx: Tx, key: string): Promise<string[]> {
    const ids: string[] = [];
    for (const workspace of await tx.workspaces.list()) {
      for (const agent of await tx.agents.list({ workspace_id: workspace.id })) {
        const resolved = resolveExecutor({ task: null, agent: agent.executor, project: null, workspace: workspace.default_executor });
        if (resolved && this.keyOf(resolved.spec) === key) ids.push(agent.id);
      }
    }
    return ids;
  }

  /** A session's limit named its reset: the quota is exhausted until then for every agent on it. */
  readonly exhaust = async (tx: Tx, e: { key: string; run: Run; resetAt: number; releaseAt: number; reason: string }, now: number): Promise<void> => {
    const kind = e.run.executor_kind ?? 'unknown';
    const sharing = (await this.agentsWithKey(tx, e.key)).length;
    await tx.quotas.exhaust({
      key: e.key, kind, exhausted_until: e.resetAt, release_at: e.releaseAt, reason: firstLine(e.reason), run_id: e.run.id,
      sharing: Math.max(1, sharing), at: now,
    });
    const title = PROGRAM_NAMES[kind as keyof typeof PROGRAM_NAMES]?.title ?? kind;
    this.deps.log.warn({ quota_key: e.key, kind, exhausted_until: new Date(e.resetAt).toISOString(), agents_sharing: sharing, run_id: e.run.id },
      `the ${title} quota is exhausted until its reset; its agents wait for it with no retry spent`);
    if (await tx.quotas.announce(e.key, now)) {
      // Nothing stops silently: a person sees why a subscription's agents all wait, and until when.
      await raiseInboxItem(tx, {
        workspace_id: e.run.workspace_id, kind: 'quota.exhausted', title: `The ${title} quota is exhausted until ${new Date(e.resetAt).toISOString()}`,
        body: `${firstLine(e.reason)}\nThe ${sharing} agent${sharing === 1 ? '' : 's'} on this credential (${e.key}) wait for the reset with no retry spent, then start a few seconds apart.`,
        agent_id: e.run.agent_id, task_id: e.run.task_id, ref_id: e.key,
      }, now);
    }
  };

  /** The quotas exhausted at `now` (all quotas with a record, with `all`), with the agents on each. */
  async list(tx: Tx, now: number, all = false): Promise<QuotaView[]> {
    const quotas = await tx.quotas.list(all ? {} : { exhaustedAt: now });
    const views: QuotaView[] = [];
    for (const quota of quotas) {
      const exhausted = quota.release_at !== null && quota.release_at > now;
      views.push({
        key: quota.key, kind: quota.kind, exhausted_until: exhausted ? quota.exhausted_until : null, release_at: exhausted ? quota.release_at : null,
        reason: exhausted ? quota.reason : null, warning: quota.warning, warned_at: quota.warned_at, agents: await this.agentsWithKey(tx, quota.key),
      });
    }
    return views;
  }
}
