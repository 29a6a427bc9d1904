//! Secondary indexes, so that no read the API serves walks a whole tree: runs and suites by
//! repository (and suites by repository and crate), newest first. (Active jobs have their own
//! index, `jobs_active`, written in one transaction with the job record: `Store::put_job`.)
//!
//! Index entries are keys that end in the record's id (big-endian, so key order is id order and
//! a reverse range gives newest first); pages are reverse range scans that stop after `limit`
//! records. Run entries are empty; a suite's entries hold its [`SuiteSummary`], so a
//! page of history decodes no test sources (40 KB each).
//!
//! Decision: entries are written *before* their record, and readers skip an entry whose record is missing or
//! no longer matches. A crash between the two writes, a transaction that aborts, or a cleanup
//! that deletes records without knowing of the indexes therefore leaves a harmless stale entry,
//! never a record the index misses; no transaction spans the two trees. Stores written before
//! the indexes existed (or imported) get them built once at open ([`INDEX_VERSION`] in `meta`).

use crate::kv::Tree;
use serde::{Deserialize, Serialize};

use crate::{
    Cost, JobId, JobRecord, RepoId, Result, RunId, RunRecord, Store, SuiteId, SuiteRecord, be_u32,
    decode, encode, key,
};

/// What a list of suites shows of one: the record without its source, model and per-test ids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteSummary {
    /// The suite's id.
    pub id: SuiteId,
    /// The repository it belongs to.
    pub repo: RepoId,
    /// The crate's package name.
    pub krate: String,
    /// The commit it was generated at, when known.
    pub commit: Option<String>,
    /// When it was stored, Unix time in milliseconds.
    pub created: u64,
    /// Goals of the crate at that commit (the denominator of coverage).
    pub goals_total: u32,
    /// Number of goals the suite covers.
    pub goals_covered: usize,
    /// Measured cost of the whole suite, `None` when it was not profiled.
    pub total_cost: Option<Cost>,
    /// The search's proxy estimate of the suite's cost (lower is cheaper).
    pub proxy_cost: f64,
    /// Number of tests in the suite.
    pub test_count: usize,
    /// The run that produced the suite.
    pub run: Option<RunId>,
    /// See [`SuiteRecord::mutation`].
    #[serde(default)]
    pub mutation: Option<crate::records::MutationFigures>,
}

impl SuiteSummary {
    /// The summary of a suite record.
    pub fn of(s: &SuiteRecord) -> SuiteSummary {
        SuiteSummary {
            id: s.id,
            repo: s.repo,
            krate: s.krate.clone(),
            commit: s.commit.clone(),
            created: s.created,
            goals_total: s.goals_total,
            goals_covered: s.goals_covered.len(),
            total_cost: s.total_cost.clone(),
            proxy_cost: s.proxy_cost,
            test_count: s.tests.len(),
            run: s.run,
            mutation: s.mutation.clone(),
        }
    }
}

/// Version of the index layout; a store whose `meta` holds another value is re-indexed at open.
pub const INDEX_VERSION: u32 = 1;
const INDEX_KEY: &[u8] = b"index_version";

/// Largest page any list returns.
pub const MAX_PAGE: usize = 500;

fn repo_key(repo: RepoId, id: u64) -> Vec<u8> {
    let mut k = key(repo.0).to_vec();
    k.extend_from_slice(&key(id));
    k
}

fn crate_prefix(repo: RepoId, krate: &str) -> Vec<u8> {
    let mut k = key(repo.0).to_vec();
    k.extend_from_slice(krate.as_bytes());
    k.push(0);
    k
}

fn crate_key(repo: RepoId, krate: &str, id: u64) -> Vec<u8> {
    let mut k = crate_prefix(repo, krate);
    k.extend_from_slice(&key(id));
    k
}

/// The id at the end of an index key.
fn trailing_id(k: &[u8]) -> Option<u64> {
    let tail: [u8; 8] = k.get(k.len().checked_sub(8)?..)?.try_into().ok()?;
    Some(u64::from_be_bytes(tail))
}

