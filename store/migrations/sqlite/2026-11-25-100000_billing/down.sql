DROP INDEX payments_user_newest;
ALTER TABLE subscriptions DROP COLUMN ends_at;
ALTER TABLE subscriptions DROP COLUMN cancel_at_period_end;
