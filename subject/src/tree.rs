//! Reading the tenant's tree: every file frugal itself reads from a crate (its manifest, the
//! enclosing workspace's manifest and lock file, module files) comes through [`read_in_tree`],
//! which never follows a link, nor a `..`, out of the tree it is given. Under frugald a crate is
//! a committer's: a `Cargo.toml` linked to the daemon's token file would otherwise be read with
//! the daemon's rights and its text echoed in an error stored with the run.
//!
//! [`root_of`] says where a crate's tree ends, and [`toml_problem`] words a TOML parse error
//! without the offending line: toml's own `Display` quotes it, which is how a file's content
//! would leak into a run record.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// The largest file frugal reads from a tree (manifests, lock files, module files): a crate's
/// largest source files are a few MB; a bigger one is not a crate's file but an attack on memory.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The tree a crate's files are read from: the outermost directory at or above `crate_dir`
/// holding a `Cargo.toml` (the enclosing workspace, whose manifest members inherit from), but
/// never above the nearest one holding `.git` (the repository the crate is in). `crate_dir`
/// itself when it does not resolve.
///
/// Decision: this is a rule, not an option threaded through every caller, because both front
/// ends agree with it: the CLI's crate sits in the user's checkout, and frugald's in a snapshot
/// whose parents are frugald's own state dirs, which hold no manifest a tenant could plant.
pub fn root_of(crate_dir: &Path) -> PathBuf {
    let Ok(dir) = crate_dir.canonicalize() else {
        return crate_dir.to_path_buf();
    };
    let mut root = dir.clone();
    for a in dir.ancestors() {
        if a.join("Cargo.toml").is_file() {
            root = a.to_path_buf();
        }
        if std::fs::symlink_metadata(a.join(".git")).is_ok() {
            break;
        }
    }
    root
}

/// The text of `rel` (relative to `crate_dir`) read inside the crate's tree ([`root_of`]): a
/// manifest linked to a sibling of the workspace is read, one linked out of it is refused.
pub fn read_crate_file(crate_dir: &Path, rel: &Path) -> io::Result<String> {
    let dir = crate_dir.canonicalize()?;
    read_in_tree(&root_of(&dir), &dir.join(rel))
}

/// The text of `path` (absolute under `root`, or relative to it), refused when the path or a
/// link on its way leaves `root`, when it is not a regular file (a FIFO would hang the reader),
/// when it is larger than [`MAX_FILE_BYTES`] or not UTF-8. The error never quotes the file.
pub fn read_in_tree(root: &Path, path: &Path) -> io::Result<String> {
    let bytes = read_bytes_in_tree(root, path)?;
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the file is not UTF-8 text"))
}

/// [`read_in_tree`] for bytes.
pub fn read_bytes_in_tree(root: &Path, path: &Path) -> io::Result<Vec<u8>> {
    let rel = relative_in(root, path)?;
    let mut file = open_beneath(root, &rel)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("it is not a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(io::Error::other(format!(
            "it is larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    let mut bytes = Vec::new();
    // `take`: a file growing while it is read still stops at the cap.
    (&mut file)
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(io::Error::other(format!(
            "it is larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    Ok(bytes)
}

/// Whether `path` (absolute under `root`, or relative to it) stays inside `root`: what it
/// resolves to when it exists, its own components when it does not (yet). For paths a manifest
/// names for cargo and rustc to read (`build`, `[lib] path`, `[[test]] path`, `readme`).
pub fn stays_inside(root: &Path, path: &Path) -> bool {
    let Ok(rel) = relative_in(root, path) else {
        return false;
    };
    match open_beneath(root, &rel) {
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let mut depth = 0usize;
            rel.components().all(|c| match c {
                Component::Normal(_) => {
                    depth += 1;
                    true
                }
                Component::CurDir => true,
                Component::ParentDir => depth.checked_sub(1).map(|d| depth = d).is_some(),
                Component::RootDir | Component::Prefix(_) => false,
            })
        }
        Err(e) => e.kind() != io::ErrorKind::PermissionDenied,
    }
}

fn outside(root: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "a symbolic link or `..` in its path leads outside {}; frugal reads only files inside \
             the crate's tree",
            root.display()
        ),
    )
}

/// `path` relative to `root`. `..` is left for the kernel to resolve (lexically, `a/link/..`
/// is `a`, but the kernel goes where `link` points first), and refused there when it climbs out.
fn relative_in(root: &Path, path: &Path) -> io::Result<PathBuf> {
    let rel = if path.is_absolute() {
        // Both sides as given and canonical: callers pass paths joined onto either form.
        let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        match path
            .strip_prefix(root)
            .or_else(|_| path.strip_prefix(&canon))
        {
            Ok(rel) => rel.to_path_buf(),
            Err(_) => return Err(outside(root)),
        }
    } else {
        path.to_path_buf()
    };
    if !rel.components().any(|c| matches!(c, Component::Normal(_))) {
        return Err(io::Error::other("it names no file inside the tree"));
    }
    Ok(rel)
}

/// Opens `rel` below `root` for reading without ever leaving `root`: `openat2` with
/// `RESOLVE_BENEATH` lets the kernel refuse any link or `..` that escapes, atomically. A kernel
/// without `openat2` (before 5.6, or a container filter refusing it) gets the same check done by
/// hand: the canonical path must lie under the canonical root, and is opened with `O_NOFOLLOW`
/// so its last component cannot be swapped for a link in between.
fn open_beneath(root: &Path, rel: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    let dir = File::open(root)?;
    // Non-blocking: opening a FIFO must not wait for a writer; reads of regular files ignore it.
    let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK;
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(&dir, rel, flags, Mode::empty(), resolve) {
        Ok(fd) => Ok(File::from(fd)),
        Err(rustix::io::Errno::XDEV) => Err(outside(root)),
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
            let canon_root = root.canonicalize()?;
            let real = root.join(rel).canonicalize()?;
            if !real.starts_with(&canon_root) {
                return Err(outside(root));
            }
            let fd = rustix::fs::open(&real, flags | OFlags::NOFOLLOW, Mode::empty())?;
            Ok(File::from(fd))
        }
        Err(e) => Err(e.into()),
    }
}

