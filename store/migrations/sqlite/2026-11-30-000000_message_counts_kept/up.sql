-- Messages per bot, slot and author (message_counts) are counted by the message writer, not by
-- a trigger on each insert: the trigger's upsert put one more page into every commit (a fifth
-- of the WAL written per message in the relay profile). The writer keeps the additions in
-- memory and writes them with the session counters, at most a second later or at once when a
-- reader asks (analytics syncs first). `message_counts_through` holds the id of the last
-- message those writes counted; ids are time-ordered (UUIDv7, ordered within a process), so a
-- start after a crash adds the messages past it, exactly once.
DROP TRIGGER message_counts_insert;

CREATE TABLE message_counts_through (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    message_id TEXT NOT NULL
);
-- Until now the trigger counted every message.
INSERT INTO message_counts_through (id, message_id) SELECT 1, COALESCE(MAX(id), '') FROM chat_messages;

-- The other triggers now add negative counts instead of lowering existing rows: a message the
-- writer has not counted yet may be deleted or moved before it does, and additions in any
-- order then sum to the truth. A (bot, slot, role) row may hold 0 in between.
DROP TRIGGER message_counts_delete;
CREATE TRIGGER message_counts_delete AFTER DELETE ON chat_messages
WHEN OLD.role IN ('user', 'bot', 'agent')
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT bot_id, CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900, OLD.role, -1
    FROM chat_sessions WHERE id = OLD.session_id
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = count - 1;
END;

DROP TRIGGER message_counts_update;
CREATE TRIGGER message_counts_update AFTER UPDATE OF created_at, role, session_id ON chat_messages
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT bot_id, CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900, OLD.role, -1
    FROM chat_sessions WHERE id = OLD.session_id AND OLD.role IN ('user', 'bot', 'agent')
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = count - 1;
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT bot_id, CAST(strftime('%s', substr(NEW.created_at, 1, 19)) AS INTEGER) / 900, NEW.role, 1
    FROM chat_sessions WHERE id = NEW.session_id AND NEW.role IN ('user', 'bot', 'agent')
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = count + 1;
END;

DROP TRIGGER message_counts_session_delete;
CREATE TRIGGER message_counts_session_delete BEFORE DELETE ON chat_sessions
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT OLD.bot_id, CAST(strftime('%s', substr(created_at, 1, 19)) AS INTEGER) / 900, role, -COUNT(*)
    FROM chat_messages WHERE session_id = OLD.id AND role IN ('user', 'bot', 'agent')
      -- A bot deleted with its conversations has taken its figures with it.
      AND EXISTS (SELECT 1 FROM bots WHERE id = OLD.bot_id)
    GROUP BY 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = count + excluded.count;
END;
