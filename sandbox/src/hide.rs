//! Unix socket files out of reach: a private mount namespace in which the directories that hold
//! sockets (`/run`, `/tmp`, `/var/tmp`, `/dev/shm`, and whatever the caller adds, such as
//! frugald's own socket's directory) are covered by an empty tmpfs, with the policy's own paths
//! under them bound back in place.
//!
//! Landlock (ABI ≤ 6) does not govern `connect()` to a socket file, so a confined process could
//! reach the daemon's socket, journald, D-Bus or docker's by path; here those paths do not exist.
//! The bound-back paths are the same inodes, so the Landlock rules made on them still hold.
//! Needs `CAP_SYS_ADMIN` (root): without it the child keeps the host's mounts, and
//! [`crate::Capabilities`] says so.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

/// Directories hidden from every confined process, when they exist as directories.
const HIDDEN: &[&str] = &["/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm"];

fn extra() -> &'static Mutex<Vec<PathBuf>> {
    static EXTRA: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    EXTRA.get_or_init(|| Mutex::new(Vec::new()))
}

/// Hides `dir` from every process confined from now on in this process (its own paths under
/// it excepted): for a daemon's unix socket outside `/run` and `/tmp`.
pub fn hide_from_confined(dir: impl AsRef<Path>) {
    let mut list = extra().lock().unwrap_or_else(|e| e.into_inner());
    list.push(dir.as_ref().to_path_buf());
}

/// A path of the policy under a hidden dir, to bind back after the tmpfs covers it.
pub(crate) struct Hole {
    /// Every directory from the hidden dir down to the path (the last one is the path itself
    /// when it is a directory), created on the tmpfs first.
    dirs: Vec<CString>,
    /// The path itself when it is not a directory: an empty file is made to mount over.
    file: Option<CString>,
    target: CString,
    /// In the child: the original, opened after `unshare` (a bind mount's source must be a mount
    /// of the caller's own namespace, which a descriptor opened in the parent is not) and before
    /// the tmpfs covers it; -1 when it vanished in between (nothing to bind back). Opened there,
    /// it takes a free number: one chosen in the parent could be a descriptor an earlier
    /// `pre_exec` hook of the caller put in place.
    fd: AtomicI32,
}

/// One hidden directory and the holes in it.
pub(crate) struct Cover {
    dir: CString,
    holes: Vec<Hole>,
}

/// What the child mounts: prepared in the parent, applied between fork and exec.
pub(crate) struct HidePlan {
    covers: Vec<Cover>,
}

fn cstring(p: &Path) -> Option<CString> {
    CString::new(p.as_os_str().as_bytes()).ok()
}

