-- A task's blockers and reviewers come back in the order they were given. That order was SQLite's
-- rowid, which no other backend has (and which lists must not rely on): it is now a column of its
-- own, numbered from 0 within each task.
ALTER TABLE task_blockers ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
ALTER TABLE task_reviewers ADD COLUMN position INTEGER NOT NULL DEFAULT 0;

-- Links written before this migration keep the order they were inserted in.
UPDATE task_blockers SET position = (
  SELECT COUNT(*) FROM task_blockers earlier WHERE earlier.task_id = task_blockers.task_id AND earlier.rowid < task_blockers.rowid);
UPDATE task_reviewers SET position = (
  SELECT COUNT(*) FROM task_reviewers earlier WHERE earlier.task_id = task_reviewers.task_id AND earlier.rowid < task_reviewers.rowid);
