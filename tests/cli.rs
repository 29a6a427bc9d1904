//! The `frugal` binary as a user runs it: exit codes, JSON output, and the messages of the
//! common mistakes (a bad budget, a directory that is not a crate, a crate that does not build).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use frugal_testkit::{binaries, work_dir, workspace};

fn frugal() -> Command {
    let mut cmd = Command::new(&binaries().frugal);
    cmd.current_dir(workspace());
    cmd
}

/// A fresh directory under cargo's scratch space for integration tests, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("frugal-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `frugal run examples/numeric --budget 20000 --json` into `out` and `work`, two workers.
fn numeric_json(out: &Scratch, work: &Path, extra: &[&str]) -> Output {
    frugal()
        .args(["run", "examples/numeric", "--budget", "20000", "--json"])
        .args(extra)
        .arg("--out")
        .arg(&out.0)
        .arg("--work-dir")
        .arg(work)
        .args(["--workers", "2"])
        .output()
        .unwrap()
}

#[test]
fn run_with_json_exits_zero_and_prints_the_summary_as_json() {
    let out = Scratch::new("json");
    let work = work_dir("cli-numeric");
    let result = numeric_json(&out, &work.path, &[]);
    let (stdout, stderr) = text(&result);
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");
    // Nothing but the JSON on stdout: the progress bar is hidden with --json.
    let json: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{stdout}"));
    let branch = &json["goals"]["branch"];
    let covered = branch["covered"].as_u64().expect("goals.branch.covered");
    let total = branch["total"].as_u64().expect("goals.branch.total");
    assert!(covered > 0 && covered <= total, "{branch}");
    assert_eq!(json["krate"], "numeric");
    assert_eq!(json["seed"], 1);
    assert_eq!(json["executions"], 20000);
    assert_eq!(json["budget"], "20000 executions");
    assert!(json["tests_emitted"].as_u64().unwrap() > 0);
    let suite = out.0.join("frugal_generated.rs");
    assert_eq!(json["output"].as_str(), suite.to_str());
    assert!(suite.is_file());
    // The suite's measured cost sits beside the proxies' estimate, here and in summary.json.
    let measured = &json["measured_cost"];
    assert!(
        measured["total"].as_f64().is_some_and(|t| t > 0.0),
        "{measured}"
    );
    assert!(
        measured["tests_measured"].as_u64().unwrap_or(0) > 0,
        "{measured}"
    );
    assert!(
        !measured["unit"].as_str().unwrap_or("").is_empty(),
        "{measured}"
    );
    let on_disk: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(on_disk["measured_cost"], *measured);
}

/// `--ci-cost`: what CI pays for the emitted suite and, beside it, the crate's own tests, in
/// the JSON summary and in summary.json.
#[test]
fn ci_cost_puts_the_suite_and_the_own_tests_side_by_side() {
    let out = Scratch::new("ci-cost");
    let work = work_dir("cli-numeric-ci-cost");
    let result = numeric_json(&out, &work.path, &["--ci-cost", "--no-measure"]);
    let (stdout, stderr) = text(&result);
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let ci = &json["ci_cost"];
    assert!(ci["notes"].is_null(), "{ci}");
    let nextest = Command::new("cargo")
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    for (side, target) in [("generated", "frugal_generated"), ("own", "--lib")] {
        let c = &ci[side];
        assert!(
            c["targets"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t == target)),
            "{c}"
        );
        assert!(
            c["build_clean_seconds"].as_f64().unwrap_or(0.0) > 0.0,
            "{c}"
        );
        assert!(
            c["build_incremental_seconds"].as_f64().unwrap_or(0.0) > 0.0,
            "{c}"
        );
        assert_eq!(c["cargo_test"]["passed"], true, "{c}");
        assert_eq!(c["cargo_test"]["runs"], 3, "{c}");
        assert_eq!(
            c["nextest"]["passed"].as_bool(),
            nextest.then_some(true),
            "{c}"
        );
    }
    let on_disk: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(on_disk["ci_cost"], *ci);
    assert!(json.get("measured_cost").is_none(), "--no-measure");
}

#[test]
fn a_crate_asking_for_another_toolchain_is_built_with_frugals_own() {
    // rustup's proxies would try to install this toolchain (read-only and offline when
    // confined): frugal runs the real cargo and rustc of the toolchain it runs with.
    let dir = Scratch::new("toolchain");
    let krate = dir.0.join("numeric");
    frugal_testkit::copy_example("numeric", &krate).unwrap();
    std::fs::write(
        krate.join("rust-toolchain.toml"),
        "[toolchain]\nchannel = \"1.0.0\"\ncomponents = [\"rust-src\"]\n",
    )
    .unwrap();
    let work = work_dir("cli-toolchain");
    let result = frugal()
        .args(["run", "--budget", "300", "--json"])
        .arg(&krate)
        .arg("--out")
        .arg(dir.0.join("out"))
        .arg("--work-dir")
        .arg(&work.path)
        // As a user's shell has it: no toolchain chosen by a cargo running us.
        .env_remove("CARGO")
        .env_remove("RUSTC")
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .unwrap();
    let (_, stderr) = text(&result);
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");
}

