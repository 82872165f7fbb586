/**
 * The rows an upgrade meets in the middle of a day, for the daily usage migration of each backend
 * (SQLite 0029, PostgreSQL 0030), and the counts the migration must give them: every day's runs that
 * took a claim (queued, running, or with a session that started; not one cancelled before its
 * session started, nor one that failed with no executor) and its ledger spend, per agent.
 */
const HOUR = 3_600_000;
export const UPGRADE_DAY = Date.UTC(2026, 0, 5);

export const ROWS_BEFORE_DAILY_USAGE = `INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws_1', 'W', 1, 1);
  INSERT INTO agent_instances (id, workspace_id, name, role, skip_idle_wakeups, created_at, updated_at) VALUES
    ('agt_a', 'ws_1', 'A', 'worker', 0, 1, 1), ('agt_b', 'ws_1', 'B', 'worker', 0, 1, 1);
  INSERT INTO agent_wakeup_requests (id, workspace_id, agent_id, source, reason, status, available_at, requested_at) VALUES
    ('wk_a', 'ws_1', 'agt_a', 'user', 'user', 'claimed', 1, 1), ('wk_b', 'ws_1', 'agt_b', 'user', 'user', 'claimed', 1, 1);
  INSERT INTO runs (id, wakeup_id, workspace_id, agent_id, attempt, status, created_at, started_at) VALUES
    ('run_ok', 'wk_a', 'ws_1', 'agt_a', 1, 'succeeded', ${UPGRADE_DAY + 10 * HOUR}, ${UPGRADE_DAY + 10 * HOUR}),
    ('run_running', 'wk_a', 'ws_1', 'agt_a', 2, 'running', ${UPGRADE_DAY + 11 * HOUR}, ${UPGRADE_DAY + 11 * HOUR}),
    ('run_queued', 'wk_a', 'ws_1', 'agt_a', 3, 'queued', ${UPGRADE_DAY + 12 * HOUR}, NULL),
    ('run_cancelled_queued', 'wk_a', 'ws_1', 'agt_a', 4, 'cancelled', ${UPGRADE_DAY + 13 * HOUR}, NULL),
    ('run_no_executor', 'wk_a', 'ws_1', 'agt_a', 5, 'failed', ${UPGRADE_DAY + 14 * HOUR}, NULL),
    ('run_yesterday', 'wk_a', 'ws_1', 'agt_a', 6, 'succeeded', ${UPGRADE_DAY - HOUR}, ${UPGRADE_DAY - HOUR}),
    ('run_other', 'wk_b', 'ws_1', 'agt_b', 1, 'running', ${UPGRADE_DAY + HOUR}, ${UPGRADE_DAY + HOUR});
  INSERT INTO cost_ledger (workspace_id, agent_id, run_id, cost_usd, created_at) VALUES
    ('ws_1', 'agt_a', 'run_ok', 1.25, ${UPGRADE_DAY + 10 * HOUR}), ('ws_1', 'agt_a', 'run_yesterday', 2, ${UPGRADE_DAY - HOUR});`;

/** What the migration leaves, as READ_USAGE reads it. */
export const USAGE_AFTER_UPGRADE = [
  { agent_id: 'agt_a', day: UPGRADE_DAY - 86_400_000, runs: 1, cost_usd: 2 },
  { agent_id: 'agt_a', day: UPGRADE_DAY, runs: 3, cost_usd: 1.25 },
  { agent_id: 'agt_b', day: UPGRADE_DAY, runs: 1, cost_usd: 0 },
];

export const READ_USAGE = 'SELECT agent_id, day, runs, cost_usd FROM agent_daily_usage ORDER BY agent_id, day';
