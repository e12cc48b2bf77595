DROP TABLE paused_bots;
DROP TABLE stripe_events;
DROP INDEX payments_stripe_invoice_outcome;
ALTER TABLE payments DROP COLUMN stripe_invoice_id;
DROP INDEX subscriptions_stripe_customer;
ALTER TABLE subscriptions DROP COLUMN stripe_subscription_id;
ALTER TABLE subscriptions DROP COLUMN stripe_customer_id;
