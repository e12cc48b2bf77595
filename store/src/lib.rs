//! Parley's store: one diesel schema over SQLite (embedded default) or PostgreSQL (at scale).
//! Everything the product keeps goes through [`Store`]; every query is written once and runs
//! on both backends through the `db_run!` / `db_tx!` macros.

#[macro_use]
mod macros;
mod pool;

pub mod activity;
pub mod analytics;
pub mod backup;
pub mod billing;
pub mod billing_events;
pub mod bots;
pub mod chat;
pub mod contact;
pub mod custom_css;
pub mod error;
pub mod fold;
pub mod knowledge;
pub mod leads;
pub mod mail;
pub mod models;
pub mod overview;
pub mod payments;
pub mod reports;
pub mod roles;
pub mod schema;
pub mod sessions;
pub mod stats;
pub mod team;
#[cfg(feature = "testing")]
pub mod testing;
pub mod time;
pub mod tokens;
pub mod two_factor;
pub mod users;
mod writer;

pub use error::StoreError;
pub use pool::{Backend, PoolOptions, Store, DATABASE_UNAVAILABLE, DEFAULT_WRITER_QUEUE};
pub use writer::BUSY;
pub use roles::Role;

pub type StoreResult<T> = Result<T, StoreError>;

/// A new random id, as the text UUIDs every table uses.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
