-- Ownership: each agent is owned by one process (an owner id per boot, or per replica) at an epoch
-- that grows by one at every change of hands. Claims and finishes carry (owner, epoch), so a stale
-- owner's statement finds no lease and changes nothing. expires_at NULL: the lease never expires
-- (SQLite, where the database lock proves an earlier owner dead and the next boot takes everything).
CREATE TABLE agent_leases (
  agent_id TEXT PRIMARY KEY REFERENCES agent_instances(id),
  owner_id TEXT NOT NULL,
  epoch INTEGER NOT NULL CHECK (epoch >= 1),
  expires_at INTEGER
);
CREATE INDEX agent_leases_by_owner ON agent_leases(owner_id);

-- An outbox row is delivered by the owner that claims it: its writer, or whoever takes it after
-- the writer died. claimed_until NULL: the claim lasts as long as its owner (SQLite).
ALTER TABLE event_outbox ADD COLUMN claimed_by TEXT;
ALTER TABLE event_outbox ADD COLUMN claimed_until INTEGER;
