//! Fresh databases for tests: a temporary SQLite file, or a new PostgreSQL database on the
//! local server (`PARLEY_TEST_PG_URL`, default the machine's trust-auth server).

use std::path::PathBuf;

use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

use crate::{Backend, Store, StoreError, StoreResult};

pub const DEFAULT_PG_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// Prefix of every database the tests create (`.ci/run` drops leftovers before a run).
pub const TEST_DB_PREFIX: &str = "parley_test_";

pub fn pg_admin_url() -> String {
    std::env::var("PARLEY_TEST_PG_URL").unwrap_or_else(|_| DEFAULT_PG_ADMIN_URL.to_string())
}

/// Creates an empty PostgreSQL database and returns its URL.
pub async fn fresh_pg_database() -> StoreResult<String> {
    let admin = pg_admin_url();
    let name = format!("{TEST_DB_PREFIX}{}", uuid::Uuid::new_v4().simple());
    let mut conn = AsyncPgConnection::establish(&admin)
        .await
        .map_err(|e| StoreError::Connection(format!("{admin}: {e} (is PostgreSQL running?)")))?;
    conn.batch_execute(&format!("CREATE DATABASE {name}")).await?;
    let base = admin.rsplit_once('/').map(|(b, _)| b.to_string()).unwrap_or(admin);
    Ok(format!("{base}/{name}"))
}

/// Where a test's data lives; keeps a temporary directory alive for SQLite.
pub struct TestDb {
    pub backend: Backend,
    pub database_url: String,
    pub dir: tempfile::TempDir,
}

impl TestDb {
    pub async fn new(backend: Backend) -> StoreResult<TestDb> {
        let dir = tempfile::tempdir().map_err(|e| StoreError::Connection(e.to_string()))?;
        let database_url = match backend {
            Backend::Sqlite => String::new(),
            Backend::Postgres => fresh_pg_database().await?,
        };
        Ok(TestDb { backend, database_url, dir })
    }

