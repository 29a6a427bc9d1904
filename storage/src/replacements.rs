//! Replacements of crates' own suites (`frugal replace` through the daemon), one per stored
//! suite, metric and cover target. Derived data: it can be recomputed from the suite and the
//! commit, so export leaves it out and no migration is needed when its shape grows.

use serde::{Deserialize, Serialize};

use crate::records::{RepoId, SuiteId};
use crate::{Result, Store, best_key};

/// A replacement computed for one suite: the daemon's JSON answer as is (per-test goal sets and
/// costs of the own and generated tests included), or why it failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplacementRecord {
    /// The repository of the crate.
    pub repo: RepoId,
    /// The crate's package name.
    pub krate: String,
    /// The generated suite the replacement drew from.
    pub suite: SuiteId,
    /// The cost metric the replacement minimised (`cpu`, `instructions`, `wall` or `memory`).
    pub metric: String,
    /// The goals the replacement must cover: `own` (the own suite's) or `all` (the own suite's and
    /// the generated tests').
    pub cover: String,
    /// Unix time in milliseconds.
    pub created: u64,
    /// The replacement (`frugal_replace::Replacement` as JSON), when it succeeded.
    pub replacement: Option<serde_json::Value>,
    /// Why it failed, when it did (a lost goal is a failure, never a silent result).
    pub error: Option<String>,
}

fn replacement_key(
    repo: RepoId,
    krate: &str,
    suite: SuiteId,
    metric: &str,
    cover: &str,
) -> Vec<u8> {
    let mut k = best_key(repo, krate);
    k.push(0);
    k.extend_from_slice(&suite.0.to_be_bytes());
    k.extend_from_slice(format!("{metric}/{cover}").as_bytes());
    k
}

impl Store {
    /// Stores (or replaces) a replacement record (flushed).
    pub fn put_replacement(&self, rec: &ReplacementRecord) -> Result<()> {
        let k = replacement_key(rec.repo, &rec.krate, rec.suite, &rec.metric, &rec.cover);
        self.put(&self.replacements, &k, rec)
    }

    /// The replacement computed for a suite with this metric and cover target, if any.
    pub fn replacement(
        &self,
        repo: RepoId,
        krate: &str,
        suite: SuiteId,
        metric: &str,
        cover: &str,
    ) -> Result<Option<ReplacementRecord>> {
        let k = replacement_key(repo, krate, suite, metric, cover);
        self.get(&self.replacements, "replacements", &k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacements_round_trip_by_suite_metric_and_cover() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let rec = ReplacementRecord {
            repo: RepoId(1),
            krate: "c".into(),
            suite: SuiteId(7),
            metric: "cpu".into(),
            cover: "own".into(),
            created: 5,
            replacement: Some(serde_json::json!({"cost_ratio": 0.2})),
            error: None,
        };
        store.put_replacement(&rec).unwrap();
        let got = store.replacement(RepoId(1), "c", SuiteId(7), "cpu", "own");
        assert_eq!(got.unwrap(), Some(rec));
        let other = store.replacement(RepoId(1), "c", SuiteId(7), "wall", "own");
        assert_eq!(other.unwrap(), None);
    }
}
