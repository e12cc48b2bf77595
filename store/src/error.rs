//! Store errors: what callers must tell apart (missing, conflicting) and what they just report.

use diesel::result::{DatabaseErrorKind, Error as DieselError};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// A unique constraint refused the write (an email already registered, say).
    #[error("conflict: {0}")]
    Conflict(String),
    /// A list is full (the spec's message, e.g. "Maximum number of sources reached").
    #[error("{0}")]
    LimitReached(String),
    #[error("database: {0}")]
    Database(DieselError),
    /// A bounded queue is full; the caller should tell its client to retry.
    #[error("{0}")]
    Busy(String),
    #[error("database connection: {0}")]
    Connection(String),
    /// The database did not answer in time (or could not be reached): the caller should say
    /// so (503) rather than wait.
    #[error("{0}")]
    Unavailable(String),
    #[error("migrations: {0}")]
    Migration(String),
    #[error("stored data is malformed: {0}")]
    Corrupt(String),
    /// The database refused a value the caller sent (PostgreSQL takes no NUL character in
    /// text): the caller's fault, not the server's.
    #[error("{0}")]
    Rejected(String),
    /// What the caller asked for breaks a rule checked inside the write (a widget change merged
    /// over the stored configuration, say): the rule's own words.
    #[error("{0}")]
    Invalid(String),
}

impl From<DieselError> for StoreError {
    fn from(e: DieselError) -> Self {
        match e {
            DieselError::NotFound => StoreError::NotFound,
            DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                StoreError::Conflict(info.message().to_string())
            }
            // SQLSTATE 22021 (found by the API contract run against PostgreSQL: a NUL in any
            // JSON string was a 500; SQLite stores it).
            DieselError::DatabaseError(_, info) if info.message().starts_with("invalid byte sequence for encoding") => {
                StoreError::Rejected("Text may not contain NUL characters".into())
            }
            other => StoreError::Database(other),
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}
