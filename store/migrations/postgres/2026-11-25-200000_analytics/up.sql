-- Analytics over time (GET /api/bots/{id}/analytics).
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
);

INSERT INTO message_counts (bot_id, slot, role, count)
SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT, m.role, COUNT(*)
FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id
WHERE m.role IN ('user', 'bot', 'agent')
GROUP BY 1, 2, 3;

-- Adds `sign` × the rows of `rows` (a transition table's messages) to their slots. Statement
-- triggers: the message writer inserts a batch in one statement, counted in one upsert.
CREATE FUNCTION message_counts_add_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM n.created_at) / 900)::BIGINT, n.role, COUNT(*)
    FROM new_rows n JOIN chat_sessions s ON s.id = n.session_id
    WHERE n.role IN ('user', 'bot', 'agent')
    GROUP BY 1, 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count;
    RETURN NULL;
END $$;

-- A message deleted on its own. When its session is deleted, the session is gone by the time
-- this runs (the cascade deletes it first), so nothing joins: the trigger on chat_sessions
-- below has already taken the session's messages off.
CREATE FUNCTION message_counts_remove_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET count = c.count - d.n
    FROM (SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM o.created_at) / 900)::BIGINT AS slot, o.role, COUNT(*) AS n
          FROM old_rows o JOIN chat_sessions s ON s.id = o.session_id
          WHERE o.role IN ('user', 'bot', 'agent')
          GROUP BY 1, 2, 3) d
    WHERE c.bot_id = d.bot_id AND c.slot = d.slot AND c.role = d.role;
    RETURN NULL;
END $$;

-- Messages are never moved in time by the product; tests and imports that do move them keep
-- the counts true.
CREATE FUNCTION message_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET count = c.count - d.n
    FROM (SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM o.created_at) / 900)::BIGINT AS slot, o.role, COUNT(*) AS n
          FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN chat_sessions s ON s.id = o.session_id
          WHERE o.role IN ('user', 'bot', 'agent')
            AND (o.created_at, o.role, o.session_id) IS DISTINCT FROM (n.created_at, n.role, n.session_id)
          GROUP BY 1, 2, 3) d
    WHERE c.bot_id = d.bot_id AND c.slot = d.slot AND c.role = d.role;
    INSERT INTO message_counts (bot_id, slot, role, count)
    SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM n.created_at) / 900)::BIGINT, n.role, COUNT(*)
    FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN chat_sessions s ON s.id = n.session_id
    WHERE n.role IN ('user', 'bot', 'agent')
      AND (o.created_at, o.role, o.session_id) IS DISTINCT FROM (n.created_at, n.role, n.session_id)
    GROUP BY 1, 2, 3
    ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count;
    RETURN NULL;
END $$;

-- A deleted conversation leaves the figures with its messages.
CREATE FUNCTION message_counts_remove_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET count = c.count - d.n
    FROM (SELECT FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT AS slot, m.role, COUNT(*) AS n
          FROM chat_messages m
          WHERE m.session_id = OLD.id AND m.role IN ('user', 'bot', 'agent')
          GROUP BY 1, 2) d
    WHERE c.bot_id = OLD.bot_id AND c.slot = d.slot AND c.role = d.role;
    RETURN OLD;
END $$;

CREATE TRIGGER message_counts_insert AFTER INSERT ON chat_messages
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION message_counts_add_new();
CREATE TRIGGER message_counts_delete AFTER DELETE ON chat_messages
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION message_counts_remove_old();
CREATE TRIGGER message_counts_update AFTER UPDATE ON chat_messages
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION message_counts_move();
CREATE TRIGGER message_counts_session_delete BEFORE DELETE ON chat_sessions
    FOR EACH ROW EXECUTE FUNCTION message_counts_remove_session();

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
-- Grouping 100,000 conversations of 90 days by day cost 100–200 ms a column on SQLite; the
-- slots are at most 8,640 × 6 rows. Decrements only update rows: a cascade from a deleted bot
-- must not insert rows for it.
CREATE TABLE event_counts (
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    slot BIGINT NOT NULL,
    kind TEXT NOT NULL,
    count BIGINT NOT NULL,
    total BIGINT NOT NULL,
    PRIMARY KEY (bot_id, slot, kind)
);

