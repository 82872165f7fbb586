-- An exhausted quota is announced once in the inbox (nothing stops silently): the release it was
-- announced for, so that several agents failing on one quota, or one reset pushed later, announce
-- it once, and the next exhaustion after a release announces it again.
ALTER TABLE agent_quotas ADD COLUMN announced_release_at INTEGER;
