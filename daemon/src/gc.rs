//! Garbage collection: keeps a long-running daemon's state bounded. One pass prunes the store
//! by the `[retention]` settings (suites per crate, finished runs and jobs), deletes the
//! directories nothing refers to any more (output dirs of deleted runs, work dirs of removed
//! repositories, replacement outputs of deleted suites), then holds the per-crate work dirs to
//! the disk budget, least recently used first. It runs on the runner's schedule
//! (`retention.gc_interval`), on `POST /v1/gc` and through `frugal gc`; `DELETE /v1/repos/{id}`
//! uses [`remove_repo`]. What a directory takes and the eviction rule are
//! `frugal_storage::disk`'s, shared with `frugal gc`'s pass over the CLI's cache; a directory a
//! running job works in is never evicted.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context;
use frugal_config::RetentionConfig;
use frugal_scheduler::Scheduler;
use frugal_storage::disk::{self, DirUse, Freed, dir_use, evict};
use frugal_storage::{JobState, Pruned, RepoId, RunId, Store, SuiteId};

use crate::layout::{self, repo_of_dir, suite_of_replacement_dir};
use frugal_api::v1::{FreedDir, GcReport};

/// The collector of one daemon: its settings, and a lock so passes never overlap.
pub struct Gc {
    /// `[retention]`: what is kept, for how long, and how often a pass runs.
    pub retention: RetentionConfig,
    /// `daemon.state_dir`: the work and run dirs a pass frees are under it.
    pub state_dir: PathBuf,
    lock: Mutex<()>,
}

/// Deletes a directory (unless `dry_run`) and says so, as the API reports it.
fn free(path: &Path, reason: &str, dry_run: bool) -> Option<FreedDir> {
    disk::free(path, reason, dry_run).map(freed_dir)
}

/// A deleted directory as the API reports it.
pub fn freed_dir(f: Freed) -> FreedDir {
    FreedDir {
        path: f.path.display().to_string(),
        bytes: f.bytes,
        reason: f.reason,
    }
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
    /// A collector of `state_dir` with these settings; no pass runs until [`Gc::collect`].
    pub fn new(retention: RetentionConfig, state_dir: PathBuf) -> Gc {
        Gc {
            retention,
            state_dir,
            lock: Mutex::new(()),
        }
    }

    fn work_dir(&self) -> PathBuf {
        layout::work_dir(&self.state_dir)
    }

    fn runs_dir(&self) -> PathBuf {
        layout::runs_dir(&self.state_dir)
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
        for dir in subdirs(&layout::replacements_dir(&self.state_dir)) {
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
            .map(|j| layout::crate_work_dir(&self.state_dir, j.repo, &j.krate))
            .collect();
        let dirs: Vec<DirUse> = subdirs(&self.work_dir())
            .iter()
            .flat_map(|r| subdirs(r))
            .map(|d| dir_use(&d))
            .collect();
        let (freed, kept) = evict(dirs, self.retention.disk_budget, None, &busy, dry_run);
        Ok((freed.into_iter().map(freed_dir).collect(), kept))
    }
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
        &layout::repo_work_dir(&gc.state_dir, repo),
        why,
        false,
    ));
    let gone: HashSet<SuiteId> = pruned.suites.iter().copied().collect();
    for dir in subdirs(&layout::replacements_dir(&gc.state_dir)) {
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

/// The shared handle the runner and the server hold.
pub type SharedGc = Arc<Gc>;
