//! The message journal (SQLite only): an append-only file that a batch of chat messages reaches
//! with one `write`, before anyone is told it is saved.
//!
//! Why: on SQLite a commit is a dozen system calls (locks, the WAL's frames and their headers,
//! the WAL index) whatever it carries, and at the rates of a live chat a batch is about one
//! message, so every message paid a whole commit (half of the writer's time in the relay
//! profile). The journal makes a message as durable as a commit with `synchronous = NORMAL`
//! (in the operating system's cache, where a crash of the process cannot lose it; with
//! `synchronous = FULL` each append is synced to disk too) for one system call, and the rows
//! reach SQLite behind it in transactions of many messages (`writer::sqlite`).
//!
//! The journal is a directory of segment files beside the database (`parley.db-messages/`).
//! The writer appends to the newest segment; each time it hands the rows it has appended to
//! the applier it starts a new segment, and the applier deletes a segment once its rows are
//! committed. A start replays every segment left (a crash, a power cut) into the database
//! before anything else reads it; rows already committed are skipped by their ids.
//!
//! A record is its body's length and CRC-32, then the body; a record cut short or damaged
//! (the last write of a crash) ends the segment's replay, so it can only lose the write that
//! was never acknowledged.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;

use super::owner::Claim;
use crate::models::ChatMessage;
use crate::{StoreError, StoreResult};

/// Segment files end with this.
const SEGMENT_SUFFIX: &str = ".log";

/// The journal directory of the database at `db`.
pub(crate) fn dir_of(db: &Path) -> PathBuf {
    let mut name = db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push("-messages");
    db.with_file_name(name)
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Connection(format!("message journal: {what} {}: {e}", path.display()))
}

/// The segment files in `dir`, oldest first.
pub(crate) fn segments(dir: &Path) -> StoreResult<Vec<(u64, PathBuf)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("reading", dir, e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| io_error("reading", dir, e))?.path();
        let number = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(SEGMENT_SUFFIX))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(number) = number {
            found.push((number, path));
        }
    }
    found.sort();
    Ok(found)
}

/// The writer's side: the segment it appends to.
pub(crate) struct Journal {
    dir: PathBuf,
    number: u64,
    path: PathBuf,
    file: File,
    /// Bytes appended to the current segment.
    written: usize,
    /// Sync each append to disk (`synchronous = FULL`).
    sync: bool,
    /// One batch's encoding, reused.
    buffer: Vec<u8>,
    /// Appends (system writes) since the journal was opened.
    appends: u64,
    /// This process's hold on the directory (see `owner`).
    _claim: Claim,
}

