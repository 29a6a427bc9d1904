//! Dependencies a commit may not name: a `path` outside the repository's snapshot, or a git
//! repository on this host (`file://`). cargo fetches and reads both unconfined (`cargo fetch`,
//! `cargo metadata` run before any sandbox), and the build then compiles them in: a tenant
//! could build another user's repository, or any file the daemon can read, into its own crate
//! and read it back from the suite frugald stores. Checked on every manifest of the snapshot
//! and on cargo's config files in it (`[patch]`, `paths`, local `[source]`s), before any cargo
//! command runs on it.
//!
//! Files are read with `tree::read_in_tree` (no link leads out of a snapshot anyway), and an
//! error names the file, the dependency and what it names, never other text of the file.

use std::path::{Path, PathBuf};

use frugal_subject::tree;

/// Directories never walked for manifests: cargo's own output, and git's.
const SKIPPED: [&str; 2] = ["target", ".git"];

/// Every `Cargo.toml` and cargo config file (`.cargo/config.toml`, `.cargo/config`) under
/// `root`, as paths relative to it; links are not followed.
fn manifests(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            let name = e.file_name();
            let path = rel.join(&name);
            if kind.is_dir() && !SKIPPED.iter().any(|s| name == *s) {
                stack.push(path);
            } else if kind.is_file() {
                let cargo_config = rel.file_name().is_some_and(|d| d == ".cargo")
                    && (name == "config.toml" || name == "config");
                if name == "Cargo.toml" || cargo_config {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found
}

/// Refuses a snapshot at `root` whose manifests or cargo config name a dependency outside it
/// or a git repository on this host; the error names the file and the dependency.
pub fn check_snapshot(root: &Path) -> Result<(), String> {
    for rel in manifests(root) {
        let text = tree::read_in_tree(root, &root.join(&rel))
            .map_err(|e| format!("read {}: {e}", rel.display()))?;
        // A manifest cargo cannot parse fails the job later with frugal's own wording.
        let Ok(doc) = text.parse::<toml::Table>() else {
            continue;
        };
        let dir = rel.parent().unwrap_or(Path::new(""));
        // `.cargo/config.toml` paths are relative to the directory holding `.cargo`.
        let base = if dir.file_name().is_some_and(|d| d == ".cargo") {
            dir.parent().unwrap_or(Path::new(""))
        } else {
            dir
        };
        check_document(root, base, &doc).map_err(|why| format!("{}: {why}", rel.display()))?;
    }
    Ok(())
}

fn check_document(root: &Path, base: &Path, doc: &toml::Table) -> Result<(), String> {
    let mut tables: Vec<(&str, &toml::Table)> = Vec::new();
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(t) = doc.get(key).and_then(toml::Value::as_table) {
            tables.push((key, t));
        }
        let targets = doc.get("target").and_then(toml::Value::as_table);
        for cfg in targets.into_iter().flat_map(|t| t.values()) {
            if let Some(t) = cfg.get(key).and_then(toml::Value::as_table) {
                tables.push((key, t));
            }
        }
    }
    let workspace = doc.get("workspace").and_then(toml::Value::as_table);
    if let Some(t) = workspace.and_then(|w| w.get("dependencies")?.as_table()) {
        tables.push(("workspace.dependencies", t));
    }
    let patches = doc.get("patch").and_then(toml::Value::as_table);
    for t in patches.into_iter().flat_map(|p| p.values()) {
        if let Some(t) = t.as_table() {
            tables.push(("patch", t));
        }
    }
    if let Some(t) = doc.get("replace").and_then(toml::Value::as_table) {
        tables.push(("replace", t));
    }
    for (section, deps) in tables {
        for (name, spec) in deps {
            let Some(spec) = spec.as_table() else {
                continue;
            };
            if let Some(path) = spec.get("path").and_then(toml::Value::as_str) {
                inside(root, base, path)
                    .map_err(|why| format!("[{section}] `{name}`: path `{path}` {why}"))?;
            }
            if let Some(url) = spec.get("git").and_then(toml::Value::as_str) {
                local_git(url).map_err(|why| format!("[{section}] `{name}`: git `{url}` {why}"))?;
            }
        }
    }
    // Cargo config: `paths` overrides and directory sources.
    let paths = doc.get("paths").and_then(toml::Value::as_array);
    for p in paths.into_iter().flatten().filter_map(toml::Value::as_str) {
        inside(root, base, p).map_err(|why| format!("`paths` entry `{p}` {why}"))?;
    }
    let sources = doc.get("source").and_then(toml::Value::as_table);
    for (name, source) in sources.into_iter().flatten() {
        for key in ["directory", "local-registry"] {
            if let Some(p) = source.get(key).and_then(toml::Value::as_str) {
                inside(root, base, p)
                    .map_err(|why| format!("[source.{name}] {key} `{p}` {why}"))?;
            }
        }
    }
    Ok(())
}

/// Whether `path` (relative to `root/base`, or absolute) stays inside the snapshot.
fn inside(root: &Path, base: &Path, path: &str) -> Result<(), &'static str> {
    let p = Path::new(path);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(base).join(p)
    };
    if tree::stays_inside(root, &joined) {
        Ok(())
    } else {
        Err("is outside the repository: frugald builds only what the commit holds")
    }
}

