-- Verified identity: an email is trusted only once a link sent to it was followed; a session
-- token carries the user's token_version, so a password change or reset ends every session.
ALTER TABLE users ADD COLUMN email_verified BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN token_version INTEGER NOT NULL DEFAULT 0;
-- Accounts signed in through Google or GitHub have an address the provider verified.
UPDATE users SET email_verified = TRUE WHERE id IN (SELECT user_id FROM user_identities);

-- Single-use links sent by email: verify the address, confirm a new address, reset a password.
-- Only a SHA-256 of the link's secret is kept.
CREATE TABLE email_tokens (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    email TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX email_tokens_user ON email_tokens(user_id, purpose);

-- Invitations: team_members.invite_token now holds the SHA-256 of the link's token (older
-- plain tokens simply stop matching; the inviter can resend), and an invitation expires.
ALTER TABLE team_members ADD COLUMN invite_expires_at TIMESTAMP;
UPDATE team_members SET invite_token = NULL WHERE status = 'pending';

-- Mail waiting to be sent. A background task sends it with retries and backoff, so a restart
-- loses nothing and a failing mail server never fails the request that wrote the mail.
CREATE TABLE mail_outbox (
    id TEXT PRIMARY KEY NOT NULL,
    to_address TEXT NOT NULL,
    subject TEXT NOT NULL,
    text_body TEXT NOT NULL,
    html_body TEXT NOT NULL,
    link TEXT,
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP NOT NULL,
    last_error TEXT,
    created_at TIMESTAMP NOT NULL,
    sent_at TIMESTAMP
);
CREATE INDEX mail_outbox_due ON mail_outbox(status, next_attempt_at);
