//! Dependencies a commit may not name: a `path` outside the repository's snapshot, a git
//! repository on this host (`file://`), a git repository on a host `jobs.git_hosts` does not
//! list, or a registry other than crates.io (`registry`, `registry-index`). cargo fetches and
//! reads them unconfined (`cargo fetch` runs before any sandbox, with the daemon's network),
//! and the build then compiles them in: a tenant could build another user's repository, or any
//! file the daemon can read, into its own crate and read it back from the suite frugald stores,
//! or make the daemon's host contact any other host (an internal http service) with cargo's
//! requests. Checked on every manifest of the snapshot and on cargo's config files in it
//! (`[patch]`, `paths`, local `[source]`s), before any cargo command runs on it.
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

/// Refuses a snapshot at `root` whose manifests or cargo config name a dependency outside it,
/// a git repository on this host or on a host not in `git_hosts` (`jobs.git_hosts`: lower
/// case, no port), or another registry than crates.io; the error names the file and the
/// dependency.
pub fn check_snapshot(root: &Path, git_hosts: &[String]) -> Result<(), String> {
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
        check_document(root, base, git_hosts, &doc)
            .map_err(|why| format!("{}: {why}", rel.display()))?;
    }
    Ok(())
}

/// Dependency tables of a manifest, as cargo reads them: the `_` spellings are still accepted
/// (with a warning) before edition 2024, and a table cargo reads must not escape the check.
const DEPENDENCY_TABLES: [&str; 5] = [
    "dependencies",
    "dev-dependencies",
    "build-dependencies",
    "dev_dependencies",
    "build_dependencies",
];

