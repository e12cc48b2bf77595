//! `parley backup DIR`: a copy of everything Parley keeps in its data directory, taken while
//! it runs, that `PARLEY_DATA_DIR=DIR parley serve` starts from.
//!
//! What is copied: the SQLite database with its message journal (`parley_store::backup`, which
//! keeps every message saved before the backup began), the uploaded files (bot icons and the
//! PDFs sources were trained on) and the generated sign-in secret, so the copy's sessions
//! stay signed in. Not copied: the embedding model (`data/models/`, fetched again by command 1)
//! and, on PostgreSQL, the database itself, which `pg_dump` backs up.

use std::path::{Path, PathBuf};

use parley_config::Settings;
use parley_store::StoreError;

pub const BACKUP_USAGE: &str = "usage: parley backup DIR\n\n\
Copies the database (with the messages still in its journal), the uploads and the sign-in \
secret into DIR, a new or empty directory, while Parley runs. To restore, stop Parley and \
start it with PARLEY_DATA_DIR=DIR (or copy DIR's contents into an empty data directory).";

/// The generated sign-in secret's file in the data directory (`parley_config::ensure_jwt_secret`).
const SECRET_FILE: &str = "jwt_secret";

/// Reads `DIR` (the words after `backup`).
pub fn parse_backup(args: &[String]) -> Result<PathBuf, String> {
    match args {
        [dir] if !dir.starts_with('-') && !dir.trim().is_empty() => Ok(PathBuf::from(dir)),
        _ => Err(BACKUP_USAGE.into()),
    }
}

/// Takes the backup into `dest`; the lines to print on success. Blocking.
pub fn backup(settings: &Settings, dest: &Path) -> Result<String, String> {
    let data_dir = &settings.data_dir;
    if !data_dir.is_dir() {
        return Err(format!("There is no data directory at {}", data_dir.display()));
    }
    if !settings.uses_postgres() && !settings.sqlite_path().is_file() {
        return Err(format!("There is no database at {} (has Parley run with this data directory?)", settings.sqlite_path().display()));
    }
    check_destination(data_dir, dest)?;
    std::fs::create_dir_all(dest).map_err(|e| format!("Cannot create {}: {e}", dest.display()))?;

    let mut parts = Vec::new();
    if settings.uses_postgres() {
        parts.push("no database: it is PostgreSQL, back it up with pg_dump".to_string());
    } else {
        let db = settings.sqlite_path();
        let name = db.file_name().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("parley.db"));
        let copied = parley_store::backup::backup_sqlite(&db, &dest.join(name)).map_err(|e| match e {
            StoreError::Connection(why) => why,
            other => format!("backup: {other}"),
        })?;
        parts.push(format!(
            "the database ({}) with {} message-journal segment{}",
            megabytes(copied.database_bytes),
            copied.journal_segments,
            plural(copied.journal_segments)
        ));
    }
    let uploads = copy_tree(&settings.uploads_dir(), &dest.join("uploads"))?;
    parts.push(format!("{uploads} uploaded file{}", plural(uploads)));
    let secret = data_dir.join(SECRET_FILE);
    if secret.is_file() {
        // `fs::copy` keeps the file's permissions (0600).
        std::fs::copy(&secret, dest.join(SECRET_FILE)).map_err(|e| format!("Cannot copy {}: {e}", secret.display()))?;
        parts.push("the sign-in secret".to_string());
    }
    Ok(format!(
        "Backed up {} to {}: {}.\nTo restore, stop Parley and start it with PARLEY_DATA_DIR={}.",
        data_dir.display(),
        dest.display(),
        parts.join(", "),
        dest.display()
    ))
}

/// A backup goes to a new or empty directory outside the data directory (copying the uploads
/// into themselves would never end, and an earlier backup is never overwritten).
fn check_destination(data_dir: &Path, dest: &Path) -> Result<(), String> {
    match std::fs::read_dir(dest) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(format!("{} is not empty; choose a new or empty directory", dest.display()));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("Cannot use {}: {e}", dest.display())),
    }
    let data = std::fs::canonicalize(data_dir).map_err(|e| format!("Cannot read {}: {e}", data_dir.display()))?;
    if absolute(dest)?.starts_with(&data) {
        return Err(format!("{} is inside the data directory; choose a directory outside {}", dest.display(), data.display()));
    }
    Ok(())
}

/// `path` made absolute through its nearest existing ancestor (it may not exist yet).
fn absolute(path: &Path) -> Result<PathBuf, String> {
    let path = std::path::absolute(path).map_err(|e| format!("Cannot read {}: {e}", path.display()))?;
    let mut existing = path.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut resolved = std::fs::canonicalize(existing).map_err(|e| format!("Cannot read {}: {e}", existing.display()))?;
    resolved.extend(rest.iter().rev());
    Ok(resolved)
}

/// Copies the files under `from` (if it exists) to `to`; how many.
fn copy_tree(from: &Path, to: &Path) -> Result<usize, String> {
    let entries = match std::fs::read_dir(from) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(format!("Cannot read {}: {e}", from.display())),
    };
    std::fs::create_dir_all(to).map_err(|e| format!("Cannot create {}: {e}", to.display()))?;
    let mut copied = 0;
    for entry in entries {
        let entry = entry.map_err(|e| format!("Cannot read {}: {e}", from.display()))?;
        let (path, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(|e| format!("Cannot read {}: {e}", path.display()))?;
        if kind.is_dir() {
            copied += copy_tree(&path, &target)?;
        } else if kind.is_file() {
            match std::fs::copy(&path, &target) {
                Ok(_) => copied += 1,
                // Deleted meanwhile (a bot's icon replaced): nothing to keep.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("Cannot copy {}: {e}", path.display())),
            }
        }
    }
    Ok(copied)
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn backup_takes_exactly_one_directory() {
        assert_eq!(parse_backup(&words(&["/tmp/b"])), Ok(PathBuf::from("/tmp/b")));
        assert_eq!(parse_backup(&words(&[])), Err(BACKUP_USAGE.into()));
        assert_eq!(parse_backup(&words(&["a", "b"])), Err(BACKUP_USAGE.into()));
        assert_eq!(parse_backup(&words(&["--help"])), Err(BACKUP_USAGE.into()));
    }

    #[test]
    fn a_backup_goes_to_a_new_or_empty_directory_outside_the_data() {
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("data");
        std::fs::create_dir_all(data.join("uploads")).unwrap();
        assert!(check_destination(&data, &root.path().join("new/deeper")).is_ok());
        std::fs::create_dir_all(root.path().join("empty")).unwrap();
        assert!(check_destination(&data, &root.path().join("empty")).is_ok());
        std::fs::write(root.path().join("empty/x"), "x").unwrap();
        let full = check_destination(&data, &root.path().join("empty")).unwrap_err();
        assert!(full.contains("is not empty"), "{full}");
        let inside = check_destination(&data, &data.join("uploads/../backup")).unwrap_err();
        assert!(inside.contains("inside the data directory"), "{inside}");
    }
}
