-- An agent's message only ever lowers a session's first answer time, so the insert trigger
-- upserts instead of recomputing MIN over every agent message of the session (quadratic in a
-- long live conversation: it was the writer's top cost in the relay benchmark). The row's
-- asked_at stays current through agent_responses_request, which recomputes on a new request;
-- edits and deletes still recompute in full.
DROP TRIGGER agent_responses_message_insert;
CREATE TRIGGER agent_responses_message_insert AFTER INSERT ON chat_messages WHEN NEW.role = 'agent'
BEGIN
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT s.id, s.bot_id, s.human_support_requested_at, NEW.created_at FROM chat_sessions s
    WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
      AND NEW.created_at >= s.human_support_requested_at
    ON CONFLICT(session_id) DO UPDATE SET answered_at = MIN(answered_at, excluded.answered_at);
END;
