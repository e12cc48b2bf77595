-- Billing: a subscription can end (a plan set until a date, a cancellation at the period's end,
-- a failed renewal's grace period), after which the account is on Free again.
ALTER TABLE subscriptions ADD COLUMN cancel_at_period_end BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE subscriptions ADD COLUMN ends_at TIMESTAMP;
-- The history page reads a user's payments newest first.
CREATE INDEX payments_user_newest ON payments(user_id, paid_at DESC, id DESC);
