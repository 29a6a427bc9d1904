//! Instrumented copies of real crates build, keep every line where it was, and pass the
//! crates' own tests (the probe runtime is uninitialised there, so every probe is a no-op that
//! returns its input).
//!
//! Builds share `target/instrument-tests` so that repeated runs stay cached.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use frugal_subject::instrument::{
    COMPILE_ERROR, Exclusion, Instrumented, Options, instrument, instrument_and_build,
};
use frugal_subject::manifest::{GoalKind, Manifest, Skipped};

fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn target_dir() -> PathBuf {
    workspace_dir().join("target/instrument-tests")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Runs the copy's own tests the way the instrumented build was made.
fn run_own_tests(root: &Path) {
    frugal_testkit::cargo_test(root, &target_dir());
}

/// Every rewritten file has the original's line count, and every goal's line holds code.
fn assert_lines_kept(original: &Path, inst: &Instrumented) {
    let mut files: BTreeMap<&str, ()> = BTreeMap::new();
    for g in &inst.manifest.goals {
        files.insert(&g.file, ());
    }
    for file in files.keys() {
        let before = std::fs::read_to_string(original.join(file))
            .unwrap()
            .replace("\r\n", "\n");
        let after = std::fs::read_to_string(inst.root.join(file)).unwrap();
        // Edition 2015 gets `extern crate` after the last line, which moves no line.
        let after = after
            .strip_suffix("\nextern crate frugal_probe;\n")
            .unwrap_or(&after);
        assert_eq!(
            before.lines().count(),
            after.lines().count(),
            "{file}: line count changed"
        );
        assert_ne!(before, after, "{file} has goals but no probes");
        let lines: Vec<&str> = before.lines().collect();
        for g in inst.manifest.goals.iter().filter(|g| &g.file == file) {
            let text = lines.get(g.line - 1).copied().unwrap_or("");
            assert!(
                !text.trim().is_empty(),
                "{file}:{} ({}) is blank",
                g.line,
                g.label
            );
        }
    }
}

fn assert_parents_are_consistent(m: &Manifest) {
    for (i, g) in m.goals.iter().enumerate() {
        assert_eq!(g.id as usize, i);
        match g.kind {
            GoalKind::Function => assert_eq!(g.parent, None),
            _ => {
                let p = g.parent.expect("non-entry goal without parent") as usize;
                assert!(p < i, "parent after child");
                assert_ne!(m.goals[p].kind, GoalKind::Line, "a line goal as parent");
                assert_eq!(m.goals[p].function, g.function, "parent in another fn");
            }
        }
    }
    for f in &m.functions {
        assert_eq!(m.goals[f.entry_goal as usize].kind, GoalKind::Function);
    }
}

fn summary(name: &str, m: &Manifest) -> String {
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &m.skipped {
        *skipped.entry(s.reason.as_str()).or_default() += 1;
    }
    format!(
        "{name}: {} fns, {} loops, goals: {} function / {} branch / {} line; skipped {:?}",
        m.functions.len(),
        m.loops.len(),
        m.count(GoalKind::Function),
        m.count(GoalKind::Branch),
        m.count(GoalKind::Line),
        skipped
    )
}

/// Instruments and builds `dir`, checks lines and parents, runs the crate's own tests.
fn check_crate(name: &str, dir: &Path) -> (tempfile::TempDir, Instrumented) {
    let out = tempfile::tempdir().unwrap();
    let inst = instrument_and_build(dir, out.path(), &target_dir(), &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_lines_kept(dir, &inst);
    assert_parents_are_consistent(&inst.manifest);
    run_own_tests(&inst.root);
    eprintln!("{}", summary(name, &inst.manifest));
    (out, inst)
}

/// The spots left uninstrumented because their probes did not compile.
fn compile_errors(inst: &Instrumented) -> Vec<&Skipped> {
    inst.manifest
        .skipped
        .iter()
        .filter(|s| s.reason == COMPILE_ERROR)
        .collect()
}

fn check_example(name: &str) {
    let dir = workspace_dir().join("examples").join(name);
    if !dir.join("src/lib.rs").is_file() {
        eprintln!("examples/{name} is not there yet; skipped");
        return;
    }
    let (_out, inst) = check_crate(name, &dir);
    assert!(
        inst.manifest.count(GoalKind::Branch) > 0,
        "{name}: no branch goals"
    );
    let broken = compile_errors(&inst);
    eprintln!("{name}: excluded after compile errors: {broken:?}");
}

#[test]
fn example_numeric_builds_and_passes_its_tests() {
    check_example("numeric");
}

#[test]
fn example_textparse_builds_and_passes_its_tests() {
    check_example("textparse");
}

#[test]
fn example_statemachine_builds_and_passes_its_tests() {
    check_example("statemachine");
}

/// Observers type-check on every flag call of `flagparse` (strings, chars, a `BTreeMap`,
/// `parse` with an inferred target, `try_from`): no fn is excluded for a compile error, and
/// every site has its two goals.
#[test]
fn example_flagparse_builds_with_every_observer() {
    let dir = workspace_dir().join("examples").join("flagparse");
    let (_out, inst) = check_crate("flagparse", &dir);
    let broken = compile_errors(&inst);
    assert!(
        broken.is_empty(),
        "excluded after compile errors: {broken:?}"
    );
    let labels: Vec<&str> = inst
        .manifest
        .goals
        .iter()
        .map(|g| g.label.as_str())
        .collect();
    for label in [
        "is_empty true",
        "strip_prefix some",
        "parse err",
        "try_from ok",
        "split_once none",
        "starts_with false",
        "contains_key true",
        "get some",
        "to_digit none",
        "rsplit_once some",
        "eq_ignore_ascii_case false",
    ] {
        assert!(labels.contains(&label), "no goal {label:?} in {labels:?}");
    }
}

#[test]
fn example_hostile_builds_and_passes_its_tests() {
    check_example("hostile");
}

#[test]
fn every_construct_compiles_and_keeps_its_behaviour() {
    let (_out, inst) = check_crate("constructs", &fixture("constructs"));
    let m = &inst.manifest;
    assert!(
        m.skipped.iter().all(|s| s.reason != COMPILE_ERROR),
        "{:?}",
        m.skipped
    );
    // A `const fn` only called at run time is instrumented; one a constant needs is not.
    let instrumented = |name: &str| m.functions.iter().any(|f| f.name.ends_with(name));
    assert!(instrumented("consts::halved"), "{:?}", m.functions);
    assert!(!instrumented("consts::limit") && !instrumented("consts::base"));
    // An `async fn` is entered without a guard held across awaits (`enter_async`).
    assert!(instrumented("async_fn"), "{:?}", m.functions);
    // `gated` is behind a feature the build leaves off: its lines are compiled out.
    let text = std::fs::read_to_string(fixture("constructs").join("src/lib.rs")).unwrap();
    let gated = 1 + text
        .lines()
        .position(|l| l.starts_with("pub fn gated"))
        .expect("gated in the fixture");
    assert!(
        m.is_compiled_out("src/lib.rs", gated),
        "{:?}",
        m.compiled_out
    );
    assert!(!m.is_compiled_out("src/lib.rs", gated - 5));
    assert!(
        !instrumented("::gated"),
        "compiled-out code gets no goals: {:?}",
        m.functions
    );
    let reasons: Vec<&str> = m.skipped.iter().map(|s| s.reason.as_str()).collect();
    for expected in [
        "cfg(test)",
        "const fn",
        "frugal::skip",
        "macro body",
        "const initialiser",
        "compiled out by cfg",
    ] {
        assert!(
            reasons.contains(&expected),
            "no `{expected}` in {reasons:?}"
        );
    }
    let files: Vec<&str> = m.functions.iter().map(|f| f.file.as_str()).collect();
    for file in [
        "src/lib.rs",
        "src/a.rs",
        "src/a/b.rs",
        "src/d/mod.rs",
        "src/other/c.rs",
    ] {
        assert!(files.contains(&file), "no fn instrumented in {file}");
    }
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"a::b::in_b"), "{names:?}");
    assert!(names.contains(&"<Square as Shape>::describe") || names.contains(&"Shape::describe"));
    assert!(names.contains(&"Square::grow::clamp"), "{names:?}");
}

