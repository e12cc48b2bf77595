//! Connecting: a deadpool of diesel-async connections per backend, the SQLite pragmas every
//! connection needs, and the migrations run at start-up.

use std::path::Path;

use diesel::sqlite::SqliteConnection;
use diesel::{Connection, ConnectionError};
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_async::pooled_connection::deadpool::{Object, Pool};
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod};
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
use diesel_async::{AsyncPgConnection, SimpleAsyncConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use futures_util::future::{BoxFuture, FutureExt};
use parley_config::Settings;

use crate::{StoreError, StoreResult};

pub(crate) type SqliteConn = SyncConnectionWrapper<SqliteConnection>;

pub(crate) const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");
pub(crate) const PG_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");

/// WAL lets readers run beside the writer; the busy timeout makes concurrent writers wait
/// instead of failing; SQLite leaves foreign keys off unless asked.
/// Temporary files (the statement journal of a multi-row insert) stay in memory, and a
/// connection caches 16 MB of pages instead of 2.
/// `synchronous = NORMAL` (the default) syncs the WAL at checkpoints, not at each commit: a
/// power cut may lose the last commits, never corrupt the file. `FULL` (`sqlite_synchronous_full`)
/// syncs every commit: nothing committed is lost, at the cost of a disk flush per commit.
const SQLITE_PRAGMAS: &str = "PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
     PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;";
const SQLITE_PRAGMAS_FULL_SYNC: &str = "PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
     PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;";

/// What a call hears when the database does not answer in time.
pub const DATABASE_UNAVAILABLE: &str = "The database is not answering right now. Please try again in a moment.";

/// How the pool is sized and how long anything may wait on the database. A hung database must
/// not grow a queue of waiting calls: each bound turns into `StoreError::Unavailable` (503).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    pub size: usize,
    /// Chat messages waiting for the message writer before new ones are refused as busy.
    pub writer_queue: usize,
    /// Longest wait for a free pooled connection.
    pub wait: std::time::Duration,
    /// Longest time to open a new connection (PostgreSQL's connect timeout too).
    pub connect: std::time::Duration,
    /// Longest time to check a returned connection before it is handed out again.
    pub recycle: std::time::Duration,
    /// Longest a statement may run (PostgreSQL `statement_timeout`); a call that holds one
    /// connection for longer than this and a margin is given up on by the client too.
    pub statement: std::time::Duration,
    /// SQLite: sync every commit to disk (`synchronous = FULL`).
    pub sqlite_full_sync: bool,
    /// SQLite: the WAL is started over once it holds this many bytes (see the checkpoint
    /// thread in `writer::sqlite`); 0 = after every checkpoint.
    pub sqlite_wal_restart_bytes: u64,
    /// SQLite: journaled messages are committed to the database at the latest this long after
    /// the first of them was saved (`sqlite_journal_apply_ms`).
    pub sqlite_journal_apply: std::time::Duration,
    /// SQLite: how long an open waits for another process to let go of the database's message
    /// journal (a server restarting) before it refuses (see `writer::owner`).
    pub sqlite_claim_wait: std::time::Duration,
    /// For the command-line tools, which run beside a live server: on SQLite, when another
    /// process owns the message journal, work alongside it (replay nothing, journal in a
    /// directory of this process's own) instead of refusing; on PostgreSQL, leave the message
    /// counters to the server (its start reconciles them; a tool doing it as well would count
    /// the messages the server holds in memory twice).
    pub alongside: bool,
}

impl PoolOptions {
    pub fn new(size: usize) -> PoolOptions {
        use std::time::Duration;
        PoolOptions {
            size,
            writer_queue: DEFAULT_WRITER_QUEUE,
            wait: Duration::from_secs(5),
            connect: Duration::from_secs(5),
            recycle: Duration::from_secs(2),
            statement: Duration::from_secs(30),
            sqlite_full_sync: false,
            sqlite_wal_restart_bytes: DEFAULT_WAL_RESTART_BYTES,
            sqlite_journal_apply: Duration::from_millis(DEFAULT_JOURNAL_APPLY_MS),
            sqlite_claim_wait: Duration::from_secs(5),
            alongside: false,
        }
    }

