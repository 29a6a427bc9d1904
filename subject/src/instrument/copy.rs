//! The scratch copy of the user's crate: the only tree the instrumenter writes to.
//!
//! As cargo-mutants' `copy_tree.rs` (\[cargo-mutants\]): walk with the `ignore` crate (the crate's own `.gitignore`
//! honoured), skip the top-level `target/`, VCS directories, frugal's own output and the
//! output directory itself when it lies inside the crate. Files whose content is unchanged keep
//! their mtime, so cargo does not rebuild what did not change between two runs; files that no
//! longer exist in the source are pruned.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use super::InstrumentError;

const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".jj", ".pijul"];
const TOP_LEVEL_SKIPS: &[&str] = &["target", "frugal.out", "mutants.out", "mutants.out.old"];

/// Copies `from` into `to`, skipping `out_dir` if it lies inside `from`. Files named in
/// `overrides` (relative paths) get the given content instead, whether the walk meets them or
/// not (a module file may be gitignored).
pub(crate) fn copy_tree(
    from: &Path,
    to: &Path,
    out_dir: &Path,
    overrides: &HashMap<PathBuf, Vec<u8>>,
) -> Result<(), InstrumentError> {
    let out_dir = out_dir.to_path_buf();
    let walker = WalkBuilder::new(from)
        .hidden(false)
        .parents(false)
        .require_git(false)
        .git_global(false)
        .follow_links(false)
        .filter_entry(move |e| !excluded(&out_dir, e.path(), e.depth()))
        .build();
    fs::create_dir_all(to).map_err(|e| io_err(to, e))?;
    let mut kept = HashSet::new();
    for entry in walker {
        let entry = entry.map_err(|e| InstrumentError::Io {
            path: from.to_path_buf(),
            source: io::Error::other(e.to_string()),
        })?;
        let Ok(rel) = entry.path().strip_prefix(from) else {
            continue;
        };
        if rel.as_os_str().is_empty() {
            continue;
        }
        let dest = to.join(rel);
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            real_dir(to, &dest)?;
        } else if kind.is_symlink() {
            copy_symlink(to, entry.path(), &dest)?;
        } else if let Some(bytes) = overrides.get(rel) {
            write_if_changed(to, &dest, bytes)?;
        } else {
            let bytes = fs::read(entry.path()).map_err(|e| io_err(entry.path(), e))?;
            write_if_changed(to, &dest, &bytes)?;
        }
        kept.insert(rel.to_path_buf());
    }
    for (rel, bytes) in overrides {
        if kept.insert(rel.clone()) {
            write_if_changed(to, &to.join(rel), bytes)?;
        }
    }
    prune(to, to, &kept)
}

fn excluded(out_dir: &Path, path: &Path, depth: usize) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    (depth == 1 && TOP_LEVEL_SKIPS.contains(&name)) || VCS_DIRS.contains(&name) || path == out_dir
}

/// Makes `dir` (inside the copy `root`) a real directory: a symbolic link in its place (left by
/// an earlier copy, or planted there by confined code since) is removed first, never followed.
pub(crate) fn real_dir(root: &Path, dir: &Path) -> Result<(), InstrumentError> {
    no_link_above(root, dir)?;
    if fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        fs::remove_file(dir).map_err(|e| io_err(dir, e))?;
    }
    fs::create_dir_all(dir).map_err(|e| io_err(dir, e))
}

