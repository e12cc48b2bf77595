-- Two-factor sign-in (TOTP): the account's shared secret, whether it was confirmed with a code
-- (until then `users.two_factor_enabled` stays false and sign-in asks for nothing more), the
-- last 30-second step a code was accepted for (so a code works once), and the SHA-256 hashes of
-- the unused recovery codes, as a JSON list.
CREATE TABLE two_factor (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    secret TEXT NOT NULL, -- sealed by the server (ChaCha20-Poly1305 under a key from its secret)
    enabled BOOLEAN NOT NULL DEFAULT FALSE,
    last_step BIGINT NOT NULL DEFAULT 0,
    recovery_hashes TEXT NOT NULL DEFAULT '[]',
    created_at TIMESTAMP NOT NULL
);
