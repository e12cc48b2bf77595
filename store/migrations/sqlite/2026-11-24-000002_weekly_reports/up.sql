-- The weekly report: per user, the end of the last week reported, or the moment reports were
-- turned on (the first report is for the first week that ends after it). The report's mail is
-- written to the outbox in the same transaction that moves this mark, so a restart neither
-- loses a week's report nor sends it twice.
CREATE TABLE weekly_reports (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    period_end TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
