-- Analytics over time (GET /api/bots/{id}/analytics).
--
-- Times are read to the whole second with substr(…, 1, 19): SQLite's date functions round a
-- fraction to milliseconds, which moved 21:59:59.9999 into the next slot.
--
-- Messages per bot, author and 15-minute slot (UTC seconds / 900), kept by triggers on
-- chat_messages. Grouping a bot's messages by hour or day means reading every one of them
-- (a million over 90 days), and messages do not carry their bot; the slots of 90 days are at
-- most 8,640 × 3 rows. 15 minutes because every UTC offset in use is a multiple of it, so a
-- local hour or day is always a whole number of slots.
CREATE TABLE message_counts (
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    slot BIGINT NOT NULL,
    role TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (bot_id, slot, role)
) WITHOUT ROWID;

INSERT INTO message_counts (bot_id, slot, role, count)
SELECT s.bot_id, CAST(strftime('%s', substr(m.created_at, 1, 19)) AS INTEGER) / 900, m.role, COUNT(*)
FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id
WHERE m.role IN ('user', 'bot', 'agent')
GROUP BY 1, 2, 3;

CREATE TRIGGER message_counts_insert AFTER INSERT ON chat_messages
WHEN NEW.role IN ('user', 'bot', 'agent')
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT bot_id, CAST(strftime('%s', substr(NEW.created_at, 1, 19)) AS INTEGER) / 900, NEW.role, 1
    FROM chat_sessions WHERE id = NEW.session_id
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = count + 1;
END;

-- A message deleted on its own. When its session is deleted, the session is gone by the time
-- this runs (the cascade deletes it first), so nothing matches: the trigger on chat_sessions
-- below has already taken the session's messages off.
CREATE TRIGGER message_counts_delete AFTER DELETE ON chat_messages
WHEN OLD.role IN ('user', 'bot', 'agent')
BEGIN
    UPDATE message_counts SET count = count - 1
    WHERE bot_id = (SELECT bot_id FROM chat_sessions WHERE id = OLD.session_id)
      AND slot = CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900
      AND role = OLD.role;
END;

-- Messages are never moved in time by the product; tests and imports that do move them keep
-- the counts true.
CREATE TRIGGER message_counts_update AFTER UPDATE OF created_at, role, session_id ON chat_messages
BEGIN
    UPDATE message_counts SET count = count - 1
    WHERE OLD.role IN ('user', 'bot', 'agent')
      AND bot_id = (SELECT bot_id FROM chat_sessions WHERE id = OLD.session_id)
      AND slot = CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900
      AND role = OLD.role;
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT bot_id, CAST(strftime('%s', substr(NEW.created_at, 1, 19)) AS INTEGER) / 900, NEW.role, 1
    FROM chat_sessions WHERE id = NEW.session_id AND NEW.role IN ('user', 'bot', 'agent')
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = count + 1;
END;

-- A deleted conversation leaves the figures with its messages.
CREATE TRIGGER message_counts_session_delete BEFORE DELETE ON chat_sessions
BEGIN
    UPDATE message_counts SET count = count - (
        SELECT COUNT(*) FROM chat_messages m
        WHERE m.session_id = OLD.id AND m.role = message_counts.role
          AND CAST(strftime('%s', substr(m.created_at, 1, 19)) AS INTEGER) / 900 = message_counts.slot)
    WHERE bot_id = OLD.bot_id
      AND (slot, role) IN (
        SELECT CAST(strftime('%s', substr(created_at, 1, 19)) AS INTEGER) / 900, role FROM chat_messages WHERE session_id = OLD.id);
END;

