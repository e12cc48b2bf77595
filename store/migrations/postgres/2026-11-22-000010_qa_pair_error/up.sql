-- Why a Q&A pair failed to train, shown on the Training page (NULL unless failed).
ALTER TABLE qa_pairs ADD COLUMN error TEXT;
