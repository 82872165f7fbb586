-- Dashboard sessions (sign-in): a browser's HttpOnly cookie carries a random secret; only its
-- sha256 is kept here, with the token it was exchanged for and when it expires.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL UNIQUE,
  token_id TEXT NOT NULL,
  credential_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);

-- Revoking a token ends its sessions; expired sessions are swept.
CREATE INDEX sessions_by_token ON sessions (token_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
