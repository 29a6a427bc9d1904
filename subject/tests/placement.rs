//! In-crate placement end to end: a binary crate (no library) gets a `#[cfg(test)]` module at
//! its root whose tests call crate-private functions, verified against the unmodified crate.

use frugal_testkit as common;

use std::path::Path;

use frugal_search::{Budget, Generation, SearchParams};
use frugal_subject::emit::Placement;
use frugal_subject::executor::ExecConfig;
use frugal_subject::pipeline::{self, Phase, Progress, RunOptions};

struct Quiet;

impl Progress for Quiet {
    fn phase(&mut self, _: Phase) {}
    fn generation(&mut self, _: &Generation) {}
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Runs the pipeline and checks that it emitted tests and dropped none.
fn run_clean(opts: &RunOptions) -> pipeline::RunSummary {
    let summary = pipeline::run(opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    assert!(summary.tests_emitted > 0, "{summary:?}");
    assert!(
        summary.tests_dropped.is_empty(),
        "{:?}",
        summary.tests_dropped
    );
    summary
}

/// A run of the fixture `name` with seed 1, one worker and `executions` executions.
fn options(
    name: &str,
    executions: u64,
    placement: Placement,
    work: &Path,
    out: &Path,
) -> RunOptions {
    RunOptions {
        crate_dir: fixture(name),
        out_dir: out.to_path_buf(),
        write: false,
        search: SearchParams {
            seed: 1,
            budget: Budget::Executions(executions),
            ..SearchParams::default()
        },
        exec: ExecConfig {
            workers: 1,
            ..ExecConfig::default()
        },
        work_dir: Some(work.to_path_buf()),
        analyze: Default::default(),
        criteria: Default::default(),
        goal_selection: Default::default(),
        placement,
        unconfined: false,
        seed_model: None,
        testability: true,
    }
}

/// A run of fixture `name` placed under `tests/`, with its locked work dir and output dir.
fn tests_placement(
    name: &str,
    executions: u64,
) -> (common::WorkDir, tempfile::TempDir, RunOptions) {
    let work = common::work_dir(&format!("placement-{name}"));
    let out = tempfile::tempdir().unwrap();
    let opts = options(name, executions, Placement::Tests, &work.path, out.path());
    (work, out, opts)
}

#[test]
fn binary_crate_gets_a_verified_in_crate_module() {
    let work = common::work_dir("placement-bin_only");
    let out = tempfile::tempdir().unwrap();
    let opts = options("bin_only", 1500, Placement::InCrate, &work.path, out.path());
    let summary = run_clean(&opts);
    let text = std::fs::read_to_string(out.path().join("frugal_generated.rs")).unwrap();
    assert!(text.contains("use crate as bin_only;"), "{text}");
    // Private functions of the root and `pub(crate)` ones of a private module are called.
    assert!(text.contains("bin_only::double("), "{text}");
    assert!(text.contains("bin_only::util::halve("), "{text}");
    let branches = &summary.goals["branch"];
    assert!(
        branches.covered * 2 >= branches.total,
        "{:?}",
        summary.goals
    );
}

/// A crate that lists its test targets (`autotests = false`) still gets its suite verified:
/// the copy declares `tests/frugal_generated.rs` as a target.
#[test]
fn a_crate_with_explicit_test_targets_gets_a_verified_suite() {
    let (_work, _out, opts) = tests_placement("explicit_targets", 500);
    run_clean(&opts);
    // The user's manifest is untouched (no --write).
    let manifest = std::fs::read_to_string(fixture("explicit_targets/Cargo.toml")).unwrap();
    assert!(!manifest.contains("frugal_generated"), "{manifest}");
}

/// A crate whose own test build fails (a dev-dependency does not compile) is told so: which
/// target failed, its first error, and the command to see it, not a missing test target.
#[test]
fn a_crate_whose_tests_do_not_build_gets_the_failing_target_and_error() {
    let (_work, _out, opts) = tests_placement("broken_dev_dep", 300);
    let err = match pipeline::run(&opts, &mut Quiet) {
        Ok(s) => panic!("the run succeeded: {s:?}"),
        Err(e) => format!("{e:#}"),
    };
    for part in [
        "fails in lib helper before any generated test is compiled",
        "error[E0308]",
        "cargo test --test frugal_generated --no-run",
    ] {
        assert!(err.contains(part), "no {part:?} in: {err}");
    }
    assert!(!err.contains("no test target named"), "{err}");
}

#[test]
fn placement_parses_and_names_itself() {
    for p in [Placement::Tests, Placement::InCrate] {
        assert_eq!(p.name().parse::<Placement>(), Ok(p));
    }
    assert!("elsewhere".parse::<Placement>().is_err());
    assert!(Placement::InCrate.prelude("k").contains("use crate as k;"));
}

#[test]
fn clock_readers_are_left_out_and_std_values_get_builders() {
    use frugal_subject::harness::registry::{NONDETERMINISTIC, OpCode, Registry};
    use frugal_subject::model::{ApiModel, Callable, CallableKind, Param, Ty};
    let duration = Ty::Adt {
        path: "std::time::Duration".into(),
        args: Vec::new(),
    };
    let call = |name: &str, params: Vec<Param>| Callable {
        path: format!("k::{name}"),
        name: name.into(),
        kind: CallableKind::Free,
        params,
        ret: Some(Ty::Prim("u64".into())),
        file: "src/lib.rs".into(),
        line: 1,
        instantiation: Vec::new(),
        lent: Vec::new(),
        via_trait: None,
        operator: None,
        consume: None,
        turbofish: Vec::new(),
    };
    let model = ApiModel {
        crate_name: "k".into(),
        callables: vec![
            call("now", Vec::new()),
            call(
                "wait",
                vec![Param {
                    name: "d".into(),
                    ty: duration.clone(),
                    inferred: false,
                    static_ref: false,
                    closure: None,
                }],
            ),
        ],
        ..ApiModel::default()
    };
    let reg = Registry::build(&model);
    assert!(
        reg.dropped
            .iter()
            .any(|u| u.path == "k::now" && u.reason == NONDETERMINISTIC)
    );
    assert!(reg.ops.iter().any(|o| o.code == OpCode::Call(1)));
    assert!(reg.ops.iter().any(|o| matches!(
        &o.code,
        OpCode::StdValue { ty, template } if *ty == duration && template.contains("{0}")
    )));
}
