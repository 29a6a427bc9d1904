//! In-crate placement end to end: a binary crate (no library) gets a `#[cfg(test)]` module at
//! its root whose tests call crate-private functions, verified against the unmodified crate.

mod support;

use frugal_testkit as common;

use std::path::Path;

use frugal_search::Generation;
use frugal_subject::emit::Placement;
use frugal_subject::executor::ExecConfig;
use frugal_subject::pipeline::{self, Phase, Progress, RunOptions};
use frugal_subject::regress::{self, CheckOptions, Outcome};

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
    let timeout = ExecConfig::default().timeout;
    RunOptions {
        placement,
        ..support::seeded_run(fixture(name), executions, 1, timeout, work, out)
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

/// Private functions of private modules get tests placed inside their modules: the suite holds
/// one section per module, verification appends each section's invocation to the module's file
/// in its copy, and `--write` does the same in the crate, once, however often it is run.
#[test]
fn private_functions_are_tested_from_inside_their_modules() {
    let work = common::work_dir("placement-private_mods");
    let out = tempfile::tempdir().unwrap();
    let krate = tempfile::tempdir().unwrap();
    copy_dir(&fixture("private_mods"), krate.path());
    let mut opts = options(
        "private_mods",
        3000,
        Placement::InCrate,
        &work.path,
        out.path(),
    );
    opts.crate_dir = krate.path().to_path_buf();
    opts.write = true;
    let summary = pipeline::run(&opts, &mut Quiet).unwrap_or_else(|e| panic!("{e}"));
    // A test calling private items of two sibling modules cannot be placed; nothing else fails.
    for d in &summary.tests_dropped {
        assert!(d.reason.contains("no test module can name both"), "{d:?}");
    }
    let text = std::fs::read_to_string(out.path().join("frugal_generated.rs")).unwrap();
    for part in [
        "// frugal-home: date src/date.rs",
        "macro_rules! frugal_in_date {",
        "// frugal-home: date::parse src/date/parse.rs",
        "private_mods::date::parse::suffix(",
        "private_mods::date::is_leap(",
        "private_mods::legacy::is_weekend(",
    ] {
        assert!(text.contains(part), "no {part:?} in:\n{text}");
    }
    // Every line runs but the inline module's, which no test module can be placed in.
    let uncovered = std::fs::read_to_string(out.path().join("uncovered.txt")).unwrap();
    let lines: Vec<&str> = uncovered
        .lines()
        .filter(|l| l.contains("\tline\t"))
        .collect();
    assert_eq!(lines, vec!["src/date.rs:40\tline\tline"], "{uncovered}");
    let parse_rs = std::fs::read_to_string(krate.path().join("src/date/parse.rs")).unwrap();
    let call = "crate::frugal_generated::frugal_in_date__parse!();";
    assert_eq!(parse_rs.matches(call).count(), 1, "{parse_rs}");
    // The regression check reads the sections: against a crate whose private `suffix` changed,
    // exactly the tests of `date::parse` that assert its old results report a change.
    let parse_path = krate.path().join("src/date/parse.rs");
    std::fs::write(&parse_path, parse_rs.replace("_ => \"th\"", "_ => \"TH\"")).unwrap();
    let check_dir = tempfile::tempdir().unwrap();
    let check_work = check_dir.path().canonicalize().unwrap().join("work");
    std::fs::create_dir_all(&check_work).unwrap();
    let mut check = CheckOptions::new(check_work);
    check.placement = Placement::InCrate;
    check.sandbox = Some(pipeline::job_policy(krate.path(), &check.work_dir).unwrap());
    let report = regress::check(krate.path(), &text, &check).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.tests.len(), summary.tests_emitted, "{report:?}");
    for t in &report.tests {
        let asserts_th = t.body.contains("date::parse::suffix(") && t.body.contains("\"th\"");
        match &t.outcome {
            Outcome::Changed { .. } => assert!(asserts_th, "{}: {:?}", t.name, t.outcome),
            Outcome::Passed => assert!(!asserts_th, "{} passed", t.name),
            other => panic!("{}: {other:?}", t.name),
        }
    }
    std::fs::write(&parse_path, &parse_rs).unwrap();
    // Writing the same suite again leaves one invocation per module file.
    frugal_subject::emit::suite_copy::write_into(krate.path(), Placement::InCrate, &text).unwrap();
    let again = std::fs::read_to_string(krate.path().join("src/date/parse.rs")).unwrap();
    assert_eq!(again, parse_rs);
    // An empty suite removes them.
    frugal_subject::emit::suite_copy::write_into(krate.path(), Placement::InCrate, "").unwrap();
    let cleared = std::fs::read_to_string(krate.path().join("src/date/parse.rs")).unwrap();
    assert!(!cleared.contains("frugal_in_"), "{cleared}");
}