INSERT INTO event_counts (bot_id, slot, kind, count, total)
SELECT bot_id, slot, kind, SUM(c), SUM(t) FROM (
    SELECT s.bot_id AS bot_id, FLOOR(EXTRACT(EPOCH FROM s.created_at) / 900)::BIGINT AS slot, 'conversation' AS kind, 1 AS c, 0 AS t FROM chat_sessions s
    UNION ALL SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM s.human_support_requested_at) / 900)::BIGINT, 'handoff', 1, 0 FROM chat_sessions s WHERE s.human_support_requested_at IS NOT NULL
    UNION ALL SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM s.resolved_at) / 900)::BIGINT, 'resolved', 1, 0 FROM chat_sessions s WHERE s.resolved_at IS NOT NULL
    UNION ALL SELECT s.bot_id, FLOOR(EXTRACT(EPOCH FROM s.resolved_at) / 900)::BIGINT, 'rating', 1, s.rating FROM chat_sessions s WHERE s.resolved_at IS NOT NULL AND s.rating IS NOT NULL
    UNION ALL SELECT r.bot_id, FLOOR(EXTRACT(EPOCH FROM r.created_at) / 900)::BIGINT, 'refused', 1, 0 FROM refused_answers r
    UNION ALL SELECT l.bot_id, FLOOR(EXTRACT(EPOCH FROM l.captured_at) / 900)::BIGINT, 'lead', 1, 0 FROM leads l WHERE l.source <> 'manual'
) e GROUP BY 1, 2, 3;

