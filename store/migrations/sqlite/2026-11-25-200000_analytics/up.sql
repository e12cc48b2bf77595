-- Analytics over time (GET /api/bots/{id}/analytics).
--
-- Times are read to the whole second with substr(…, 1, 19): SQLite's date functions round a
-- fraction to milliseconds, which moved 21:59:59.9999 into the next slot.
--
-- Messages per bot, author and 15-minute slot (UTC seconds / 900), kept by triggers on
-- chat_messages. Grouping a bot's messages by hour or day means reading every one of them
-- (a million over 90 days), and messages do not carry their bot; the slots of 90 days are at
-- most 8,640 × 3 rows. 15 minutes because every UTC offset in use is a multiple of it, so a
-- local hour or day is always a whole number of slots.
CREATE TABLE message_counts (
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    slot BIGINT NOT NULL,
    role TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (bot_id, slot, role)
) WITHOUT ROWID;

INSERT INTO message_counts (bot_id, slot, role, count)
SELECT s.bot_id, CAST(strftime('%s', substr(m.created_at, 1, 19)) AS INTEGER) / 900, m.role, COUNT(*)
FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id
WHERE m.role IN ('user', 'bot', 'agent')
GROUP BY 1, 2, 3;

CREATE TRIGGER message_counts_insert AFTER INSERT ON chat_messages
WHEN NEW.role IN ('user', 'bot', 'agent')
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT bot_id, CAST(strftime('%s', substr(NEW.created_at, 1, 19)) AS INTEGER) / 900, NEW.role, 1
    FROM chat_sessions WHERE id = NEW.session_id
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = count + 1;
END;

-- A message deleted on its own. When its session is deleted, the session is gone by the time
-- this runs (the cascade deletes it first), so nothing matches: the trigger on chat_sessions
-- below has already taken the session's messages off.
CREATE TRIGGER message_counts_delete AFTER DELETE ON chat_messages
WHEN OLD.role IN ('user', 'bot', 'agent')
BEGIN
    UPDATE message_counts SET count = count - 1
    WHERE bot_id = (SELECT bot_id FROM chat_sessions WHERE id = OLD.session_id)
      AND slot = CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900
      AND role = OLD.role;
END;

-- Messages are never moved in time by the product; tests and imports that do move them keep
-- the counts true.
CREATE TRIGGER message_counts_update AFTER UPDATE OF created_at, role, session_id ON chat_messages
BEGIN
    UPDATE message_counts SET count = count - 1
    WHERE OLD.role IN ('user', 'bot', 'agent')
      AND bot_id = (SELECT bot_id FROM chat_sessions WHERE id = OLD.session_id)
      AND slot = CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900
      AND role = OLD.role;
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT bot_id, CAST(strftime('%s', substr(NEW.created_at, 1, 19)) AS INTEGER) / 900, NEW.role, 1
    FROM chat_sessions WHERE id = NEW.session_id AND NEW.role IN ('user', 'bot', 'agent')
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = count + 1;
END;

-- A deleted conversation leaves the figures with its messages.
CREATE TRIGGER message_counts_session_delete BEFORE DELETE ON chat_sessions
BEGIN
    UPDATE message_counts SET count = count - (
        SELECT COUNT(*) FROM chat_messages m
        WHERE m.session_id = OLD.id AND m.role = message_counts.role
          AND CAST(strftime('%s', substr(m.created_at, 1, 19)) AS INTEGER) / 900 = message_counts.slot)
    WHERE bot_id = OLD.bot_id
      AND (slot, role) IN (
        SELECT CAST(strftime('%s', substr(created_at, 1, 19)) AS INTEGER) / 900, role FROM chat_messages WHERE session_id = OLD.id);
END;

-- Answers the bot gave without knowledge to back them ("I don't know"), with the visitor's
-- question, so the owner sees what to train next. `question_key` is the question lower-cased
-- with its spacing and end punctuation normalised, to count repeats together.
CREATE TABLE refused_answers (
    id TEXT PRIMARY KEY NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    message_id TEXT NOT NULL REFERENCES chat_messages(id) ON DELETE CASCADE,
    question TEXT NOT NULL,
    question_key TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX refused_answers_bot ON refused_answers(bot_id, created_at);
CREATE INDEX refused_answers_message ON refused_answers(message_id);
CREATE INDEX refused_answers_session ON refused_answers(session_id);

-- The analytics call reads a bot's sessions by when they started, asked for a person and were
-- resolved (with their rating).
CREATE INDEX chat_sessions_bot_created ON chat_sessions(bot_id, created_at);
CREATE INDEX chat_sessions_bot_handoff ON chat_sessions(bot_id, human_support_requested_at) WHERE human_support_requested_at IS NOT NULL;
CREATE INDEX chat_sessions_bot_resolved ON chat_sessions(bot_id, resolved_at, rating) WHERE resolved_at IS NOT NULL;
