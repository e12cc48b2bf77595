DROP TABLE mail_outbox;
ALTER TABLE team_members DROP COLUMN invite_expires_at;
DROP TABLE email_tokens;
ALTER TABLE users DROP COLUMN token_version;
ALTER TABLE users DROP COLUMN email_verified;
