//! Which process saves chat messages through a database's journal (SQLite only).
//!
//! Why: a store that opens replays every journal segment it finds and then deletes it, and
//! starts a segment of its own after the last. A second process doing that beside a running
//! server (an operator's `parley plans set`, or a second server started on the same data
//! directory by mistake) would delete the segment the server is appending to: the server's
//! next messages would go to a file no longer on disk, and a crash before they are committed
//! would lose messages it had acknowledged. So one process owns a journal directory, held
//! with an advisory lock on its `owner.lock` for the store's life (released by the operating
//! system when the process ends, however it ends). A process that finds it taken either
//! stops (a server) or works alongside (`Store::open_alongside`): it replays nothing and
//! journals what it saves in a directory of its own inside, `guest-<pid>/`, which the owner's
//! next start replays if that process is gone by then.
//!
//! Within one process the claim is shared (tests open a database more than once); the lock
//! only keeps other processes out.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use crate::{StoreError, StoreResult};

const LOCK_FILE: &str = "owner.lock";

/// Guest directories inside a journal directory start with this.
pub(crate) const GUEST_PREFIX: &str = "guest-";

/// A journal directory this process owns, for as long as any clone is held.
#[derive(Clone)]
pub(crate) struct Claim {
    dir: PathBuf,
    _lock: Arc<File>,
}

impl Claim {
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The directories this process holds, so a second claim in the process shares the first.
static HELD: Mutex<Vec<(PathBuf, Weak<File>)>> = Mutex::new(Vec::new());

fn io_error(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Connection(format!("message journal: {what} {}: {e}", path.display()))
}

/// Claims `dir` (created if missing). `None`: another process holds it. Where the file system
/// has no advisory locks the claim is granted unlocked, with a warning (as before locks).
pub(crate) fn try_claim(dir: &Path) -> StoreResult<Option<Claim>> {
    std::fs::create_dir_all(dir).map_err(|e| io_error("creating", dir, e))?;
    let key = std::fs::canonicalize(dir).map_err(|e| io_error("reading", dir, e))?;
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    held.retain(|(_, lock)| lock.strong_count() > 0);
    if let Some(lock) = held.iter().find(|(path, _)| *path == key).and_then(|(_, lock)| lock.upgrade()) {
        return Ok(Some(Claim { dir: dir.to_path_buf(), _lock: lock }));
    }
    let path = key.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_error("opening", &path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
        Err(std::fs::TryLockError::Error(e)) => {
            tracing::warn!("message journal: {} cannot be locked ({e}); another process opening this database could disturb it", path.display());
        }
    }
    let lock = Arc::new(file);
    held.push((key, Arc::downgrade(&lock)));
    Ok(Some(Claim { dir: dir.to_path_buf(), _lock: lock }))
}

/// [`try_claim`], trying again for up to `wait` (a server restarting: the old process may
/// still be stopping). Blocking.
pub(crate) fn claim_within(dir: &Path, wait: Duration) -> StoreResult<Option<Claim>> {
    let until = Instant::now() + wait;
    loop {
        if let Some(claim) = try_claim(dir)? {
            return Ok(Some(claim));
        }
        if Instant::now() >= until {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A guest directory of this process inside `dir`, claimed.
pub(crate) fn guest(dir: &Path) -> StoreResult<Claim> {
    let own = dir.join(format!("{GUEST_PREFIX}{}", std::process::id()));
    try_claim(&own)?.ok_or_else(|| StoreError::Connection(format!("message journal: {} is held by another process", own.display())))
}

/// The guest directories inside `dir`, in name order (none when `dir` does not exist).
pub(crate) fn guest_dirs(dir: &Path) -> StoreResult<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("reading", dir, e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| io_error("reading", dir, e))?.path();
        let is_guest = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(GUEST_PREFIX));
        if is_guest && path.is_dir() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Guest directories inside `dir` whose process is gone, claimed (for the owner to replay).
pub(crate) fn abandoned_guests(dir: &Path) -> StoreResult<Vec<Claim>> {
    // This process's own guest directory is live, whatever the registry says.
    let own = format!("{GUEST_PREFIX}{}", std::process::id());
    let mut found = Vec::new();
    for path in guest_dirs(dir)? {
        if path.file_name().and_then(|n| n.to_str()) == Some(own.as_str()) {
            continue;
        }
        if let Some(claim) = try_claim(&path)? {
            found.push(claim);
        }
    }
    Ok(found)
}
