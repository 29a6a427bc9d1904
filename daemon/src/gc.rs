//! Garbage collection: keeps a long-running daemon's state bounded. One pass prunes the store
//! by the `[retention]` settings (suites per crate, finished runs and jobs), deletes the
//! directories nothing refers to any more (output dirs of deleted runs, work dirs of removed
//! repositories, replacement outputs of deleted suites), then holds the per-crate work dirs to
//! the disk budget, least recently used first. It runs on the runner's schedule
//! (`retention.gc_interval`), on `POST /v1/gc` and through `frugal gc`; `DELETE /v1/repos/{id}`
//! uses [`remove_repo`]. The CLI's own cache dirs go through [`evict`] too.
//!
//! Decision: "recently used" is the newest modification time inside a directory (a job writes
//! its snapshot, build and target dirs all the time, `tar -m` stamps the snapshot at
//! extraction), so no marker file has to be kept in step, and the same rule serves the CLI's
//! cache, whose users never tell frugal when they are done. A directory a running job works in
//! is never evicted, nor one written in the last [`MIN_IDLE`] (a replacement computation or a
//! `frugal run` the daemon does not track).

use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use axum::Json;
use axum::extract::{Query, State};
use frugal_config::RetentionConfig;
use frugal_scheduler::Scheduler;
use frugal_storage::{JobState, Pruned, RepoId, RunId, Store, SuiteId};
use serde::Deserialize;

use crate::server::{ApiError, ApiResult, Shared};
use crate::v1::{FreedDir, GcReport};

/// A directory written within this is never evicted by the disk budget.
pub const MIN_IDLE: Duration = Duration::from_secs(600);

/// The collector of one daemon: its settings, and a lock so passes never overlap.
pub struct Gc {
    pub retention: RetentionConfig,
    pub state_dir: PathBuf,
    lock: Mutex<()>,
}

