//! What the state's directories take on disk, and the eviction rule that holds them to a
//! budget: the part of retention that is directories, not store records (`retention.rs`).
//! frugald's GC applies it to its per-crate work dirs, `frugal gc` to the CLI's cache.
//!
//! Sled-free (built without the `store` feature), so the CLI, which keeps no store, links it
//! without the database.
//!
//! Decision: "recently used" is the newest modification time inside a directory (a job writes
//! its snapshot, build and target dirs all the time, the snapshot is stamped at extraction),
//! so no marker file has to be kept in step, and the same rule serves the CLI's cache, whose
//! users never tell frugal when they are done. A directory written in the last [`MIN_IDLE`] is
//! never evicted (a replacement computation or a `frugal run` nobody tracks may be in it).

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A directory written within this is never evicted by the disk budget.
pub const MIN_IDLE: Duration = Duration::from_secs(600);

/// A directory with its size on disk and when it was last written.
#[derive(Clone, Debug)]
pub struct DirUse {
    /// The directory.
    pub path: PathBuf,
    /// Bytes of allocated blocks of everything under it, symlinks counted, never followed.
    pub bytes: u64,
    /// The newest modification time of anything under it (the Unix epoch when nothing could be
    /// read).
    pub last_used: SystemTime,
}

/// A directory deleted (or, dry, that would be), with its size and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Freed {
    /// The directory.
    pub path: PathBuf,
    /// Bytes on disk it held, as [`dir_use`] counted them before deletion.
    pub bytes: u64,
    /// Why it was (or would be) deleted, for logs and the dry-run listing.
    pub reason: String,
}

/// Bytes on disk (allocated blocks) of everything under `path` and the newest modification
/// time; symlinks are counted, never followed.
pub fn dir_use(path: &Path) -> DirUse {
    let mut bytes = 0;
    let mut newest = SystemTime::UNIX_EPOCH;
    let mut stack = vec![path.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        bytes += meta.blocks() * 512;
        if let Ok(m) = meta.modified() {
            newest = newest.max(m);
        }
        if meta.is_dir()
            && let Ok(entries) = std::fs::read_dir(&p)
        {
            stack.extend(entries.filter_map(|e| Some(e.ok()?.path())));
        }
    }
    DirUse {
        path: path.to_path_buf(),
        bytes,
        last_used: newest,
    }
}

/// Deletes a directory (unless `dry_run`) and says so; a directory already gone, or one that
/// could not be deleted (logged), frees nothing.
pub fn free(path: &Path, reason: &str, dry_run: bool) -> Option<Freed> {
    if !path.exists() {
        return None;
    }
    let bytes = dir_use(path).bytes;
    if !dry_run && let Err(e) = std::fs::remove_dir_all(path) {
        tracing::warn!(path = %path.display(), error = %e, "could not delete a directory");
        return None;
    }
    Some(Freed {
        path: path.to_path_buf(),
        bytes,
        reason: reason.to_string(),
    })
}

/// Holds `dirs` to `budget` bytes (least recently used deleted first) and deletes those unused
/// for longer than `max_age`; never one `pinned` or used within [`MIN_IDLE`]. Returns what was
/// deleted and the bytes left.
pub fn evict(
    mut dirs: Vec<DirUse>,
    budget: Option<u64>,
    max_age: Option<Duration>,
    pinned: &HashSet<PathBuf>,
    dry_run: bool,
) -> (Vec<Freed>, u64) {
    let now = SystemTime::now();
    let idle = |d: &DirUse| now.duration_since(d.last_used).unwrap_or_default();
    dirs.sort_by_key(|d| d.last_used);
    let mut total: u64 = dirs.iter().map(|d| d.bytes).sum();
    let mut freed = Vec::new();
    for d in dirs {
        if pinned.contains(&d.path) || idle(&d) < MIN_IDLE {
            continue;
        }
        let reason = if max_age.is_some_and(|a| idle(&d) > a) {
            format!("unused for {} days", idle(&d).as_secs() / 86_400)
        } else if budget.is_some_and(|b| total > b) {
            "least recently used beyond the disk budget".to_string()
        } else {
            continue;
        };
        if let Some(f) = free(&d.path, &reason, dry_run) {
            total = total.saturating_sub(d.bytes);
            freed.push(f);
        }
    }
    (freed, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aged(path: &Path, bytes: u64, secs_ago: u64) -> DirUse {
        DirUse {
            path: path.to_path_buf(),
            bytes,
            last_used: SystemTime::now() - Duration::from_secs(secs_ago),
        }
    }

    #[test]
    fn eviction_goes_least_recently_used_first_down_to_the_budget() {
        let tmp = tempfile::tempdir().unwrap();
        let [a, b, c, busy, fresh] = ["a", "b", "c", "busy", "fresh"].map(|n| {
            let d = tmp.path().join(n);
            std::fs::create_dir_all(&d).unwrap();
            d
        });
        let dirs = vec![
            aged(&a, 100, 5000),
            aged(&b, 100, 4000),
            aged(&c, 100, 3000),
            aged(&busy, 100, 9000),
            aged(&fresh, 100, 10),
        ];
        let pinned = HashSet::from([busy.clone()]);
        let (dry, kept) = evict(dirs.clone(), Some(250), None, &pinned, true);
        assert_eq!(dry.len(), 3, "{dry:?}");
        assert!(a.exists(), "a dry run deletes nothing");
        assert_eq!(kept, 200);
        let (freed, _) = evict(dirs, Some(250), None, &pinned, false);
        let gone: Vec<&Path> = freed.iter().map(|f| f.path.as_path()).collect();
        assert_eq!(gone, [a.as_path(), b.as_path(), c.as_path()]);
        assert!(busy.exists() && fresh.exists() && !a.exists());
    }
}
