//! A commit's files written into a directory by the daemon itself, from git's object plumbing
//! (`ls-tree` for the paths and modes, `cat-file --batch` for the contents), never by
//! `git archive` or a checkout.
//!
//! Decision: `git archive` and checkouts run the smudge filters the repository's own config
//! names for the paths its attributes select, and no option or environment variable switches
//! the repository's own config off. The plumbing applies no filter, textconv or attribute, so
//! a snapshot holds the committed bytes and nothing the repository's config names ever runs.
//! Regular files, executables and symbolic links are written here; a link whose target leaves
//! the snapshot (absolute, or climbing out with `..`) is refused, so nothing read through the
//! snapshot later (the pipeline's manifests, cargo, the build) reaches outside it. Submodules
//! become empty directories, as `git archive` leaves them. Attributes such as `export-ignore`
//! are not applied either: a snapshot is the commit, whole.

use std::collections::HashSet;
use std::io::{Seek, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use crate::SchedulerError;
use crate::git::git_bytes;

/// One entry of `git ls-tree -r`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    mode: String,
    oid: String,
    path: PathBuf,
}

/// Writes the files of `commit` of the repository at `repo` into `dest`, an existing empty
/// directory.
pub fn export_commit(repo: &Path, commit: &str, dest: &Path) -> Result<(), SchedulerError> {
    let bad = |message: String| SchedulerError::Git {
        repo: repo.to_path_buf(),
        args: format!("ls-tree -r {commit}"),
        message,
    };
    let listing = git_bytes(
        repo,
        &[
            "ls-tree",
            "-r",
            "-z",
            "--full-tree",
            "--end-of-options",
            commit,
        ],
        None,
    )?;
    let entries = parse_ls_tree(&listing).map_err(bad)?;
    let blobs: Vec<&Entry> = entries.iter().filter(|e| e.mode != "160000").collect();
    let contents = if blobs.is_empty() {
        Vec::new()
    } else {
        // The object ids go in through a file: `cat-file --batch` reads them from stdin, and a
        // file needs no writer thread racing the reader of its output.
        let mut ids = tempfile::tempfile().map_err(|e| bad(format!("temp file: {e}")))?;
        for e in &blobs {
            writeln!(ids, "{}", e.oid).map_err(|e| bad(format!("temp file: {e}")))?;
        }
        ids.rewind().map_err(|e| bad(format!("temp file: {e}")))?;
        let out = git_bytes(repo, &["cat-file", "--batch"], Some(ids))?;
        parse_batch(&out, blobs.len()).map_err(bad)?
    };
    let io = |path: &Path, e: std::io::Error| bad(format!("write {}: {e}", path.display()));
    let mut links = Vec::new();
    let mut contents = contents.into_iter();
    for e in &entries {
        let path = dest.join(&e.path);
        if e.mode == "160000" {
            std::fs::create_dir_all(&path).map_err(|err| io(&path, err))?;
            continue;
        }
        let bytes = contents.next().unwrap_or_default();
        match e.mode.as_str() {
            "120000" => links.push((e, bytes)),
            "100644" | "100755" | "100664" => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|err| io(dir, err))?;
                }
                let mut file = std::fs::File::create_new(&path).map_err(|err| io(&path, err))?;
                file.write_all(&bytes).map_err(|err| io(&path, err))?;
                let mode = if e.mode == "100755" { 0o755 } else { 0o644 };
                file.set_permissions(std::fs::Permissions::from_mode(mode))
                    .map_err(|err| io(&path, err))?;
            }
            other => {
                return Err(bad(format!("{}: unknown mode {other}", e.path.display())));
            }
        }
    }
    // Links last: every directory above a file was made real before any link exists, so no
    // write above followed one.
    for (e, target) in &links {
        let target = link_target(&e.path, target).map_err(bad)?;
        let path = dest.join(&e.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|err| io(dir, err))?;
        }
        std::os::unix::fs::symlink(&target, &path).map_err(|err| io(&path, err))?;
    }
    check_links(dest, links.iter().map(|(e, _)| e.path.as_path())).map_err(bad)
}

/// `mode SP type SP oid TAB path NUL`, repeated; paths are checked to stay inside.
fn parse_ls_tree(out: &[u8]) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    let mut seen = HashSet::new();
    for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let tab = record
            .iter()
            .position(|b| *b == b'\t')
            .ok_or("ls-tree printed a record without a path")?;
        let head = std::str::from_utf8(&record[..tab]).map_err(|_| "ls-tree: bad record")?;
        let mut parts = head.split(' ');
        let (Some(mode), Some(_kind), Some(oid)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!("ls-tree printed `{head}`"));
        };
        if !oid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("ls-tree printed object id `{oid}`"));
        }
        let path = safe_path(&record[tab + 1..])?;
        if !seen.insert(path.clone()) {
            return Err(format!("{} appears twice in the commit", path.display()));
        }
        entries.push(Entry {
            mode: mode.to_string(),
            oid: oid.to_string(),
            path,
        });
    }
    Ok(entries)
}