impl HidePlan {
    /// Covers for the default and added dirs that exist, with holes for `keep` (the policy's
    /// readable and writable paths) found under them. A dir that holds a kept path's ancestor
    /// chain only partly is still covered; a kept path that cannot be opened is left out (it
    /// does not exist, so nothing is lost).
    pub(crate) fn new(keep: &[PathBuf]) -> HidePlan {
        let added = extra().lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut dirs: Vec<PathBuf> = HIDDEN.iter().map(PathBuf::from).collect();
        dirs.extend(added);
        // Real directories only (/var/run is mostly a link to /run), each once, and never one
        // that holds another: the inner one would be covered by the outer's tmpfs anyway.
        let mut dirs: Vec<PathBuf> = dirs
            .into_iter()
            .filter(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()))
            .filter_map(|d| d.canonicalize().ok())
            .collect();
        dirs.sort();
        dirs.dedup();
        let outer: Vec<PathBuf> = dirs
            .iter()
            .filter(|d| !dirs.iter().any(|o| o != *d && d.starts_with(o)))
            .cloned()
            .collect();
        let keep: Vec<PathBuf> = keep.iter().filter_map(|k| k.canonicalize().ok()).collect();
        let covers = outer
            .iter()
            .filter_map(|dir| {
                // A kept path that holds the dir: nothing to hide there.
                if keep.iter().any(|k| dir.starts_with(k)) {
                    return None;
                }
                let mut inside: Vec<&PathBuf> = keep
                    .iter()
                    .filter(|k| k.starts_with(dir) && *k != dir)
                    .collect();
                inside.sort();
                inside.dedup();
                // Outermost kept paths only: an inner one comes back with its ancestor.
                let firsts: Vec<&PathBuf> = inside
                    .iter()
                    .filter(|k| !inside.iter().any(|o| o != *k && k.starts_with(o)))
                    .copied()
                    .collect();
                let holes = firsts.iter().filter_map(|k| hole(dir, k)).collect();
                Some(Cover {
                    dir: cstring(dir)?,
                    holes,
                })
            })
            .collect();
        HidePlan { covers }
    }

    /// In the child, after `unshare(CLONE_NEWNS)`: mounts stay private, every cover gets its
    /// tmpfs and its holes. Async-signal-safe: system calls on prepared strings only. A dir or a
    /// hole whose path vanished in between is skipped; any other failure fails the spawn, so no command runs
    /// believing it is hidden when it is not.
    pub(crate) fn apply(&self) -> std::io::Result<()> {
        let none = std::ptr::null();
        // SAFETY (all blocks below): mount(2), mkdir(2), open(2) and close(2) on NUL-terminated
        // strings owned by the plan.
        check(unsafe {
            libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            )
        })?;
        for cover in &self.covers {
            // The originals, opened in this namespace before the tmpfs covers them.
            for hole in &cover.holes {
                let fd =
                    unsafe { libc::open(hole.target.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
                if fd < 0 {
                    let e = std::io::Error::last_os_error();
                    if e.raw_os_error() != Some(libc::ENOENT) {
                        return Err(e);
                    }
                }
                hole.fd.store(fd, Ordering::Relaxed);
            }
            let rc = unsafe {
                libc::mount(
                    c"tmpfs".as_ptr(),
                    cover.dir.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    c"mode=0755,size=1m".as_ptr().cast(),
                )
            };
            if rc < 0 {
                let e = std::io::Error::last_os_error();
                // The dir was removed since the plan was made: nothing left there to hide.
                if e.raw_os_error() == Some(libc::ENOENT) {
                    continue;
                }
                return Err(e);
            }
            for hole in &cover.holes {
                let fd = hole.fd.load(Ordering::Relaxed);
                if fd < 0 {
                    continue;
                }
                for d in &hole.dirs {
                    let rc = unsafe { libc::mkdir(d.as_ptr(), 0o755) };
                    if rc < 0
                        && std::io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST)
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if let Some(f) = &hole.file {
                    let fd = unsafe {
                        libc::open(
                            f.as_ptr(),
                            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                            0o644,
                        )
                    };
                    check(fd)?;
                    unsafe { libc::close(fd) };
                }
                let mut source = [0u8; 32];
                fd_path(fd, &mut source);
                let rc = unsafe {
                    libc::mount(
                        source.as_ptr().cast(),
                        hole.target.as_ptr(),
                        none,
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    )
                };
                let err = std::io::Error::last_os_error();
                unsafe { libc::close(fd) };
                if rc < 0 {
                    return Err(err);
                }
            }
        }
        Ok(())
    }
}

/// `/proc/self/fd/<fd>` with its NUL, written into `buf` without allocating (between fork and
/// exec).
fn fd_path(fd: libc::c_int, buf: &mut [u8; 32]) {
    const PREFIX: &[u8] = b"/proc/self/fd/";
    buf[..PREFIX.len()].copy_from_slice(PREFIX);
    let mut digits = [0u8; 10];
    let mut n = fd.unsigned_abs();
    let mut len = 0;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        n /= 10;
        len += 1;
        if n == 0 {
            break;
        }
    }
    for i in 0..len {
        buf[PREFIX.len() + i] = digits[len - 1 - i];
    }
    buf[PREFIX.len() + len] = 0;
}

fn check(rc: libc::c_int) -> std::io::Result<()> {
    if rc < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The hole for `kept` (a canonical path below `dir`).
fn hole(dir: &Path, kept: &Path) -> Option<Hole> {
    let path = CString::new(kept.as_os_str().as_bytes()).ok()?;
    let is_dir = std::fs::metadata(kept).ok()?.is_dir();
    let rel = kept.strip_prefix(dir).ok()?;
    let mut dirs = Vec::new();
    let mut at = dir.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        if i + 1 < parts.len() || is_dir {
            dirs.push(cstring(&at)?);
        }
    }
    Some(Hole {
        dirs,
        file: (!is_dir).then(|| path.clone()),
        target: path,
        fd: AtomicI32::new(-1),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn fd_paths_are_written_without_allocating() {
        for (fd, want) in [
            (0, "/proc/self/fd/0"),
            (7, "/proc/self/fd/7"),
            (1234567, "/proc/self/fd/1234567"),
        ] {
            let mut buf = [0u8; 32];
            super::fd_path(fd, &mut buf);
            let end = buf.iter().position(|b| *b == 0).unwrap();
            assert_eq!(std::str::from_utf8(&buf[..end]).unwrap(), want);
        }
    }
}
