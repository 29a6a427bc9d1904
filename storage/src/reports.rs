//! Regression reports: what a crate's previous suite said about a new commit, one record per
//! repository, commit and crate. The report itself is the engine's JSON, opaque here; storage
//! keeps what the service needs to answer CI without decoding it (how many behaviours changed,
//! whether someone accepted them) and which suites it compared.

use serde::{Deserialize, Serialize};

use crate::records::{RepoId, SuiteId};
use crate::{Result, Store, StoreError, key};

/// The regression check of one crate at one commit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportRecord {
    /// The repository of the crate.
    pub repo: RepoId,
    /// The crate's package name.
    pub krate: String,
    /// The commit that was checked.
    pub commit: String,
    /// Unix time in milliseconds.
    pub created: u64,
    /// The suite run as the oracle, and the commit it was generated at.
    pub baseline: Option<SuiteId>,
    /// The commit the baseline suite was generated at, when it records one.
    pub baseline_commit: Option<String>,
    /// Tests whose behaviour changed or that no longer compile: what CI gates on.
    pub changed: u32,
    /// The engine's report (`frugal_subject::regress::Report` as JSON), when the check ran.
    pub report: Option<serde_json::Value>,
    /// Why there is no report: no earlier suite, or the check itself failed.
    pub note: Option<String>,
    /// The suite the same job stored for this commit, once it did.
    #[serde(default)]
    pub suite: Option<SuiteId>,
    /// Whether that suite was kept from becoming the best one until the changes are accepted
    /// (`regressions.policy = "hold"`).
    #[serde(default)]
    pub held: bool,
    /// When someone accepted the changes (`frugal accept`), Unix milliseconds.
    #[serde(default)]
    pub accepted: Option<u64>,
}

impl ReportRecord {
    /// Whether CI should fail on this report: behaviour changed and nobody accepted it.
    pub fn gates(&self) -> bool {
        self.changed > 0 && self.accepted.is_none()
    }
}

/// `repo | commit | 0 | crate`: a commit's reports are one prefix scan.
fn commit_prefix(repo: RepoId, commit: &str) -> Vec<u8> {
    let mut k = key(repo.0).to_vec();
    k.extend_from_slice(commit.as_bytes());
    k.push(0);
    k
}

fn report_key(repo: RepoId, commit: &str, krate: &str) -> Vec<u8> {
    let mut k = commit_prefix(repo, commit);
    k.extend_from_slice(krate.as_bytes());
    k
}

impl Store {
    /// Stores (or replaces) the report of a crate at a commit (flushed).
    pub fn put_report(&self, rec: &ReportRecord) -> Result<()> {
        let k = report_key(rec.repo, &rec.commit, &rec.krate);
        self.put(&self.reports, &k, rec)
    }

    /// [`Store::put_report`] without the flush (import flushes once at the end).
    pub(crate) fn put_report_unflushed(&self, rec: &ReportRecord) -> Result<()> {
        let k = report_key(rec.repo, &rec.commit, &rec.krate);
        self.reports.insert(k, crate::encode(rec))?;
        Ok(())
    }

    /// The report of one crate at a commit.
    pub fn report(&self, repo: RepoId, commit: &str, krate: &str) -> Result<Option<ReportRecord>> {
        self.get(&self.reports, "reports", &report_key(repo, commit, krate))
    }

    /// The reports of every crate at a commit, by crate name.
    pub fn reports_of_commit(&self, repo: RepoId, commit: &str) -> Result<Vec<ReportRecord>> {
        self.scan(&self.reports, "reports", &commit_prefix(repo, commit))
    }

    /// Marks the report accepted (idempotent: a second call keeps the first time). Errors when
    /// there is no report for the crate at that commit.
    pub fn accept_report(&self, repo: RepoId, commit: &str, krate: &str) -> Result<ReportRecord> {
        let mut rec = self
            .report(repo, commit, krate)?
            .ok_or_else(|| StoreError::NotFound {
                what: "report",
                id: format!("{krate} at {commit}"),
            })?;
        if rec.accepted.is_none() {
            rec.accepted = Some(crate::now_ms());
            self.put_report(&rec)?;
        }
        Ok(rec)
    }

    /// Every report of a repository (for removal and listings).
    pub fn reports_of_repo(&self, repo: RepoId) -> Result<Vec<ReportRecord>> {
        self.scan(&self.reports, "reports", &key(repo.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(commit: &str, krate: &str, changed: u32) -> ReportRecord {
        ReportRecord {
            repo: RepoId(3),
            krate: krate.into(),
            commit: commit.into(),
            created: 1,
            baseline: Some(SuiteId(9)),
            baseline_commit: Some("base".into()),
            changed,
            report: Some(serde_json::json!({"tests": []})),
            note: None,
            suite: None,
            held: false,
            accepted: None,
        }
    }

    #[test]
    fn reports_are_found_by_commit_and_crate_and_accepted_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.put_report(&rec("abc", "a", 2)).unwrap();
        store.put_report(&rec("abc", "b", 0)).unwrap();
        // A commit whose name extends another's is a different prefix.
        store.put_report(&rec("abcd", "a", 1)).unwrap();
        let got = store.reports_of_commit(RepoId(3), "abc").unwrap();
        let names: Vec<&str> = got.iter().map(|r| r.krate.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(got[0].gates() && !got[1].gates());
        let first = store.accept_report(RepoId(3), "abc", "a").unwrap();
        assert!(!first.gates());
        let again = store.accept_report(RepoId(3), "abc", "a").unwrap();
        assert_eq!(again.accepted, first.accepted);
        assert!(store.accept_report(RepoId(3), "nope", "a").is_err());
        assert_eq!(store.reports_of_repo(RepoId(3)).unwrap().len(), 3);
    }
}