#[test]
fn a_relative_work_dir_is_taken_from_the_current_directory() {
    let out = Scratch::new("relative");
    // Held so that no other test uses the same cache; the path given is relative.
    let _work = work_dir("cli-relative");
    let result = frugal()
        .args(["run", "examples/statemachine", "--budget", "500", "--json"])
        .args(["--work-dir", "target/frugal-tests/cli-relative"])
        .arg("--out")
        .arg(&out.0)
        .output()
        .unwrap();
    let (_, stderr) = text(&result);
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");
    assert!(
        workspace()
            .join("target/frugal-tests/cli-relative/harness")
            .is_dir()
    );
}

#[test]
fn a_budget_with_an_unknown_unit_is_rejected_with_a_message_about_the_budget() {
    let result = frugal()
        .args(["run", "examples/numeric", "--budget", "5x"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&result);
    assert!(!result.status.success());
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("--budget"), "{stderr}");
    assert!(
        stderr.contains("unknown budget unit `x` in `5x`"),
        "{stderr}"
    );
}

#[test]
fn a_huge_budget_is_rejected_with_its_bound_not_a_panic() {
    for (budget, says) in [
        ("18446744073709551615h", "at most 24 h"),
        ("1e30s", "unknown budget unit"),
        ("18446744073709551615", "at most 1000000000000 executions"),
    ] {
        let result = frugal()
            .args(["run", "examples/numeric", "--budget", budget])
            .output()
            .unwrap();
        let (_, stderr) = text(&result);
        assert_eq!(result.status.code(), Some(2), "{budget}: {stderr}");
        assert!(!stderr.contains("panicked"), "{budget}: {stderr}");
        assert!(stderr.contains(says), "{budget}: {stderr}");
    }
}

#[test]
fn a_directory_without_a_cargo_toml_is_rejected_with_a_clear_message() {
    let dir = Scratch::new("not-a-crate");
    std::fs::write(dir.0.join("README.md"), "no crate here\n").unwrap();
    let result = frugal().arg("run").arg(&dir.0).output().unwrap();
    let (_, stderr) = text(&result);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{} has no Cargo.toml", dir.0.display())),
        "{stderr}"
    );
    assert!(stderr.contains("directory of a Rust crate"), "{stderr}");
    // Nothing was written next to the non-crate.
    assert!(!dir.0.join("frugal.out").exists());
}

#[test]
fn a_crate_that_does_not_compile_fails_with_exit_code_2_and_the_compiler_error() {
    let dir = Scratch::new("broken");
    let krate = dir.0.join("broken_widget");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        concat!(
            "[package]\nname = \"broken_widget\"\nversion = \"0.1.0\"\n",
            "edition = \"2021\"\n\n[workspace]\n",
        ),
    )
    .unwrap();
    std::fs::write(
        krate.join("src/lib.rs"),
        "pub fn widen(x: i32) -> i64 {\n    x + \"one\"\n}\n",
    )
    .unwrap();
    let work = work_dir("cli-broken");
    let result = frugal()
        .arg("run")
        .arg(&krate)
        .args(["--budget", "100", "--json"])
        .arg("--out")
        .arg(dir.0.join("out"))
        .arg("--work-dir")
        .arg(&work.path)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&result);
    assert_eq!(
        result.status.code(),
        Some(2),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("broken_widget"), "{stderr}");
    assert!(stderr.contains("does not build"), "{stderr}");
    // The compiler's own words, with the user's line.
    assert!(stderr.contains("cannot add `&str` to `i32`"), "{stderr}");
    assert!(stderr.contains("src/lib.rs:2"), "{stderr}");
}

/// One missed mutant in cargo-mutants' `outcomes.json` form.
fn missed(name: &str, fn_line: usize, line: usize, genre: &str, replacement: &str) -> String {
    format!(
        r#"{{"scenario": {{"Mutant": {{"name": "{name}", "package": "numeric", "file": "src/lib.rs",
            "function": {{"function_name": "f", "return_type": "",
                "span": {{"start": {{"line": {fn_line}, "column": 1}}, "end": {{"line": {line}, "column": 1}}}}}},
            "span": {{"start": {{"line": {line}, "column": 5}}, "end": {{"line": {line}, "column": 9}}}},
            "replacement": "{replacement}", "genre": "{genre}"}}}},
          "summary": "MissedMutant"}}"#
    )
}