    pub fn from_settings(settings: &Settings) -> PoolOptions {
        use std::time::Duration;
        PoolOptions {
            size: settings.database_pool_size,
            writer_queue: settings.realtime.writer_queue,
            wait: Duration::from_millis(settings.database_wait_timeout_ms),
            connect: Duration::from_secs(settings.database_connect_timeout_secs),
            recycle: Duration::from_millis(settings.database_recycle_timeout_ms),
            statement: Duration::from_millis(settings.database_statement_timeout_ms),
            sqlite_full_sync: settings.sqlite_synchronous_full,
            sqlite_wal_restart_bytes: settings.sqlite_wal_restart_bytes,
            sqlite_journal_apply: Duration::from_millis(settings.sqlite_journal_apply_ms),
            sqlite_claim_wait: Duration::from_secs(5),
            alongside: false,
        }
    }

    /// How long one call may hold a connection before the client gives up on it: the
    /// statement bound plus a margin (the server's own timeout should answer first).
    fn call_bound(&self) -> std::time::Duration {
        self.statement + self.statement / 2 + std::time::Duration::from_secs(1)
    }

    fn sqlite_pragmas(&self) -> &'static str {
        if self.sqlite_full_sync {
            SQLITE_PRAGMAS_FULL_SYNC
        } else {
            SQLITE_PRAGMAS
        }
    }
}

/// Messages that may wait for the writer before new ones are refused as busy.
pub const DEFAULT_WRITER_QUEUE: usize = 4096;

/// `sqlite_wal_restart_bytes` in `config/default.toml`.
pub const DEFAULT_WAL_RESTART_BYTES: u64 = 32 << 20;

/// `sqlite_journal_apply_ms` in `config/default.toml`.
pub const DEFAULT_JOURNAL_APPLY_MS: u64 = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
enum Pools {
    Sqlite(Pool<SqliteConn>),
    Pg(Pool<AsyncPgConnection>),
}

pub(crate) enum Pooled {
    Sqlite(Object<SqliteConn>),
    Pg(Object<AsyncPgConnection>),
}

/// A pooled SQLite connection lent to one `db_run!` body. diesel-async runs each SQLite query
/// on a blocking task that shares the connection with it; when the body's future is dropped
/// mid-query (its client went away, or the call's time bound ran out), that task still holds
/// the connection, and the pool's check of it on return (`is_broken`) panicked on the shared
/// state ("Cannot access shared transaction state"), taking an HTTP worker and every request on
/// it down (found by the API contract run, `scripts/contract.sh`). A connection whose body did
/// not finish is therefore taken out of the pool, never returned: it closes when its query ends.
pub(crate) struct SqliteLease {
    conn: Option<Object<SqliteConn>>,
    finished: bool,
}

impl SqliteLease {
    pub(crate) fn new(conn: Object<SqliteConn>) -> SqliteLease {
        SqliteLease { conn: Some(conn), finished: false }
    }

    pub(crate) fn conn(&mut self) -> Option<&mut SqliteConn> {
        self.conn.as_deref_mut()
    }

    /// The body ran to its end: no query of it is still running, so the pool may have it back.
    pub(crate) fn finished(&mut self) {
        self.finished = true;
    }
}

impl Drop for SqliteLease {
    fn drop(&mut self) {
        if !self.finished {
            if let Some(conn) = self.conn.take() {
                drop(Object::take(conn));
            }
        }
    }
}

/// The handle everything else uses. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    pools: Pools,
    /// The plan new accounts start on (`billing.default_plan`).
    pub(crate) default_plan: std::sync::Arc<str>,
    /// SQLite transactions take turns through this (see `db_tx!`).
    pub(crate) sqlite_writer: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// Saves chat messages, committed in groups (see `writer`).
    pub(crate) writer: crate::writer::Writer,
    /// How long one call may hold a connection before it is given up on (see `db_run!`).
    pub(crate) call_bound: std::time::Duration,
}

