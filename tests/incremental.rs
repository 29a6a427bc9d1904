//! Incremental regeneration through the `frugal` binary: a run writes the suite's test model,
//! a run started from that model re-executes its tests before searching, and after an API
//! change the tests of the removed or changed function are dropped with the reason while the
//! others still seed the search. The crate is a copy of `examples/numeric` in a temp dir.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use frugal_testkit::{binaries, example_repo, work_dir};
use serde_json::Value;

/// `frugal run` on `krate` with an execution budget, the summary as JSON.
fn run(krate: &Path, out: &Path, work: &Path, model: Option<&Path>) -> Value {
    let mut cmd = Command::new(&binaries().frugal);
    cmd.arg("run")
        .arg(krate)
        .args([
            "--budget",
            "2000",
            "--seed",
            "1",
            "--workers",
            "2",
            "--json",
        ])
        .arg("--out")
        .arg(out)
        .arg("--work-dir")
        .arg(work);
    if let Some(m) = model {
        cmd.arg("--from-model").arg(m);
    }
    let result = cmd.output().expect("run frugal");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");
    serde_json::from_slice(&result.stdout).expect("the summary is JSON")
}

fn covered(summary: &Value) -> u64 {
    summary["goals"]
        .as_object()
        .expect("goals by kind")
        .values()
        .map(|g| g["covered"].as_u64().expect("covered"))
        .sum()
}

/// Names of the model's tests that call an operation whose key contains `needle`.
fn calling(model: &Value, needle: &str) -> BTreeSet<String> {
    model["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| {
            t["stmts"]
                .as_array()
                .expect("stmts")
                .iter()
                .any(|s| s["op"].as_str().is_some_and(|op| op.contains(needle)))
        })
        .map(|t| t["name"].as_str().expect("name").to_string())
        .collect()
}

#[test]
fn a_model_seeds_the_next_run_and_an_api_change_drops_only_the_tests_it_breaks() {
    if !common::sandbox_holds("incremental") {
        return;
    }
    let scratch = tempfile::Builder::new()
        .prefix("incremental")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a scratch dir");
    let krate = scratch.path().join("numeric");
    example_repo("numeric", &krate).expect("copy examples/numeric");
    let work = work_dir("incremental-numeric");

    // From scratch: the model lists exactly the verified tests.
    let first_out = scratch.path().join("first");
    let first = run(&krate, &first_out, &work.path, None);
    let model_path = first_out.join("frugal_generated.model.json");
    assert_eq!(first["model"].as_str(), model_path.to_str());
    assert_eq!(first["search_stop"], "budget");
    assert!(first.get("seeding").is_none(), "{first}");
    let model: Value =
        serde_json::from_str(&std::fs::read_to_string(&model_path).expect("the model file"))
            .expect("the model is JSON");
    assert_eq!(model["version"], 1);
    assert_eq!(model["krate"], "numeric");
    let names = |tests: &Value| -> Vec<String> {
        tests
            .as_array()
            .expect("tests")
            .iter()
            .map(|t| t["name"].as_str().expect("name").to_string())
            .collect()
    };
    let model_tests = names(&model["tests"]);
    assert_eq!(model_tests, names(&first["tests"]));
    assert!(!model_tests.is_empty());

    // Seeded on the same crate: every model test resolves and the goals they covered stay.
    let second = run(
        &krate,
        &scratch.path().join("second"),
        &work.path,
        Some(&model_path),
    );
    let seeding = &second["seeding"];
    assert_eq!(
        seeding["resolved"].as_u64(),
        Some(model_tests.len() as u64),
        "{seeding}"
    );
    assert_eq!(
        seeding["dropped"].as_array().map(Vec::len),
        Some(0),
        "{seeding}"
    );
    assert_eq!(
        seeding["executed"].as_u64(),
        Some(model_tests.len() as u64),
        "{seeding}"
    );
    assert!(
        seeding["goals_covered"].as_u64().unwrap_or(0) > 0,
        "{seeding}"
    );
    assert!(
        covered(&second) >= covered(&first),
        "seeded {} < from scratch {}",
        covered(&second),
        covered(&first)
    );

    // `grade` removed, `clamp_score` takes a u16: their tests go, with the reason.
    let lib = krate.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).expect("lib.rs");
    let start = source
        .find("/// Maps a score to a letter grade.")
        .expect("grade's doc");
    let end = start + source[start..].find("\n}\n").expect("grade's end") + 3;
    let edited = format!("{}{}", &source[..start], &source[end..]).replacen(
        "late_days: u8",
        "late_days: u16",
        1,
    );
    assert_ne!(edited, source);
    std::fs::write(&lib, edited).expect("edit lib.rs");
    let removed = calling(&model, "numeric::grade(");
    let changed = calling(&model, "numeric::clamp_score(");
    assert!(
        !removed.is_empty() && !changed.is_empty(),
        "the first suite calls both functions: {model}"
    );
    let third = run(
        &krate,
        &scratch.path().join("third"),
        &work.path,
        Some(&model_path),
    );
    let seeding = &third["seeding"];
    let dropped: Vec<(String, String)> = seeding["dropped"]
        .as_array()
        .expect("dropped")
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().expect(k).to_string();
            (s("name"), s("reason"))
        })
        .collect();
    let dropped_names: BTreeSet<String> = dropped.iter().map(|(n, _)| n.clone()).collect();
    let broken: BTreeSet<String> = removed.union(&changed).cloned().collect();
    assert_eq!(dropped_names, broken, "{seeding}");
    let signature = "`numeric::clamp_score` changed its signature: the model calls \
                     `call numeric::clamp_score(i32, bool, u8) -> i32`, the crate now has \
                     `call numeric::clamp_score(i32, bool, u16) -> i32`";
    for (name, reason) in &dropped {
        // A test calling both functions names both.
        assert_eq!(
            reason.contains("`numeric::grade` is gone"),
            removed.contains(name),
            "{name}: {reason}"
        );
        assert_eq!(
            reason.contains(signature),
            changed.contains(name),
            "{name}: {reason}"
        );
    }
    assert_eq!(
        seeding["resolved"].as_u64(),
        Some((model_tests.len() - broken.len()) as u64),
        "{seeding}"
    );
}
