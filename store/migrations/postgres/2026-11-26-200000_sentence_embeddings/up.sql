-- Vectors of a passage chunk's sentences (little-endian f32, one 384-float vector after the
-- other), stored at training time so passage retrieval can score a question against each
-- sentence and two-sentence window without embedding anything at query time. NULL for Q&A
-- chunks, one-sentence chunks and chunks trained before this column (the index embeds those
-- when it is built).
ALTER TABLE chunks ADD COLUMN sentence_embeddings BYTEA;
