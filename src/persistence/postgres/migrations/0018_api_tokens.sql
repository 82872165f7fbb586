-- Named API tokens with a role (API.md, "Governance"). Only the sha256 of a token's secret is kept:
-- a copy of the database cannot act as anyone. A revoked token keeps its row, for the owner_id of
-- the routines it created and for the list of who had access.
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  token_hash TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);

-- Revocation pauses the routines a token owns.
CREATE INDEX office_routines_by_owner ON office_routines (owner_id);

-- Until now every caller was the bootstrap admin, and owner_id was free text (default 'workspace'):
-- every routine made before tokens existed was made by the admin.
UPDATE office_routines SET owner_id = 'admin' WHERE owner_id = 'workspace';
