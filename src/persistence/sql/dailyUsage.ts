/**
 * The daily caps' decision, on both backends, over an agent's usage row of a UTC day (the table
 * agent_daily_usage: SQLite migration 0029, PostgreSQL 0030, whose triggers keep its counts).
 */
import type { DailyCap, DailyCaps } from '../../domain/dailyCaps.js';
import { andThen, type MaybePromise, type SqlRunner } from './dialect.js';

/**
 * The cap the row's counts have reached, or NULL: the run cap first, as the explain names one. A
 * cap that is not set is a NULL parameter, against which no comparison holds.
 */
const CAP_REACHED = `CASE WHEN runs >= @run_cap THEN 'daily_run_cap' WHEN cost_usd >= @cost_cap THEN 'daily_cost_cap' END AS reached`;

/**
 * Takes the row (made with no counts on the agent's first dispatch of the day) and decides on its
 * counts as they are once it is taken: on PostgreSQL a second dispatch of the agent waits here for
 * the first one's transaction, then sees its run counted.
 */
const HOLD = `INSERT INTO agent_daily_usage (agent_id, day, runs, cost_usd) VALUES (@agent, @day, 0, 0)
  ON CONFLICT (agent_id, day) DO UPDATE SET runs = agent_daily_usage.runs
  RETURNING ${CAP_REACHED}`;

/** The same decision on the row as committed, taking nothing (no row: nothing counted yet). */
const READ = `SELECT ${CAP_REACHED} FROM (SELECT COALESCE(MAX(runs), 0) AS runs, COALESCE(MAX(cost_usd), 0) AS cost_usd
  FROM agent_daily_usage WHERE agent_id = @agent AND day = @day) usage`;

const paramsOf = (agentId: string, day: number, caps: DailyCaps) =>
  ({ agent: agentId, day, run_cap: caps.daily_run_cap, cost_cap: caps.daily_cost_cap_usd });

const reachedOf = (row: { reached: string | null } | undefined) => (row?.reached ?? null) as DailyCap | null;

export function holdDailyCaps(sql: SqlRunner, agentId: string, day: number, caps: DailyCaps): MaybePromise<DailyCap | null> {
  return andThen(sql.get<{ reached: string | null }>(HOLD, paramsOf(agentId, day, caps)), reachedOf);
}

export function dailyCapReached(sql: SqlRunner, agentId: string, day: number, caps: DailyCaps): MaybePromise<DailyCap | null> {
  return andThen(sql.get<{ reached: string | null }>(READ, paramsOf(agentId, day, caps)), reachedOf);
}
