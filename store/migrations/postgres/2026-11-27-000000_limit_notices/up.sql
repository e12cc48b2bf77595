-- The owner hears once per billing period that a plan limit was reached: the store notes the
-- first refusal of each limit in a period here (an outbox), the server mails it and marks it
-- sent. The key makes "once per period" hold however many refusals race.
CREATE TABLE limit_notices (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    period_start TIMESTAMP NOT NULL,
    limit_kind TEXT NOT NULL,
    reached_at TIMESTAMP NOT NULL,
    sent_at TIMESTAMP,
    PRIMARY KEY (user_id, period_start, limit_kind)
);
CREATE INDEX limit_notices_unsent ON limit_notices (reached_at) WHERE sent_at IS NULL;
