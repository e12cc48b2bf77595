-- Once a handoff has its first agent answer, a later agent message cannot change it: the row
-- exists only with answered_at at or after the current request (agent_responses_request
-- recomputes or deletes it on a new request), and messages are saved in time order. The
-- trigger now skips those messages with one indexed read, instead of reading the session and
-- rewriting the row (and its index entry) with the same value: in a live conversation half
-- the messages are the agent's, and each rewrite was two more pages in the commit.
DROP TRIGGER agent_responses_message_insert;
CREATE TRIGGER agent_responses_message_insert AFTER INSERT ON chat_messages
WHEN NEW.role = 'agent' AND NOT EXISTS (
    SELECT 1 FROM agent_responses r WHERE r.session_id = NEW.session_id AND r.answered_at <= NEW.created_at)
BEGIN
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT s.id, s.bot_id, s.human_support_requested_at, NEW.created_at FROM chat_sessions s
    WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
      AND NEW.created_at >= s.human_support_requested_at
    ON CONFLICT(session_id) DO UPDATE SET answered_at = excluded.answered_at
    WHERE excluded.answered_at < agent_responses.answered_at;
END;