fn check_document(
    root: &Path,
    base: &Path,
    git_hosts: &[String],
    doc: &toml::Table,
) -> Result<(), String> {
    // `package.workspace` names the workspace root, whose manifest (and its dependencies) cargo
    // reads as well.
    let package = doc.get("package").and_then(toml::Value::as_table);
    if let Some(ws) = package.and_then(|p| p.get("workspace")?.as_str()) {
        inside(root, base, ws).map_err(|why| format!("`package.workspace` `{ws}` {why}"))?;
    }
    let mut tables: Vec<(&str, &toml::Table)> = Vec::new();
    for key in DEPENDENCY_TABLES {
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
    for (source, t) in patches.into_iter().flatten() {
        patched_source(source, git_hosts).map_err(|why| format!("[patch.{source}] {why}"))?;
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
                git_source(url, git_hosts)
                    .map_err(|why| format!("[{section}] `{name}`: git `{url}` {why}"))?;
            }
            for key in ["registry", "registry-index"] {
                if let Some(v) = spec.get(key) {
                    let v = v.as_str().unwrap_or("...");
                    return Err(format!(
                        "[{section}] `{name}`: `{key} = \"{v}\"` {ONLY_CRATES_IO}"
                    ));
                }
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

/// Why a dependency on another registry is refused: `registry-index` names any URL, and a
/// `registry` name any index the daemon's cargo config knows; either makes the unconfined
/// `cargo fetch` contact that host.
const ONLY_CRATES_IO: &str = "names another registry than crates.io: frugald fetches \
     registry dependencies only from crates.io (its fetch runs unconfined, with the daemon's \
     network, so another registry's URL would make this host contact any server)";

/// The URL schemes cargo fetches git dependencies over; any other (a `file:` URL, an `ext::`
/// transport) is refused.
const GIT_SCHEMES: [&str; 4] = ["https", "http", "ssh", "git"];

/// A git dependency's URL passes when it is a network URL whose host `git_hosts` lists:
/// `cargo fetch` clones it unconfined, with the daemon's files and network.
fn git_source(url: &str, git_hosts: &[String]) -> Result<(), String> {
    let host = git_host(url)?;
    if git_hosts.contains(&host) {
        return Ok(());
    }
    let listed = if git_hosts.is_empty() {
        "lists no host".to_string()
    } else {
        format!("lists only {}", git_hosts.join(", "))
    };
    Err(format!(
        "is on host `{host}`, and `jobs.git_hosts` {listed}: frugald fetches git dependencies \
         unconfined, with this host's network, only from the hosts the admin lists there \
         (add \"{host}\" to `jobs.git_hosts` to allow it)"
    ))
}

/// The host a git URL makes cargo contact, lower case, IPv6 without brackets: parsed as cargo
/// parses it (the `url` crate), and scp-like `user@host:path` by hand (cargo may reject that
/// form itself, but git reads it as ssh to the host before the colon, so that host is the one
/// checked). A repository on this host (`file://`, a path) is an error.
fn git_host(url: &str) -> Result<String, String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("file:") || lower.starts_with('/') || lower.starts_with('.') {
        return Err(
            "is a repository on this host: frugald fetches git dependencies only over \
                    the network"
                .into(),
        );
    }
    let bare = |host: &str| {
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase()
    };
    if !url.contains("://") {
        // `git@github.com:owner/repo.git`, `github.com:owner/repo`: the host ends at the first
        // colon, and a path has a slash before any colon.
        return match url.split_once(':') {
            // `ext::sh -c ...`: a remote helper, which git runs as a command.
            Some((before, rest)) if rest.starts_with(':') => Err(format!(
                "uses `{before}::`, a git remote helper: frugald fetches git dependencies over \
                 {} only",
                GIT_SCHEMES.join(", ")
            )),
            Some((before, _)) if !before.is_empty() && !before.contains('/') => {
                let host = before.rsplit('@').next().unwrap_or(before);
                Ok(bare(host))
            }
            _ => Err("is not a URL of a git repository on the network".into()),
        };
    }
    let parsed = url::Url::parse(url).map_err(|e| format!("is not a URL: {e}"))?;
    let scheme = parsed.scheme().to_ascii_lowercase();
    if !GIT_SCHEMES.contains(&scheme.as_str()) {
        return Err(format!(
            "uses `{scheme}:`: frugald fetches git dependencies over {} only",
            GIT_SCHEMES.join(", ")
        ));
    }
    match parsed.host_str() {
        Some(host) if !host.is_empty() => Ok(bare(host)),
        _ => Err("names no host".into()),
    }
}

/// A `[patch.<source>]` table patches crates.io, a git repository (its URL) or a registry (its
/// name or URL). Patching a git source is allowed where its host is; another registry is
/// refused, as a dependency on one is.
fn patched_source(source: &str, git_hosts: &[String]) -> Result<(), String> {
    // crates.io by name, or by either of its index URLs.
    let crates_io = [
        "crates-io",
        "https://github.com/rust-lang/crates.io-index",
        "sparse+https://index.crates.io/",
    ];
    if crates_io.contains(&source) {
        return Ok(());
    }
    let lower = source.to_ascii_lowercase();
    let registry = lower.starts_with("sparse+") || lower.starts_with("registry+");
    if registry || !(source.contains("://") || source.contains(':')) {
        return Err(ONLY_CRATES_IO.into());
    }
    git_source(source, git_hosts)
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
        assert_eq!(
            check_snapshot(s.path(), &hosts(&["example.invalid"])),
            Ok(())
        );
    }

    fn hosts(names: &[&str]) -> Vec<String> {
        names.iter().map(|h| h.to_string()).collect()
    }

    /// Refused shapes: `(file, text, what the error names besides the file)`.
    fn assert_refused(git_hosts: &[String], cases: &[(&str, &str, &[&str])]) {
        for (file, text, names) in cases {
            let s = snapshot(&[(file, text)]);
            let e = check_snapshot(s.path(), git_hosts).unwrap_err();
            assert!(e.starts_with(file), "{text}: {e}");
            for n in *names {
                assert!(e.contains(n), "{text}: `{n}` missing from: {e}");
            }
        }
    }

    #[test]
    fn git_dependencies_are_refused_where_no_host_is_listed() {
        const NAMED: &[&str] = &["`int`", "`10.0.0.5`", "jobs.git_hosts", "lists no host"];
        let dep = |table: &str| format!("{table}\nint = {{ git = \"http://10.0.0.5/x\" }}\n");
        let mut cases: Vec<(String, &[&str])> = [
            "[dependencies]",
            "[dev-dependencies]",
            "[build-dependencies]",
            "[dev_dependencies]",
            "[build_dependencies]",
            "[target.'cfg(unix)'.dependencies]",
            "[target.x86_64-unknown-linux-gnu.dev-dependencies]",
            "[workspace.dependencies]",
            "[patch.crates-io]",
        ]
        .iter()
        .map(|t| (dep(t), NAMED))
        .collect();
        cases.push((
            "[replace]\n\"foo:0.1.0\" = { git = \"http://localhost:8080/foo\" }\n".into(),
            &["`foo:0.1.0`", "`localhost`", "jobs.git_hosts"],
        ));
        let cases: Vec<(&str, &str, &[&str])> = cases
            .iter()
            .map(|(text, names)| ("Cargo.toml", text.as_str(), *names))
            .collect();
        assert_refused(&[], &cases);
    }

    #[test]
    fn a_git_dependency_passes_only_on_a_listed_host_compared_exactly() {
        let allowed = hosts(&["github.com", "::1"]);
        for url in [
            "https://github.com/o/r",
            "https://GitHub.COM/o/r.git",
            "ssh://git@GITHUB.com/o/r.git",
            "git://github.com/o/r",
            "http://github.com:8080/o/r",
            "git@github.com:o/r.git",
            "GitHub.com:o/r",
            "http://[::1]:9418/r",
        ] {
            let s = snapshot(&[(
                "Cargo.toml",
                &format!("[dependencies]\nr = {{ git = \"{url}\" }}\n"),
            )]);
            assert_eq!(check_snapshot(s.path(), &allowed), Ok(()), "{url}");
        }
        for (url, host) in [
            // Another host's name ends, or begins, like a listed one: not the same host.
            (
                "https://github.com.evil.example/o/r",
                "github.com.evil.example",
            ),
            ("https://evilgithub.com/o/r", "evilgithub.com"),
            // The user part is not the host.
            ("https://github.com@10.0.0.5/o/r", "10.0.0.5"),
            ("ssh://github.com@localhost/o/r", "localhost"),
            ("git@10.0.0.5:o/r.git", "10.0.0.5"),
            ("http://127.0.0.1:8080/x.git", "127.0.0.1"),
            ("http://[::2]/r", "::2"),
        ] {
            let s = snapshot(&[(
                "Cargo.toml",
                &format!("[dependencies]\nr = {{ git = \"{url}\" }}\n"),
            )]);
            let e = check_snapshot(s.path(), &allowed).unwrap_err();
            assert!(
                e.contains(&format!("on host `{host}`")) && e.contains("lists only github.com"),
                "{url}: {e}"
            );
        }
        // Neither a scheme cargo fetches git over nor a URL at all.
        assert_refused(
            &allowed,
            &[
                (
                    "Cargo.toml",
                    "[dependencies]\nr = { git = \"ext::sh -c touch% /tmp/x\" }\n",
                    &["`r`", "`ext::`"],
                ),
                (
                    "Cargo.toml",
                    "[dependencies]\nr = { git = \"ftp://github.com/r\" }\n",
                    &["`r`", "`ftp:`"],
                ),
                (
                    "Cargo.toml",
                    "[dependencies]\nr = { git = \"other-repo\" }\n",
                    &["`r`", "not a URL"],
                ),
            ],
        );
    }

    #[test]
    fn other_registries_are_refused_whatever_the_hosts() {
        let any = hosts(&["github.com", "10.0.0.5"]);
        assert_refused(
            &any,
            &[
                (
                    "Cargo.toml",
                    "[dependencies]\nz = { version = \"1\", registry = \"internal\" }\n",
                    &["`z`", "`registry = \"internal\"`", "crates.io"],
                ),
                (
                    "Cargo.toml",
                    "[dependencies.z]\nversion = \"1\"\n\
                     registry-index = \"sparse+http://10.0.0.5/index/\"\n",
                    &["`z`", "registry-index", "crates.io"],
                ),
                (
                    "Cargo.toml",
                    "[target.'cfg(unix)'.build-dependencies]\n\
                     z = { version = \"1\", registry-index = \"https://10.0.0.5/i\" }\n",
                    &["`z`", "registry-index"],
                ),
                (
                    "Cargo.toml",
                    "[workspace.dependencies]\nz = { version = \"1\", registry = \"x\" }\n",
                    &["`z`", "registry"],
                ),
                (
                    "Cargo.toml",
                    "[patch.internal]\nz = { path = \"z\" }\n",
                    &["[patch.internal]", "crates.io"],
                ),
                (
                    "Cargo.toml",
                    "[patch.\"sparse+http://10.0.0.5/i/\"]\nz = { path = \"z\" }\n",
                    &["[patch.sparse+http://10.0.0.5/i/]", "crates.io"],
                ),
            ],
        );
        // crates.io itself, by name or index URL, and a patch of an allowed git host pass.
        let s = snapshot(&[(
            "Cargo.toml",
            "[dependencies]\nserde = { version = \"1\", default-features = false }\n\
             [patch.crates-io]\nserde = { path = \"serde\" }\n\
             [patch.\"https://github.com/rust-lang/crates.io-index\"]\nlog = { path = \"log\" }\n\
             [patch.\"https://github.com/o/r\"]\nr = { path = \"r\" }\n",
        )]);
        assert_eq!(check_snapshot(s.path(), &any), Ok(()));
        let e = check_snapshot(s.path(), &hosts(&["10.0.0.5"])).unwrap_err();
        assert!(
            e.contains("[patch.https://github.com/o/r]") && e.contains("`github.com`"),
            "{e}"
        );
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
            (
                "Cargo.toml",
                "[package]\nname = \"a\"\nworkspace = \"../..\"\n",
                "package.workspace",
            ),
            (".cargo/config.toml", "paths = [\"../other\"]\n", "paths"),
            (
                ".cargo/config.toml",
                "[source.vendored]\ndirectory = \"/srv/vendor\"\n",
                "source.vendored",
            ),
        ] {
            let s = snapshot(&[(file, text)]);
            let e = check_snapshot(s.path(), &hosts(&["srv"])).unwrap_err();
            assert!(e.starts_with(file), "{e}");
            assert!(e.contains(names), "{e}");
        }
    }
}
