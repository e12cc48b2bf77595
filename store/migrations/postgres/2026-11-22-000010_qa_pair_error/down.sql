ALTER TABLE qa_pairs DROP COLUMN error;
