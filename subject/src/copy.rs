//! Scratch copies of a crate: frugal never writes into the user's tree.

use std::io;
use std::path::Path;

/// Copies `src` to `dst` honouring `.gitignore`, skipping `target/`, VCS directories and
/// frugal's own output. Files already identical at the destination are left alone so that
/// cargo's fingerprints stay valid between runs.
pub fn copy_crate(src: &Path, dst: &Path) -> io::Result<()> {
    let walk = ignore::WalkBuilder::new(src)
        .hidden(false)
        .git_ignore(true)
        .require_git(false)
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.depth() == 1
                && matches!(
                    name.as_ref(),
                    "target" | ".git" | "frugal.out" | ".hg" | ".jj"
                ))
        })
        .build();
    for entry in walk {
        let entry = entry.map_err(io::Error::other)?;
        let rel = entry.path().strip_prefix(src).map_err(io::Error::other)?;
        let to = dst.join(rel);
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            std::fs::create_dir_all(&to)?;
        } else if kind.is_file() {
            let data = std::fs::read(entry.path())?;
            if std::fs::read(&to).is_ok_and(|old| old == data) {
                continue;
            }
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&to, data)?;
        }
    }
    Ok(())
}