/// `--kill-survivors`: the own suite's survivors get a verdict each, the killed ones with the
/// emitted test that kills them; a file that is not cargo-mutants' is refused by name.
#[test]
fn kill_survivors_gives_each_survivor_a_verdict() {
    let out = Scratch::new("survivors");
    let work = work_dir("cli-survivors");
    let outcomes = out.0.join("outcomes.json");
    let survivors = [
        missed(
            "src/lib.rs:173:5: replace gcd -> u64 with 0",
            171,
            173,
            "FnValue",
            "0",
        ),
        missed(
            "src/lib.rs:176:17: replace % with / in gcd",
            171,
            176,
            "BinaryOperator",
            "/",
        ),
        missed(
            "src/lib.rs:33:5: replace classify_triangle -> Triangle with Default::default()",
            31,
            33,
            "FnValue",
            "Default::default()",
        ),
    ];
    std::fs::write(
        &outcomes,
        format!(
            r#"{{"outcomes": [{{"scenario": "Baseline", "summary": "Success"}}, {}], "total_mutants": 3}}"#,
            survivors.join(", ")
        ),
    )
    .unwrap();
    let survivors = outcomes.to_str().unwrap();
    let result = numeric_json(
        &out,
        &work.path,
        &["--no-measure", "--kill-survivors", survivors],
    );
    let (stdout, stderr) = text(&result);
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let r = &json["survivors"];
    assert_eq!(r["survivors"], 3, "{r}");
    // Weak mutation is on, so the strong figures are there too.
    assert!(json["mutation"]["killed"].as_u64().unwrap() > 0, "{json}");
    let verdicts = r["verdicts"].as_array().unwrap();
    let of = |name: &str| {
        verdicts
            .iter()
            .find(|v| v["name"].as_str().unwrap().contains(name))
            .unwrap_or_else(|| panic!("no verdict on {name}: {r}"))
    };
    let gcd = of("replace gcd -> u64 with 0");
    assert_eq!(gcd["verdict"], "killed", "{r}");
    let killer = gcd["test"].as_str().unwrap();
    let suite = std::fs::read_to_string(out.0.join("frugal_generated.rs")).unwrap();
    assert!(
        suite.contains(&format!("fn {killer}()")),
        "{killer} not in\n{suite}"
    );
    assert!(
        ["killed", "possibly_equivalent"]
            .contains(&of("replace % with /")["verdict"].as_str().unwrap()),
        "{r}"
    );
    let triangle = of("classify_triangle");
    assert_eq!(triangle["verdict"], "no_counterpart", "{r}");
    assert!(triangle["reached_by"].is_string(), "{r}");

    std::fs::write(&outcomes, "{\"outcomes\": 3}").unwrap();
    let result = frugal()
        .args(["run", "examples/numeric", "--budget", "100"])
        .arg("--kill-survivors")
        .arg(&outcomes)
        .output()
        .unwrap();
    let (_, stderr) = text(&result);
    assert_ne!(result.status.code(), Some(0));
    assert!(
        stderr.contains("outcomes.json is not cargo-mutants' outcomes.json"),
        "{stderr}"
    );
}

#[test]
fn help_for_run_documents_every_flag() {
    let result = frugal().args(["run", "--help"]).output().unwrap();
    let (help, stderr) = text(&result);
    assert!(result.status.success(), "{stderr}");
    for flag in [
        "--budget",
        "--seed",
        "--algorithm",
        "--out",
        "--write",
        "--workers",
        "--timeout-ms",
        "--work-dir",
        "--features",
        "--all-features",
        "--from-model",
        "--stall",
        "--no-measure",
        "--kill-survivors",
        "--json",
        "--help",
    ] {
        assert!(
            help.lines()
                .any(|l| l.trim_start().split([' ', ',']).any(|w| w == flag)),
            "{flag} missing from:\n{help}"
        );
    }
    assert!(help.contains("<KRATE>"), "{help}");
    // Every option line, and the positional argument, carries a description: either after
    // the flag on the same line, or on the next, more indented line.
    let lines: Vec<&str> = help.lines().collect();
    let mut options = 0;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if !(trimmed.starts_with('-') || trimmed.starts_with("<KRATE>")) {
            continue;
        }
        options += 1;
        let indent = line.len() - trimmed.len();
        let same_line = trimmed
            .split_once("  ")
            .is_some_and(|(_, d)| !d.trim().is_empty());
        let next_line = lines.get(i + 1).is_some_and(|n| {
            let t = n.trim_start();
            !t.is_empty() && !t.starts_with('-') && n.len() - t.len() > indent
        });
        assert!(same_line || next_line, "undocumented: {line:?} in\n{help}");
    }
    assert!(options >= 13, "found only {options} arguments in\n{help}");
}

/// `cargo frugal ...` is the same CLI: cargo finds `cargo-frugal` on `PATH` and passes
/// `frugal` first, which it drops.
#[test]
fn cargo_frugal_is_the_same_cli_as_a_cargo_subcommand() {
    let bin_dir = binaries().frugal.parent().unwrap().to_path_buf();
    assert!(bin_dir.join("cargo-frugal").is_file());
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let via_cargo = Command::new(cargo)
        .args(["frugal", "--version"])
        .env("PATH", &path)
        .output()
        .unwrap();
    let direct = frugal().arg("--version").output().unwrap();
    assert!(via_cargo.status.success(), "{:?}", text(&via_cargo));
    assert_eq!(text(&via_cargo).0, text(&direct).0);
    // Exit codes pass through: a bad argument is 2 either way.
    let bad = Command::new(binaries().frugal.with_file_name("cargo-frugal"))
        .args(["frugal", "run", "--budget", "5 parsecs", "."])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "{:?}", text(&bad));
}
