//! Building the instrumented copy and tracing compile errors back to instrumented fns, through
//! the one cargo driver (`frugal-cargo`): `$CARGO` if set, an explicit target directory,
//! `--cap-lints=warn` appended to the encoded rustflags (so probes never trip
//! `deny(warnings)`), stdin closed, JSON diagnostics parsed rather than text scraped.

use std::path::Path;

use frugal_sandbox::Policy;

use super::InstrumentError;
use crate::cargo::build_timeout;

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

/// Runs `cargo build --lib` in `root` with `target_dir` and the extra arguments, confined by
/// `sandbox` when given.
pub(crate) fn build_lib(
    root: &Path,
    target_dir: &Path,
    extra: &[String],
    sandbox: Option<&Policy>,
) -> Result<Build, InstrumentError> {
    let cargo = crate::cargo::builder(root, target_dir, sandbox);
    let mut cmd = cargo.command(root);
    cmd.args(["build", "--lib", "--message-format=json"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .args(extra);
    let out = cargo.output(cmd, build_timeout())?;
    if out.success {
        return Ok(Build::Ok);
    }
    let errors = out
        .messages
        .errors
        .iter()
        .map(|e| CompileError {
            locations: e.locations_in(root),
            rendered: e.rendered.clone(),
        })
        .collect();
    let tail = out.stderr_tail(4000);
    let stderr = if tail.len() < out.stderr.len() {
        format!("...{tail}")
    } else {
        tail.to_string()
    };
    Ok(Build::Failed { errors, stderr })
}
