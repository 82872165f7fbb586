-- A task's wakeups by the task alone. With the status in the key, each wakeup moved in this index
-- twice (queued to claimed, claimed to finished), and at the head of a deep queue its entry sits on
-- an old page that no other write of the commit shares: in the bench's P7 at 3,000 queued per agent,
-- this index alone wrote 2.4 pages per wakeup, and without the status the WAL took 7% fewer pages
-- (123.7k and 123.6k against 134.0k and 132.9k, runs taken in turn). Now an entry is written once,
-- at the insert. The status of a task's wakeups is read from the rows: a task has few, and most of
-- the statements that seek it here do not name a status at all.
DROP INDEX IF EXISTS wakeups_by_task;
CREATE INDEX wakeups_by_task ON agent_wakeup_requests(task_id) WHERE task_id IS NOT NULL;
