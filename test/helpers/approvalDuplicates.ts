/**
 * The duplicate pending approvals an earlier version could store, as migration 0025 finds them:
 * three pending for one task, one for another, two with no task (which the index leaves alone), and
 * their inbox items. Both backends' migration tests start from these rows.
 */
export const DUPLICATE_PENDING_APPROVALS = `INSERT INTO workspaces (id, name, created_at, updated_at) VALUES ('ws_1', 'W', 1, 1);
        INSERT INTO agent_instances (id, workspace_id, name, role, skip_idle_wakeups, created_at, updated_at) VALUES ('agt_a', 'ws_1', 'A', 'worker', 0, 1, 1);
        INSERT INTO tasks (id, workspace_id, title, created_at, updated_at) VALUES ('tsk_1', 'ws_1', 'One', 1, 1), ('tsk_2', 'ws_1', 'Two', 1, 1);
        INSERT INTO approvals (id, workspace_id, task_id, requested_by_agent_id, title, status, created_at) VALUES
          ('apr_b', 'ws_1', 'tsk_1', 'agt_a', 'Approve: One', 'pending', 5),
          ('apr_a', 'ws_1', 'tsk_1', 'agt_a', 'Approve: One', 'pending', 5),
          ('apr_c', 'ws_1', 'tsk_1', 'agt_a', 'Approve: One', 'pending', 4),
          ('apr_2', 'ws_1', 'tsk_2', 'agt_a', 'Approve: Two', 'pending', 9),
          ('apr_loose1', 'ws_1', NULL, 'agt_a', 'Any', 'pending', 1),
          ('apr_loose2', 'ws_1', NULL, 'agt_a', 'Any', 'pending', 2);
        INSERT INTO inbox_items (id, workspace_id, kind, title, task_id, ref_id, status, created_at) VALUES
          ('inb_a', 'ws_1', 'approval', 'A', 'tsk_1', 'apr_a', 'open', 5), ('inb_b', 'ws_1', 'approval', 'B', 'tsk_1', 'apr_b', 'open', 5),
          ('inb_c', 'ws_1', 'approval', 'C', 'tsk_1', 'apr_c', 'open', 4), ('inb_2', 'ws_1', 'approval', 'T', 'tsk_2', 'apr_2', 'open', 9);`;
