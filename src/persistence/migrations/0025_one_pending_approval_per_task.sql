-- One approval at a time (API.md, "Trust boundaries"): a task has at most one pending approval,
-- however many moves to DONE arrive at once. The database holds the rule, a partial unique index
-- that the insert meets with ON CONFLICT DO NOTHING (sql/tasks.ts, ApprovalsSql.insertPending).
--
-- Duplicates stored before the rule are resolved first, keeping the oldest pending approval of each
-- task (the one the first move asked for): each later one ends rejected, with a note naming the
-- one kept, and its inbox item is resolved, so the inbox shows one item per task.
UPDATE inbox_items SET status = 'resolved'
WHERE kind = 'approval' AND status = 'open' AND ref_id IN (
  SELECT a.id FROM approvals a
  WHERE a.status = 'pending' AND a.task_id IS NOT NULL AND EXISTS (
    SELECT 1 FROM approvals o WHERE o.task_id = a.task_id AND o.status = 'pending'
      AND (o.created_at < a.created_at OR (o.created_at = a.created_at AND o.id < a.id))));

UPDATE approvals SET
  status = 'rejected',
  resolved_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER),
  decision_note = 'superseded: a duplicate of approval ' || (
    SELECT o.id FROM approvals o WHERE o.task_id = approvals.task_id AND o.status = 'pending'
    ORDER BY o.created_at, o.id LIMIT 1) || ', which stays pending (one approval per task)'
WHERE status = 'pending' AND task_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM approvals o WHERE o.task_id = approvals.task_id AND o.status = 'pending'
    AND (o.created_at < approvals.created_at OR (o.created_at = approvals.created_at AND o.id < approvals.id)));

CREATE UNIQUE INDEX approvals_one_pending_per_task ON approvals(task_id) WHERE status = 'pending';