/// A path of the commit as a relative path of plain names: no `.`, `..`, `.git` (git itself
/// never records them; a crafted tree could) and no empty component.
fn safe_path(raw: &[u8]) -> Result<PathBuf, String> {
    use std::os::unix::ffi::OsStrExt;
    let shown = String::from_utf8_lossy(raw);
    let mut path = PathBuf::new();
    for part in raw.split(|b| *b == b'/') {
        let bad =
            part.is_empty() || part == b"." || part == b".." || part.eq_ignore_ascii_case(b".git");
        if bad {
            return Err(format!(
                "the commit holds the path `{shown}`, which is not a plain relative path"
            ));
        }
        path.push(std::ffi::OsStr::from_bytes(part));
    }
    Ok(path)
}

/// The contents of `count` objects in `cat-file --batch` output: `<oid> <type> <size>\n`,
/// the bytes, `\n`.
fn parse_batch(out: &[u8], count: usize) -> Result<Vec<Vec<u8>>, String> {
    let mut contents = Vec::with_capacity(count);
    let mut at = 0;
    while contents.len() < count {
        let end = out[at..]
            .iter()
            .position(|b| *b == b'\n')
            .map(|p| at + p)
            .ok_or("cat-file --batch ended early")?;
        let header = String::from_utf8_lossy(&out[at..end]).to_string();
        let mut parts = header.split(' ');
        let (Some(oid), Some(kind), Some(size)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("cat-file --batch printed `{header}`"));
        };
        if kind != "blob" {
            return Err(format!("object {oid} is a {kind}, not a blob"));
        }
        let size: usize = size
            .parse()
            .map_err(|_| format!("cat-file --batch printed `{header}`"))?;
        let start = end + 1;
        let stop = start
            .checked_add(size)
            .filter(|s| *s < out.len())
            .ok_or("cat-file --batch ended inside an object")?;
        contents.push(out[start..stop].to_vec());
        at = stop + 1;
    }
    Ok(contents)
}

/// The target of the link at `at` (relative to the snapshot), refused when it is absolute or
/// its `..` climb above the snapshot.
fn link_target(at: &Path, raw: &[u8]) -> Result<PathBuf, String> {
    use std::os::unix::ffi::OsStrExt;
    let target = PathBuf::from(std::ffi::OsStr::from_bytes(raw));
    let refuse = || {
        format!(
            "the symbolic link {} points to `{}`, outside the repository",
            at.display(),
            target.display()
        )
    };
    if raw.is_empty() || raw.contains(&0) || target.is_absolute() {
        return Err(refuse());
    }
    let mut depth = at.components().count().saturating_sub(1);
    for c in target.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => depth = depth.checked_sub(1).ok_or_else(refuse)?,
            Component::RootDir | Component::Prefix(_) => return Err(refuse()),
        }
    }
    Ok(target)
}

/// Each link, resolved by the kernel now that all exist, stays inside `dest`: a `..` after a
/// link to a directory (`l -> s/..` with `s -> .`) climbs from where the link goes, which the
/// lexical check of [`link_target`] cannot see. A link that does not resolve is kept only when
/// its target has no `..`: below in-tree links it can only go down.
fn check_links<'a>(dest: &Path, links: impl Iterator<Item = &'a Path>) -> Result<(), String> {
    let root = dest
        .canonicalize()
        .map_err(|e| format!("resolve {}: {e}", dest.display()))?;
    for rel in links {
        let path = root.join(rel);
        let leaves = match path.canonicalize() {
            Ok(real) => !real.starts_with(&root),
            Err(_) => std::fs::read_link(&path)
                .map(|t| t.components().any(|c| c == Component::ParentDir))
                .unwrap_or(true),
        };
        if leaves {
            return Err(format!(
                "the symbolic link {} leads outside the repository",
                rel.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_be_plain_and_relative() {
        assert_eq!(safe_path(b"a/b.rs").unwrap(), PathBuf::from("a/b.rs"));
        for bad in [
            &b"../x"[..],
            b"a/../../x",
            b"/etc/x",
            b"a//b",
            b".git/config",
            b"a/./b",
        ] {
            assert!(safe_path(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn link_targets_must_stay_inside() {
        let at = Path::new("src/l");
        assert!(link_target(at, b"lib.rs").is_ok());
        assert!(link_target(at, b"../Cargo.toml").is_ok());
        for bad in [&b"../../x"[..], b"/etc/passwd", b"", b"a/../../../x"] {
            assert!(
                link_target(at, bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn a_link_through_a_link_that_climbs_out_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("snap");
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::write(tmp.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(".", dest.join("s")).unwrap();
        std::os::unix::fs::symlink("s/../secret", dest.join("l")).unwrap();
        let err = check_links(&dest, [Path::new("l")].into_iter()).unwrap_err();
        assert!(err.contains("outside"), "{err}");
        assert!(check_links(&dest, [Path::new("s")].into_iter()).is_ok());
    }

    #[test]
    fn batch_output_is_split_by_sizes() {
        let out = b"aa blob 3\nx\ny\nbb blob 0\n\n";
        assert_eq!(
            parse_batch(out, 2).unwrap(),
            vec![b"x\ny".to_vec(), Vec::new()]
        );
        assert!(parse_batch(b"aa missing\n", 1).is_err());
    }
}