-- Adds (sign 1) or takes off (sign -1) one event at `at`.
CREATE FUNCTION event_counts_bump(p_bot TEXT, p_at TIMESTAMP, p_kind TEXT, p_sign BIGINT, p_total BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_at IS NULL THEN RETURN; END IF;
    IF p_sign > 0 THEN
        INSERT INTO event_counts (bot_id, slot, kind, count, total)
        VALUES (p_bot, FLOOR(EXTRACT(EPOCH FROM p_at) / 900)::BIGINT, p_kind, 1, p_total)
        ON CONFLICT (bot_id, slot, kind) DO UPDATE SET count = event_counts.count + 1, total = event_counts.total + EXCLUDED.total;
    ELSE
        UPDATE event_counts SET count = count - 1, total = total - p_total
        WHERE bot_id = p_bot AND slot = FLOOR(EXTRACT(EPOCH FROM p_at) / 900)::BIGINT AND kind = p_kind;
    END IF;
END $$;

CREATE FUNCTION event_counts_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM event_counts_bump(OLD.bot_id, OLD.created_at, 'conversation', -1, 0);
        PERFORM event_counts_bump(OLD.bot_id, OLD.human_support_requested_at, 'handoff', -1, 0);
        PERFORM event_counts_bump(OLD.bot_id, OLD.resolved_at, 'resolved', -1, 0);
        IF OLD.rating IS NOT NULL THEN
            PERFORM event_counts_bump(OLD.bot_id, OLD.resolved_at, 'rating', -1, OLD.rating);
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM event_counts_bump(NEW.bot_id, NEW.created_at, 'conversation', 1, 0);
        PERFORM event_counts_bump(NEW.bot_id, NEW.human_support_requested_at, 'handoff', 1, 0);
        PERFORM event_counts_bump(NEW.bot_id, NEW.resolved_at, 'resolved', 1, 0);
        IF NEW.rating IS NOT NULL THEN
            PERFORM event_counts_bump(NEW.bot_id, NEW.resolved_at, 'rating', 1, NEW.rating);
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION event_counts_refused() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM event_counts_bump(OLD.bot_id, OLD.created_at, 'refused', -1, 0);
    ELSE
        PERFORM event_counts_bump(NEW.bot_id, NEW.created_at, 'refused', 1, 0);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION event_counts_lead() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.source <> 'manual' THEN
        PERFORM event_counts_bump(OLD.bot_id, OLD.captured_at, 'lead', -1, 0);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.source <> 'manual' THEN
        PERFORM event_counts_bump(NEW.bot_id, NEW.captured_at, 'lead', 1, 0);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER event_counts_session_insert AFTER INSERT ON chat_sessions
    FOR EACH ROW EXECUTE FUNCTION event_counts_session();
CREATE TRIGGER event_counts_session_update AFTER UPDATE OF created_at, human_support_requested_at, resolved_at, rating, bot_id ON chat_sessions
    FOR EACH ROW EXECUTE FUNCTION event_counts_session();
CREATE TRIGGER event_counts_session_delete AFTER DELETE ON chat_sessions
    FOR EACH ROW EXECUTE FUNCTION event_counts_session();
CREATE TRIGGER event_counts_refused_change AFTER INSERT OR DELETE ON refused_answers
    FOR EACH ROW EXECUTE FUNCTION event_counts_refused();
CREATE TRIGGER event_counts_lead_change AFTER INSERT OR DELETE OR UPDATE OF captured_at, source, bot_id ON leads
    FOR EACH ROW EXECUTE FUNCTION event_counts_lead();

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

CREATE FUNCTION agent_responses_recompute(p_session TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM agent_responses WHERE session_id = p_session;
    INSERT INTO agent_responses (session_id, bot_id, asked_at, answered_at)
    SELECT id, bot_id, asked, answered FROM (
        SELECT s.id AS id, s.bot_id AS bot_id, s.human_support_requested_at AS asked,
            (SELECT MIN(m.created_at) FROM chat_messages m
             WHERE m.session_id = s.id AND m.role = 'agent' AND m.created_at >= s.human_support_requested_at) AS answered
        FROM chat_sessions s WHERE s.id = p_session AND s.human_support_requested_at IS NOT NULL
    ) r WHERE answered IS NOT NULL;
END $$;

CREATE FUNCTION agent_responses_on_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM agent_responses_recompute(OLD.session_id);
    ELSE
        PERFORM agent_responses_recompute(NEW.session_id);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION agent_responses_on_request() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM agent_responses_recompute(NEW.id);
    RETURN NULL;
END $$;

CREATE TRIGGER agent_responses_message_insert AFTER INSERT ON chat_messages
    FOR EACH ROW WHEN (NEW.role = 'agent') EXECUTE FUNCTION agent_responses_on_message();
CREATE TRIGGER agent_responses_message_update AFTER UPDATE OF created_at, role ON chat_messages
    FOR EACH ROW WHEN (NEW.role = 'agent' OR OLD.role = 'agent') EXECUTE FUNCTION agent_responses_on_message();
CREATE TRIGGER agent_responses_message_delete AFTER DELETE ON chat_messages
    FOR EACH ROW WHEN (OLD.role = 'agent') EXECUTE FUNCTION agent_responses_on_message();
CREATE TRIGGER agent_responses_request AFTER UPDATE OF human_support_requested_at ON chat_sessions
    FOR EACH ROW EXECUTE FUNCTION agent_responses_on_request();

-- The analytics call reads a bot's sessions by when they started, asked for a person and were
-- resolved (with their rating).
CREATE INDEX chat_sessions_bot_created ON chat_sessions(bot_id, created_at);
CREATE INDEX chat_sessions_bot_handoff ON chat_sessions(bot_id, human_support_requested_at) WHERE human_support_requested_at IS NOT NULL;
CREATE INDEX chat_sessions_bot_resolved ON chat_sessions(bot_id, resolved_at, rating) WHERE resolved_at IS NOT NULL;