#[test]
fn a_compile_error_excludes_only_the_offending_fn_or_macro() {
    let (_out, inst) = check_crate("brittle", &fixture("brittle"));
    let m = &inst.manifest;
    let excluded: Vec<_> = m
        .skipped
        .iter()
        .filter(|s| s.reason == COMPILE_ERROR)
        .collect();
    let lines: Vec<usize> = excluded.iter().map(|s| s.line).collect();
    assert_eq!(lines, [14, 29], "{:?}", m.skipped);
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["Counter::bump", "Counter::fine", "$name::above"]);
}

#[test]
fn workspace_inheritance_is_resolved_in_the_copy() {
    check_crate("member", &fixture("ws/member"));
}

#[test]
fn edition_2015_and_crlf_sources_work() {
    let (_out, inst) = check_crate("legacy", &fixture("legacy"));
    assert_eq!(inst.manifest.functions.len(), 2);
    let lib = std::fs::read_to_string(inst.root.join("src/lib.rs")).unwrap();
    assert!(lib.ends_with("\nextern crate frugal_probe;\n"));
}

#[test]
fn the_users_tree_is_untouched_and_excluded_items_are_recorded() {
    let dir = fixture("constructs");
    let snapshot = |d: &Path| -> BTreeMap<PathBuf, Vec<u8>> {
        walk_files(d)
            .into_iter()
            .map(|p| (p.clone(), std::fs::read(d.join(&p)).unwrap()))
            .collect()
    };
    let before = snapshot(&dir);
    let out = tempfile::tempdir().unwrap();
    let opts = Options {
        exclude: vec![
            Exclusion {
                file: "src/a.rs".into(),
                line: Some(3),
                reason: "by request".into(),
            },
            Exclusion {
                file: "src/a/b.rs".into(),
                line: None,
                reason: "whole file".into(),
            },
        ],
        ..Options::default()
    };
    let inst = instrument(&dir, out.path(), &opts).unwrap();
    assert_eq!(before, snapshot(&dir));
    let m = &inst.manifest;
    assert!(
        m.skipped
            .iter()
            .any(|s| s.file == "src/a.rs" && s.line == 3 && s.reason == "by request")
    );
    assert!(
        m.skipped
            .iter()
            .any(|s| s.file == "src/a/b.rs" && s.reason == "whole file")
    );
    assert!(
        m.functions
            .iter()
            .all(|f| f.file != "src/a.rs" && f.file != "src/a/b.rs")
    );
    let copied = std::fs::read_to_string(inst.root.join("src/a/b.rs")).unwrap();
    assert_eq!(
        copied,
        std::fs::read_to_string(dir.join("src/a/b.rs")).unwrap()
    );
    // A second run over the same output directory is stable.
    let again = instrument(&dir, out.path(), &opts).unwrap();
    assert_eq!(again.manifest.goals, inst.manifest.goals);
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel)).unwrap() {
            let entry = entry.unwrap();
            let p = rel.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Instruments and builds the crate at `$FRUGAL_INSTRUMENT_CRATE` and prints what it got, for
/// trying the instrumenter on real crates: `FRUGAL_INSTRUMENT_CRATE=~/src/foo cargo test -p
/// frugal-subject --test instrument any_crate -- --ignored --nocapture`.
#[test]
#[ignore]
fn any_crate() {
    let Some(dir) = std::env::var_os("FRUGAL_INSTRUMENT_CRATE") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let out = tempfile::tempdir().unwrap();
    let inst = instrument_and_build(&dir, out.path(), &target_dir(), &Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    assert_lines_kept(&dir, &inst);
    assert_parents_are_consistent(&inst.manifest);
    eprintln!("{}", summary(&dir.display().to_string(), &inst.manifest));
    for s in inst
        .manifest
        .skipped
        .iter()
        .filter(|s| s.reason == COMPILE_ERROR)
    {
        eprintln!("  excluded {}:{}", s.file, s.line);
    }
}
