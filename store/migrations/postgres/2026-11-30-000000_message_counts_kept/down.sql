CREATE OR REPLACE FUNCTION message_counts_remove_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET count = c.count - d.n
    FROM (SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM o.created_at) / 900)::BIGINT AS slot, o.role, COUNT(*) AS n
          FROM old_rows o JOIN chat_sessions s ON s.id = o.session_id
          WHERE o.role IN ('user', 'bot', 'agent')
          GROUP BY 1, 2, 3) d
    WHERE c.bot_id = d.bot_id AND c.slot = d.slot AND c.role = d.role;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION message_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION message_counts_remove_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET count = c.count - d.n
    FROM (SELECT FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT AS slot, m.role, COUNT(*) AS n
          FROM chat_messages m
          WHERE m.session_id = OLD.id AND m.role IN ('user', 'bot', 'agent')
          GROUP BY 1, 2) d
    WHERE c.bot_id = OLD.bot_id AND c.slot = d.slot AND c.role = d.role;
    RETURN OLD;
END $$;

DROP TABLE message_counts_through;

-- Recount what the writer may not have written yet, then count on insert again.
DELETE FROM message_counts;
INSERT INTO message_counts (bot_id, slot, role, count)
SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT, m.role, COUNT(*)
FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id
WHERE m.role IN ('user', 'bot', 'agent')
GROUP BY 1, 2, 3;

CREATE TRIGGER message_counts_insert AFTER INSERT ON chat_messages
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION message_counts_add_new();
