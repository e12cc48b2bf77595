-- Parley's whole data model. Ids are text UUIDs, times are UTC timestamps, JSON is text,
-- so one schema.rs serves SQLite and PostgreSQL.

CREATE TABLE users (
    id TEXT PRIMARY KEY NOT NULL,
    email TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL DEFAULT '',
    password_hash TEXT,
    profile_picture TEXT,
    timezone TEXT NOT NULL DEFAULT 'UTC-5',
    language TEXT NOT NULL DEFAULT 'en',
    two_factor_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE user_identities (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    subject TEXT NOT NULL,
    email TEXT,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (provider, subject)
);
CREATE INDEX user_identities_user ON user_identities(user_id);

CREATE TABLE notification_preferences (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    email_notifications BOOLEAN NOT NULL DEFAULT TRUE,
    push_notifications BOOLEAN NOT NULL DEFAULT TRUE,
    weekly_reports BOOLEAN NOT NULL DEFAULT FALSE,
    security_alerts BOOLEAN NOT NULL DEFAULT TRUE,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE bots (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    icon TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    website_url TEXT,
    system_prompt TEXT NOT NULL,
    widget TEXT NOT NULL DEFAULT '{}',
    knowledge_version BIGINT NOT NULL DEFAULT 0,
    last_active TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX bots_owner ON bots(owner_id);

CREATE TABLE bot_settings (
    bot_id TEXT PRIMARY KEY NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    max_chat_text_size INTEGER NOT NULL DEFAULT 1000,
    url_whitelist TEXT NOT NULL DEFAULT '[]',
    updated_at TIMESTAMP NOT NULL
);

-- A team member is also an invitation while its status is 'pending'.
CREATE TABLE team_members (
    id TEXT PRIMARY KEY NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    role TEXT NOT NULL DEFAULT 'viewer',
    status TEXT NOT NULL DEFAULT 'pending',
    invited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    invite_token TEXT,
    invited_at TIMESTAMP NOT NULL,
    joined_at TIMESTAMP,
    last_active TIMESTAMP,
    UNIQUE (bot_id, email)
);
CREATE INDEX team_members_user ON team_members(user_id);
CREATE INDEX team_members_email ON team_members(email);

CREATE TABLE knowledge_sources (
    id TEXT PRIMARY KEY NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'processing',
    error TEXT,
    url TEXT,
    content TEXT,
    file_path TEXT,
    size_bytes BIGINT,
    pages INTEGER,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX knowledge_sources_bot ON knowledge_sources(bot_id, kind);

CREATE TABLE qa_pairs (
    id TEXT PRIMARY KEY NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'processing',
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX qa_pairs_bot ON qa_pairs(bot_id);

CREATE TABLE chunks (
    id TEXT PRIMARY KEY NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    source_id TEXT REFERENCES knowledge_sources(id) ON DELETE CASCADE,
    qa_id TEXT REFERENCES qa_pairs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    title TEXT NOT NULL,
    url TEXT,
    page INTEGER,
    content TEXT NOT NULL,
    embedding BLOB,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX chunks_bot ON chunks(bot_id);
CREATE INDEX chunks_source ON chunks(source_id);
CREATE INDEX chunks_qa ON chunks(qa_id);

CREATE TABLE chat_sessions (
    id TEXT PRIMARY KEY NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',
    priority TEXT NOT NULL DEFAULT 'medium',
    tags TEXT NOT NULL DEFAULT '[]',
    needs_human_support BOOLEAN NOT NULL DEFAULT FALSE,
    assigned_agent_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    assigned_agent_name TEXT,
    customer_name TEXT,
    customer_email TEXT,
    customer_phone TEXT,
    customer_company TEXT,
    human_support_requested_at TIMESTAMP,
    resolved_at TIMESTAMP,
    resolved_by TEXT,
    rating INTEGER,
    feedback TEXT,
    is_pinned BOOLEAN NOT NULL DEFAULT FALSE,
    is_starred BOOLEAN NOT NULL DEFAULT FALSE,
    message_count INTEGER NOT NULL DEFAULT 0,
    last_message TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX chat_sessions_bot ON chat_sessions(bot_id, updated_at);

CREATE TABLE chat_messages (
    id TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    sender_name TEXT,
    agent_id TEXT,
    is_agent BOOLEAN NOT NULL DEFAULT FALSE,
    is_error BOOLEAN NOT NULL DEFAULT FALSE,
    sources TEXT NOT NULL DEFAULT '[]',
    created_at TIMESTAMP NOT NULL,
    edited_at TIMESTAMP,
    UNIQUE (session_id, seq)
);

CREATE TABLE leads (
    id TEXT PRIMARY KEY NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
    session_id TEXT REFERENCES chat_sessions(id) ON DELETE SET NULL,
    name TEXT,
    email TEXT,
    phone TEXT,
    company TEXT,
    status TEXT NOT NULL DEFAULT 'new',
    priority TEXT NOT NULL DEFAULT 'medium',
    source TEXT NOT NULL DEFAULT 'website_chat',
    notes TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    lead_score INTEGER NOT NULL DEFAULT 50,
    assigned_to TEXT REFERENCES users(id) ON DELETE SET NULL,
    captured_at TIMESTAMP NOT NULL,
    last_contact TIMESTAMP,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX leads_bot ON leads(bot_id, captured_at);

-- Limits use 999 for "unlimited", as the billing screen does.
CREATE TABLE plans (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    price_monthly_cents INTEGER,
    price_yearly_cents INTEGER,
    conversations_limit INTEGER NOT NULL,
    bots_limit INTEGER NOT NULL,
    credits_limit INTEGER NOT NULL,
    features TEXT NOT NULL DEFAULT '[]',
    sort_order INTEGER NOT NULL
);
INSERT INTO plans VALUES
  ('free', 'Free', 0, 0, 100, 1, 100, '["100 conversations/month","1 assistant","Basic analytics","Email support"]', 0),
  ('pro', 'Pro', 2900, 27840, 5000, 5, 5000, '["5,000 conversations","5 assistants","Advanced analytics","Human handoff","Mobile app access","Priority support"]', 1),
  ('enterprise', 'Enterprise', NULL, NULL, 999, 999, 999, '["Unlimited","Custom integrations","Dedicated support","SLA","Advanced security"]', 2);

CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
    plan_id TEXT NOT NULL REFERENCES plans(id),
    status TEXT NOT NULL DEFAULT 'active',
    billing_cycle TEXT NOT NULL DEFAULT 'monthly',
    current_period_start TIMESTAMP NOT NULL,
    current_period_end TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- One row per user and billing period; conversations and credits spent in it.
CREATE TABLE usage_counters (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    period_start TIMESTAMP NOT NULL,
    conversations INTEGER NOT NULL DEFAULT 0,
    credits_used INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, period_start)
);

CREATE TABLE payments (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    description TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    currency TEXT NOT NULL DEFAULT 'usd',
    status TEXT NOT NULL,
    paid_at TIMESTAMP NOT NULL
);
CREATE INDEX payments_user ON payments(user_id, paid_at);

-- "Recent Activity": what happened, by whom, on which bot.
CREATE TABLE activity_log (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    bot_id TEXT REFERENCES bots(id) ON DELETE CASCADE,
    action TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX activity_log_user ON activity_log(user_id, created_at);
CREATE INDEX activity_log_bot ON activity_log(bot_id, created_at);