impl Journal {
    /// Opens a new segment after any left in the claimed directory (they are the replay's to
    /// apply). The claim is held as long as the journal.
    pub(crate) fn open(claim: Claim, sync: bool) -> StoreResult<Journal> {
        let dir = claim.dir().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| io_error("creating", &dir, e))?;
        let after = segments(&dir)?.last().map_or(0, |(n, _)| *n);
        let (path, file) = create_segment(&dir, after + 1, sync)?;
        Ok(Journal { dir, number: after + 1, path, file, written: 0, sync, buffer: Vec::new(), appends: 0, _claim: claim })
    }

    /// Appends `rows` with one write; once it returns they survive a crash of the process.
    pub(crate) fn append<'r>(&mut self, rows: impl IntoIterator<Item = &'r ChatMessage>) -> StoreResult<()> {
        self.buffer.clear();
        for row in rows {
            encode_record(row, &mut self.buffer);
        }
        let appended = self.file.write_all(&self.buffer).map_err(|e| io_error("writing", &self.path, e)).and_then(|()| {
            if self.sync {
                self.file.sync_data().map_err(|e| io_error("syncing", &self.path, e))?;
            }
            Ok(())
        });
        if let Err(e) = appended {
            // The batch is refused, so none of it may come back at a restart, and a part of it
            // left at the end would stop the replay there, before every later batch: cut the
            // segment back to its last whole append.
            if let Err(cut) = self.file.set_len(self.written as u64) {
                tracing::error!("message journal {}: a failed append could not be cut off ({cut}); a restart replays up to it", self.path.display());
            }
            return Err(e);
        }
        self.written += self.buffer.len();
        self.appends += 1;
        // A large batch must not keep its buffer for good.
        if self.buffer.capacity() > 1 << 20 {
            self.buffer = Vec::new();
        }
        Ok(())
    }

    /// Appends since the journal was opened.
    pub(crate) fn appends(&self) -> u64 {
        self.appends
    }

    /// Starts a new segment and returns the finished one (the applier deletes it once its
    /// rows are committed); `None` when nothing was appended since the last.
    pub(crate) fn rotate(&mut self) -> StoreResult<Option<PathBuf>> {
        if self.written == 0 {
            return Ok(None);
        }
        let (path, file) = create_segment(&self.dir, self.number + 1, self.sync)?;
        self.number += 1;
        self.written = 0;
        self.file = file;
        Ok(Some(std::mem::replace(&mut self.path, path)))
    }

    /// Removes the current segment if nothing is in it (a clean stop).
    pub(crate) fn close(self) {
        if self.written == 0 {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Creates segment `number`. With `sync` (`synchronous = FULL`) the directory is synced too:
/// an append's `sync_data` makes its bytes durable, but not the new file's name, and a power
/// cut could otherwise take a whole segment of synced appends with it.
fn create_segment(dir: &Path, number: u64, sync: bool) -> StoreResult<(PathBuf, File)> {
    let path = dir.join(format!("{number:012}{SEGMENT_SUFFIX}"));
    let file = OpenOptions::new().create(true).append(true).open(&path).map_err(|e| io_error("creating", &path, e))?;
    if sync {
        File::open(dir).and_then(|d| d.sync_all()).map_err(|e| io_error("syncing", dir, e))?;
    }
    Ok((path, file))
}

/// The rows a segment holds, up to its first record that is cut short or damaged.
pub(crate) fn read_segment(path: &Path) -> StoreResult<Vec<ChatMessage>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        // Listed, then gone: another store on the same database is running (tests open a
        // second one beside an app's), and its applier committed the segment and removed it.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("reading", path, e)),
    };
    let mut rows = Vec::new();
    let mut rest = bytes.as_slice();
    while let Some((row, after)) = decode_record(rest) {
        rows.push(row);
        rest = after;
    }
    if !rest.is_empty() {
        tracing::warn!("message journal {}: {} bytes at its end are not a whole record (a write cut short), skipped", path.display(), rest.len());
    }
    Ok(rows)
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&u32::try_from(s.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
        None => out.push(0),
    }
}

fn put_time(out: &mut Vec<u8>, t: NaiveDateTime) {
    out.extend_from_slice(&t.and_utc().timestamp_micros().to_le_bytes());
}

fn encode_record(row: &ChatMessage, out: &mut Vec<u8>) {
    let start = out.len();
    // Length and checksum, filled in once the body is written.
    out.extend_from_slice(&[0; 8]);
    put_str(out, &row.id);
    put_str(out, &row.session_id);
    out.extend_from_slice(&row.seq.to_le_bytes());
    put_str(out, &row.role);
    put_str(out, &row.content);
    put_opt_str(out, row.sender_name.as_deref());
    put_opt_str(out, row.agent_id.as_deref());
    out.push(u8::from(row.is_agent) | (u8::from(row.is_error) << 1));
    put_str(out, &row.sources);
    put_time(out, row.created_at);
    match row.edited_at {
        Some(t) => {
            out.push(1);
            put_time(out, t);
        }
        None => out.push(0),
    }
    put_str(out, &row.suggestions);
    let body = start + 8;
    let length = u32::try_from(out.len() - body).unwrap_or(u32::MAX);
    let crc = crc32fast::hash(out.get(body..).unwrap_or_default());
    if let Some(head) = out.get_mut(start..body) {
        head[..4].copy_from_slice(&length.to_le_bytes());
        head[4..].copy_from_slice(&crc.to_le_bytes());
    }
}

/// Reads a record's body field by field.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1).and_then(|b| b.first().copied())
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn string(&mut self) -> Option<String> {
        let n = usize::try_from(self.u32()?).ok()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }

    fn opt_string(&mut self) -> Option<Option<String>> {
        match self.u8()? {
            0 => Some(None),
            _ => self.string().map(Some),
        }
    }

    fn time(&mut self) -> Option<NaiveDateTime> {
        chrono::DateTime::from_timestamp_micros(self.i64()?).map(|t| t.naive_utc())
    }
}

