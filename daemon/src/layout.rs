//! The state dir's layout (`daemon.state_dir`): the one place that names its files and
//! directories. Everything else asks here.
//!
//! ```text
//! <state_dir>/
//!   store/                               the sled store (frugal-storage)
//!   frugald.addr                         the address file (frugal_api::addr)
//!   runs/<run>/                          a run's outputs (suite, summary.json, profile.json)
//!   work/repo-<id>/<crate>/              one crate's work dir, emptied before each job
//!     src/                               the commit's snapshot
//!     pipeline/                          instrumented copy, harness, build caches
//!     check/                             the regression check's builds
//!     profile-target/, profile-job/      the emitted suite's profile
//!     own-mutants/, own-mutants-target/  cargo-mutants on the own suite (`mutation.survivors`)
//!   work/replace/repo-<id>-<crate>-<suite>-XXXX/   one replacement computation, removed after
//!   replacements/<crate>-<suite>-<metric>-<cover>/ a replacement's outputs
//!   mirrors/<hash of the URL>.git/       bare mirrors of repositories registered by URL
//! ```
//!
//! Crate names are directory names here, so registration takes only package names
//! ([`check_crate_name`]) and [`safe_name`] escapes anything stored before it checked. GC
//! (`gc.rs`) reads the same names back ([`repo_of_dir`], [`suite_of_replacement_dir`]).

use std::path::{Path, PathBuf};

use frugal_storage::{RepoId, RunId, SuiteId};

/// The sled store.
pub fn store_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("store")
}

/// This node's bare mirrors of repositories registered by URL (`frugal_scheduler::Mirrors`).
pub fn mirrors_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("mirrors")
}

/// The parent of every run's output dir.
pub fn runs_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("runs")
}

/// One run's output dir.
pub fn run_dir(state_dir: &Path, run: RunId) -> PathBuf {
    runs_dir(state_dir).join(run.to_string())
}

/// The parent of every repository's work dir (and of `replace/`).
pub fn work_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("work")
}

/// `work/repo-<id>`: every crate work dir of one repository.
pub fn repo_work_dir(state_dir: &Path, repo: RepoId) -> PathBuf {
    work_dir(state_dir).join(format!("repo-{repo}"))
}

/// `repo-<id>` -> the id.
pub fn repo_of_dir(path: &Path) -> Option<RepoId> {
    path.file_name()?
        .to_str()?
        .strip_prefix("repo-")?
        .parse()
        .ok()
}

/// `work/repo-<id>/<crate>`: snapshot, builds, check and profile of one crate.
pub fn crate_work_dir(state_dir: &Path, repo: RepoId, krate: &str) -> PathBuf {
    repo_work_dir(state_dir, repo).join(safe_name(krate))
}

/// The directories of one crate's job, inside its work dir.
#[derive(Clone, Debug)]
pub struct CrateDirs {
    /// The crate's work dir itself.
    pub base: PathBuf,
    /// The commit's snapshot.
    pub snapshot: PathBuf,
    /// The pipeline's work dir (instrumented copy, harness, build caches).
    pub pipeline: PathBuf,
    /// The regression check's work dir.
    pub check: PathBuf,
    /// The profile's target dir.
    pub profile_target: PathBuf,
    /// The profile's sandbox scratch.
    pub profile_job: PathBuf,
    /// The CI cost measurement's copies, target dirs and scratch (`jobs.ci_cost`).
    pub ci_cost: PathBuf,
    /// cargo-mutants' scratch dir (`mutation.survivors`).
    pub own_mutants: PathBuf,
    /// cargo-mutants' target dir.
    pub own_mutants_target: PathBuf,
}

impl CrateDirs {
    /// The dirs of `krate` of `repo`, all under [`crate_work_dir`]; nothing is created.
    pub fn new(state_dir: &Path, repo: RepoId, krate: &str) -> CrateDirs {
        let base = crate_work_dir(state_dir, repo, krate);
        CrateDirs {
            snapshot: base.join("src"),
            pipeline: base.join("pipeline"),
            check: base.join("check"),
            profile_target: base.join("profile-target"),
            profile_job: base.join("profile-job"),
            ci_cost: base.join("ci-cost"),
            own_mutants: base.join("own-mutants"),
            own_mutants_target: base.join("own-mutants-target"),
            base,
        }
    }
}