/// The end of the range under `prefix` below `before` (all of it without one).
fn upper_bound(prefix: &[u8], before: Option<u64>) -> Vec<u8> {
    let mut upper = prefix.to_vec();
    match before {
        Some(b) => upper.extend_from_slice(&key(b)),
        None => upper.extend_from_slice(&[0xff; 9]),
    }
    upper
}

/// Entries under `prefix` as (id, value), newest (largest id) first, strictly below `before`.
fn newest(
    tree: &Tree,
    prefix: &[u8],
    before: Option<u64>,
) -> impl Iterator<Item = Result<(u64, sled::IVec)>> {
    let upper = upper_bound(prefix, before);
    tree.range(prefix, Some(&upper), true)
        .filter_map(|kv| match kv {
            Ok((k, v)) => trailing_id(&k).map(|id| Ok((id, v))),
            Err(e) => Some(Err(e)),
        })
}

/// Ids under `prefix`, newest first, strictly below `before`, at most `limit` (keys only: the
/// records' values are not read).
fn newest_ids(
    tree: &Tree,
    prefix: &[u8],
    before: Option<u64>,
    limit: usize,
) -> impl Iterator<Item = Result<u64>> {
    let upper = upper_bound(prefix, before);
    tree.range_keys(prefix, Some(&upper), true)
        .filter_map(|k| match k {
            Ok(k) => trailing_id(&k).map(Ok),
            Err(e) => Some(Err(e)),
        })
        .take(limit)
}

impl Store {
    /// Builds the indexes when the store predates them; called by [`Store::open`].
    pub(crate) fn ensure_indexes(&self) -> Result<()> {
        let current = match self.meta.get(INDEX_KEY)? {
            Some(v) => Some(be_u32("meta", INDEX_KEY, &v)?),
            None => None,
        };
        if current == Some(INDEX_VERSION) {
            return Ok(());
        }
        self.rebuild_indexes()?;
        self.meta.insert(INDEX_KEY, INDEX_VERSION.to_be_bytes())?;
        self.flush()
    }

    /// Rebuilds every index from the records (after an import, or for an older store).
    pub fn rebuild_indexes(&self) -> Result<()> {
        for t in [
            &self.runs_by_repo,
            &self.suites_by_repo,
            &self.suites_by_crate,
        ] {
            t.clear()?;
        }
        for kv in self.runs.iter() {
            let (k, v) = kv?;
            let r: RunRecord = crate::decode("runs", &k, &v)?;
            self.index_run(&r)?;
        }
        for kv in self.suites.iter() {
            let (k, v) = kv?;
            let s: SuiteRecord = crate::decode("suites", &k, &v)?;
            self.index_suite(&s)?;
        }
        self.flush()
    }

    pub(crate) fn index_run(&self, r: &RunRecord) -> Result<()> {
        self.runs_by_repo
            .insert(repo_key(r.repo, r.id.0), &[][..])?;
        Ok(())
    }

    pub(crate) fn index_suite(&self, s: &SuiteRecord) -> Result<()> {
        let summary = encode(&SuiteSummary::of(s));
        self.suites_by_repo
            .insert(repo_key(s.repo, s.id.0), summary.clone())?;
        self.suites_by_crate
            .insert(crate_key(s.repo, &s.krate, s.id.0), summary)?;
        Ok(())
    }

