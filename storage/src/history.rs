//! Light reads for a crate's history (the web page charting every stored suite): each run's
//! goal counts by kind without the rest of its summary; the suites' figures are the crate
//! index's [`crate::SuiteSummary`] values (`Store::suite_summaries`). Decoding only these keeps
//! a page of 500 suites cheap: the full records carry the Rust source and the summary's
//! per-test goal lists, which the page never shows.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use crate::records::{RepoId, RunId};
use crate::{Result, Store};

/// Covered and total goals of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct GoalCount {
    /// Goals of this kind the emitted suite covered, as the run summary reports.
    #[serde(default)]
    pub covered: u64,
    /// Goals of this kind in all, as the run summary reports.
    #[serde(default)]
    pub total: u64,
}

/// The part of a run record the history reads: `summary_json.pipeline.goals`.
#[derive(Deserialize)]
struct RunGoals {
    id: RunId,
    repo: RepoId,
    krate: String,
    #[serde(default)]
    summary_json: Option<SummaryGoals>,
}

#[derive(Deserialize)]
struct SummaryGoals {
    #[serde(default)]
    pipeline: Option<PipelineGoals>,
}

#[derive(Deserialize)]
struct PipelineGoals {
    #[serde(default)]
    goals: BTreeMap<String, GoalCount>,
}

impl Store {
    /// Goal counts by kind of each run of a repository's crate that has a summary. A summary of
    /// another shape counts as none: the history then shows that suite's overall coverage only.
    pub fn run_goal_counts(
        &self,
        repo: RepoId,
        krate: &str,
    ) -> Result<HashMap<RunId, BTreeMap<String, GoalCount>>> {
        let mut out = HashMap::new();
        for kv in self.runs.iter() {
            let (_, bytes) = kv?;
            let Ok(r) = serde_json::from_slice::<RunGoals>(&bytes) else {
                continue;
            };
            if r.repo != repo || r.krate != krate {
                continue;
            }
            if let Some(p) = r.summary_json.and_then(|s| s.pipeline) {
                out.insert(r.id, p.goals);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{Cost, GoalSet, NewSuite, NewTest, RunStatus};

    #[test]
    fn summaries_and_goal_counts_read_only_what_a_history_shows() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let repo = store.add_repo("/r", Vec::new(), None).unwrap();
        let run = store.create_run(repo.id, "k", Some("c1"), None).unwrap();
        let out = store
            .store_suite(NewSuite {
                repo: repo.id,
                krate: "k".into(),
                commit: Some("c1".into()),
                source: "#[test] fn t() {}".into(),
                goals_total: 10,
                total_cost: Some(Cost::new("instructions/cachegrind", 5.0)),
                proxy_cost: 2.0,
                tests: vec![NewTest {
                    name: "t".into(),
                    goals: GoalSet::from(vec![1, 2, 3]),
                    cost: None,
                    proxies: BTreeMap::new(),
                }],
                run: Some(run.id),
                model: None,
                hold: false,
                mutation: None,
            })
            .unwrap();
        let summary = serde_json::json!({"pipeline": {"goals": {"branch": {"covered": 3, "total": 4}},
            "tests": [{"name": "t", "goals": [1, 2, 3]}]}});
        store
            .finish_run(run.id, RunStatus::Succeeded, Some(summary), Some(out.suite))
            .unwrap();
        let points = store.suite_summaries(repo.id, "k").unwrap();
        assert_eq!(points.len(), 1);
        assert_eq!((points[0].goals_covered, points[0].test_count), (3, 1));
        assert_eq!(points[0].run, Some(run.id));
        assert!(store.suite_summaries(repo.id, "other").unwrap().is_empty());
        let counts = store.run_goal_counts(repo.id, "k").unwrap();
        assert_eq!(
            counts[&run.id]["branch"],
            GoalCount {
                covered: 3,
                total: 4
            }
        );
    }
}
