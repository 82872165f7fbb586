-- Durable result delivery (issue 16): a routine's result delivery (its optional `delivery` webhook)
-- is recorded in the transaction that settles its routine run, and retried with backoff until it
-- is delivered or gives up, whatever happens to the process meanwhile.
--
-- routine_deliveries: one row per delivery still to make (delivery_status `pending`), taken by a
-- replica with a claim that expires (claimed_by, claimed_until), as the event outbox is: a replica
-- that dies while posting leaves a claim that another one takes once it expires. The row goes when
-- the delivery ends, in the statement that records `delivered` or `failed`.
CREATE TABLE routine_deliveries (
  routine_run_id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  claimed_by TEXT,
  claimed_until BIGINT,
  last_error TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX routine_deliveries_due ON routine_deliveries (next_attempt_at);

-- delivery_status gains `pending`.
ALTER TABLE office_routine_runs DROP CONSTRAINT office_routine_runs_delivery_status_check;
ALTER TABLE office_routine_runs ADD CONSTRAINT office_routine_runs_delivery_status_check
  CHECK (delivery_status IN ('none', 'pending', 'delivered', 'failed'));
