//! A copy of an SQLite database taken while Parley runs (`parley backup`).
//!
//! A chat message is saved once it is in the message journal (`writer::journal`); the database
//! gets it behind. So a copy of `parley.db` alone would miss the messages saved last, and a copy
//! of its files (database, WAL, journal) taken one after the other could tear. The copy is
//! therefore taken in this order:
//! 1. every journal segment, the owner's and those of tools working beside it (`guest-*`);
//! 2. then the database, with `VACUUM INTO`, a consistent snapshot read beside the writers.
//!
//! A segment committed and deleted between the two steps is in the snapshot; a message in both
//! is committed once when the copy is first opened (the replay skips rows it already has). So
//! the copy holds every message saved before the backup began. Opening it as a data directory
//! replays what its journal holds, like a start after a crash.

use std::path::{Path, PathBuf};

use diesel::{Connection, RunQueryDsl};

use crate::writer::{journal, owner};
use crate::{StoreError, StoreResult};

/// What one backup copied.
#[derive(Debug, Clone, PartialEq)]
pub struct SqliteBackup {
    /// The copy of the database.
    pub database: PathBuf,
    pub database_bytes: u64,
    /// Journal segments copied (messages saved and not yet in the database when the copy
    /// began, or committed meanwhile).
    pub journal_segments: usize,
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Connection(format!("backup: {what} {}: {e}", path.display()))
}

/// Copies the SQLite database at `db`, with its message journal, to `to` (which must not exist
/// yet). Works beside a running server. Blocking.
pub fn backup_sqlite(db: &Path, to: &Path) -> StoreResult<SqliteBackup> {
    if !db.is_file() {
        return Err(StoreError::Connection(format!("backup: there is no database at {}", db.display())));
    }
    if to.exists() {
        return Err(StoreError::Connection(format!("backup: {} exists already; choose a new place", to.display())));
    }
    let (from_journal, to_journal) = (journal::dir_of(db), journal::dir_of(to));
    let mut copied = copy_segments(&from_journal, &to_journal)?;
    for guest in owner::guest_dirs(&from_journal)? {
        if let Some(name) = guest.file_name() {
            copied += copy_segments(&guest, &to_journal.join(name))?;
        }
    }
    let mut conn = diesel::SqliteConnection::establish(&db.to_string_lossy()).map_err(|e| StoreError::Connection(e.to_string()))?;
    // The server's writers hold the write lock for a moment at a time; the snapshot waits.
    diesel::connection::SimpleConnection::batch_execute(&mut conn, "PRAGMA busy_timeout = 10000")?;
    diesel::sql_query("VACUUM INTO ?").bind::<diesel::sql_types::Text, _>(to.to_string_lossy().to_string()).execute(&mut conn)?;
    let database_bytes = std::fs::metadata(to).map_err(|e| io_error("reading", to, e))?.len();
    Ok(SqliteBackup { database: to.to_path_buf(), database_bytes, journal_segments: copied })
}

/// Copies the segment files of `from` into `to` (created); the number copied.
fn copy_segments(from: &Path, to: &Path) -> StoreResult<usize> {
    let segments = journal::segments(from)?;
    std::fs::create_dir_all(to).map_err(|e| io_error("creating", to, e))?;
    let mut copied = 0;
    for (_, segment) in segments {
        let Some(name) = segment.file_name() else { continue };
        match std::fs::copy(&segment, to.join(name)) {
            Ok(_) => copied += 1,
            // Committed and deleted meanwhile: its rows are in the snapshot taken next.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error("copying", &segment, e)),
        }
    }
    Ok(copied)
}
