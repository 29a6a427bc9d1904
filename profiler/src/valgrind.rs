//! Deterministic figures from valgrind: instructions (cachegrind, no cache simulation) and heap
//! (dhat: total bytes allocated, bytes live at the global peak).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::error::ProfileError;
use crate::launch::{RunSpec, run_plain};
use crate::report::Outcome;

/// Environment variable naming the valgrind binary.
pub const VALGRIND_ENV: &str = "FRUGAL_VALGRIND";

/// The valgrind to use: the configured path, else `$FRUGAL_VALGRIND`, else `valgrind` on PATH.
pub fn resolve_valgrind(configured: Option<&Path>, env: Option<OsString>) -> PathBuf {
    configured
        .map(Path::to_path_buf)
        .or(env.map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("valgrind"))
}

/// Runs `valgrind --version`; a missing binary becomes an error naming the Debian package.
pub(crate) fn check(valgrind: &Path) -> Result<String, ProfileError> {
    // Under a deadline like every command of a job: a wrapper script that hangs must not.
    let output = frugal_sandbox::output_in_group(
        Command::new(valgrind).arg("--version"),
        std::time::Duration::from_secs(60),
    )
    .map_err(|e| ProfileError::ValgrindMissing {
        path: valgrind.to_path_buf(),
        source: e,
    })?;
    if !output.status.success() {
        return Err(ProfileError::ValgrindMissing {
            path: valgrind.to_path_buf(),
            source: std::io::Error::other(format!("`--version` exited with {}", output.status)),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Result of one valgrind run.
#[derive(Debug)]
pub(crate) struct ValgrindRun<T> {
    pub outcome: Outcome,
    /// `None` when the run did not pass or the output file had no figure.
    pub value: Option<T>,
    pub output_tail: Option<String>,
}

/// Heap figures from dhat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Heap {
    pub total_bytes: u64,
    pub peak_bytes: u64,
}

/// Instructions of `spec` under cachegrind; `out_file` receives cachegrind's data.
pub(crate) fn cachegrind(
    valgrind: &Path,
    spec: &RunSpec,
    out_file: &Path,
) -> Result<ValgrindRun<u64>, ProfileError> {
    let tool_args = [
        OsString::from("--tool=cachegrind"),
        OsString::from("--cache-sim=no"),
        flag("--cachegrind-out-file=", out_file),
    ];
    run_tool(valgrind, spec, &tool_args, out_file, |text| {
        parse_cachegrind(text).ok_or_else(|| "no `summary:` line".to_string())
    })
}

/// Heap figures of `spec` under dhat; `out_file` receives dhat's JSON.
pub(crate) fn dhat(
    valgrind: &Path,
    spec: &RunSpec,
    out_file: &Path,
) -> Result<ValgrindRun<Heap>, ProfileError> {
    let tool_args = [
        OsString::from("--tool=dhat"),
        flag("--dhat-out-file=", out_file),
    ];
    run_tool(valgrind, spec, &tool_args, out_file, parse_dhat)
}

fn flag(name: &str, path: &Path) -> OsString {
    let mut flag = OsString::from(name);
    flag.push(path.as_os_str());
    flag
}

/// Runs `valgrind TOOL_ARGS PROGRAM ARGS` and parses the tool's output file when it passed.
fn run_tool<T>(
    valgrind: &Path,
    spec: &RunSpec,
    tool_args: &[OsString],
    out_file: &Path,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<ValgrindRun<T>, ProfileError> {
    let _ = std::fs::remove_file(out_file);
    let mut args: Vec<OsString> = tool_args.to_vec();
    args.push(spec.program.clone().into_os_string());
    args.extend(spec.args.iter().cloned());
    let run = RunSpec {
        args,
        ..spec.clone()
    };
    let (outcome, _) = run_plain(valgrind.as_os_str(), &run)?;
    if !outcome.is_pass() {
        return Ok(ValgrindRun {
            outcome,
            value: None,
            output_tail: crate::launch::read_tail(&spec.output),
        });
    }
    let text = std::fs::read_to_string(out_file).map_err(|e| ProfileError::ValgrindOutput {
        path: out_file.to_path_buf(),
        message: e.to_string(),
    })?;
    let value = parse(&text).map_err(|message| ProfileError::ValgrindOutput {
        path: out_file.to_path_buf(),
        message,
    })?;
    Ok(ValgrindRun {
        outcome,
        value: Some(value),
        output_tail: None,
    })
}

/// The `summary: N` line of a cachegrind out file (the only event is `Ir` with
/// `--cache-sim=no`).
fn parse_cachegrind(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("summary:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// Sums dhat's program points: `tb` (total bytes) and `gb` (bytes at the global peak t-gmax).
fn parse_dhat(text: &str) -> Result<Heap, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if json["mode"].as_str().is_some_and(|m| m != "heap") {
        return Err(format!("dhat mode {} is not heap", json["mode"]));
    }
    let points = json["pps"]
        .as_array()
        .ok_or_else(|| "no `pps` array".to_string())?;
    let sum = |key: &str| points.iter().filter_map(|p| p[key].as_u64()).sum::<u64>();
    Ok(Heap {
        total_bytes: sum("tb"),
        peak_bytes: sum("gb"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cachegrind_summary_is_read() {
        let text = "version: 1\ncreator: valgrind-3.19.0\npid: 1\ncmd: x\nevents: Ir\nfl=a\nfn=b\n3 4\nsummary: 123456\n";
        assert_eq!(parse_cachegrind(text), Some(123456));
        assert_eq!(parse_cachegrind("events: Ir\n"), None);
    }

    #[test]
    fn dhat_points_are_summed() {
        let text = r#"{"dhatFileVersion":2,"mode":"heap","verb":"Allocated","pps":[
            {"tb":100,"tbk":1,"mb":100,"gb":100},{"tb":50,"tbk":2,"mb":25,"gb":0}],"ftbl":[]}"#;
        assert_eq!(
            parse_dhat(text).unwrap(),
            Heap {
                total_bytes: 150,
                peak_bytes: 100
            }
        );
        assert!(parse_dhat("{}").is_err());
        assert!(parse_dhat("nope").is_err());
    }

    #[test]
    fn valgrind_path_prefers_config_then_env() {
        let env = Some(OsString::from("/opt/vg"));
        assert_eq!(
            resolve_valgrind(Some(Path::new("/x/vg")), env.clone()),
            PathBuf::from("/x/vg")
        );
        assert_eq!(resolve_valgrind(None, env), PathBuf::from("/opt/vg"));
        assert_eq!(resolve_valgrind(None, None), PathBuf::from("valgrind"));
    }

    #[test]
    fn missing_valgrind_names_the_debian_package() {
        let err = check(Path::new("/nonexistent/valgrind")).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("`valgrind`") && message.contains("apt-get install valgrind"));
        assert!(message.contains("/nonexistent/valgrind"), "{message}");
    }
}
