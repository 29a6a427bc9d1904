//! Listing the tests of a libtest binary (`--list --format terse`, with and without `--ignored`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use frugal_sandbox::Policy;

use crate::error::ProfileError;
use crate::launch::Proc;

/// Tests of one binary: those to run and those marked `#[ignore]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Listing {
    pub tests: Vec<String>,
    pub ignored: Vec<String>,
    /// `#[bench]` functions (nightly only; `cargo test` runs them once, frugal does not).
    pub benchmarks: Vec<String>,
}

/// Why a binary could not be listed (a custom harness, or a crash).
pub(crate) type ListFailure = String;

/// How and where a listing runs: the binary's code runs (static constructors, a custom
/// harness), so it is confined like a test and killed at a deadline.
pub(crate) struct ListRun<'a> {
    pub cwd: &'a Path,
    pub env: &'a [(OsString, OsString)],
    pub sandbox: Option<&'a Policy>,
    pub timeout: Duration,
    /// A directory for the listing's output files (writable under the policy).
    pub scratch: &'a Path,
}

/// Lists `executable` in the crate's directory and environment.
pub(crate) fn list(
    executable: &Path,
    run: &ListRun<'_>,
) -> Result<Result<Listing, ListFailure>, ProfileError> {
    let all = match run_list(executable, run, false)? {
        Ok(out) => out,
        Err(failure) => return Ok(Err(failure)),
    };
    let ignored = match run_list(executable, run, true)? {
        Ok(out) => out,
        Err(failure) => return Ok(Err(failure)),
    };
    let all = match parse_terse(&all) {
        Ok(all) => all,
        Err(e) => return Ok(Err(e)),
    };
    let ignored = match parse_terse(&ignored) {
        Ok(ignored) => ignored,
        Err(e) => return Ok(Err(e)),
    };
    let ignored_tests: Vec<String> = ignored.0;
    let tests = all
        .0
        .into_iter()
        .filter(|t| !ignored_tests.contains(t))
        .collect();
    Ok(Ok(Listing {
        tests,
        ignored: ignored_tests,
        benchmarks: all.1,
    }))
}

fn run_list(
    executable: &Path,
    run: &ListRun<'_>,
    ignored: bool,
) -> Result<Result<String, ListFailure>, ProfileError> {
    let file = |name: &str| -> Result<(PathBuf, std::fs::File), ProfileError> {
        let path = run.scratch.join(name);
        let f = std::fs::File::create(&path)
            .map_err(|e| ProfileError::io(format!("create `{}`", path.display()), e))?;
        Ok((path, f))
    };
    let (out_path, out) = file("list.out")?;
    let (err_path, err) = file("list.err")?;
    let mut command = Command::new(executable);
    command.args(["--list", "--format", "terse"]);
    if ignored {
        command.arg("--ignored");
    }
    command
        .current_dir(run.cwd)
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    let mut child = Proc::spawn(command, run.sandbox, run.timeout)?;
    let status = child.wait_timeout(run.timeout)?;
    let read = |path: &Path| {
        std::fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| ProfileError::io(format!("read `{}`", path.display()), e))
    };
    let Some(status) = status else {
        return Ok(Err(format!(
            "`--list --format terse` did not finish within {} s and was killed",
            run.timeout.as_secs()
        )));
    };
    if !status.success() {
        let stderr = read(&err_path)?;
        let head: Vec<&str> = stderr.lines().take(5).collect();
        return Ok(Err(format!(
            "`--list --format terse` failed ({}): {}",
            status,
            head.join(" / ")
        )));
    }
    Ok(Ok(read(&out_path)?))
}

/// Tests and benchmarks of a terse listing; any other line means this is not libtest output.
fn parse_terse(output: &str) -> Result<(Vec<String>, Vec<String>), ListFailure> {
    let mut tests = Vec::new();
    let mut benchmarks = Vec::new();
    for line in output.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(name) = line.strip_suffix(": test") {
            tests.push(name.to_string());
        } else if let Some(name) = line.strip_suffix(": benchmark") {
            benchmarks.push(name.to_string());
        } else {
            return Err(format!(
                "not a libtest listing (custom harness?): unexpected line {line:?}"
            ));
        }
    }
    Ok((tests, benchmarks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terse_lines_split_into_tests_and_benchmarks() {
        let (tests, benches) =
            parse_terse("a::b: test\nc: benchmark\n\nmod::it works: test\n").unwrap();
        assert_eq!(tests, vec!["a::b", "mod::it works"]);
        assert_eq!(benches, vec!["c"]);
    }

    #[test]
    fn other_output_is_rejected() {
        let err = parse_terse("a: test\n1 tests, 0 benchmarks\n").unwrap_err();
        assert!(err.contains("unexpected line"), "{err}");
    }
}
