ALTER TABLE chunks DROP COLUMN sentence_embeddings;