/// A crate whose copy does not build once its private items are `pub(crate)` (two glob imports
/// then offer the same name) still gets a suite, of what the crate root reaches, with a warning.
#[test]
fn a_crate_that_breaks_when_widened_is_tested_without_its_private_items() {
    let work = common::work_dir("placement-private_clash");
    let out = tempfile::tempdir().unwrap();
    let opts = options(
        "private_clash",
        500,
        Placement::InCrate,
        &work.path,
        out.path(),
    );
    let summary = run_clean(&opts);
    assert!(
        summary
            .warnings
            .iter()
            .any(|w| w.contains("private items of submodules are not tested")),
        "{:?}",
        summary.warnings
    );
    let text = std::fs::read_to_string(out.path().join("frugal_generated.rs")).unwrap();
    assert!(text.contains("private_clash::total("), "{text}");
    assert!(!text.contains("frugal-home"), "{text}");
}

/// In-crate tests of a `no_std` crate name std and its prelude themselves: the module they
/// sit in has core's prelude (before: `String`, `vec!` and `to_string` were not found and every
/// test asserting a string was dropped).
#[test]
fn a_no_std_crate_gets_in_crate_tests_that_compile() {
    let work = common::work_dir("placement-nostd");
    let out = tempfile::tempdir().unwrap();
    let mut opts = options("nostd", 1500, Placement::InCrate, &work.path, out.path());
    opts.crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/nostd");
    run_clean(&opts);
    let text = std::fs::read_to_string(out.path().join("frugal_generated.rs")).unwrap();
    assert!(text.contains("String::from("), "{text}");
    // Core's `FromStr` is named through the module's std, not `::std` (not in a `no_std`
    // crate's extern prelude).
    assert!(text.contains("as std::str::FromStr>::from_str("), "{text}");
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// A test calling private items of two sibling modules (`date` and `legacy`) is split into
/// one test per module, each placed in its module's section (before: dropped as "no test module
/// can name both", and the goals only it covered were lost). The mixed test comes from a seed
/// model, so the run cannot avoid it.
#[test]
fn a_test_mixing_sibling_modules_is_split_between_them() {
    use frugal_subject::suite_model::{
        MODEL_VERSION, ModelStmt, ModelTest, ModelValue, SuiteModel,
    };
    let work = common::work_dir("placement-split");
    let out = tempfile::tempdir().unwrap();
    let mut opts = options(
        "private_mods",
        5,
        Placement::InCrate,
        &work.path,
        out.path(),
    );
    let stmt = |op: &str, args: Vec<u32>, value: Option<ModelValue>| ModelStmt {
        op: op.into(),
        args,
        value,
    };
    opts.seed_model = Some(SuiteModel {
        version: MODEL_VERSION,
        krate: "private_mods".into(),
        tests: vec![ModelTest {
            name: "mixed".into(),
            stmts: vec![
                stmt("literal u64", vec![], Some(ModelValue::Int(2000))),
                stmt(
                    "call private_mods::date::is_leap(u64) -> bool",
                    vec![0],
                    None,
                ),
                stmt("literal u8", vec![], Some(ModelValue::Int(6))),
                stmt(
                    "call private_mods::legacy::is_weekend(u8) -> bool",
                    vec![2],
                    None,
                ),
            ],
        }],
    });
    let summary = run_clean(&opts);
    let seeding = summary.seeding.as_ref().expect("the model seeded the run");
    assert_eq!(
        (seeding.resolved, seeding.dropped.len()),
        (1, 0),
        "{seeding:?}"
    );
    let text = std::fs::read_to_string(out.path().join("frugal_generated.rs")).unwrap();
    let section = |module: &str| {
        let start = text
            .find(&format!("// frugal-home: {module} "))
            .unwrap_or_else(|| panic!("no section {module} in:\n{text}"));
        let end = text[start + 1..]
            .find("// frugal-home: ")
            .map_or(text.len(), |e| start + 1 + e);
        &text[start..end]
    };
    assert!(section("date").contains("date::is_leap(2000"), "{text}");
    assert!(section("legacy").contains("legacy::is_weekend(6"), "{text}");
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

/// Records the phases a run announced.
#[derive(Default)]
struct Phases(Vec<Phase>);

impl Progress for Phases {
    fn phase(&mut self, phase: Phase) {
        self.0.push(phase);
    }
    fn generation(&mut self, _: &Generation) {}
}

/// A crate whose own test build fails (a dev-dependency does not compile) is told so: which
/// target failed, its first error, and the command to see it, not a missing test target; and
/// before the search, not after the whole budget (before: after, as time 0.3.7's did).
#[test]
fn a_crate_whose_tests_do_not_build_gets_the_failing_target_and_error() {
    let (_work, _out, opts) = tests_placement("broken_dev_dep", 300);
    let mut phases = Phases::default();
    let err = match pipeline::run(&opts, &mut phases) {
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
    assert!(!phases.0.contains(&Phase::Search), "{:?}", phases.0);
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
    use frugal_subject::model::{ApiModel, Callable, Param, Ty};
    let duration = Ty::Adt {
        path: "std::time::Duration".into(),
        args: Vec::new(),
    };
    let call = |name: &str, params: Vec<Param>| Callable {
        params,
        ret: Some(Ty::Prim("u64".into())),
        ..Callable::free(&format!("k::{name}"), "src/lib.rs", 1)
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