impl Store {
    /// Opens the database the settings name (creating the SQLite file and data directory if
    /// needed) and brings its schema up to date.
    pub async fn open(settings: &Settings) -> StoreResult<Store> {
        Self::open_from(settings, PoolOptions::from_settings(settings)).await
    }

    /// [`Store::open`] for the command-line tools: a server running on the same database keeps
    /// its message journal (SQLite) and its message counters (both), and this store works
    /// beside it (`alongside`).
    pub async fn open_alongside(settings: &Settings) -> StoreResult<Store> {
        Self::open_from(settings, PoolOptions { alongside: true, ..PoolOptions::from_settings(settings) }).await
    }

    async fn open_from(settings: &Settings, options: PoolOptions) -> StoreResult<Store> {
        let store = if settings.uses_postgres() {
            Self::open_postgres_with(&settings.database_url, options).await?
        } else {
            std::fs::create_dir_all(&settings.data_dir)
                .map_err(|e| StoreError::Connection(format!("{}: {e}", settings.data_dir.display())))?;
            Self::open_sqlite_with(&settings.sqlite_path(), options).await?
        };
        store.with_default_plan(&settings.billing.default_plan).await
    }

    pub async fn open_sqlite(path: &Path, pool_size: usize) -> StoreResult<Store> {
        Self::open_sqlite_with(path, PoolOptions::new(pool_size)).await
    }

    /// Like `open_sqlite`, with every pool option.
    pub async fn open_sqlite_with(path: &Path, options: PoolOptions) -> StoreResult<Store> {
        let url = path.to_string_lossy().to_string();
        let migrate_url = url.clone();
        let db = path.to_path_buf();
        let pragmas = options.sqlite_pragmas();
        let (wait, alongside) = (options.sqlite_claim_wait, options.alongside);
        let claim = run_blocking(move || {
            let journal = crate::writer::journal::dir_of(&db);
            let owned = crate::writer::owner::claim_within(&journal, if alongside { std::time::Duration::ZERO } else { wait })?;
            if owned.is_none() && !alongside {
                return Err(StoreError::Connection(format!(
                    "{} is in use by another running Parley (it holds the message journal {}); stop that one first",
                    db.display(),
                    journal.display()
                )));
            }
            let mut conn = SqliteConnection::establish(&migrate_url)
                .map_err(|e| StoreError::Connection(e.to_string()))?;
            diesel::connection::SimpleConnection::batch_execute(&mut conn, pragmas)?;
            conn.run_pending_migrations(SQLITE_MIGRATIONS)
                .map_err(|e| StoreError::Migration(e.to_string()))?;
            match owned {
                Some(claim) => {
                    // Messages saved to the journal and not yet committed when the last run
                    // stopped, before the counters are recounted from the messages.
                    crate::writer::sqlite::replay_journal(&mut conn, claim.dir())?;
                    crate::writer::counters::reconcile_sqlite(&mut conn)?;
                    Ok(claim)
                }
                // The owner replays and recounts; this store journals in a place of its own.
                None => crate::writer::owner::guest(&journal),
            }
        })
        .await?;
        let mut config = ManagerConfig::default();
        config.custom_setup = Box::new(move |url| setup_sqlite(url, pragmas).boxed());
        config.recycling_method = RecyclingMethod::CustomFunction(Box::new(|conn| recycle_sqlite(conn).boxed()));
        let manager = AsyncDieselConnectionManager::<SqliteConn>::new_with_config(url, config);
        let pool = with_timeouts(Pool::builder(manager), &options)
            .build()
            .map_err(|e| StoreError::Connection(e.to_string()))?;
        let sqlite_writer: std::sync::Arc<tokio::sync::Mutex<()>> = Default::default();
        let writer = crate::writer::sqlite::start(path.to_path_buf(), claim, pragmas, &options, sqlite_writer.clone())?;
        let store =
            Store { pools: Pools::Sqlite(pool), default_plan: "free".into(), sqlite_writer, writer, call_bound: options.call_bound() };
        store.ping().await?;
        Ok(store)
    }

