-- A bot reply's "did you mean" quick replies (a JSON array of strings), kept with the message so
-- a reloaded conversation still shows them. Apart from `sources`, which the inbox, exports and
-- analytics read as the reply's citations.
ALTER TABLE chat_messages ADD COLUMN suggestions TEXT NOT NULL DEFAULT '[]';