-- Answers the bot gave without knowledge to back them ("I don't know"), with the visitor's
-- question, so the owner sees what to train next. `question_key` is the question lower-cased
-- with its spacing and end punctuation normalised, to count repeats together.
CREATE TABLE refused_answers (
    id TEXT PRIMARY KEY NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    message_id TEXT NOT NULL REFERENCES chat_messages(id) ON DELETE CASCADE,
    question TEXT NOT NULL,
    question_key TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX refused_answers_bot ON refused_answers(bot_id, created_at);
CREATE INDEX refused_answers_message ON refused_answers(message_id);
CREATE INDEX refused_answers_session ON refused_answers(session_id);

-- Events per bot, kind and 15-minute slot, kept by triggers like message_counts: conversations
-- started (by created_at), requests for a person (human_support_requested_at), resolutions and
-- ratings (resolved_at; `total` sums the ratings), refused answers and leads visitors left.
-- Grouping 100,000 conversations of 90 days by day took SQLite 100–200 ms a column; the slots
-- are at most 8,640 × 6 rows. Decrements only update rows: a cascade from a deleted bot must
-- not insert rows for it.
CREATE TABLE event_counts (
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    slot BIGINT NOT NULL,
    kind TEXT NOT NULL,
    count BIGINT NOT NULL,
    total BIGINT NOT NULL,
    PRIMARY KEY (bot_id, slot, kind)
) WITHOUT ROWID;

INSERT INTO event_counts (bot_id, slot, kind, count, total)
SELECT bot_id, slot, kind, SUM(c), SUM(t) FROM (
    SELECT s.bot_id AS bot_id, CAST(strftime('%s', substr(s.created_at, 1, 19)) AS INTEGER) / 900 AS slot, 'conversation' AS kind, 1 AS c, 0 AS t FROM chat_sessions s
    UNION ALL SELECT s.bot_id, CAST(strftime('%s', substr(s.human_support_requested_at, 1, 19)) AS INTEGER) / 900, 'handoff', 1, 0 FROM chat_sessions s WHERE s.human_support_requested_at IS NOT NULL
    UNION ALL SELECT s.bot_id, CAST(strftime('%s', substr(s.resolved_at, 1, 19)) AS INTEGER) / 900, 'resolved', 1, 0 FROM chat_sessions s WHERE s.resolved_at IS NOT NULL
    UNION ALL SELECT s.bot_id, CAST(strftime('%s', substr(s.resolved_at, 1, 19)) AS INTEGER) / 900, 'rating', 1, s.rating FROM chat_sessions s WHERE s.resolved_at IS NOT NULL AND s.rating IS NOT NULL
    UNION ALL SELECT r.bot_id, CAST(strftime('%s', substr(r.created_at, 1, 19)) AS INTEGER) / 900, 'refused', 1, 0 FROM refused_answers r
    UNION ALL SELECT l.bot_id, CAST(strftime('%s', substr(l.captured_at, 1, 19)) AS INTEGER) / 900, 'lead', 1, 0 FROM leads l WHERE l.source <> 'manual'
) GROUP BY 1, 2, 3;

CREATE TRIGGER event_counts_session_insert AFTER INSERT ON chat_sessions
BEGIN
    INSERT INTO event_counts (bot_id, slot, kind, count, total)
    SELECT bot_id, slot, kind, c, t FROM (
        SELECT NEW.bot_id AS bot_id, CAST(strftime('%s', substr(NEW.created_at, 1, 19)) AS INTEGER) / 900 AS slot, 'conversation' AS kind, 1 AS c, 0 AS t
        UNION ALL SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.human_support_requested_at, 1, 19)) AS INTEGER) / 900, 'handoff', 1, 0 WHERE NEW.human_support_requested_at IS NOT NULL
        UNION ALL SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.resolved_at, 1, 19)) AS INTEGER) / 900, 'resolved', 1, 0 WHERE NEW.resolved_at IS NOT NULL
        UNION ALL SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.resolved_at, 1, 19)) AS INTEGER) / 900, 'rating', 1, NEW.rating WHERE NEW.resolved_at IS NOT NULL AND NEW.rating IS NOT NULL
    ) WHERE true
    ON CONFLICT (bot_id, slot, kind) DO UPDATE SET count = count + excluded.count, total = total + excluded.total;
END;

CREATE TRIGGER event_counts_session_update AFTER UPDATE OF created_at, human_support_requested_at, resolved_at, rating, bot_id ON chat_sessions
BEGIN
    UPDATE event_counts SET count = count + d.c, total = total + d.t
    FROM (
        SELECT OLD.bot_id AS bot_id, CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900 AS slot, 'conversation' AS kind, -1 AS c, 0 AS t
        UNION ALL SELECT OLD.bot_id, CAST(strftime('%s', substr(OLD.human_support_requested_at, 1, 19)) AS INTEGER) / 900, 'handoff', -1, 0 WHERE OLD.human_support_requested_at IS NOT NULL
        UNION ALL SELECT OLD.bot_id, CAST(strftime('%s', substr(OLD.resolved_at, 1, 19)) AS INTEGER) / 900, 'resolved', -1, 0 WHERE OLD.resolved_at IS NOT NULL
        UNION ALL SELECT OLD.bot_id, CAST(strftime('%s', substr(OLD.resolved_at, 1, 19)) AS INTEGER) / 900, 'rating', -1, -OLD.rating WHERE OLD.resolved_at IS NOT NULL AND OLD.rating IS NOT NULL
    ) AS d
    WHERE event_counts.bot_id = d.bot_id AND event_counts.slot = d.slot AND event_counts.kind = d.kind;
    INSERT INTO event_counts (bot_id, slot, kind, count, total)
    SELECT bot_id, slot, kind, c, t FROM (
        SELECT NEW.bot_id AS bot_id, CAST(strftime('%s', substr(NEW.created_at, 1, 19)) AS INTEGER) / 900 AS slot, 'conversation' AS kind, 1 AS c, 0 AS t
        UNION ALL SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.human_support_requested_at, 1, 19)) AS INTEGER) / 900, 'handoff', 1, 0 WHERE NEW.human_support_requested_at IS NOT NULL
        UNION ALL SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.resolved_at, 1, 19)) AS INTEGER) / 900, 'resolved', 1, 0 WHERE NEW.resolved_at IS NOT NULL
        UNION ALL SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.resolved_at, 1, 19)) AS INTEGER) / 900, 'rating', 1, NEW.rating WHERE NEW.resolved_at IS NOT NULL AND NEW.rating IS NOT NULL
    ) WHERE true
    ON CONFLICT (bot_id, slot, kind) DO UPDATE SET count = count + excluded.count, total = total + excluded.total;
