-- Who a command run's session is, as a process: its pid, its process group (the session leads its
-- own), and its start time ("<boot id>:<clock ticks since boot>" from /proc on Linux). A restart
-- checks them before it runs the wakeup of an interrupted run again: the start time tells the
-- session apart from a later process that reused its pid.
ALTER TABLE runs ADD COLUMN session_pid INTEGER;
ALTER TABLE runs ADD COLUMN session_pgid INTEGER;
ALTER TABLE runs ADD COLUMN session_start_time TEXT;
