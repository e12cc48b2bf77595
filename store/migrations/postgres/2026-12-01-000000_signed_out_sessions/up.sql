-- Sessions signed out before their token expired. A member's session token names its session
-- (`sid`); signing out records it here and every later call with that token is refused. A row
-- is needed only until the token would have expired anyway, and is pruned after.
CREATE TABLE signed_out_sessions (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires_at TIMESTAMP NOT NULL
);
CREATE INDEX signed_out_sessions_expiry ON signed_out_sessions(expires_at);
