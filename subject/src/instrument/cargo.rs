//! Building the instrumented copy and tracing compile errors back to instrumented fns.
//!
//! Hermetic like cargo-mutants' `cargo.rs`: `$CARGO` if set, an explicit target directory,
//! `--cap-lints=warn` *appended* to the encoded rustflags (so probes never trip
//! `deny(warnings)`), stdin closed, JSON diagnostics parsed rather than text scraped.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use super::InstrumentError;

/// One compiler error: where in the crate it points (innermost macro call site first), and
/// its rendered text.
#[derive(Debug, Clone)]
pub(crate) struct CompileError {
    /// `(file relative to the crate root, line)` candidates, most specific first.
    pub locations: Vec<(String, usize)>,
    pub rendered: String,
}

/// Outcome of one `cargo build --lib`.
#[derive(Debug)]
pub(crate) enum Build {
    Ok,
    Failed {
        errors: Vec<CompileError>,
        stderr: String,
    },
}

/// Runs `cargo build --lib` in `root` with `target_dir` and the extra arguments.
pub(crate) fn build_lib(
    root: &Path,
    target_dir: &Path,
    extra: &[String],
) -> Result<Build, InstrumentError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "--lib", "--message-format=json"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .args(extra)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target_dir)
        .env("CARGO_ENCODED_RUSTFLAGS", encoded_rustflags())
        .env_remove("RUSTFLAGS")
        .stdin(Stdio::null())
        .output()
        .map_err(InstrumentError::Cargo)?;
    if output.status.success() {
        return Ok(Build::Ok);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let errors = stdout
        .lines()
        .filter_map(|l| parse_error(l, root))
        .collect();
    let stderr = String::from_utf8_lossy(&output.stderr);
    Ok(Build::Failed {
        errors,
        stderr: tail(&stderr, 4000),
    })
}

/// The caller's rustflags plus `--cap-lints=warn`, in cargo's `\x1f`-separated encoding.
fn encoded_rustflags() -> String {
    let mut flags: Vec<String> = match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(s) => s
            .split('\x1f')
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect(),
        Err(_) => std::env::var("RUSTFLAGS")
            .map(|s| s.split_whitespace().map(String::from).collect())
            .unwrap_or_default(),
    };
    flags.push("--cap-lints=warn".to_string());
    flags.join("\x1f")
}

/// A `compiler-message` of level error from cargo's JSON stream.
fn parse_error(line: &str, root: &Path) -> Option<CompileError> {
    let v: Value = serde_json::from_str(line).ok()?;
    if v.get("reason")?.as_str()? != "compiler-message" {
        return None;
    }
    let msg = v.get("message")?;
    if !msg.get("level")?.as_str()?.starts_with("error") {
        return None;
    }
    let rendered = msg
        .get("rendered")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mut locations = Vec::new();
    for span in msg
        .get("spans")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if span.get("is_primary").and_then(Value::as_bool) == Some(true) {
            expansion_chain(span, root, &mut locations);
        }
    }
    Some(CompileError {
        locations,
        rendered,
    })
}

/// The span and the call sites of the macros it was expanded from, those in the crate only.
fn expansion_chain(span: &Value, root: &Path, out: &mut Vec<(String, usize)>) {
    let mut cur = Some(span);
    while let Some(s) = cur {
        let file = s.get("file_name").and_then(Value::as_str).unwrap_or("");
        let line = s.get("line_start").and_then(Value::as_u64).unwrap_or(0) as usize;
        if let Some(rel) = crate_relative(file, root) {
            out.push((rel, line));
        }
        cur = s.get("expansion").and_then(|e| e.get("span"));
    }
}

fn crate_relative(file: &str, root: &Path) -> Option<String> {
    let p = Path::new(file);
    let rel = if p.is_absolute() {
        p.strip_prefix(root).ok()?
    } else {
        p
    };
    let s = crate::modtree::slash_path(rel);
    (!s.is_empty() && !s.starts_with("..") && !s.starts_with('<')).then_some(s)
}

fn tail(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    format!("...{}", &s[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_located_through_macro_expansions() {
        let line = r#"{"reason":"compiler-message","message":{"level":"error","rendered":"error[E0308]: x","spans":[{"file_name":"/rustc/lib/core/src/macros.rs","line_start":5,"is_primary":true,"expansion":{"span":{"file_name":"src/lib.rs","line_start":12,"is_primary":false}}}]}}"#;
        let e = parse_error(line, Path::new("/tmp/c")).unwrap();
        assert_eq!(e.locations, vec![("src/lib.rs".to_string(), 12)]);
        assert!(
            parse_error(
                r#"{"reason":"build-finished","success":false}"#,
                Path::new("/")
            )
            .is_none()
        );
    }

    #[test]
    fn absolute_paths_inside_the_copy_are_made_relative() {
        assert_eq!(
            crate_relative("/tmp/c/src/a.rs", Path::new("/tmp/c")),
            Some("src/a.rs".into())
        );
        assert_eq!(crate_relative("/elsewhere/x.rs", Path::new("/tmp/c")), None);
    }
}
