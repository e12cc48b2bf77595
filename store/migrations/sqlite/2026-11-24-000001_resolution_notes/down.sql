UPDATE chat_sessions SET feedback = resolution_notes WHERE resolution_notes IS NOT NULL;
ALTER TABLE chat_sessions DROP COLUMN resolution_notes;
