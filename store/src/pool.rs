//! Connecting: a deadpool of diesel-async connections per backend, the SQLite pragmas every
//! connection needs, and the migrations run at start-up.

use std::path::Path;

use diesel::sqlite::SqliteConnection;
use diesel::{Connection, ConnectionError};
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_async::pooled_connection::deadpool::{Object, Pool};
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig};
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
use diesel_async::{AsyncPgConnection, SimpleAsyncConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use futures_util::future::{BoxFuture, FutureExt};
use parley_config::Settings;

use crate::{StoreError, StoreResult};

pub(crate) type SqliteConn = SyncConnectionWrapper<SqliteConnection>;

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");
const PG_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");

/// WAL lets readers run beside the writer; the busy timeout makes concurrent writers wait
/// instead of failing; SQLite leaves foreign keys off unless asked.
/// Temporary files (the statement journal of a multi-row insert) stay in memory, and a
/// connection caches 16 MB of pages instead of 2.
const SQLITE_PRAGMAS: &str = "PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
     PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;";

/// Messages that may wait for the writer before new ones are refused as busy.
pub const DEFAULT_WRITER_QUEUE: usize = 4096;

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
}

impl Store {
    /// Opens the database the settings name (creating the SQLite file and data directory if
    /// needed) and brings its schema up to date.
    pub async fn open(settings: &Settings) -> StoreResult<Store> {
        let store = if settings.uses_postgres() {
            Self::open_postgres_with(&settings.database_url, settings.database_pool_size, settings.realtime.writer_queue).await?
        } else {
            std::fs::create_dir_all(&settings.data_dir)
                .map_err(|e| StoreError::Connection(format!("{}: {e}", settings.data_dir.display())))?;
            Self::open_sqlite_with(&settings.sqlite_path(), settings.database_pool_size, settings.realtime.writer_queue).await?
        };
        store.with_default_plan(&settings.billing.default_plan).await
    }

    pub async fn open_sqlite(path: &Path, pool_size: usize) -> StoreResult<Store> {
        Self::open_sqlite_with(path, pool_size, DEFAULT_WRITER_QUEUE).await
    }

    /// Like `open_sqlite`, with the message writer's queue bound.
    pub async fn open_sqlite_with(path: &Path, pool_size: usize, writer_queue: usize) -> StoreResult<Store> {
        let url = path.to_string_lossy().to_string();
        let migrate_url = url.clone();
        run_blocking(move || {
            let mut conn = SqliteConnection::establish(&migrate_url)
                .map_err(|e| StoreError::Connection(e.to_string()))?;
            diesel::connection::SimpleConnection::batch_execute(&mut conn, SQLITE_PRAGMAS)?;
            conn.run_pending_migrations(SQLITE_MIGRATIONS)
                .map_err(|e| StoreError::Migration(e.to_string()))?;
            Ok(())
        })
        .await?;
        let mut config = ManagerConfig::default();
        config.custom_setup = Box::new(|url| setup_sqlite(url).boxed());
        let manager = AsyncDieselConnectionManager::<SqliteConn>::new_with_config(url, config);
        let pool = Pool::builder(manager)
            .max_size(pool_size)
            .build()
            .map_err(|e| StoreError::Connection(e.to_string()))?;
        let sqlite_writer: std::sync::Arc<tokio::sync::Mutex<()>> = Default::default();
        let writer = crate::writer::sqlite::start(path.to_path_buf(), SQLITE_PRAGMAS, writer_queue, sqlite_writer.clone())?;
        let store = Store { pools: Pools::Sqlite(pool), default_plan: "free".into(), sqlite_writer, writer };
        store.ping().await?;
        Ok(store)
    }

    pub async fn open_postgres(url: &str, pool_size: usize) -> StoreResult<Store> {
        Self::open_postgres_with(url, pool_size, DEFAULT_WRITER_QUEUE).await
    }

    /// Like `open_postgres`, with the message writer's queue bound.
    pub async fn open_postgres_with(url: &str, pool_size: usize, writer_queue: usize) -> StoreResult<Store> {
        let migrate_url = url.to_string();
        run_blocking(move || {
            let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&migrate_url)
                .map_err(|e| StoreError::Connection(e.to_string()))?;
            conn.run_pending_migrations(PG_MIGRATIONS)
                .map_err(|e| StoreError::Migration(e.to_string()))?;
            Ok(())
        })
        .await?;
        let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new(url);
        let pool = Pool::builder(manager)
            .max_size(pool_size)
            .build()
            .map_err(|e| StoreError::Connection(e.to_string()))?;
        let writer = crate::writer::postgres::start(pool.clone(), writer_queue);
        let store = Store { pools: Pools::Pg(pool), default_plan: "free".into(), sqlite_writer: Default::default(), writer };
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
        let err = |e: diesel_async::pooled_connection::deadpool::PoolError| StoreError::Connection(e.to_string());
        Ok(match &self.pools {
            Pools::Sqlite(pool) => Pooled::Sqlite(pool.get().await.map_err(err)?),
            Pools::Pg(pool) => Pooled::Pg(pool.get().await.map_err(err)?),
        })
    }
}

fn setup_sqlite(url: &str) -> BoxFuture<'_, diesel::ConnectionResult<SqliteConn>> {
    async move {
        use diesel_async::AsyncConnection;
        let mut conn = SqliteConn::establish(url).await?;
        conn.batch_execute(SQLITE_PRAGMAS)
            .await
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
        Ok(conn)
    }
    .boxed()
}

async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> StoreResult<T> + Send + 'static,
) -> StoreResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Connection(format!("blocking task failed: {e}")))?
}
