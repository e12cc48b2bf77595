-- An agent's message only ever lowers a session's first answer time, so the insert trigger
-- upserts instead of recomputing MIN over every agent message of the session (quadratic in a
-- long live conversation). asked_at stays current through agent_responses_request; edits and
-- deletes still recompute in full.
CREATE FUNCTION agent_responses_on_agent_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT s.id, s.bot_id, s.human_support_requested_at, NEW.created_at FROM chat_sessions s
    WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
      AND NEW.created_at >= s.human_support_requested_at
    ON CONFLICT (session_id) DO UPDATE SET answered_at = LEAST(agent_responses.answered_at, EXCLUDED.answered_at);
    RETURN NULL;
END $$;

DROP TRIGGER agent_responses_message_insert ON chat_messages;
CREATE TRIGGER agent_responses_message_insert AFTER INSERT ON chat_messages
    FOR EACH ROW WHEN (NEW.role = 'agent') EXECUTE FUNCTION agent_responses_on_agent_message();
