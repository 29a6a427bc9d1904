//! Weak mutation end to end: with mutant goals on, the instrumented copies of the example crates
//! and fixtures still build (no fn lost to a compile error that the plain instrumentation does
//! not cause), keep every line and pass their own tests; mutant goals hang under a branch or
//! entry goal of their own fn; and a run on `examples/numeric` with `branch,weak-mutation`
//! kills a good share of the mutants, most of them strongly (a test fails with the mutant
//! switched on), and emits a verified suite.

mod support;

use frugal_testkit as common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use frugal_search::Generation;
use frugal_subject::criteria::Criteria;
use frugal_subject::instrument::{COMPILE_ERROR, Instrumented, Options, instrument_and_build};
use frugal_subject::manifest::{GoalKind, Manifest};
use frugal_subject::pipeline::{self, Phase, Progress, RunOptions};

fn target_dir() -> PathBuf {
    common::workspace().join("target/instrument-tests")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn mutants_on() -> Options {
    Options {
        mutants: true,
        ..Options::default()
    }
}

/// Runs the copy's own tests the way the instrumented build was made.
fn run_own_tests(root: &Path) {
    frugal_testkit::cargo_test(root, &target_dir());
}

fn line_counts(dir: &Path, m: &Manifest) -> BTreeMap<String, usize> {
    m.goals
        .iter()
        .map(|g| {
            let text = std::fs::read_to_string(dir.join(&g.file)).unwrap();
            let text = text.replace("\r\n", "\n");
            let text = text
                .strip_suffix("\nextern crate frugal_probe;\n")
                .unwrap_or(&text)
                .to_string();
            (g.file.clone(), text.lines().count())
        })
        .collect()
}

/// Mutant goals sit under a goal of their own fn, on a line of code.
fn assert_mutant_goals_are_placed(dir: &Path, m: &Manifest) {
    for g in m.goals.iter().filter(|g| g.kind == GoalKind::Mutant) {
        let p = &m.goals[g.parent.expect("mutant without parent") as usize];
        assert!(
            matches!(p.kind, GoalKind::Branch | GoalKind::Function),
            "{g:?} under {p:?}"
        );
        assert_eq!(p.function, g.function, "{g:?}");
        let text = std::fs::read_to_string(dir.join(&g.file)).unwrap();
        let line = text.lines().nth(g.line - 1).unwrap_or("");
        assert!(!line.trim().is_empty(), "{g:?} on a blank line");
        assert!(
            [
                "ROR ",
                "AOR ",
                "LOR ",
                "FBR ",
                "delete !",
                "delete match arm",
                "match guard -> "
            ]
            .iter()
            .any(|k| g.label.starts_with(k)),
            "{g:?}"
        );
    }
}

fn compile_errors(inst: &Instrumented) -> Vec<(String, usize)> {
    inst.manifest
        .skipped
        .iter()
        .filter(|s| s.reason == COMPILE_ERROR)
        .map(|s| (s.file.clone(), s.line))
        .collect()
}

/// Instruments `dir` without and with mutants: same fns kept, same lines, own tests pass.
fn check(name: &str, dir: &Path) -> Manifest {
    let plain_out = tempfile::tempdir().unwrap();
    let plain = instrument_and_build(dir, plain_out.path(), &target_dir(), &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = tempfile::tempdir().unwrap();
    let inst = instrument_and_build(dir, out.path(), &target_dir(), &mutants_on())
        .unwrap_or_else(|e| panic!("{name} with mutants: {e}"));
    assert_eq!(
        compile_errors(&inst),
        compile_errors(&plain),
        "{name}: mutants cost fns"
    );
    assert_eq!(
        line_counts(&inst.root, &inst.manifest),
        line_counts(dir, &inst.manifest),
        "{name}: line counts changed"
    );
    assert_mutant_goals_are_placed(dir, &inst.manifest);
    run_own_tests(&inst.root);
    let m = &inst.manifest;
    let ror = m
        .goals
        .iter()
        .filter(|g| g.label.starts_with("ROR "))
        .count();
    let aor = m
        .goals
        .iter()
        .filter(|g| g.label.starts_with("AOR "))
        .count();
    let fbr = m
        .goals
        .iter()
        .filter(|g| g.label.starts_with("FBR "))
        .count();
    eprintln!(
        "{name}: {} goals without mutants, {} with ({ror} ROR, {aor} AOR, {fbr} FBR)",
        plain.manifest.goals.len(),
        m.goals.len()
    );
    // Every instrumented function returning `()`, a number, `bool`, a string, an `Option` or
    // a `Vec` gets its body replaced, and the copy still builds and passes the crate's tests.
    assert!(
        fbr > 0 || m.functions.is_empty(),
        "{name}: no body replacement"
    );
    inst.manifest
}

#[test]
fn examples_with_mutants_build_and_pass_their_tests() {
    for name in [
        "numeric",
        "textparse",
        "statemachine",
        "hostile",
        "redundant",
    ] {
        let dir = common::example(name);
        if !dir.join("src/lib.rs").is_file() {
            continue;
        }
        let m = check(name, &dir);
        assert!(m.count(GoalKind::Mutant) > 0, "{name}: no mutants");
    }
}

#[test]
fn fixtures_with_mutants_build_and_pass_their_tests() {
    for (name, dir) in [
        ("constructs", fixture("constructs")),
        ("brittle", fixture("brittle")),
        ("member", fixture("ws/member")),
        ("legacy", fixture("legacy")),
    ] {
        let m = check(name, &dir);
        if name == "constructs" {
            assert_body_mutants_that_do_not_compile_cost_only_themselves(&m);
        }
    }
}

/// `shadowed::wrapped` returns a `Result` that is not `std`'s, so its `Ok(..)` body mutants do
/// not compile: the fn is still instrumented, without them; `shadowed::bounds` keeps its six.
fn assert_body_mutants_that_do_not_compile_cost_only_themselves(m: &Manifest) {
    let fbr_of = |fn_name: &str| -> Vec<String> {
        let f = m
            .functions
            .iter()
            .position(|f| f.name.ends_with(fn_name))
            .unwrap_or_else(|| panic!("{fn_name} not instrumented: {:?}", m.skipped));
        m.goals
            .iter()
            .filter(|g| g.function == Some(f as u32) && g.label.starts_with("FBR "))
            .map(|g| g.label.clone())
            .collect()
    };
    assert_eq!(fbr_of("shadowed::wrapped"), Vec::<String>::new());
    assert_eq!(
        fbr_of("shadowed::bounds").len(),
        6,
        "{:?}",
        fbr_of("shadowed::bounds")
    );
}

struct Quiet;

impl Progress for Quiet {
    fn phase(&mut self, _: Phase) {}
    fn generation(&mut self, _: &Generation) {}
}

/// `frugal run <dir> --criteria <criteria>` with `executions` executions, seed 1.
fn run_options(
    dir: PathBuf,
    criteria: &str,
    executions: u64,
    work: &Path,
    out: &Path,
) -> RunOptions {
    RunOptions {
        criteria: criteria.parse::<Criteria>().unwrap(),
        ..support::seeded_run(dir, executions, 2, Duration::from_secs(2), work, out)
    }
}

/// `frugal run examples/numeric --criteria <criteria>` with 6000 executions, seed 1.
fn numeric_options(criteria: &str, work: &Path, out: &Path) -> RunOptions {
    run_options(common::example("numeric"), criteria, 6000, work, out)
}

/// Strong-mutation goals: a mutant goal is covered only by a test that kills it, so every
/// one the emitted suite covers is killed when the suite is judged at the end; the search
/// judged mutants as it went; and the suite kills at least as many of the same mutants as
/// the weak-mutation suite of the same budget, which keeps tests that only infect.
#[test]
fn numeric_strong_mutation_goals_are_covered_only_by_kills() {
    let work = common::work_dir("mutants-numeric-strong");
    let (weak_out, strong_out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let weak = numeric_options("branch,weak-mutation", &work.path, weak_out.path());
    let weak = pipeline::run(&weak, &mut Quiet).unwrap_or_else(|e| panic!("run failed: {e}"));
    let strong = numeric_options("branch,strong-mutation", &work.path, strong_out.path());
    let strong = pipeline::run(&strong, &mut Quiet).unwrap_or_else(|e| panic!("run failed: {e}"));
    let names: Vec<&str> = strong.goals.keys().map(String::as_str).collect();
    assert_eq!(names, ["branch", "strong-mutation"]);
    let (wm, sm) = (
        weak.mutation.as_ref().expect("weak figures"),
        strong.mutation.as_ref().expect("strong figures"),
    );
    eprintln!("numeric weak: {wm:?}\nnumeric strong: {sm:?}");
    let goals = &strong.goals["strong-mutation"];
    assert_eq!(goals.total, sm.mutants);
    assert!(sm.killed >= goals.covered, "{goals:?} {sm:?}");
    assert!(sm.search_judged > 0 && sm.search_killed > 0, "{sm:?}");
    assert!(sm.share_of_executions > 0.0 && sm.executions_per_second > 0.0);
    assert_eq!(
        sm.killed + sm.survived + sm.not_infected,
        sm.mutants,
        "{sm:?}"
    );
    assert_eq!(wm.mutants, sm.mutants);
    assert!(sm.killed >= wm.killed, "strong {sm:?}\nweak {wm:?}");
}

/// `frugal run examples/numeric --criteria branch,weak-mutation`: mutants are counted in the
/// summary, a good share is killed, and the suite verified.
#[test]
fn numeric_kills_mutants_end_to_end() {
    let work = common::work_dir("mutants-numeric");
    let out = tempfile::tempdir().unwrap();
    let opts = numeric_options("branch,weak-mutation", &work.path, out.path());
    let s = pipeline::run(&opts, &mut Quiet).unwrap_or_else(|e| panic!("run failed: {e}"));
    let names: Vec<&str> = s.goals.keys().map(String::as_str).collect();
    assert_eq!(names, ["branch", "weak-mutation"]);
    let wm = &s.goals["weak-mutation"];
    let branch = &s.goals["branch"];
    eprintln!(
        "numeric: weak-mutation {}/{}, branch {}/{}, {:.0} executions/s",
        wm.covered, wm.total, branch.covered, branch.total, s.executions_per_second
    );
    assert!(wm.total >= 50, "{wm:?}");
    assert!(wm.covered * 10 >= wm.total * 6, "{wm:?}");
    assert!(branch.covered * 10 >= branch.total * 8, "{branch:?}");
    assert!(s.tests_emitted > 0);
    assert!(s.tests_dropped.is_empty(), "{:?}", s.tests_dropped);
    let suite = std::fs::read_to_string(&s.output).unwrap();
    assert!(suite.contains("#[test]"));
    // Strong mutation: every mutant is killed, survives or is not infected; an infected
    // mutant the suite kills is one of the weakly killed (covered) ones.
    let m = s
        .mutation
        .as_ref()
        .expect("mutation figures with weak-mutation on");
    eprintln!("numeric: strong mutation {m:?}");
    assert_eq!(m.mutants, wm.total);
    assert_eq!(m.killed + m.survived + m.not_infected, m.mutants, "{m:?}");
    assert_eq!(m.killed + m.survived, wm.covered, "{m:?}");
    assert!(m.killed * 2 >= wm.covered, "{m:?}");
    assert_eq!(m.survivors.len(), m.survived.min(50));
}

/// Mutants that show only at an exact power of ten: the carries of `exact_division`'s
/// multiplication by an inverse change its quotient only at exact multiples of `10^19`. Random
/// tests infect them at once and give up after the usual attempts; judging tests that hold a
/// boundary integer beyond those attempts kills them (itoa's `u128_mulhi`).
#[test]
fn mutants_showing_only_at_exact_powers_are_killed() {
    let work = common::work_dir("mutants-exact-division");
    let out = tempfile::tempdir().unwrap();
    let opts = run_options(
        fixture("exact_division"),
        "branch,strong-mutation",
        8000,
        &work.path,
        out.path(),
    );
    let s = pipeline::run(&opts, &mut Quiet).unwrap_or_else(|e| panic!("run failed: {e}"));
    let m = s.mutation.as_ref().expect("mutation figures");
    eprintln!("exact_division: {m:?}");
    // Without the boundary judgements, seed 1 leaves the four carry mutants of `mulhi` alive.
    assert!(
        m.survivors.is_empty(),
        "mutants survived: {:?}",
        m.survivors
    );
    assert!(m.killed * 10 >= m.mutants * 9, "{m:?}");
}