/// Refuses `path` when a directory between `root` and it is a symbolic link: the user's crate
/// may hold `src/generated -> /elsewhere`, copied as a link, and a write below it would land
/// outside the copy. Frugal never writes through a link.
pub(crate) fn no_link_above(root: &Path, path: &Path) -> Result<(), InstrumentError> {
    let Ok(rel) = path.strip_prefix(root) else {
        return Err(io_err(
            path,
            io::Error::other(format!("refusing to write outside {}", root.display())),
        ));
    };
    let mut at = root.to_path_buf();
    let mut parts = rel.components().peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            break;
        }
        at.push(part);
        if let Ok(target) = fs::read_link(&at) {
            return Err(io_err(
                path,
                io::Error::other(format!(
                    "refusing to write through a symbolic link: {} points to {}",
                    at.display(),
                    target.display()
                )),
            ));
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` (inside the copy `root`) unless it already holds them; never writes
/// through a symlink, neither `path` itself (replaced) nor a directory above it (refused).
pub(crate) fn write_if_changed(
    root: &Path,
    path: &Path,
    bytes: &[u8],
) -> Result<(), InstrumentError> {
    no_link_above(root, path)?;
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::remove_file(path).map_err(|e| io_err(path, e))?;
        }
        Ok(_) => {
            if fs::read(path).is_ok_and(|old| old == bytes) {
                return Ok(());
            }
        }
        Err(_) => {}
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    }
    fs::write(path, bytes).map_err(|e| io_err(path, e))
}

/// Copies a link as a link (its target verbatim): reads through it stay the crate's own
/// business, confined like every build, and no write ever follows it (see [`no_link_above`]).
#[cfg(unix)]
fn copy_symlink(root: &Path, src: &Path, dest: &Path) -> Result<(), InstrumentError> {
    no_link_above(root, dest)?;
    let target = fs::read_link(src).map_err(|e| io_err(src, e))?;
    if fs::read_link(dest).is_ok_and(|old| old == target) {
        return Ok(());
    }
    // A real directory in its place is frugal's own (`tests/` of an earlier verification copy).
    match fs::symlink_metadata(dest) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(dest).map_err(|e| io_err(dest, e))?,
        Ok(_) => fs::remove_file(dest).map_err(|e| io_err(dest, e))?,
        Err(_) => {}
    }
    std::os::unix::fs::symlink(&target, dest).map_err(|e| io_err(dest, e))
}

#[cfg(not(unix))]
fn copy_symlink(root: &Path, src: &Path, dest: &Path) -> Result<(), InstrumentError> {
    // Without symlinks, copy what the link points at.
    let bytes = fs::read(src).map_err(|e| io_err(src, e))?;
    write_if_changed(root, dest, &bytes)
}

/// Removes files of an earlier copy that the source no longer has. The copy's `target/` and
/// `Cargo.lock` belong to cargo.
fn prune(root: &Path, dir: &Path, kept: &HashSet<PathBuf>) -> Result<(), InstrumentError> {
    let entries = fs::read_dir(dir).map_err(|e| io_err(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io_err(dir, e))?;
        let path = entry.path();
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        if rel == Path::new("target") || rel == Path::new("Cargo.lock") || kept.contains(rel) {
            if entry.file_type().is_ok_and(|t| t.is_dir()) && rel != Path::new("target") {
                prune(root, &path, kept)?;
            }
            continue;
        }
        let result = if entry.file_type().is_ok_and(|t| t.is_dir()) {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        result.map_err(|e| io_err(&path, e))?;
    }
    Ok(())
}

pub(crate) fn io_err(path: &Path, source: io::Error) -> InstrumentError {
    InstrumentError::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let bytes = fs::read(&p).unwrap();
                (p, bytes)
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn links_are_copied_as_links_and_never_written_through() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("mod.rs"), "// outside").unwrap();
        let from = tmp.path().join("crate");
        fs::create_dir_all(from.join("src")).unwrap();
        fs::write(from.join("src/lib.rs"), "mod generated;").unwrap();
        symlink(&outside, from.join("src/generated")).unwrap();
        let to = tmp.path().join("copy");
        let before = snapshot(&outside);

        copy_tree(&from, &to, &tmp.path().join("out"), &HashMap::new()).unwrap();
        assert_eq!(fs::read_link(to.join("src/generated")).unwrap(), outside);
        // A real directory left in the link's place (verification's `tests/`) goes again.
        fs::remove_file(to.join("src/generated")).unwrap();
        fs::create_dir_all(to.join("src/generated")).unwrap();
        copy_tree(&from, &to, &tmp.path().join("out"), &HashMap::new()).unwrap();
        assert_eq!(fs::read_link(to.join("src/generated")).unwrap(), outside);

        // An instrumented module file below the link is refused, not written outside.
        let overrides = HashMap::from([(PathBuf::from("src/generated/mod.rs"), b"//".to_vec())]);
        let err = copy_tree(&from, &to, &tmp.path().join("out"), &overrides).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(snapshot(&outside), before);
    }

    #[test]
    fn a_link_planted_in_the_copy_in_place_of_a_directory_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        let from = tmp.path().join("crate");
        fs::create_dir_all(from.join("src")).unwrap();
        fs::write(from.join("src/lib.rs"), "pub fn f() {}").unwrap();
        let to = tmp.path().join("copy");
        fs::create_dir_all(&to).unwrap();
        // What confined code could leave behind between two runs.
        symlink(&outside, to.join("src")).unwrap();

        copy_tree(&from, &to, &tmp.path().join("out"), &HashMap::new()).unwrap();
        assert!(fs::symlink_metadata(to.join("src")).unwrap().is_dir());
        assert_eq!(fs::read(to.join("src/lib.rs")).unwrap(), b"pub fn f() {}");
        assert!(fs::read_dir(&outside).unwrap().next().is_none());
    }
}
