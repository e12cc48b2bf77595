DROP TRIGGER agent_responses_message_insert;
CREATE TRIGGER agent_responses_message_insert AFTER INSERT ON chat_messages WHEN NEW.role = 'agent'
BEGIN
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT s.id, s.bot_id, s.human_support_requested_at, NEW.created_at FROM chat_sessions s
    WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
      AND NEW.created_at >= s.human_support_requested_at
    ON CONFLICT(session_id) DO UPDATE SET answered_at = MIN(answered_at, excluded.answered_at);
END;
