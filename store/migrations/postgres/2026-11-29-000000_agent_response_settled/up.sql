-- Once a handoff has its first agent answer, a later agent message cannot change it (see the
-- SQLite migration of the same name): skipped with one indexed read instead of reading the
-- session and rewriting the row with the same value.
CREATE OR REPLACE FUNCTION agent_responses_on_agent_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM agent_responses r WHERE r.session_id = NEW.session_id AND r.answered_at <= NEW.created_at) THEN
        RETURN NULL;
    END IF;
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT s.id, s.bot_id, s.human_support_requested_at, NEW.created_at FROM chat_sessions s
    WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
      AND NEW.created_at >= s.human_support_requested_at
    ON CONFLICT (session_id) DO UPDATE SET answered_at = EXCLUDED.answered_at
    WHERE EXCLUDED.answered_at < agent_responses.answered_at;
    RETURN NULL;
END $$;
