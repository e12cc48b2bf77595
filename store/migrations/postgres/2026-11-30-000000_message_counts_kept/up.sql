-- Messages per bot, slot and author (message_counts) are counted by the message writer, not by
-- a trigger on each insert (see the SQLite migration of the same name). The writer writes its
-- additions with the session counters and records in `message_counts_through` the id of the
-- last message they counted; a start after a crash adds the messages past it.
DROP TRIGGER message_counts_insert ON chat_messages;

CREATE TABLE message_counts_through (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    message_id TEXT NOT NULL
);
INSERT INTO message_counts_through (id, message_id) SELECT 1, COALESCE(MAX(id), '') FROM chat_messages;

-- The other triggers add negative counts instead of lowering existing rows: a message the
-- writer has not counted yet may be deleted or moved before it does.
CREATE OR REPLACE FUNCTION message_counts_remove_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM o.created_at) / 900)::BIGINT, o.role, -COUNT(*)
    FROM old_rows o JOIN chat_sessions s ON s.id = o.session_id
    WHERE o.role IN ('user', 'bot', 'agent')
    GROUP BY 1, 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION message_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM o.created_at) / 900)::BIGINT, o.role, -COUNT(*)
    FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN chat_sessions s ON s.id = o.session_id
    WHERE o.role IN ('user', 'bot', 'agent')
      AND (o.created_at, o.role, o.session_id) IS DISTINCT FROM (n.created_at, n.role, n.session_id)
    GROUP BY 1, 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count;
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM n.created_at) / 900)::BIGINT, n.role, COUNT(*)
    FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_sessions s ON s.id = n.session_id
    WHERE n.role IN ('user', 'bot', 'agent')
      AND (o.created_at, o.role, o.session_id) IS DISTINCT FROM (n.created_at, n.role, n.session_id)
    GROUP BY 1, 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION message_counts_remove_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT OLD.bot_id, FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT, m.role, -COUNT(*)
    FROM chat_messages m
    WHERE m.session_id = OLD.id AND m.role IN ('user', 'bot', 'agent')
      -- A bot deleted with its conversations has taken its figures with it.
      AND EXISTS (SELECT 1 FROM bots WHERE id = OLD.bot_id)
    GROUP BY 1, 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count;
    RETURN OLD;
END $$;