    pub async fn open_postgres(url: &str, pool_size: usize) -> StoreResult<Store> {
        Self::open_postgres_with(url, PoolOptions::new(pool_size)).await
    }

    /// Like `open_postgres`, with every pool option.
    pub async fn open_postgres_with(url: &str, options: PoolOptions) -> StoreResult<Store> {
        let url = with_connect_timeout(url, options.connect);
        let migrate_url = url.clone();
        let alongside = options.alongside;
        run_blocking(move || {
            let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&migrate_url)
                .map_err(|e| StoreError::Connection(e.to_string()))?;
            conn.run_pending_migrations(PG_MIGRATIONS)
                .map_err(|e| StoreError::Migration(e.to_string()))?;
            if !alongside {
                crate::writer::counters::reconcile_pg(&mut conn)?;
            }
            Ok(())
        })
        .await?;
        let mut config = ManagerConfig::default();
        let statement = options.statement;
        config.custom_setup = Box::new(move |url| setup_pg(url, statement).boxed());
        let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(url, config);
        let pool = with_timeouts(Pool::builder(manager), &options)
            .build()
            .map_err(|e| StoreError::Connection(e.to_string()))?;
        let writer = crate::writer::postgres::start(pool.clone(), options.writer_queue);
        let store = Store {
            pools: Pools::Pg(pool),
            default_plan: "free".into(),
            sqlite_writer: Default::default(),
            writer,
            call_bound: options.call_bound(),
        };
        store.ping().await?;
        Ok(store)
    }

    /// New accounts start on `plan` (one of the seeded plans: free, pro, enterprise).
    pub async fn with_default_plan(mut self, plan: &str) -> StoreResult<Store> {
        let known = self.plans().await?.iter().any(|p| p.id == plan);
        if !known {
            return Err(StoreError::Corrupt(format!("billing.default_plan {plan:?} is not a known plan")));
        }
        self.default_plan = plan.into();
        Ok(self)
    }

    pub fn backend(&self) -> Backend {
        match self.pools {
            Pools::Sqlite(_) => Backend::Sqlite,
            Pools::Pg(_) => Backend::Postgres,
        }
    }

    /// A round trip to the database (the health check).
    pub async fn ping(&self) -> StoreResult<()> {
        db_run!(self, |conn| conn.batch_execute("SELECT 1").await)?;
        Ok(())
    }

    pub(crate) async fn connection(&self) -> StoreResult<Pooled> {
        // What it reads or writes comes after every message saved so far.
        self.writer.sync_messages().await;
        let err = |e: diesel_async::pooled_connection::deadpool::PoolError| {
            tracing::warn!("database connection: {e}");
            StoreError::Unavailable(DATABASE_UNAVAILABLE.into())
        };
        Ok(match &self.pools {
            Pools::Sqlite(pool) => Pooled::Sqlite(pool.get().await.map_err(err)?),
            Pools::Pg(pool) => Pooled::Pg(pool.get().await.map_err(err)?),
        })
    }
}

/// The pool's bounds on waiting for, opening and checking a connection (see `PoolOptions`).
fn with_timeouts<M: deadpool::managed::Manager>(
    builder: deadpool::managed::PoolBuilder<M>,
    options: &PoolOptions,
) -> deadpool::managed::PoolBuilder<M> {
    builder
        .max_size(options.size)
        .runtime(deadpool::Runtime::Tokio1)
        .wait_timeout(Some(options.wait))
        .create_timeout(Some(options.connect))
        .recycle_timeout(Some(options.recycle))
}

/// Adds `connect_timeout` to a PostgreSQL URL that does not name one (the migrations' own
/// connection uses it too).
fn with_connect_timeout(url: &str, connect: std::time::Duration) -> String {
    if url.contains("connect_timeout=") {
        return url.to_string();
    }
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}connect_timeout={}", connect.as_secs().max(1))
}

