/**
 * The routine-run cap counters (migration 0013): one row per scope, the deployment's and each
 * agent's, with the number of routine runs (0013's holders) and unattended follow-on wakeups
 * (0020's holders) that hold a slot there. Shared by the routines' statements (routines.ts) and the
 * enqueue's (wakeups.ts). Every statement that locks several of them locks the deployment's first,
 * then the agents' by scope (migration 0028), so that no two wait for each other.
 */
import type { SqlText } from './dialect.js';

export const SLOTS = 'office_routine_run_slots';
export const DEPLOYMENT_SCOPE = 'deployment';
export const AGENT_SCOPE = 'agent:';
export const agentScope = (agentId: string) => `${AGENT_SCOPE}${agentId}`;

/** The one order every statement locks the counters in. */
export const SLOT_LOCK_ORDER = `scope <> '${DEPLOYMENT_SCOPE}', scope`;

/** Records that a wakeup holds a slot of its agent's: its end frees it (trigger wakeup_slots_freed, migration 0020). */
export const HOLD_WAKEUP_SLOT = 'INSERT INTO office_wakeup_slot_holders (wakeup_id, agent_id) VALUES (?, ?)';

/** The deployment's scope and the agent's (in the parameter `agentParam`), as rows of a `scope` column. */
const scopesOf = (dialect: SqlText, agentParam: string) =>
  `(SELECT '${DEPLOYMENT_SCOPE}' AS scope UNION ALL SELECT '${AGENT_SCOPE}' || ${dialect.cast(agentParam, 'text')}) scopes`;

/**
 * Adds `delta` to both counters of the agent in `agentParam`, making a missing one, in the lock order.
 * With 0 it changes nothing and only locks both (PostgreSQL), until the transaction ends.
 */
export const raiseBothBy = (dialect: SqlText, agentParam: string, delta: 0 | 1) =>
  `INSERT INTO ${SLOTS} (scope, active) SELECT scope, ${delta} FROM ${scopesOf(dialect, agentParam)} WHERE true${dialect.lockOrder(SLOT_LOCK_ORDER)}
   ON CONFLICT (scope) DO UPDATE SET active = ${SLOTS}.active + ${delta}`;

/**
 * SQL: whether a new slot of the agent in `agentParam` finds either counter full: the deployment's
 * at `deploymentCap`, the agent's at `agentCap` (SQL; 0 or NULL: no cap of its own).
 */
export const eitherCapFull = (dialect: SqlText, agentParam: string, deploymentCap: string, agentCap: string) =>
  `(COALESCE((SELECT active FROM ${SLOTS} WHERE scope = '${DEPLOYMENT_SCOPE}'), 0) >= ${deploymentCap}
    OR (COALESCE(${agentCap}, 0) > 0
      AND COALESCE((SELECT active FROM ${SLOTS} WHERE scope = '${AGENT_SCOPE}' || ${dialect.cast(agentParam, 'text')}), 0) >= ${agentCap}))`;
