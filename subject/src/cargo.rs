//! Driving cargo: one place that builds commands, reads its JSON messages, and turns compiler
//! errors into file/line diagnostics the callers can map back to what they generated.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A compiler error at a primary span.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// File as cargo reports it (relative to the package root or absolute).
    pub file: String,
    pub line: usize,
    /// The rendered message, as a user would see it.
    pub rendered: String,
}

/// What a `cargo build`/`cargo test --no-run` produced.
#[derive(Debug, Default)]
pub struct BuildOutput {
    pub success: bool,
    pub errors: Vec<Diagnostic>,
    /// Executables of the built targets, with the target's name.
    pub executables: Vec<(String, PathBuf)>,
    /// Cargo's own stderr (resolution failures and the like), last part.
    pub stderr_tail: String,
}

/// `cargo` (or `$CARGO`) with the environment frugal always sets: warnings capped so a crate's
/// `deny(warnings)` cannot reject probes, and no progress bars in captured output.
pub fn command(dir: &Path, target_dir: &Path) -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(dir);
    c.env("CARGO_TARGET_DIR", target_dir);
    c.env("CARGO_TERM_PROGRESS_WHEN", "never");
    c.env("CARGO_TERM_COLOR", "never");
    let mut flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if !flags.is_empty() {
        flags.push('\x1f');
    }
    flags.push_str("--cap-lints=warn");
    c.env("CARGO_ENCODED_RUSTFLAGS", flags);
    c.env_remove("RUSTFLAGS");
    c.stdin(Stdio::null());
    c
}

/// Runs a cargo command with `--message-format=json` already among its arguments.
pub fn run_json(mut cmd: Command) -> std::io::Result<BuildOutput> {
    let out = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).output()?;
    let mut b = BuildOutput {
        success: out.status.success(),
        ..Default::default()
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        match msg["reason"].as_str() {
            Some("compiler-message") if msg["message"]["level"] == "error" => {
                b.errors.push(diagnostic(&msg["message"]));
            }
            Some("compiler-artifact") => {
                if let Some(exe) = msg["executable"].as_str() {
                    let name = msg["target"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string();
                    b.executables.push((name, PathBuf::from(exe)));
                }
            }
            _ => {}
        }
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let start = err.len().saturating_sub(4000);
    let start = (start..err.len())
        .find(|&i| err.is_char_boundary(i))
        .unwrap_or(err.len());
    b.stderr_tail = err[start..].to_string();
    Ok(b)
}

fn diagnostic(m: &serde_json::Value) -> Diagnostic {
    let rendered = m["rendered"].as_str().unwrap_or_default().to_string();
    let spans = m["spans"].as_array().cloned().unwrap_or_default();
    let primary = spans
        .iter()
        .find(|s| s["is_primary"] == true)
        .or(spans.first());
    let (file, line) = primary
        .map(|s| {
            (
                s["file_name"].as_str().unwrap_or_default().to_string(),
                s["line_start"].as_u64().unwrap_or(0) as usize,
            )
        })
        .unwrap_or_default();
    Diagnostic {
        file,
        line,
        rendered,
    }
}

/// First lines of the first errors, for a message a user can act on.
pub fn summarise_errors(b: &BuildOutput, max: usize) -> String {
    if b.errors.is_empty() {
        return b
            .stderr_tail
            .lines()
            .rev()
            .take(15)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
    }
    b.errors
        .iter()
        .take(max)
        .map(|d| d.rendered.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