/// A new PostgreSQL connection: statements may run for `statement` at most, and a transaction
/// left idle (a client gone mid-transaction) is ended by the server after as long.
fn setup_pg(url: &str, statement: std::time::Duration) -> BoxFuture<'_, diesel::ConnectionResult<AsyncPgConnection>> {
    async move {
        use diesel_async::AsyncConnection;
        let mut conn = AsyncPgConnection::establish(url).await?;
        let ms = statement.as_millis().max(1);
        conn.batch_execute(&format!("SET statement_timeout = {ms}; SET idle_in_transaction_session_timeout = {ms};"))
            .await
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
        Ok(conn)
    }
    .boxed()
}

fn setup_sqlite<'a>(url: &'a str, pragmas: &'static str) -> BoxFuture<'a, diesel::ConnectionResult<SqliteConn>> {
    async move {
        use diesel_async::AsyncConnection;
        let mut conn = SqliteConn::establish(url).await?;
        conn.batch_execute(pragmas)
            .await
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
        // Searches and name sorts call it (see `crate::fold`).
        conn.spawn_blocking(crate::fold::register_sqlite).await.map_err(ConnectionError::CouldntSetupConfiguration)?;
        Ok(conn)
    }
    .boxed()
}

/// The check a pooled SQLite connection passes before it is handed out again (in place of
/// the pool's `SELECT 1`, at the same cost): it must not be inside a transaction. `db_tx!`
/// never leaves one open, so this is the second line of defence: an open transaction would
/// hold the database's write lock, and writes on this connection would join it and could be
/// rolled back with it. SQLite answers ROLLBACK outside a transaction with "no transaction is
/// active"; anything else discards the connection.
fn recycle_sqlite(conn: &mut SqliteConn) -> BoxFuture<'_, diesel::QueryResult<()>> {
    async move {
        match conn.batch_execute("ROLLBACK").await {
            Ok(()) => {
                tracing::warn!("a pooled SQLite connection was still inside a transaction; it was rolled back");
                Ok(())
            }
            Err(diesel::result::Error::DatabaseError(_, info)) if info.message().contains("no transaction is active") => Ok(()),
            Err(e) => Err(e),
        }
    }
    .boxed()
}

/// Runs a transaction (see `db_tx!`) on a task of its own, so that dropping the caller's
/// future (a client that went away) cannot stop it between BEGIN and COMMIT.
/// The caller stops waiting after `bound` (a database that stopped answering) and hears
/// `Unavailable`; the task itself still ends its transaction when the database answers.
pub(crate) async fn uncancellable<T: Send + 'static>(
    bound: std::time::Duration,
    work: impl std::future::Future<Output = StoreResult<T>> + Send + 'static,
) -> StoreResult<T> {
    match tokio::time::timeout(bound, tokio::spawn(work)).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(e)) => Err(StoreError::Connection(format!("the transaction's task failed: {e}"))),
        Err(_) => Err(StoreError::Unavailable(DATABASE_UNAVAILABLE.into())),
    }
}

async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> StoreResult<T> + Send + 'static,
) -> StoreResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Connection(format!("blocking task failed: {e}")))?
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod lease_tests {
    use std::time::Duration;

    use super::*;

    /// A query that keeps SQLite busy for a while (a few million rows counted).
    async fn slow_count(store: &Store) -> StoreResult<()> {
        db_run!(store, |conn| conn
            .batch_execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000000) SELECT count(*) FROM c")
            .await)?;
        Ok(())
    }

    /// Found by the API contract run: a caller that stops waiting mid-query (a client gone, a
    /// time bound run out) left the pool's only connection shared with the still-running query,
    /// and the pool's next check of it panicked.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_query_dropped_midway_leaves_the_pool_working() {
        let dir = std::env::temp_dir().join(format!("parley-lease-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open_sqlite(&dir.join("lease.db"), 1).await.unwrap();
        let dropped = tokio::time::timeout(Duration::from_millis(30), slow_count(&store)).await;
        assert!(dropped.is_err(), "the query should outlast its caller");
        store.ping().await.expect("a working connection after a dropped query");
        store.ping().await.expect("and again");
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
