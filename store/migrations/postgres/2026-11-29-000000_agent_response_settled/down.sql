CREATE OR REPLACE FUNCTION agent_responses_on_agent_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT s.id, s.bot_id, s.human_support_requested_at, NEW.created_at FROM chat_sessions s
    WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
      AND NEW.created_at >= s.human_support_requested_at
    ON CONFLICT (session_id) DO UPDATE SET answered_at = LEAST(agent_responses.answered_at, EXCLUDED.answered_at);
    RETURN NULL;
END $$;