/// `work/replace`: one fresh directory per replacement computation goes here.
pub fn replace_work_dir(state_dir: &Path) -> PathBuf {
    work_dir(state_dir).join("replace")
}

/// The name prefix of one replacement computation's directory in [`replace_work_dir`].
pub fn replace_work_prefix(repo: RepoId, krate: &str, suite: SuiteId) -> String {
    format!("repo-{repo}-{}-{suite}-", safe_name(krate))
}

/// The parent of every replacement's outputs.
pub fn replacements_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("replacements")
}

/// One replacement's outputs: `<crate>-<suite>-<metric>-<cover>`.
pub fn replacement_dir(
    state_dir: &Path,
    krate: &str,
    suite: SuiteId,
    metric: &str,
    cover: &str,
) -> PathBuf {
    replacements_dir(state_dir).join(format!("{}-{suite}-{metric}-{cover}", safe_name(krate)))
}

/// `<crate>-<suite>-<metric>-<cover>` (replacement outputs) -> the suite id.
pub fn suite_of_replacement_dir(path: &Path) -> Option<SuiteId> {
    let name = path.file_name()?.to_str()?;
    name.rsplit('-').nth(2)?.parse().ok()
}

/// Longest crate name frugald registers (cargo's own limit for a package name).
pub const MAX_CRATE_NAME: usize = 64;

/// Why a crate name is refused at registration: a package name is 1 to 64 ASCII letters,
/// digits, `-` and `_`, as cargo has it. Anything else could only collide: names are directory
/// names under the state dir.
pub fn check_crate_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_CRATE_NAME {
        return Err(format!(
            "crate name `{name}` must have 1 to {MAX_CRATE_NAME} characters"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(format!(
            "crate name `{}` holds {c:?}: a package name has only ASCII letters, digits, `-` \
             and `_`",
            name.escape_debug()
        ));
    }
    Ok(())
}

/// `s` as a directory name: ASCII letters, digits, `-` and `_` kept, every other byte as
/// `%XX`. One-to-one, so two names never share a directory (registration allows only the kept
/// characters; the escape covers names stored before it checked).
pub fn safe_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.is_empty() {
        // The empty name must not be the repository's own dir.
        out.push('%');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_names_are_package_names_and_their_dirs_never_collide() {
        for ok in ["numeric", "a_b", "a-b", "A1", &"x".repeat(64)] {
            assert_eq!(check_crate_name(ok), Ok(()), "{ok}");
            assert_eq!(safe_name(ok), ok, "a valid name keeps its dir");
        }
        for bad in ["", "a.b", "a/b", "..", "a b", "é", &"x".repeat(65)] {
            assert!(check_crate_name(bad).is_err(), "{bad}");
        }
        let names = ["a.b", "a_b", "a%2Eb", "", "%", ".", "_"];
        let dirs: std::collections::HashSet<String> = names.iter().map(|n| safe_name(n)).collect();
        assert_eq!(dirs.len(), names.len(), "{dirs:?}");
        assert!(
            dirs.iter()
                .all(|d| !d.is_empty() && !d.contains('/') && d != "..")
        );
    }

    #[test]
    fn gc_reads_back_the_names_the_layout_writes() {
        let state = Path::new("/s");
        let out = replacement_dir(state, "my-crate", SuiteId(42), "cpu", "own");
        assert_eq!(out, Path::new("/s/replacements/my-crate-42-cpu-own"));
        assert_eq!(suite_of_replacement_dir(&out), Some(SuiteId(42)));
        assert_eq!(
            repo_of_dir(&repo_work_dir(state, RepoId(7))),
            Some(RepoId(7))
        );
        assert_eq!(
            crate_work_dir(state, RepoId(7), "a.b"),
            Path::new("/s/work/repo-7/a%2Eb")
        );
    }
}
