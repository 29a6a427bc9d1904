//! Retention: what the store forgets so a host that runs for months stays bounded. Old suites
//! beyond a number per crate (never the best one, never one a kept regression report names),
//! regression reports, finished runs and jobs beyond a number each, and everything of a removed
//! repository.
//!
//! Every pruning method takes `dry_run`: it then only says what it would delete, so `frugal gc
//! --dry-run` and the real pass share one selection. Selection decodes whole trees; it runs on
//! the GC schedule, not on a request path.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::records::{JobId, RepoId, RunId, RunStatus, SuiteId, SuiteRecord};
use crate::{Result, Store, be_u64, best_key, key};

/// What a pruning pass deleted (or, dry, would delete).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pruned {
    /// Suites deleted.
    pub suites: Vec<SuiteId>,
    /// Tests of those suites.
    pub tests: usize,
    /// Replacement records computed from those suites.
    pub replacements: usize,
    /// Runs deleted: their output dirs (`runs/<id>`) can go too.
    pub runs: Vec<RunId>,
    /// Jobs deleted.
    pub jobs: Vec<JobId>,
    /// Regression reports deleted.
    pub reports: usize,
    /// Repository records, best pointers, goal ids and other keyed entries.
    pub other: usize,
}

impl Pruned {
    /// Records deleted, all kinds together.
    pub fn records(&self) -> usize {
        self.suites.len()
            + self.tests
            + self.replacements
            + self.runs.len()
            + self.jobs.len()
            + self.reports
            + self.other
    }

    /// Adds another pass's figures to these.
    pub fn absorb(&mut self, other: Pruned) {
        self.suites.extend(other.suites);
        self.tests += other.tests;
        self.replacements += other.replacements;
        self.runs.extend(other.runs);
        self.jobs.extend(other.jobs);
        self.reports += other.reports;
        self.other += other.other;
    }
}

/// The newest `keep` by `order` (descending) are kept; the rest is returned, oldest last.
fn beyond_newest<T, K: Ord>(mut v: Vec<T>, keep: usize, order: impl Fn(&T) -> K) -> Vec<T> {
    v.sort_by_key(|t| std::cmp::Reverse(order(t)));
    v.into_iter().skip(keep).collect()
}

impl Store {
    /// Suites that retention may delete: per repository and crate, those beyond the newest
    /// `keep`, except the best one and any suite a regression report names (as the baseline it
    /// ran or the suite its job stored), since `frugal check` and held suites read them.
    fn prunable_suites(&self, keep: usize) -> Result<Vec<SuiteRecord>> {
        let mut pinned: HashSet<SuiteId> = HashSet::new();
        for r in self.all::<crate::ReportRecord>(&self.reports, "reports")? {
            pinned.extend(r.baseline);
            pinned.extend(r.suite);
        }
        for kv in self.best.iter() {
            let (k, v) = kv?;
            pinned.insert(SuiteId(be_u64("best", &k, &v)?));
        }
        let mut by_crate: BTreeMap<(RepoId, String), Vec<SuiteRecord>> = BTreeMap::new();
        for s in self.all::<SuiteRecord>(&self.suites, "suites")? {
            by_crate
                .entry((s.repo, s.krate.clone()))
                .or_default()
                .push(s);
        }
        Ok(by_crate
            .into_values()
            .flat_map(|v| beyond_newest(v, keep, |s| (s.created, s.id)))
            .filter(|s| !pinned.contains(&s.id))
            .collect())
    }

    /// Deletes suites beyond the newest `keep` per repository and crate (see
    /// [`Store::prunable_suites`] for what always stays), with their tests and replacements.
    pub fn prune_suites(&self, keep: usize, dry_run: bool) -> Result<Pruned> {
        let doomed = self.prunable_suites(keep)?;
        self.delete_suites(&doomed, dry_run)
    }

    fn delete_suites(&self, doomed: &[SuiteRecord], dry_run: bool) -> Result<Pruned> {
        let mut p = Pruned::default();
        let ids: HashSet<SuiteId> = doomed.iter().map(|s| s.id).collect();
        for s in doomed {
            p.suites.push(s.id);
            p.tests += s.tests.len();
            let mut prefix = best_key(s.repo, &s.krate);
            prefix.push(0);
            prefix.extend_from_slice(&key(s.id.0));
            for k in self.replacements.scan_prefix(&prefix).keys() {
                let k = k?;
                p.replacements += 1;
                if !dry_run {
                    self.replacements.remove(k)?;
                }
            }
            if !dry_run {
                for t in &s.tests {
                    self.tests.remove(key(t.0))?;
                }
                self.suites.remove(key(s.id.0))?;
            }
        }
        if !dry_run {
            // Job -> suite entries naming a deleted suite would make a re-run report a ghost.
            for kv in self.job_suites.iter() {
                let (k, v) = kv?;
                if ids.contains(&SuiteId(be_u64("job_suites", &k, &v)?)) {
                    self.job_suites.remove(k)?;
                }
            }
            self.flush()?;
        }
        Ok(p)
    }