/// A TOML parse error as `line L, column C: <what is wrong>`, never with the file's text: the
/// `Display` of toml's error quotes the offending line, and a manifest linked to a secret would
/// hand that line to whoever reads the error.
pub fn toml_problem(text: &str, e: &toml_edit::TomlError) -> String {
    let message = e.message().lines().next().unwrap_or("invalid TOML").trim();
    match e.span() {
        Some(span) => {
            let (line, column) = line_column(text, span.start);
            format!("line {line}, column {column}: {message}")
        }
        None => message.to_string(),
    }
}

/// 1-based line and column (in characters) of byte offset `at` in `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// For tests of every reader: a crate `tmp/tree/c` whose `Cargo.toml` links to `tmp/secret`,
/// which holds `secret`; returns the crate dir.
#[cfg(test)]
pub(crate) fn crate_with_manifest_linked_out(tmp: &Path, secret: &str) -> PathBuf {
    std::fs::write(tmp.join("secret"), format!("{secret}\n")).expect("write the secret");
    let dir = tmp.join("tree/c");
    std::fs::create_dir_all(dir.join("src")).expect("create the crate");
    std::fs::write(dir.join("src/lib.rs"), "pub fn f() {}\n").expect("write the crate");
    std::os::unix::fs::symlink(tmp.join("secret"), dir.join("Cargo.toml")).expect("link");
    dir
}

/// For tests of every reader: `err` names the manifest and why, and not the secret.
#[cfg(test)]
pub(crate) fn assert_refused_without(err: &str, secret: &str) {
    assert!(
        err.contains("Cargo.toml") && err.contains("outside"),
        "{err}"
    );
    assert!(!err.contains(secret), "{err}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_out_of_the_tree_is_refused_and_one_inside_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let secret = tmp.path().join("secret");
        std::fs::write(&secret, "token-3f9a\n").unwrap();
        let root = tmp.path().join("tree");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("real.toml"), "x = 1\n").unwrap();
        std::os::unix::fs::symlink(&secret, root.join("abs")).unwrap();
        std::os::unix::fs::symlink("../secret", root.join("rel")).unwrap();
        std::os::unix::fs::symlink("../real.toml", root.join("sub/inside")).unwrap();
        std::os::unix::fs::symlink("..", root.join("sub/up")).unwrap();
        for name in [
            "abs",
            "rel",
            "../secret",
            "sub/up/../secret",
            "sub/../../secret",
        ] {
            let err = read_in_tree(&root, Path::new(name))
                .unwrap_err()
                .to_string();
            assert!(err.contains("outside"), "{name}: {err}");
            assert!(!err.contains("token-3f9a"), "{name}: {err}");
        }
        let err = read_in_tree(&root, &secret).unwrap_err().to_string();
        assert!(err.contains("outside"), "{err}");
        assert_eq!(
            read_in_tree(&root, Path::new("sub/inside")).unwrap(),
            "x = 1\n"
        );
        assert_eq!(
            read_in_tree(&root, &root.join("sub/up/real.toml")).unwrap(),
            "x = 1\n"
        );
    }

    #[test]
    fn paths_a_manifest_names_must_stay_inside() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("tree");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(tmp.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink("../../secret", root.join("src/out")).unwrap();
        assert!(stays_inside(&root, &root.join("src/missing.rs")));
        assert!(stays_inside(&root, &root.join("src/../build.rs")));
        assert!(!stays_inside(&root, &root.join("../secret")));
        assert!(!stays_inside(&root, &root.join("src/out")));
        assert!(!stays_inside(&root, Path::new("/etc/passwd")));
        assert!(!stays_inside(&root, &root.join("src/../../nothing.rs")));
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("Cargo.toml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = read_in_tree(tmp.path(), &fifo).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn toml_problems_name_the_place_not_the_text() {
        let text = "[package]\nname = \"x\"\nADMIN-TOKEN-abc123 more\n";
        let err = text.parse::<toml_edit::DocumentMut>().unwrap_err();
        assert!(
            err.to_string().contains("ADMIN-TOKEN"),
            "toml's own text quotes it"
        );
        let problem = toml_problem(text, &err);
        assert!(problem.starts_with("line 3, column "), "{problem}");
        assert!(!problem.contains("ADMIN-TOKEN"), "{problem}");
    }

    #[test]
    fn the_root_is_the_outermost_manifest_within_the_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        let repo = top.join("repo");
        let krate = repo.join("crates/a");
        std::fs::create_dir_all(&krate).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        for d in [&top, &repo, &krate] {
            std::fs::write(d.join("Cargo.toml"), "").unwrap();
        }
        assert_eq!(root_of(&krate), repo);
        std::fs::remove_dir(repo.join(".git")).unwrap();
        assert_eq!(root_of(&krate), top);
    }
}