/// Refuses a git dependency on this host's files: `file://` URLs (and cargo's other spellings
/// of a local repository), which `cargo fetch` would clone unconfined.
fn local_git(url: &str) -> Result<(), &'static str> {
    let lower = url.trim().to_ascii_lowercase();
    let local = lower.starts_with("file:")
        || lower.starts_with('/')
        || lower.starts_with('.')
        || !lower.contains("://");
    if local {
        Err("is a repository on this host: frugald fetches git dependencies only over the network")
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn dependencies_inside_the_snapshot_and_on_the_network_pass() {
        let s = snapshot(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"a\", \"b\"]\n[workspace.dependencies]\nb = { path = \"b\" }\n",
            ),
            (
                "a/Cargo.toml",
                "[package]\nname = \"a\"\n[dependencies]\nb = { path = \"../b\" }\n\
                 serde = \"1\"\nx = { git = \"https://example.invalid/x\" }\n",
            ),
            ("b/Cargo.toml", "[package]\nname = \"b\"\n"),
            (".cargo/config.toml", "paths = [\"b\"]\n"),
        ]);
        assert_eq!(check_snapshot(s.path()), Ok(()));
    }

    #[test]
    fn paths_outside_and_local_git_repositories_are_refused() {
        for (file, text, names) in [
            (
                "Cargo.toml",
                "[dependencies]\no = { path = \"../other\" }\n",
                "`o`",
            ),
            (
                "Cargo.toml",
                "[dev-dependencies]\no = { path = \"/etc\" }\n",
                "`o`",
            ),
            (
                "Cargo.toml",
                "[target.'cfg(unix)'.build-dependencies]\no = { path = \"x/../../..\" }\n",
                "`o`",
            ),
            (
                "Cargo.toml",
                "[dependencies]\no = { git = \"file:///srv/other\" }\n",
                "`o`",
            ),
            (
                "Cargo.toml",
                "[patch.crates-io]\nserde = { path = \"../serde\" }\n",
                "`serde`",
            ),
            (
                "Cargo.toml",
                "[dependencies]\no = { git = \"/srv/other\" }\n",
                "`o`",
            ),
            (".cargo/config.toml", "paths = [\"../other\"]\n", "paths"),
            (
                ".cargo/config.toml",
                "[source.vendored]\ndirectory = \"/srv/vendor\"\n",
                "source.vendored",
            ),
        ] {
            let s = snapshot(&[(file, text)]);
            let e = check_snapshot(s.path()).unwrap_err();
            assert!(e.starts_with(file), "{e}");
            assert!(e.contains(names), "{e}");
        }
    }
}