    /// Deletes finished runs (succeeded, failed, cancelled) beyond the newest `keep`, over all
    /// repositories. Running runs always stay.
    pub fn prune_runs(&self, keep: usize, dry_run: bool) -> Result<Pruned> {
        let mut finished: Vec<crate::RunRecord> = self.all(&self.runs, "runs")?;
        finished.retain(|r| r.status != RunStatus::Running);
        let doomed = beyond_newest(finished, keep, |r| (r.finished, r.id));
        let mut p = Pruned::default();
        for r in doomed {
            if !dry_run {
                self.runs.remove(key(r.id.0))?;
            }
            p.runs.push(r.id);
        }
        if !dry_run {
            self.flush()?;
        }
        Ok(p)
    }

    /// Deletes regression reports beyond the newest `keep` (by creation), over all repositories,
    /// except a report whose held suite still awaits `frugal accept`. Run it before
    /// [`Store::prune_suites`]: the suites only these reports named can then go too.
    pub fn prune_reports(&self, keep: usize, dry_run: bool) -> Result<Pruned> {
        let mut all: Vec<(Vec<u8>, crate::ReportRecord)> = Vec::new();
        for kv in self.reports.iter() {
            let (k, v) = kv?;
            all.push((k.to_vec(), crate::decode("reports", &k, &v)?));
        }
        let doomed = beyond_newest(all, keep, |(_, r)| r.created);
        let mut p = Pruned::default();
        for (k, r) in doomed {
            if r.held && r.accepted.is_none() {
                continue;
            }
            if !dry_run {
                self.reports.remove(k)?;
            }
            p.reports += 1;
        }
        if !dry_run {
            self.flush()?;
        }
        Ok(p)
    }

    /// Deletes finished jobs beyond the newest `keep`. Queued and running ones always stay.
    pub fn prune_jobs(&self, keep: usize, dry_run: bool) -> Result<Pruned> {
        let mut done = self.jobs()?;
        done.retain(|j| !j.state.is_active());
        let doomed = beyond_newest(done, keep, |j| (j.finished, j.id));
        let mut p = Pruned::default();
        for j in doomed {
            if !dry_run {
                self.remove_job_unflushed(j.id)?;
            }
            p.jobs.push(j.id);
        }
        if !dry_run {
            self.flush()?;
        }
        Ok(p)
    }

    /// Deletes everything stored about a repository: its record, runs, suites with their
    /// tests and replacements, best pointers, reports, goal ids and jobs (cancel running ones
    /// first). `dry_run` only counts.
    pub fn remove_repo_data(&self, repo: RepoId, dry_run: bool) -> Result<Pruned> {
        let suites: Vec<SuiteRecord> = self.suites(repo, None)?;
        let mut p = self.delete_suites(&suites, dry_run)?;
        for r in self.runs(repo, None)? {
            if !dry_run {
                self.runs.remove(key(r.id.0))?;
            }
            p.runs.push(r.id);
        }
        for j in self.jobs()?.into_iter().filter(|j| j.repo == repo) {
            if !dry_run {
                self.remove_job_unflushed(j.id)?;
            }
            p.jobs.push(j.id);
        }
        let prefix = key(repo.0);
        p.reports += self.remove_prefix(&self.reports, &prefix, dry_run)?;
        p.replacements += self.remove_prefix(&self.replacements, &prefix, dry_run)?;
        p.other += self.remove_prefix(&self.best, &prefix, dry_run)?;
        p.other += self.remove_prefix(&self.goals, &prefix, dry_run)?;
        let mut seq = b"goalseq/".to_vec();
        seq.extend_from_slice(&prefix);
        p.other += self.remove_prefix(&self.meta, &seq, dry_run)?;
        if self.repos.contains_key(prefix)? {
            p.other += 1;
            if !dry_run {
                self.repos.remove(prefix)?;
            }
        }
        if !dry_run {
            self.flush()?;
        }
        Ok(p)
    }

    /// Removes (or counts) the entries of `tree` under `prefix`.
    fn remove_prefix(&self, tree: &crate::kv::Tree, prefix: &[u8], dry_run: bool) -> Result<usize> {
        let mut n = 0;
        for k in tree.scan_prefix(prefix).keys() {
            let k = k?;
            if !dry_run {
                tree.remove(k)?;
            }
            n += 1;
        }
        Ok(n)
    }
}
