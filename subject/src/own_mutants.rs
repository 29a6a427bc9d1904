//! The crate's own survivors found by running cargo-mutants (frugald's `mutation.survivors`):
//! `cargo mutants` on the crate's own suite, confined like every run of the crate's code (its
//! tests run once per mutant), offline after an unconfined `cargo fetch`. What it writes is read
//! by [`crate::survivors`], which must not know how cargo-mutants is run; this module must not
//! know what becomes of the survivors.
//!
//! cargo-mutants' `outcomes.json` is written by a process tree that also runs the crate's tests,
//! so a hostile crate can forge it. That only changes which mutants its own job's search aims at
//! and the verdicts the job reports about its own suite; the file is read with a size bound.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use frugal_sandbox::Policy;

use crate::survivors::{Survivor, parse_outcomes_at};

/// The largest `outcomes.json` read: a crate of 10,000 mutants writes about 20 MB.
const MAX_OUTCOMES_BYTES: u64 = 64 << 20;

/// Why there are no survivors to aim at.
#[derive(Debug, thiserror::Error)]
pub enum OwnMutantsError {
    /// cargo-mutants is not installed (cargo has no `mutants` command).
    #[error(
        "cargo-mutants is not installed for the cargo frugal runs (`cargo install --locked cargo-mutants`)"
    )]
    NotInstalled,
    /// cargo-mutants ran past its time limit.
    #[error("cargo mutants did not finish within {seconds} s")]
    Timeout {
        /// The limit, in seconds.
        seconds: u64,
    },
    /// cargo-mutants left no usable `outcomes.json`.
    #[error("cargo mutants wrote no outcomes ({why})")]
    NoOutcomes {
        /// Its stderr's tail, or what is wrong with the file.
        why: String,
    },
    /// The crate's own suite fails without mutants: no mutant can be judged.
    #[error("the crate's own suite failed cargo-mutants' baseline run: {why}")]
    Baseline {
        /// What cargo-mutants reported of the baseline run.
        why: String,
    },
    /// cargo failed to run.
    #[error("{0}")]
    Cargo(#[from] frugal_cargo::CargoError),
    /// The outcomes file could not be read or parsed.
    #[error("{0}")]
    Outcomes(#[from] crate::survivors::SurvivorsError),
    /// A file or directory of the run could not be made or read.
    #[error("{what}: {source}")]
    Io {
        /// What was being done (`create DIR`, ...).
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Where one run of cargo-mutants works.
pub struct OwnMutantsRun<'a> {
    /// The crate, in a copy that is the job's own (cargo writes `Cargo.lock` beside it).
    pub crate_dir: &'a Path,
    /// Private to this run: cargo-mutants' copy of the crate, its output, `HOME` and `TMPDIR`.
    pub scratch: &'a Path,
    /// The target dir of the mutated builds.
    pub target_dir: &'a Path,
    /// The confinement of every command; made writable for the dirs above.
    pub policy: Policy,
    /// The longest the whole run may take.
    pub timeout: Duration,
}

/// Runs cargo-mutants on the crate's own tests and returns the mutants they miss.
pub fn own_survivors(run: &OwnMutantsRun) -> Result<Vec<Survivor>, OwnMutantsError> {
    let out = run.scratch.join("out");
    // The target dir too: cargo would create it through a sibling, outside what is writable.
    let dirs = [
        &out,
        &run.scratch.join("tmp"),
        &run.scratch.join("home"),
        &run.target_dir.to_path_buf(),
    ];
    for dir in dirs {
        std::fs::create_dir_all(dir).map_err(|source| OwnMutantsError::Io {
            what: format!("create {}", dir.display()),
            source,
        })?;
    }
    let policy = run
        .policy
        .clone()
        .writable(run.scratch)
        .writable(run.target_dir)
        .writable(run.crate_dir)
        .home(run.scratch.join("home"))
        .tmpdir(run.scratch.join("tmp"));
    let cargo = crate::cargo::builder(run.crate_dir, run.target_dir, Some(&policy));
    let mut cmd = cargo.command(run.crate_dir);
    // `--dir .`: cargo-mutants copies the crate into TMPDIR and mutates the copy; one job at a
    // time, in source order, so a timeout leaves the first mutants judged.
    cmd.args(["mutants", "--dir", "."])
        .arg("--output")
        .arg(&out)
        .args(["--no-shuffle", "-j", "1", "--colors", "never"]);
    let output = match cargo.output(cmd, run.timeout) {
        Err(frugal_cargo::CargoError::Timeout { .. }) => {
            return Err(OwnMutantsError::Timeout {
                seconds: run.timeout.as_secs(),
            });
        }
        other => other?,
    };
    let outcomes = outcomes_file(&out);
    // Not followed if a link: the tree that wrote it ran the crate's tests.
    let Ok(meta) = std::fs::symlink_metadata(&outcomes) else {
        if output.stderr.contains("no such command") {
            return Err(OwnMutantsError::NotInstalled);
        }
        return Err(OwnMutantsError::NoOutcomes {
            why: output.stderr_tail(600).trim().to_string(),
        });
    };
    if !meta.file_type().is_file() || meta.len() > MAX_OUTCOMES_BYTES {
        return Err(OwnMutantsError::NoOutcomes {
            why: format!(
                "{} is not a regular file of at most {MAX_OUTCOMES_BYTES} bytes",
                outcomes.display()
            ),
        });
    }
    let text = std::fs::read_to_string(&outcomes).map_err(|source| {
        OwnMutantsError::from(crate::survivors::SurvivorsError::Read {
            path: outcomes.display().to_string(),
            source,
        })
    })?;
    if let Some(why) = failed_baseline(&out.join("mutants.out"), &text) {
        return Err(OwnMutantsError::Baseline { why });
    }
    Ok(parse_outcomes_at(&outcomes, &text)?)
}

/// Why cargo-mutants judged nothing: its baseline (the unmutated crate with its own tests) did
/// not build or pass. Its log's tail, when the outcome names a log under `dir`.
fn failed_baseline(dir: &Path, outcomes: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(outcomes).ok()?;
    let baseline = v["outcomes"]
        .as_array()?
        .iter()
        .find(|o| o["scenario"] == "Baseline")?;
    let summary = baseline["summary"].as_str().unwrap_or("unknown");
    if summary == "Success" {
        return None;
    }
    let log = baseline["log_path"]
        .as_str()
        .map(Path::new)
        .filter(|p| p.components().all(|c| matches!(c, Component::Normal(_))))
        .map(|p| dir.join(p))
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file()))
        .and_then(|p| std::fs::read_to_string(p).ok())
        .map(|t| tail(&t, 1200))
        .unwrap_or_default();
    Some(format!("{summary}\n{log}"))
}

/// The last `max` bytes of `text`, from a char boundary.
fn tail(text: &str, max: usize) -> String {
    let mut from = text.len().saturating_sub(max);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    text[from..].trim().to_string()
}

/// Where cargo-mutants writes its outcomes under `--output out`.
fn outcomes_file(out: &Path) -> PathBuf {
    out.join("mutants.out").join("outcomes.json")
}
