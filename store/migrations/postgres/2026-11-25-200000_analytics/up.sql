-- Analytics over time (GET /api/bots/{id}/analytics).
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
);

INSERT INTO message_counts (bot_id, slot, role, count)
SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT, m.role, COUNT(*)
FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id
WHERE m.role IN ('user', 'bot', 'agent')
GROUP BY 1, 2, 3;

-- Adds `sign` × the rows of `rows` (a transition table's messages) to their slots. Statement
-- triggers: the message writer inserts a batch in one statement, counted in one upsert.
CREATE FUNCTION message_counts_add_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM n.created_at) / 900)::BIGINT, n.role, COUNT(*)
    FROM new_rows n JOIN chat_sessions s ON s.id = n.session_id
    WHERE n.role IN ('user', 'bot', 'agent')
    GROUP BY 1, 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count;
    RETURN NULL;
END $$;

-- A message deleted on its own. When its session is deleted, the session is gone by the time
-- this runs (the cascade deletes it first), so nothing joins: the trigger on chat_sessions
-- below has already taken the session's messages off.
CREATE FUNCTION message_counts_remove_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET count = c.count - d.n
    FROM (SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM o.created_at) / 900)::BIGINT AS slot, o.role, COUNT(*) AS n
          FROM old_rows o JOIN chat_sessions s ON s.id = o.session_id
          WHERE o.role IN ('user', 'bot', 'agent')
          GROUP BY 1, 2, 3) d
    WHERE c.bot_id = d.bot_id AND c.slot = d.slot AND c.role = d.role;
    RETURN NULL;
END $$;

-- Messages are never moved in time by the product; tests and imports that do move them keep
-- the counts true.
CREATE FUNCTION message_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET count = c.count - d.n
    FROM (SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM o.created_at) / 900)::BIGINT AS slot, o.role, COUNT(*) AS n
          FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN chat_sessions s ON s.id = o.session_id
          WHERE o.role IN ('user', 'bot', 'agent')
            AND (o.created_at, o.role, o.session_id) IS DISTINCT FROM (n.created_at, n.role, n.session_id)
          GROUP BY 1, 2, 3) d
    WHERE c.bot_id = d.bot_id AND c.slot = d.slot AND c.role = d.role;
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM n.created_at) / 900)::BIGINT, n.role, COUNT(*)
    FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_sessions s ON s.id = n.session_id
    WHERE n.role IN ('user', 'bot', 'agent')
      AND (o.created_at, o.role, o.session_id) IS DISTINCT FROM (n.created_at, n.role, n.session_id)
    GROUP BY 1, 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count;
    RETURN NULL;
END $$;

-- A deleted conversation leaves the figures with its messages.
CREATE FUNCTION message_counts_remove_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET count = c.count - d.n
    FROM (SELECT FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT AS slot, m.role, COUNT(*) AS n
          FROM chat_messages m
          WHERE m.session_id = OLD.id AND m.role IN ('user', 'bot', 'agent')
          GROUP BY 1, 2) d
    WHERE c.bot_id = OLD.bot_id AND c.slot = d.slot AND c.role = d.role;
    RETURN OLD;
END $$;

CREATE TRIGGER message_counts_insert AFTER INSERT ON chat_messages
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION message_counts_add_new();
CREATE TRIGGER message_counts_delete AFTER DELETE ON chat_messages
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION message_counts_remove_old();
CREATE TRIGGER message_counts_update AFTER UPDATE ON chat_messages
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION message_counts_move();
CREATE TRIGGER message_counts_session_delete BEFORE DELETE ON chat_sessions
    FOR EACH ROW EXECUTE FUNCTION message_counts_remove_session();

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