END;

CREATE TRIGGER event_counts_session_delete AFTER DELETE ON chat_sessions
BEGIN
    UPDATE event_counts SET count = count + d.c, total = total + d.t
    FROM (
        SELECT OLD.bot_id AS bot_id, CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900 AS slot, 'conversation' AS kind, -1 AS c, 0 AS t
        UNION ALL SELECT OLD.bot_id, CAST(strftime('%s', substr(OLD.human_support_requested_at, 1, 19)) AS INTEGER) / 900, 'handoff', -1, 0 WHERE OLD.human_support_requested_at IS NOT NULL
        UNION ALL SELECT OLD.bot_id, CAST(strftime('%s', substr(OLD.resolved_at, 1, 19)) AS INTEGER) / 900, 'resolved', -1, 0 WHERE OLD.resolved_at IS NOT NULL
        UNION ALL SELECT OLD.bot_id, CAST(strftime('%s', substr(OLD.resolved_at, 1, 19)) AS INTEGER) / 900, 'rating', -1, -OLD.rating WHERE OLD.resolved_at IS NOT NULL AND OLD.rating IS NOT NULL
    ) AS d
    WHERE event_counts.bot_id = d.bot_id AND event_counts.slot = d.slot AND event_counts.kind = d.kind;
END;

CREATE TRIGGER event_counts_refused_insert AFTER INSERT ON refused_answers
BEGIN
    INSERT INTO event_counts (bot_id, slot, kind, count, total)
    SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.created_at, 1, 19)) AS INTEGER) / 900, 'refused', 1, 0 WHERE true
    ON CONFLICT (bot_id, slot, kind) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER event_counts_refused_delete AFTER DELETE ON refused_answers
BEGIN
    UPDATE event_counts SET count = count - 1
    WHERE bot_id = OLD.bot_id AND slot = CAST(strftime('%s', substr(OLD.created_at, 1, 19)) AS INTEGER) / 900 AND kind = 'refused';
END;

CREATE TRIGGER event_counts_lead_insert AFTER INSERT ON leads WHEN NEW.source <> 'manual'
BEGIN
    INSERT INTO event_counts (bot_id, slot, kind, count, total)
    SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.captured_at, 1, 19)) AS INTEGER) / 900, 'lead', 1, 0 WHERE true
    ON CONFLICT (bot_id, slot, kind) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER event_counts_lead_update AFTER UPDATE OF captured_at, source, bot_id ON leads
BEGIN
    UPDATE event_counts SET count = count - 1
    WHERE OLD.source <> 'manual' AND bot_id = OLD.bot_id AND slot = CAST(strftime('%s', substr(OLD.captured_at, 1, 19)) AS INTEGER) / 900 AND kind = 'lead';
    INSERT INTO event_counts (bot_id, slot, kind, count, total)
    SELECT NEW.bot_id, CAST(strftime('%s', substr(NEW.captured_at, 1, 19)) AS INTEGER) / 900, 'lead', 1, 0 WHERE NEW.source <> 'manual'
    ON CONFLICT (bot_id, slot, kind) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER event_counts_lead_delete AFTER DELETE ON leads WHEN OLD.source <> 'manual'
BEGIN
    UPDATE event_counts SET count = count - 1
    WHERE bot_id = OLD.bot_id AND slot = CAST(strftime('%s', substr(OLD.captured_at, 1, 19)) AS INTEGER) / 900 AND kind = 'lead';