    /// Runs newest first, of one repository or all, older than `before`; at most `limit`
    /// (capped at [`MAX_PAGE`]).
    pub fn runs_page(
        &self,
        repo: Option<RepoId>,
        before: Option<RunId>,
        limit: usize,
    ) -> Result<Vec<RunRecord>> {
        let limit = limit.min(MAX_PAGE);
        let before = before.map(|b| b.0);
        let ids: Vec<u64> = match repo {
            Some(r) => {
                newest_ids(&self.runs_by_repo, &key(r.0), before, limit).collect::<Result<_>>()?
            }
            None => newest_ids(&self.runs, &[], before, limit).collect::<Result<_>>()?,
        };
        let mut out = Vec::with_capacity(ids.len());
        for r in self
            .many::<RunRecord>(&self.runs, "runs", &ids)?
            .into_iter()
            .flatten()
        {
            if repo.is_none_or(|want| r.repo == want) {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// The runs with these ids that exist, in their order (one query on PostgreSQL).
    pub fn runs_with_ids(&self, ids: &[RunId]) -> Result<Vec<RunRecord>> {
        let ids: Vec<u64> = ids.iter().map(|r| r.0).collect();
        Ok(self
            .many::<RunRecord>(&self.runs, "runs", &ids)?
            .into_iter()
            .flatten()
            .collect())
    }

    /// Every suite of a repository's crate, oldest first, as the crate index's summaries: no
    /// suite record (source, model, per-test ids) is decoded. What the history page charts and
    /// how a job finds the previous suite.
    pub fn suite_summaries(&self, repo: RepoId, krate: &str) -> Result<Vec<SuiteSummary>> {
        let mut all = Vec::new();
        let mut before = None;
        loop {
            let page = self.suites_page(repo, Some(krate), before, MAX_PAGE)?;
            let full = page.len() >= MAX_PAGE;
            before = page.last().map(|s| s.id);
            all.extend(page);
            if !full || before.is_none() {
                break;
            }
        }
        all.reverse();
        Ok(all)
    }

    /// Summaries of suites newest first, of one repository (and crate), older than `before`;
    /// at most `limit` (capped at [`MAX_PAGE`]). Read from the index alone: no source is decoded.
    pub fn suites_page(
        &self,
        repo: RepoId,
        krate: Option<&str>,
        before: Option<SuiteId>,
        limit: usize,
    ) -> Result<Vec<SuiteSummary>> {
        let (tree, name, prefix) = match krate {
            Some(k) => (
                &self.suites_by_crate,
                "suites_by_crate",
                crate_prefix(repo, k),
            ),
            None => (&self.suites_by_repo, "suites_by_repo", key(repo.0).to_vec()),
        };
        let limit = limit.min(MAX_PAGE);
        let mut out = Vec::new();
        let mut entries = newest(tree, &prefix, before.map(|b| b.0));
        // Entries a batch at a time: whether their suites still exist is one lookup per batch.
        while out.len() < limit {
            let batch: Vec<(u64, sled::IVec)> = entries
                .by_ref()
                .take(limit - out.len())
                .collect::<Result<_>>()?;
            if batch.is_empty() {
                break;
            }
            let keys: Vec<Vec<u8>> = batch.iter().map(|(id, _)| key(*id).to_vec()).collect();
            let exists = self.suites.existing(&keys)?;
            for ((id, v), there) in batch.into_iter().zip(exists) {
                // The suite may be gone (a cleanup that does not know the index): skip its
                // entry.
                if !there {
                    continue;
                }
                let s: SuiteSummary = decode(name, &key(id), &v)?;
                if s.repo == repo && krate.is_none_or(|k| s.krate == k) {
                    out.push(s);
                }
            }
        }
        Ok(out)
    }

    /// Jobs newest first, older than `before`; at most `limit` (capped at [`MAX_PAGE`]).
    pub fn jobs_page(&self, before: Option<JobId>, limit: usize) -> Result<Vec<JobRecord>> {
        self.newest_jobs(before.map(|b| b.0), limit.min(MAX_PAGE))
    }

    /// Repositories in id order after `after`; at most `limit` (capped at [`MAX_PAGE`]).
    pub fn repos_page(
        &self,
        after: Option<RepoId>,
        limit: usize,
    ) -> Result<Vec<crate::RepoRecord>> {
        let lower = after.map_or(key(0), |a| key(a.0.saturating_add(1)));
        let lower = if after.is_some_and(|a| a.0 == u64::MAX) {
            return Ok(Vec::new());
        } else {
            lower
        };
        self.repos
            .range(&lower, None, false)
            .take(limit.min(MAX_PAGE))
            .map(|kv| {
                let (k, v) = kv?;
                crate::decode("repos", &k, &v)
            })
            .collect()
    }

    /// Number of registered repositories (sled counts keys; no record is decoded).
    pub fn repo_count(&self) -> Result<usize> {
        self.repos.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CrateEntry, JobState, NewSuite, RunStatus};

    fn suite(repo: RepoId, krate: &str) -> NewSuite {
        NewSuite {
            repo,
            krate: krate.into(),
            commit: Some("c".into()),
            source: String::new(),
            goals_total: 1,
            total_cost: None,
            proxy_cost: 0.0,
            tests: Vec::new(),
            run: None,
            model: None,
            hold: false,
            mutation: None,
        }
    }

    #[test]
    fn pages_are_newest_first_per_repository_and_crate() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let crates = vec![CrateEntry {
            name: "a".into(),
            dir: String::new(),
        }];
        let r1 = store.add_repo("/r1", crates.clone(), None).unwrap().id;
        let r2 = store.add_repo("/r2", crates, None).unwrap().id;
        let mut runs = Vec::new();
        for i in 0..7 {
            let repo = if i % 2 == 0 { r1 } else { r2 };
            runs.push((repo, store.create_run(repo, "a", None, None).unwrap().id));
        }
        let mine: Vec<RunId> = runs
            .iter()
            .rev()
            .filter(|(r, _)| *r == r1)
            .map(|x| x.1)
            .collect();
        let page = store.runs_page(Some(r1), None, 2).unwrap();
        assert_eq!(page.iter().map(|r| r.id).collect::<Vec<_>>(), mine[..2]);
        let next = store.runs_page(Some(r1), Some(page[1].id), 10).unwrap();
        assert_eq!(next.iter().map(|r| r.id).collect::<Vec<_>>(), mine[2..]);
        assert_eq!(store.runs_page(None, None, 100).unwrap().len(), 7);

        let s1 = store.store_suite(suite(r1, "a")).unwrap().suite;
        let s2 = store.store_suite(suite(r1, "b")).unwrap().suite;
        store.store_suite(suite(r2, "a")).unwrap();
        let all = store.suites_page(r1, None, None, 10).unwrap();
        assert_eq!(all.iter().map(|s| s.id).collect::<Vec<_>>(), [s2, s1]);
        let a = store.suites_page(r1, Some("a"), None, 10).unwrap();
        assert_eq!(a.iter().map(|s| s.id).collect::<Vec<_>>(), [s1]);
        // A finished run keeps its place.
        store
            .finish_run(mine[0], RunStatus::Succeeded, None, None)
            .unwrap();
        assert_eq!(store.runs_page(Some(r1), None, 1).unwrap()[0].id, mine[0]);
        assert_eq!(store.repos_page(None, 1).unwrap()[0].id, r1);
        assert_eq!(store.repos_page(Some(r1), 5).unwrap()[0].id, r2);
        assert_eq!(store.repo_count().unwrap(), 2);
    }

    #[test]
    fn active_jobs_follow_the_state_and_survive_a_rebuild() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut jobs = Vec::new();
        for _ in 0..3 {
            let id = store.next_job_id().unwrap();
            // Absent `Option` fields read as `None`.
            let j: JobRecord = serde_json::from_value(serde_json::json!({
                "id": id, "repo": 1, "krate": "a", "reason": "api", "priority": 1,
                "budget_factor": 1.0, "state": "queued", "enqueued_at": 0, "triggers": 1,
                "attempts": 0,
            }))
            .unwrap();
            store.put_job(&j).unwrap();
            jobs.push(j);
        }
        jobs[1].state = JobState::Succeeded;
        store.put_job(&jobs[1]).unwrap();
        let ids = |s: &Store| {
            s.active_jobs()
                .unwrap()
                .iter()
                .map(|j| j.id)
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&store), [jobs[0].id, jobs[2].id]);
        assert_eq!(store.jobs_page(None, 2).unwrap()[0].id, jobs[2].id);
        store.rebuild_indexes().unwrap();
        assert_eq!(ids(&store), [jobs[0].id, jobs[2].id]);
        store.remove_job(jobs[0].id).unwrap();
        assert_eq!(ids(&store), [jobs[2].id]);
    }
}
