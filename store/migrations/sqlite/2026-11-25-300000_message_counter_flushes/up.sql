-- The message writer keeps each session's counters (message count, preview, last activity)
-- in memory and writes them at most every second, or when a reader asks. Each such write
-- records its time here (one row), so a start after a crash recounts only the sessions with
-- messages saved since.
CREATE TABLE message_counter_flushes (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    flushed_at TIMESTAMP NOT NULL
);
