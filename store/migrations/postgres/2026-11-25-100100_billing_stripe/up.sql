-- Payments through Stripe: the customer and subscription an account is tied to, each invoice's
-- payment row once per outcome, each webhook event once, and the bots paused (not deleted) when
-- the account falls back to a plan with fewer assistants.
ALTER TABLE subscriptions ADD COLUMN stripe_customer_id TEXT;
ALTER TABLE subscriptions ADD COLUMN stripe_subscription_id TEXT;
CREATE UNIQUE INDEX subscriptions_stripe_customer ON subscriptions(stripe_customer_id);
ALTER TABLE payments ADD COLUMN stripe_invoice_id TEXT;
CREATE UNIQUE INDEX payments_stripe_invoice_outcome ON payments(stripe_invoice_id, status);
CREATE TABLE stripe_events (
    id TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    received_at TIMESTAMP NOT NULL
);
-- Bots made inactive because the plan no longer allows them; they come back with a bigger plan.
CREATE TABLE paused_bots (
    bot_id TEXT PRIMARY KEY NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    paused_at TIMESTAMP NOT NULL
);
