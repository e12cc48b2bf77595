-- The agent's private notes from resolving a session, kept apart from `feedback`, which is the
-- visitor's own. Resolving used to store the agent's notes as `feedback`: they move here.
ALTER TABLE chat_sessions ADD COLUMN resolution_notes TEXT;
UPDATE chat_sessions SET resolution_notes = feedback, feedback = NULL WHERE feedback IS NOT NULL;
