DROP TRIGGER message_counts_session_delete;
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

DROP TRIGGER message_counts_update;
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

DROP TRIGGER message_counts_delete;
CREATE TRIGGER message_counts_delete AFTER DELETE ON chat_messages
WHEN OLD.role IN ('user', 'bot', 'agent')
BEGIN
    UPDATE message_counts SET count = count - 1
    WHERE bot_id = (SELECT bot_id FROM chat_sessions WHERE id = OLD.session_id)
      AND slot = CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900
      AND role = OLD.role;
END;

DROP TABLE message_counts_through;

-- Recount what the writer may not have written yet, then count on insert again.
DELETE FROM message_counts;
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