/// A directory with its size on disk and when it was last written.
#[derive(Clone, Debug)]
pub struct DirUse {
    pub path: PathBuf,
    pub bytes: u64,
    pub last_used: SystemTime,
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

/// Deletes a directory (unless `dry_run`) and says so; a directory already gone frees nothing.
fn free(path: &Path, reason: &str, dry_run: bool) -> Option<FreedDir> {
    if !path.exists() {
        return None;
    }
    let bytes = dir_use(path).bytes;
    if !dry_run && let Err(e) = std::fs::remove_dir_all(path) {
        tracing::warn!(path = %path.display(), error = %e, "could not delete a directory");
        return None;
    }
    Some(FreedDir {
        path: path.display().to_string(),
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
) -> (Vec<FreedDir>, u64) {
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

/// The subdirectories of `dir` (none when it does not exist).
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// `repo-<id>` -> the id.
fn repo_of_dir(path: &Path) -> Option<RepoId> {
    path.file_name()?
        .to_str()?
        .strip_prefix("repo-")?
        .parse()
        .ok()
}

/// `<crate>-<suite>-<metric>-<cover>` (replacement outputs) -> the suite id.
fn suite_of_replacement_dir(path: &Path) -> Option<SuiteId> {
    let name = path.file_name()?.to_str()?;
    name.rsplit('-').nth(2)?.parse().ok()
}

fn count(records: &mut BTreeMap<String, u64>, p: &Pruned) {
    let mut add = |k: &str, n: usize| *records.entry(k.to_string()).or_default() += n as u64;
    add("suites", p.suites.len());
    add("tests", p.tests);
    add("replacements", p.replacements);
    add("runs", p.runs.len());
    add("jobs", p.jobs.len());
    add("reports", p.reports);
    add("other", p.other);
}

impl Gc {
    pub fn new(retention: RetentionConfig, state_dir: PathBuf) -> Gc {
        Gc {
            retention,
            state_dir,
            lock: Mutex::new(()),
        }
    }

    fn work_dir(&self) -> PathBuf {
        self.state_dir.join("work")
    }

    fn runs_dir(&self) -> PathBuf {
        self.state_dir.join("runs")
    }

    /// One pass; `beat` is called between steps (the runner's heartbeat).
    pub fn collect(
        &self,
        sched: &Scheduler,
        dry_run: bool,
        beat: &dyn Fn(),
    ) -> anyhow::Result<GcReport> {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let t = Instant::now();
        let store = sched.store();
        let r = &self.retention;
        let mut pruned = store.prune_reports(r.reports, dry_run)?;
        pruned.absorb(store.prune_suites(r.suites_per_crate, dry_run)?);
        pruned.absorb(store.prune_runs(r.runs, dry_run)?);
        let jobs = if dry_run {
            store.prune_jobs(r.jobs, true)?.jobs.len()
        } else {
            sched.prune_finished(r.jobs)?
        };
        let mut records = BTreeMap::new();
        count(&mut records, &pruned);
        *records.entry("jobs".to_string()).or_default() = jobs as u64;
        beat();
        let mut dirs = self.orphan_dirs(store, &pruned, dry_run)?;
        beat();
        let (evicted, kept) = self.hold_budget(store, dry_run)?;
        dirs.extend(evicted);
        beat();
        Ok(GcReport {
            dry_run,
            records,
            bytes_freed: dirs.iter().map(|d| d.bytes).sum(),
            dirs,
            bytes_kept: kept,
            budget: r.disk_budget,
            took_ms: t.elapsed().as_millis() as u64,
        })
    }

    /// Directories nothing refers to: output dirs of runs without a record (or pruned in this
    /// pass), work dirs of repositories no longer registered, replacement outputs of suites
    /// that are gone (or pruned in this pass).
    fn orphan_dirs(
        &self,
        store: &Store,
        pruned: &Pruned,
        dry_run: bool,
    ) -> anyhow::Result<Vec<FreedDir>> {
        let mut freed = Vec::new();
        let doomed_runs: HashSet<RunId> = pruned.runs.iter().copied().collect();
        for dir in subdirs(&self.runs_dir()) {
            let id = dir
                .file_name()
                .and_then(|n| n.to_str()?.parse::<u64>().ok());
            let Some(id) = id.map(RunId) else { continue };
            if doomed_runs.contains(&id) || store.run(id)?.is_none() {
                freed.extend(free(&dir, "run deleted by retention", dry_run));
            }
        }
        for dir in subdirs(&self.work_dir()) {
            let Some(repo) = repo_of_dir(&dir) else {
                continue;
            };
            if store.repo(repo)?.is_none() {
                freed.extend(free(&dir, "repository no longer registered", dry_run));
            }
        }
        let doomed_suites: HashSet<SuiteId> = pruned.suites.iter().copied().collect();
        for dir in subdirs(&self.state_dir.join("replacements")) {
            let Some(suite) = suite_of_replacement_dir(&dir) else {
                continue;
            };
            if doomed_suites.contains(&suite) || store.suite(suite)?.is_none() {
                freed.extend(free(&dir, "its suite was deleted", dry_run));
            }
        }
        Ok(freed)
    }

    /// The per-crate work dirs (`work/repo-<id>/<crate>`) held to `retention.disk_budget`,
    /// never one of a running job.
    fn hold_budget(&self, store: &Store, dry_run: bool) -> anyhow::Result<(Vec<FreedDir>, u64)> {
        let busy: HashSet<PathBuf> = store
            .active_jobs()?
            .iter()
            .filter(|j| j.state == JobState::Running)
            .map(|j| crate_work_dir(&self.state_dir, j.repo, &j.krate))
            .collect();
        let dirs: Vec<DirUse> = subdirs(&self.work_dir())
            .iter()
            .flat_map(|r| subdirs(r))
            .map(|d| dir_use(&d))
            .collect();
        Ok(evict(
            dirs,
            self.retention.disk_budget,
            None,
            &busy,
            dry_run,
        ))
    }
}

/// `work/repo-<id>/<crate>` under the state dir: snapshot, pipeline, target and replacement
/// scratch of one crate (see `job.rs`).
pub fn crate_work_dir(state_dir: &Path, repo: RepoId, krate: &str) -> PathBuf {
    state_dir
        .join("work")
        .join(format!("repo-{repo}"))
        .join(crate::job::safe_name(krate))
}

/// Deletes everything of a repository: its store records ([`Store::remove_repo_data`]), its
/// work dir, its runs' output dirs and its replacement outputs. Cancel its jobs first.
pub fn remove_repo(gc: &Gc, store: &Store, repo: RepoId) -> anyhow::Result<GcReport> {
    let _g = gc.lock.lock().unwrap_or_else(|e| e.into_inner());
    let t = Instant::now();
    let pruned = store
        .remove_repo_data(repo, false)
        .with_context(|| format!("delete the records of repository {repo}"))?;
    let mut records = BTreeMap::new();
    count(&mut records, &pruned);
    let why = "repository removed";
    let mut dirs: Vec<FreedDir> = pruned
        .runs
        .iter()
        .filter_map(|r| free(&gc.runs_dir().join(r.to_string()), why, false))
        .collect();
    dirs.extend(free(
        &gc.work_dir().join(format!("repo-{repo}")),
        why,
        false,
    ));
    let gone: HashSet<SuiteId> = pruned.suites.iter().copied().collect();
    for dir in subdirs(&gc.state_dir.join("replacements")) {
        if suite_of_replacement_dir(&dir).is_some_and(|s| gone.contains(&s)) {
            dirs.extend(free(&dir, why, false));
        }
    }
    Ok(GcReport {
        dry_run: false,
        records,
        bytes_freed: dirs.iter().map(|d| d.bytes).sum(),
        dirs,
        bytes_kept: 0,
        budget: None,
        took_ms: t.elapsed().as_millis() as u64,
    })
}

#[derive(Debug, Deserialize)]
pub(crate) struct GcQuery {
    #[serde(default)]
    dry_run: bool,
}

/// `POST /v1/gc[?dry_run=true]`: one pass now (admin: needs the token like every POST).
pub(crate) async fn post_gc(
    State(s): State<Shared>,
    q: Result<Query<GcQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<GcReport>> {
    let q = crate::server::query(q)?;
    let (gc, sched, metrics) = (s.gc.clone(), s.sched.clone(), s.metrics.clone());
    let report = tokio::task::spawn_blocking(move || gc.collect(&sched, q.dry_run, &|| {}))
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| ApiError::internal(format!("{e:#}")))?;
    if !report.dry_run {
        metrics.gc_pass(&report);
    }
    Ok(Json(report))
}

/// The shared handle the runner and the server hold.
pub type SharedGc = Arc<Gc>;

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
        let gone: Vec<&str> = freed.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            gone,
            [
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                c.to_str().unwrap()
            ]
        );
        assert!(busy.exists() && fresh.exists() && !a.exists());
    }

    #[test]
    fn replacement_dirs_name_their_suite() {
        let p = Path::new("/s/replacements/my-crate-42-cpu-own");
        assert_eq!(suite_of_replacement_dir(p), Some(SuiteId(42)));
        assert_eq!(repo_of_dir(Path::new("/s/work/repo-7")), Some(RepoId(7)));
    }
}