/// The first record of `bytes` and what follows it; `None` when it is cut short or damaged.
fn decode_record(bytes: &[u8]) -> Option<(ChatMessage, &[u8])> {
    let mut head = Reader(bytes);
    let length = usize::try_from(head.u32()?).ok()?;
    let crc = head.u32()?;
    let body = head.take(length)?;
    if crc32fast::hash(body) != crc {
        return None;
    }
    let mut r = Reader(body);
    let id = r.string()?;
    let session_id = r.string()?;
    let seq = r.i64()?;
    let role = r.string()?;
    let content = r.string()?;
    let sender_name = r.opt_string()?;
    let agent_id = r.opt_string()?;
    let flags = r.u8()?;
    let sources = r.string()?;
    let created_at = r.time()?;
    let edited_at = match r.u8()? {
        0 => None,
        _ => Some(r.time()?),
    };
    let suggestions = r.string()?;
    let row = ChatMessage {
        id,
        session_id,
        seq,
        role,
        content,
        sender_name,
        agent_id,
        is_agent: flags & 1 != 0,
        is_error: flags & 2 != 0,
        sources,
        created_at,
        edited_at,
        suggestions,
    };
    Some((row, head.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(n: i64) -> ChatMessage {
        let at = chrono::DateTime::from_timestamp_micros(1_790_000_000_123_456 + n).unwrap().naive_utc();
        ChatMessage {
            id: format!("id-{n}"),
            session_id: "s".into(),
            seq: n,
            role: "user".into(),
            content: format!("héllo {n} ✓"),
            sender_name: (n % 2 == 0).then(|| "Ann".into()),
            agent_id: None,
            is_agent: n % 3 == 0,
            is_error: n % 5 == 0,
            sources: "[]".into(),
            created_at: at,
            edited_at: (n == 2).then_some(at),
            suggestions: "[\"a\"]".into(),
        }
    }

    #[test]
    fn rows_come_back_as_they_went_in_across_segments() {
        // Synced (`synchronous = FULL`: each append and each new segment's name) and not.
        for sync in [false, true] {
            rows_come_back_across_segments(sync);
        }
    }

    fn rows_come_back_across_segments(sync: bool) {
        let dir = tempfile::tempdir().unwrap();
        let journal_dir = dir.path().join("j");
        let mut journal = Journal::open(super::super::owner::try_claim(&journal_dir).unwrap().unwrap(), sync).unwrap();
        journal.append(&[message(1), message(2)]).unwrap();
        let first = journal.rotate().unwrap().unwrap();
        assert!(journal.rotate().unwrap().is_none(), "nothing appended: no new segment");
        journal.append(&[message(3)]).unwrap();
        assert_eq!(read_segment(&first).unwrap(), vec![message(1), message(2)]);
        let all = segments(&journal_dir).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(read_segment(&all[1].1).unwrap(), vec![message(3)]);
        // A journal opened again starts after what it finds.
        drop(journal);
        let again = Journal::open(super::super::owner::try_claim(&journal_dir).unwrap().unwrap(), sync).unwrap();
        assert_eq!(again.number, 3);
        again.close();
        assert_eq!(segments(&journal_dir).unwrap().len(), 2, "an empty segment is removed at a clean stop");
    }

    #[test]
    fn a_record_cut_short_or_damaged_ends_the_replay_and_keeps_what_came_before() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = Journal::open(super::super::owner::try_claim(dir.path()).unwrap().unwrap(), false).unwrap();
        journal.append(&[message(1), message(2)]).unwrap();
        let path = journal.rotate().unwrap().unwrap();
        let whole = std::fs::read(&path).unwrap();
        for cut in 1..(whole.len() / 2) {
            std::fs::write(&path, &whole[..whole.len() - cut]).unwrap();
            assert_eq!(read_segment(&path).unwrap(), vec![message(1)], "cut {cut} bytes short");
        }
        let mut damaged = whole.clone();
        let last = damaged.len() - 3;
        damaged[last] ^= 0xff;
        std::fs::write(&path, &damaged).unwrap();
        assert_eq!(read_segment(&path).unwrap(), vec![message(1)]);
        std::fs::write(&path, vec![0u8; 64]).unwrap();
        assert_eq!(read_segment(&path).unwrap(), vec![], "zeros (an unwritten block after a power cut) are no record");
    }

    #[test]
    fn a_segment_removed_after_it_was_listed_holds_no_rows() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = Journal::open(super::super::owner::try_claim(dir.path()).unwrap().unwrap(), false).unwrap();
        journal.append(&[message(1)]).unwrap();
        let path = journal.rotate().unwrap().unwrap();
        assert!(segments(dir.path()).unwrap().iter().any(|(_, listed)| *listed == path));
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read_segment(&path).unwrap(), vec![]);
    }
}
