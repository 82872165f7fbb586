-- SQLite's migration 0025 (see src/persistence/migrations/0025_one_pending_approval_per_task.sql):
-- one pending approval per task, held by a partial unique index. Duplicates stored before it are
-- resolved first, keeping the oldest pending approval of each task: each later one ends rejected
-- with a note naming the one kept, and its inbox item is resolved.
WITH ranked AS (
  SELECT id, task_id, first_value(id) OVER (PARTITION BY task_id ORDER BY created_at, id) AS kept
  FROM approvals WHERE status = 'pending' AND task_id IS NOT NULL
), duplicates AS (
  SELECT id, kept FROM ranked WHERE id <> kept
), resolved_items AS (
  UPDATE inbox_items SET status = 'resolved'
  WHERE kind = 'approval' AND status = 'open' AND ref_id IN (SELECT id FROM duplicates)
)
UPDATE approvals a SET
  status = 'rejected',
  resolved_at = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint,
  decision_note = 'superseded: a duplicate of approval ' || d.kept || ', which stays pending (one approval per task)'
FROM duplicates d WHERE a.id = d.id;

CREATE UNIQUE INDEX approvals_one_pending_per_task ON approvals(task_id) WHERE status = 'pending';