    /// Drops a PostgreSQL test database (closing its connections); SQLite's goes with `dir`.
    pub async fn drop_database(&self) -> StoreResult<()> {
        let Some(name) = self.database_url.rsplit('/').next().filter(|n| n.starts_with(TEST_DB_PREFIX)) else { return Ok(()) };
        let admin = pg_admin_url();
        let mut conn = AsyncPgConnection::establish(&admin).await.map_err(|e| StoreError::Connection(format!("{admin}: {e}")))?;
        conn.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await?;
        Ok(())
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    pub async fn open(&self) -> StoreResult<Store> {
        match self.backend {
            Backend::Sqlite => Store::open_sqlite(&self.dir.path().join("parley.db"), 4).await,
            Backend::Postgres => Store::open_postgres(&self.database_url, 4).await,
        }
    }

    /// A SQLite database as a crash would leave it: a copy of everything committed so far
    /// (`VACUUM INTO`), without what the running store keeps in memory.
    pub async fn crash_copy(&self) -> StoreResult<TestDb> {
        let copy = TestDb::new(Backend::Sqlite).await?;
        let (from, to) = (self.dir.path().join("parley.db"), copy.dir.path().join("parley.db"));
        tokio::task::spawn_blocking(move || crate::backup::backup_sqlite(&from, &to))
            .await
            .map_err(|e| StoreError::Connection(e.to_string()))??;
        Ok(copy)
    }

    /// What a connection of a test's own opens: the SQLite file or the PostgreSQL database.
    fn connection_url(&self) -> String {
        match self.backend {
            Backend::Sqlite => self.dir.path().join("parley.db").to_string_lossy().to_string(),
            Backend::Postgres => self.database_url.clone(),
        }
    }

    /// Runs `sql` on a connection of its own, beside the server's: for a test that makes the
    /// database refuse a write (a trigger), as a failing disk or a violated constraint would.
    pub async fn execute(&self, sql: &str) -> StoreResult<()> {
        use diesel::connection::SimpleConnection;
        use diesel::Connection;
        let (backend, sql, url) = (self.backend, sql.to_string(), self.connection_url());
        let connection = |e: diesel::ConnectionError| StoreError::Connection(e.to_string());
        tokio::task::spawn_blocking(move || match backend {
            Backend::Sqlite => {
                let mut conn = diesel::SqliteConnection::establish(&url).map_err(connection)?;
                conn.batch_execute(&format!("PRAGMA busy_timeout = 10000; {sql}"))?;
                Ok(())
            }
            Backend::Postgres => {
                use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
                let mut conn = <AsyncConnectionWrapper<AsyncPgConnection> as Connection>::establish(&url).map_err(connection)?;
                SimpleConnection::batch_execute(&mut conn, &sql)?;
                Ok(())
            }
        })
        .await
        .map_err(|e| StoreError::Connection(e.to_string()))?
    }

    /// Tests a data migration: reverts the migrations down to and including `version` (the
    /// folder name's date part, e.g. `2026-11-24-000001`), runs `sql` on the schema before it
    /// (to write rows as the older code did), then migrates up again. Open a fresh `Store`
    /// afterwards to read the result.
    pub async fn redo_migration(&self, version: &str, sql: &str) -> StoreResult<()> {
        use diesel::Connection;
        let (backend, version, sql, url) = (self.backend, version.to_string(), sql.to_string(), self.connection_url());
        let connection = |e: diesel::ConnectionError| StoreError::Connection(e.to_string());
        tokio::task::spawn_blocking(move || match backend {
            Backend::Sqlite => {
                let mut conn = diesel::SqliteConnection::establish(&url).map_err(connection)?;
                // The store's own connections may still be closing.
                diesel::connection::SimpleConnection::batch_execute(&mut conn, "PRAGMA busy_timeout = 10000;")?;
                redo_on(&mut conn, || crate::pool::SQLITE_MIGRATIONS, &version, &sql)
            }
            Backend::Postgres => {
                use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
                let mut conn = <AsyncConnectionWrapper<AsyncPgConnection> as Connection>::establish(&url).map_err(connection)?;
                redo_on(&mut conn, || crate::pool::PG_MIGRATIONS, &version, &sql)
            }
        })
        .await
        .map_err(|e| StoreError::Connection(e.to_string()))?
    }
}

/// [`TestDb::redo_migration`] on one connection. `migrations` makes the (not cloneable) set
/// once per use.
fn redo_on<C, DB>(conn: &mut C, migrations: impl Fn() -> diesel_migrations::EmbeddedMigrations, version: &str, sql: &str) -> StoreResult<()>
where
    DB: diesel::backend::Backend,
    C: diesel_migrations::MigrationHarness<DB> + diesel::connection::SimpleConnection,
{
    let migration = |e: Box<dyn std::error::Error + Send + Sync>| StoreError::Migration(e.to_string());
    loop {
        let reverted = conn.revert_last_migration(migrations()).map_err(migration)?;
        // diesel names a version without the folder's dashes.
        if reverted.to_string().replace('-', "") == version.replace('-', "") {
            break;
        }
    }
    conn.batch_execute(sql)?;
    conn.run_pending_migrations(migrations()).map_err(migration)?;
    Ok(())
}

impl Store {
    /// Moves an invitation `by` into the past (sent and expiring earlier), as time would.
    pub async fn age_invitation(&self, member_id: &str, by: chrono::Duration) -> StoreResult<()> {
        use crate::models::TeamMember;
        use crate::schema::team_members;
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        let member: TeamMember = db_run!(self, |conn| team_members::table.find(member_id).first(conn).await)?;
        let invited = member.invited_at - by;
        let expires = member.invite_expires_at.map(|at| at - by);
        db_run!(self, |conn| diesel::update(team_members::table.find(member_id))
            .set((team_members::invited_at.eq(invited), team_members::invite_expires_at.eq(expires)))
            .execute(conn)
            .await)?;
        Ok(())
    }
}

impl Store {
    /// A transaction that writes an activity entry `action` for `user_id`, then holds the
    /// transaction open for `hold` before committing: what a slow request looks like to a
    /// client that gives up (and drops the future) halfway.
    pub async fn hold_transaction(&self, user_id: &str, action: &str, hold: std::time::Duration) -> StoreResult<()> {
        use crate::models::Activity;
        use crate::schema::activity_log;
        use diesel_async::RunQueryDsl;
        let row = Activity {
            id: crate::new_id(),
            user_id: Some(user_id.to_string()),
            bot_id: None,
            action: action.to_string(),
            kind: "test".into(),
            created_at: crate::time::now(),
        };
        db_tx!(self, |conn| async move {
            diesel::insert_into(activity_log::table).values(&row).execute(conn).await?;
            tokio::time::sleep(hold).await;
            Ok(())
        })
    }
}

impl Store {
    /// Moves a conversation `by` into the past: its start, handoff and resolve times, its
    /// messages and its lead, as if it happened then (for figures over a time window).
    pub async fn backdate_session(&self, session_id: &str, by: chrono::Duration) -> StoreResult<()> {
        use crate::schema::{chat_messages, chat_sessions, leads};
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        let session = self.session(session_id).await?.ok_or(StoreError::NotFound)?;
        db_run!(self, |conn| diesel::update(chat_sessions::table.find(session_id))
            .set((
                chat_sessions::created_at.eq(session.created_at - by),
                chat_sessions::human_support_requested_at.eq(session.human_support_requested_at.map(|t| t - by)),
                chat_sessions::resolved_at.eq(session.resolved_at.map(|t| t - by)),
            ))
            .execute(conn)
            .await)?;
        let messages: Vec<(String, chrono::NaiveDateTime)> = db_run!(self, |conn| chat_messages::table
            .filter(chat_messages::session_id.eq(session_id))
            .select((chat_messages::id, chat_messages::created_at))
            .load(conn)
            .await)?;
        for (id, at) in messages {
            db_run!(self, |conn| diesel::update(chat_messages::table.find(&id)).set(chat_messages::created_at.eq(at - by)).execute(conn).await)?;
        }
        let captured: Vec<(String, chrono::NaiveDateTime)> = db_run!(self, |conn| leads::table
            .filter(leads::session_id.eq(session_id))
            .select((leads::id, leads::captured_at))
            .load(conn)
            .await)?;
        for (id, at) in captured {
            db_run!(self, |conn| diesel::update(leads::table.find(&id)).set(leads::captured_at.eq(at - by)).execute(conn).await)?;
        }
        Ok(())
    }