END;

-- Each handoff's wait: the session's latest request for a person and the first agent message
-- at or after it, recomputed for a session by triggers whenever an agent message or the request
-- changes. The percentiles of 90 days then read one narrow indexed row per handoff instead of
-- searching each session's messages (10,000 handoffs took SQLite 200–370 ms that way).
CREATE TABLE agent_responses (
    session_id TEXT PRIMARY KEY NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    asked_at TIMESTAMP NOT NULL,
    answered_at TIMESTAMP NOT NULL
);
CREATE INDEX agent_responses_bot ON agent_responses(bot_id, asked_at, answered_at);

INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
SELECT id, bot_id, asked, answered FROM (
    SELECT s.id AS id, s.bot_id AS bot_id, s.human_support_requested_at AS asked,
        (SELECT MIN(m.created_at) FROM chat_messages m
         WHERE m.session_id = s.id AND m.role = 'agent' AND m.created_at >= s.human_support_requested_at) AS answered
    FROM chat_sessions s WHERE s.human_support_requested_at IS NOT NULL
) r WHERE answered IS NOT NULL;

CREATE TRIGGER agent_responses_message_insert AFTER INSERT ON chat_messages WHEN NEW.role = 'agent'
BEGIN
    DELETE FROM agent_responses WHERE session_id = NEW.session_id;
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT id, bot_id, asked, answered FROM (
        SELECT s.id AS id, s.bot_id AS bot_id, s.human_support_requested_at AS asked,
            (SELECT MIN(m.created_at) FROM chat_messages m
             WHERE m.session_id = s.id AND m.role = 'agent' AND m.created_at >= s.human_support_requested_at) AS answered
        FROM chat_sessions s WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
    ) r WHERE answered IS NOT NULL;
END;

CREATE TRIGGER agent_responses_message_update AFTER UPDATE OF created_at, role ON chat_messages
WHEN NEW.role = 'agent' OR OLD.role = 'agent'
BEGIN
    DELETE FROM agent_responses WHERE session_id = NEW.session_id;
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT id, bot_id, asked, answered FROM (
        SELECT s.id AS id, s.bot_id AS bot_id, s.human_support_requested_at AS asked,
            (SELECT MIN(m.created_at) FROM chat_messages m
             WHERE m.session_id = s.id AND m.role = 'agent' AND m.created_at >= s.human_support_requested_at) AS answered
        FROM chat_sessions s WHERE s.id = NEW.session_id AND s.human_support_requested_at IS NOT NULL
    ) r WHERE answered IS NOT NULL;
END;

CREATE TRIGGER agent_responses_message_delete AFTER DELETE ON chat_messages WHEN OLD.role = 'agent'
BEGIN
    DELETE FROM agent_responses WHERE session_id = OLD.session_id;
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT id, bot_id, asked, answered FROM (
        SELECT s.id AS id, s.bot_id AS bot_id, s.human_support_requested_at AS asked,
            (SELECT MIN(m.created_at) FROM chat_messages m
             WHERE m.session_id = s.id AND m.role = 'agent' AND m.created_at >= s.human_support_requested_at) AS answered
        FROM chat_sessions s WHERE s.id = OLD.session_id AND s.human_support_requested_at IS NOT NULL
    ) r WHERE answered IS NOT NULL;
END;

CREATE TRIGGER agent_responses_request AFTER UPDATE OF human_support_requested_at ON chat_sessions
BEGIN
    DELETE FROM agent_responses WHERE session_id = NEW.id;
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT id, bot_id, asked, answered FROM (
        SELECT s.id AS id, s.bot_id AS bot_id, s.human_support_requested_at AS asked,
            (SELECT MIN(m.created_at) FROM chat_messages m
             WHERE m.session_id = s.id AND m.role = 'agent' AND m.created_at >= s.human_support_requested_at) AS answered
        FROM chat_sessions s WHERE s.id = NEW.id AND s.human_support_requested_at IS NOT NULL
    ) r WHERE answered IS NOT NULL;
END;

-- The analytics call reads a bot's sessions by when they started, asked for a person and were
-- resolved (with their rating).
CREATE INDEX chat_sessions_bot_created ON chat_sessions(bot_id, created_at);
CREATE INDEX chat_sessions_bot_handoff ON chat_sessions(bot_id, human_support_requested_at) WHERE human_support_requested_at IS NOT NULL;
CREATE INDEX chat_sessions_bot_resolved ON chat_sessions(bot_id, resolved_at, rating) WHERE resolved_at IS NOT NULL;
