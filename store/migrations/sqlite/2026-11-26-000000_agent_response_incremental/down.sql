DROP TRIGGER agent_responses_message_insert;
CREATE TRIGGER agent_responses_message_insert AFTER INSERT ON chat_messages WHEN NEW.role = 'agent'
BEGIN
    DELETE FROM agent_responses WHERE session_id = NEW.session_id;
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT id, bot_id, asked, answered FROM (
        SELECT s.id AS id, s.bot_id AS bot_id, s.human_support_requested_at AS asked,
            (SELECT MIN(m.created_at) FROM chat_messages m
             WHERE m.session_id = s.id AND m.role = 'agent' AND m.created_at >= s.human_support_requested_at) AS answered
        FROM chat_sessions s WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
    ) r WHERE answered IS NOT NULL;
END;
