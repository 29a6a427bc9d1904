//! The derived criteria (function-no-panic, panic, output, input) on a real crate:
//! `examples/statemachine` run through the whole pipeline with an execution budget. The emitted
//! suite must cover output classes of `Order::step` for several `State` variants, the
//! "insufficient funds" panic of `Account::withdraw`, and the function-no-panic goals; a
//! criteria subset must number and report only its goals; and the same seed and execution
//! budget must give the same suite and the same goals whatever the number of workers.

mod support;

use frugal_testkit as common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use frugal_search::Generation;
use frugal_subject::criteria::Criteria;
use frugal_subject::pipeline::{self, Phase, Progress, RunOptions, RunSummary};

struct Quiet;

impl Progress for Quiet {
    fn phase(&mut self, _: Phase) {}
    fn generation(&mut self, _: &Generation) {}
}

/// A run on statemachine with seed 1; returns the summary and the work dir's goal list.
fn run(criteria: &str, executions: u64, workers: usize, out: &Path) -> (RunSummary, Vec<Goal>) {
    let work = common::work_dir("criteria-statemachine");
    let statemachine = common::example("statemachine");
    let timeout = Duration::from_secs(2);
    let opts = RunOptions {
        criteria: criteria.parse::<Criteria>().unwrap(),
        ..support::seeded_run(statemachine, executions, workers, timeout, &work.path, out)
    };
    let s = pipeline::run(&opts, &mut Quiet).unwrap_or_else(|e| panic!("run failed: {e}"));
    let text = std::fs::read_to_string(work.path.join("goals.json")).unwrap();
    let goals: Vec<Goal> = serde_json::from_str(&text).unwrap();
    (s, goals)
}

/// `GoalInfo` as written to `goals.json`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
struct Goal {
    id: u32,
    kind: String,
    label: String,
}

fn temp_out() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("frugal-criteria-")
        .tempdir()
        .unwrap()
}

/// Labels of the goals the emitted suite covers, by kind.
fn covered(s: &RunSummary, goals: &[Goal], kind: &str) -> BTreeSet<String> {
    s.tests
        .iter()
        .flat_map(|t| t.goals.iter())
        .map(|&g| &goals[g as usize])
        .filter(|g| g.kind == kind)
        .map(|g| g.label.clone())
        .collect()
}

#[test]
fn statemachine_covers_state_outputs_the_overdraft_panic_and_clean_returns() {
    let out = temp_out();
    let (s, goals) = run("all", 10_000, 2, out.path());
    assert!(goals.iter().enumerate().all(|(i, g)| g.id as usize == i));
    let outputs = covered(&s, &goals, "output");
    let states: Vec<&str> = ["Created", "Paid", "Shipped", "Cancelled"]
        .into_iter()
        .filter(|v| outputs.contains(&format!("Order::step returns Ok({v})")))
        .collect();
    assert!(states.len() >= 3, "State outputs covered: {outputs:#?}");
    assert!(outputs.contains("Order::step returns Err"), "{outputs:#?}");
    assert!(
        outputs.contains("BoundedStack::pop returns None"),
        "{outputs:#?}"
    );
    let panics = covered(&s, &goals, "panic");
    assert!(
        panics
            .iter()
            .any(|l| l.starts_with("Account::withdraw panics at src/lib.rs:")
                && l.ends_with("insufficient funds")),
        "{panics:#?}"
    );
    // Every callable of statemachine can return normally. `BoundedStack::get` needs a push
    // and an index below the length, which seed 1 does not find within this budget.
    let clean = &s.goals["function-no-panic"];
    assert!(clean.covered + 1 >= clean.total, "{:?}", s.goals);
    assert!(clean.total >= 15);
    let returned = covered(&s, &goals, "function-no-panic");
    for f in ["Account::withdraw", "Order::step", "BoundedStack::push"] {
        assert!(
            returned.contains(&format!("{f} returns normally")),
            "{returned:#?}"
        );
    }
    let inputs = covered(&s, &goals, "input");
    assert!(
        inputs.contains("Account::withdraw gets amount negative"),
        "{inputs:#?}"
    );
    // Panic totals count discovered locations only, and the suite keeps what the search found.
    let p = &s.goals["panic"];
    assert!(p.total >= 5 && p.covered == p.total, "{p:?}");
    assert!(s.tests_dropped.is_empty(), "{:?}", s.tests_dropped);
    let uncovered = std::fs::read_to_string(out.path().join("uncovered.txt")).unwrap();
    let missing: usize = s.goals.values().map(|c| c.total - c.covered).sum();
    assert_eq!(uncovered.lines().count(), missing, "{uncovered}");
}

#[test]
fn a_criteria_subset_numbers_and_reports_only_its_goals() {
    let out = temp_out();
    let (s, goals) = run("line,panic,output", 3_000, 2, out.path());
    let keys: Vec<&str> = s.goals.keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["line", "output", "panic"]);
    let kinds: BTreeSet<&str> = goals.iter().map(|g| g.kind.as_str()).collect();
    assert_eq!(kinds, ["line", "output", "panic"].into());
    assert!(s.goals["line"].covered > 0 && s.goals["output"].covered > 0);
    // Lines come first, numbered from 0.
    assert_eq!(goals[0].kind, "line");
}

#[test]
fn the_same_seed_and_execution_budget_give_the_same_suite_and_goals() {
    let runs: Vec<(String, String, Vec<Goal>)> = [2, 1, 2]
        .into_iter()
        .map(|workers| {
            let out = temp_out();
            let (s, goals) = run("all", 4_000, workers, out.path());
            let text = std::fs::read_to_string(&s.output).unwrap();
            (text, format!("{:?}", s.goals), goals)
        })
        .collect();
    for (i, r) in runs.iter().enumerate().skip(1) {
        assert!(runs[0].0 == r.0, "suite of run {i} differs");
        assert_eq!(runs[0].1, r.1, "goal counts of run {i}");
        assert_eq!(runs[0].2, r.2, "goals.json of run {i}");
    }
}