    /// A session's counters as stored, without asking the message writer for those it keeps.
    pub async fn stored_counters(&self, session_id: &str) -> StoreResult<(i32, Option<String>)> {
        use crate::schema::chat_sessions;
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        Ok(db_run!(self, |conn| chat_sessions::table
            .find(session_id)
            .select((chat_sessions::message_count, chat_sessions::last_message))
            .first::<(i32, Option<String>)>(conn)
            .await)?)
    }

    /// A bot's per-slot message counts as stored (`message_counts`), summed per author,
    /// without asking the writer for what it keeps.
    pub async fn stored_message_counts(&self, bot_id: &str) -> StoreResult<Vec<(String, i64)>> {
        use diesel::sql_types::Text;
        use diesel_async::RunQueryDsl;
        #[derive(diesel::QueryableByName)]
        struct Row {
            #[diesel(sql_type = Text)]
            role: String,
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let sql = match self.backend() {
            Backend::Sqlite => "SELECT role, CAST(SUM(count) AS BIGINT) AS n FROM message_counts WHERE bot_id = ?1 GROUP BY role ORDER BY role",
            Backend::Postgres => "SELECT role, CAST(SUM(count) AS BIGINT) AS n FROM message_counts WHERE bot_id = $1 GROUP BY role ORDER BY role",
        };
        let rows: Vec<Row> = db_run!(self, |conn| diesel::sql_query(sql).bind::<Text, _>(bot_id).load(conn).await)?;
        Ok(rows.into_iter().filter(|r| r.n != 0).map(|r| (r.role, r.n)).collect())
    }

    /// Zeroes a session's counters, as a crash between its messages' commit and the counters'
    /// flush would leave them.
    pub async fn lose_counters(&self, session_id: &str) -> StoreResult<()> {
        use crate::schema::chat_sessions;
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        db_run!(self, |conn| diesel::update(chat_sessions::table.find(session_id))
            .set((chat_sessions::message_count.eq(0), chat_sessions::last_message.eq(None::<String>)))
            .execute(conn)
            .await)?;
        Ok(())
    }

    /// Sets a conversation's start, handoff request and resolve times as given (`None` leaves
    /// one as it is), for figures at chosen instants; its messages stay where they are.
    pub async fn set_session_times(
        &self,
        session_id: &str,
        created: Option<chrono::NaiveDateTime>,
        requested: Option<chrono::NaiveDateTime>,
        resolved: Option<chrono::NaiveDateTime>,
    ) -> StoreResult<()> {
        use crate::schema::chat_sessions;
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        let session = self.session(session_id).await?.ok_or(StoreError::NotFound)?;
        db_run!(self, |conn| diesel::update(chat_sessions::table.find(session_id))
            .set((
                chat_sessions::created_at.eq(created.unwrap_or(session.created_at)),
                chat_sessions::human_support_requested_at.eq(requested.or(session.human_support_requested_at)),
                chat_sessions::resolved_at.eq(resolved.or(session.resolved_at)),
            ))
            .execute(conn)
            .await)?;
        Ok(())
    }

    /// Sets when one message was written.
    pub async fn set_message_time(&self, message_id: &str, at: chrono::NaiveDateTime) -> StoreResult<()> {
        use crate::schema::chat_messages;
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        db_run!(self, |conn| diesel::update(chat_messages::table.find(message_id)).set(chat_messages::created_at.eq(at)).execute(conn).await)?;
        Ok(())
    }

    /// Sets when a lead was captured (for the month figures of the Leads page).
    pub async fn set_lead_captured_at(&self, lead_id: &str, at: chrono::NaiveDateTime) -> StoreResult<()> {
        use crate::schema::leads;
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        db_run!(self, |conn| diesel::update(leads::table.find(lead_id)).set(leads::captured_at.eq(at)).execute(conn).await)?;
        Ok(())
    }

    /// Inserts `n` leads for `bot_id` in batches, each with every field filled (names, emails,
    /// notes long enough to weigh like real ones), one second apart: the export's load test.
    pub async fn seed_leads(&self, bot_id: &str, n: usize) -> StoreResult<()> {
        use crate::models::Lead;
        use crate::schema::leads;
        use diesel_async::RunQueryDsl;
        let start = crate::time::now();
        let mut done = 0;
        while done < n {
            let batch: Vec<Lead> = (done..n.min(done + 1000))
                .map(|i| Lead {
                    id: crate::new_id(),
                    bot_id: bot_id.to_string(),
                    session_id: None,
                    name: Some(format!("Seeded Person {i}")),
                    email: Some(format!("person{i}@seed.example")),
                    phone: Some(format!("+1 555 {i:07}")),
                    company: Some(format!("Company {}", i % 97)),
                    status: crate::leads::STATUSES[i % 5].to_string(),
                    priority: crate::leads::PRIORITIES[i % 4].to_string(),
                    source: crate::leads::SOURCE_WEBSITE_CHAT.to_string(),
                    notes: Some(format!("Asked about pricing, integrations and the trial; lead number {i}.")),
                    tags: "[\"seeded\",\"load\"]".to_string(),
                    lead_score: (i % 101) as i32,
                    assigned_to: None,
                    captured_at: start - chrono::Duration::seconds(i as i64),
                    last_contact: None,
                    updated_at: start,
                })
                .collect();
            done += batch.len();
            // Row by row in one transaction: diesel-async has no batch insert for SQLite.
            db_tx!(self, |conn| async move {
                for lead in &batch {
                    diesel::insert_into(leads::table).values(lead).execute(conn).await?;
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}

/// Ten messages a seeded conversation: visitor and bot in turn; every tenth conversation asks
/// for a person after a minute, an agent writes the last three messages and resolves it with a
/// rating; every fifth has a refused answer, every twentieth a lead.
pub const SEEDED_MESSAGES_PER_CONVERSATION: i64 = 10;

impl Store {
    /// Seeds `messages` messages for `bot_id` spread evenly over the `days` before `now`, in
    /// SQL (the analytics benchmark: a million rows in seconds rather than through the writer).
    /// The writer's slot counts (`message_counts`) are added here in one statement. Message ids
    /// start `00000000-seed-m-`, so they sort before every id the writer makes (UUIDv7): its
    /// catch-up after a crash, which counts the messages past its last counted id, never
    /// counts them twice.
    pub async fn seed_analytics(&self, bot_id: &str, messages: i64, days: i64, now: chrono::NaiveDateTime) -> StoreResult<()> {
        use diesel::sql_types::{BigInt, Text};
        use diesel_async::RunQueryDsl;
        let per = SEEDED_MESSAGES_PER_CONVERSATION;
        let sessions = (messages / per).max(1);
        let span = days * 86_400;
        let start = now.and_utc().timestamp() - span;
        let sqlite = self.backend() == Backend::Sqlite;
        // The dialects differ in the row source and in turning seconds into a timestamp.
        let rows = |name: &str, to: &str| {
            if sqlite {
                format!("{name}(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM {name} WHERE i < {to} - 1)")
            } else {
                format!("{name}(i) AS (SELECT generate_series(0, {to} - 1))")
            }
        };
        let at = |secs: &str| {
            if sqlite {
                format!("datetime({secs}, 'unixepoch')")
            } else {
                format!("(to_timestamp({secs}) AT TIME ZONE 'UTC')")
            }
        };
        let with = if sqlite { "WITH RECURSIVE" } else { "WITH" };
        let p = |n: u8| if sqlite { format!("?{n}") } else { format!("${n}") };
        let (bot, first, span_p, count) = (p(1), p(2), p(3), p(4));
        let created = format!("({first} + n.i * {span_p} / {count})");
        let handoff = "n.i % 10 = 0";
        let session_sql = format!(
            "{with} {n} INSERT INTO chat_sessions (id, bot_id, title, status, priority, tags, needs_human_support, \
               human_support_requested_at, resolved_at, resolved_by, rating, is_pinned, is_starred, message_count, created_at, updated_at) \
             SELECT 'seed-s-' || n.i, {bot}, 'Seeded conversation', CASE WHEN {handoff} THEN 'resolved' ELSE 'active' END, 'medium', '[]', \
               {handoff}, CASE WHEN {handoff} THEN {asked} END, CASE WHEN {handoff} THEN {resolved} END, \
               CASE WHEN {handoff} THEN 'Seeded agent' END, CASE WHEN {handoff} THEN CAST(1 + n.i % 5 AS INTEGER) END, \
               {f}, {f}, {per}, {created_at}, {created_at} FROM n",
            n = rows("n", &count),
            asked = at(&format!("{created} + 60")),
            resolved = at(&format!("{created} + 600")),
            created_at = at(&created),
            f = if sqlite { "0" } else { "FALSE" },
        );
        let message_sql = format!(
            "{with} {n}, {k} INSERT INTO chat_messages (id, session_id, seq, role, content, is_agent, is_error, sources, created_at) \
             SELECT '{SEEDED_MESSAGE}' || n.i || '-' || k.i, 'seed-s-' || n.i, k.i + 1, \
               CASE WHEN k.i % 2 = 0 THEN 'user' WHEN {handoff} AND k.i >= 5 THEN 'agent' ELSE 'bot' END, \
               'A seeded message of about the length of a real one, asking or answering something.', \
               CASE WHEN k.i % 2 = 1 AND {handoff} AND k.i >= 5 THEN {t} ELSE {f} END, {f}, '[]', {at} FROM n, k WHERE {bot} <> ''",
            n = rows("n", &count),
            k = rows("k", &per.to_string()),
            at = at(&format!("{created} + k.i * 20 + CASE WHEN {handoff} AND k.i >= 5 THEN 120 ELSE 0 END")),
            t = if sqlite { "1" } else { "TRUE" },
            f = if sqlite { "0" } else { "FALSE" },
        );
        let refused_sql = format!(
            "{with} {n} INSERT INTO refused_answers (id, bot_id, session_id, message_id, question, question_key, created_at) \
             SELECT 'seed-r-' || n.i, {bot}, 'seed-s-' || n.i, '{SEEDED_MESSAGE}' || n.i || '-1', 'Seeded question ' || (n.i % 50) || '?', \
               'seeded question ' || (n.i % 50), {at} FROM n WHERE n.i % 5 = 0",
            n = rows("n", &count),
            at = at(&format!("{created} + 20")),
        );
        let leads_sql = format!(
            "{with} {n} INSERT INTO leads (id, bot_id, session_id, name, email, status, priority, source, tags, lead_score, captured_at, updated_at) \
             SELECT 'seed-l-' || n.i, {bot}, 'seed-s-' || n.i, 'Seeded visitor', 'visitor' || n.i || '@seed.example', 'new', 'medium', \
               'website_chat', '[]', 50, {at}, {at} FROM n WHERE n.i % 20 = 0",
            n = rows("n", &count),
            at = at(&format!("{created} + 40")),
        );
        let slot = if sqlite {
            "CAST(strftime('%s', substr(m.created_at, 1, 19)) AS INTEGER) / 900"
        } else {
            "FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT"
        };
        let counts_sql = format!(
            "INSERT INTO message_counts (bot_id, slot, role, count) \
             SELECT s.bot_id, {slot}, m.role, COUNT(*) FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id \
             WHERE s.bot_id = {bot} AND m.id LIKE '{SEEDED_MESSAGE}%' AND m.role IN ('user', 'bot', 'agent') GROUP BY 1, 2, 3 \
             ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + excluded.count"
        );
        for sql in [session_sql, message_sql, refused_sql, leads_sql] {
            let sql = sql.as_str();
            db_tx!(self, owned(bot_id, sql), |conn| async move {
                diesel::sql_query(sql.as_str())
                    .bind::<Text, _>(bot_id.as_str())
                    .bind::<BigInt, _>(start)
                    .bind::<BigInt, _>(span)
                    .bind::<BigInt, _>(sessions)
                    .execute(conn)
                    .await?;
                Ok(())
            })?;
        }
        let counts_sql = counts_sql.as_str();
        db_tx!(self, owned(bot_id, counts_sql), |conn| async move {
            diesel::sql_query(counts_sql.as_str()).bind::<Text, _>(bot_id.as_str()).execute(conn).await?;
            Ok(())
        })?;
        Ok(())
    }
}

/// How seeded message ids start (see `Store::seed_analytics`).
const SEEDED_MESSAGE: &str = "00000000-seed-m-";
