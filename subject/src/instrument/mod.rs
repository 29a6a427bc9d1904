//! Instrumentation: a scratch copy of the crate whose library sources carry probes, and the
//! goals manifest numbering them.
//!
//! It owns the copy (`copy`), the copy's manifest (`cargo_toml`), the module walk (`walk`), the
//! probe-inserting visitor (`visit`, `cond`), the span-based text edits (`edits`), the skip
//! predicate (`skip`) and the build-and-retry loop (`cargo`). Probes are inserted as text at
//! byte offsets and never add a newline, so every line of the copy is the user's line. It knows
//! the probe runtime only as the fully qualified paths it writes (`::frugal_probe::...`); it
//! knows nothing about the harness or the search.
//!
//! Decision: instrumentation runs on a scoped thread of its own. proc-macro2's span locations
//! live in a thread-local source map that is never freed; a thread per call frees it and keeps
//! the caller's own syn trees out of the way.

mod cargo_toml;
mod compile;
mod cond;
mod consts;
mod copy;
mod edits;
mod fbr;
mod macro_body;
mod mutants;
mod observe;
mod reach;
mod skip;
mod syntax;
#[cfg(test)]
mod tests;
mod visit;
pub(crate) mod walk;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::analyze::attrs::CfgEval;
use crate::analyze::options::EnabledFeatures;
use crate::manifest::Manifest;
use crate::probe_src;

pub(crate) use copy::{no_link_above, real_dir};
pub use visit::Region;

/// Reason recorded for items excluded by [`instrument_and_build`].
pub const COMPILE_ERROR: &str = "compile error after instrumentation";
/// Exclusion reason that drops only a fn's body mutants (a value of its return type that does
/// not compile, such as `Ok(0)` for an alias named `Result` of another shape), not its probes.
pub const BODY_MUTANT_ERROR: &str = "compile error in a body mutant";

/// What to instrument and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// Items to leave alone (the retry loop of [`instrument_and_build`] adds to these).
    pub exclude: Vec<Exclusion>,
    /// Whether statements get line goals.
    pub line_goals: bool,
    /// Whether comparisons and arithmetic get weak-mutation goals (`mutants.rs`).
    pub mutants: bool,
    /// Whether known flag calls (`starts_with`, `parse`, `contains_key`, ...) get observers
    /// and two branch goals each (testability transformations, `observe.rs`).
    pub testability: bool,
    /// The features the copy is built with, as analysis resolved them: they decide which
    /// modules exist (`cfg`) and the build's cargo flags.
    pub features: crate::analyze::AnalyzeOptions,
    /// How many builds [`instrument_and_build`] may try before giving up.
    pub max_builds: usize,
    /// Confinement of the builds (build scripts and proc macros are crate code).
    pub sandbox: Option<frugal_sandbox::Policy>,
    /// Whether private items become `pub(crate)` (`reach.rs`): in-module placement's harness
    /// calls them from the crate root.
    pub open_private: bool,
    /// Whether `const fn`s no const context calls lose their `const` and get probes
    /// (`consts.rs`); [`instrument_and_build`] turns it off when the build still needs one.
    pub strip_const: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            exclude: Vec::new(),
            line_goals: true,
            mutants: false,
            testability: true,
            features: Default::default(),
            max_builds: 8,
            sandbox: None,
            open_private: false,
            strip_const: true,
        }
    }
}

/// An item, or a whole file, left uninstrumented on purpose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exclusion {
    /// Source file relative to the crate root, `/`-separated.
    pub file: String,
    /// Line of the excluded fn's `fn` keyword; `None` excludes every fn of the file.
    pub line: Option<usize>,
    /// Recorded in [`Manifest::skipped`].
    pub reason: String,
}

/// An instrumented copy of a crate.
#[derive(Debug, Clone)]
pub struct Instrumented {
    /// The copy's root directory (`out_dir/crate`).
    pub root: PathBuf,
    /// The goals manifest of the copy: what its probes number.
    pub manifest: Manifest,
    /// Line ranges of the instrumented fns.
    pub regions: Vec<Region>,
}

/// Why a crate could not be instrumented.
#[derive(Debug, thiserror::Error)]
pub enum InstrumentError {
    /// A file of the crate or the copy could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The crate's `Cargo.toml` could not be parsed or rewritten.
    #[error("{}: {message}", path.display())]
    Manifest {
        /// The manifest's path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The crate has no library target (the crate directory is given).
    #[error("{}: no library target (no src/lib.rs and no [lib] path)", .0.display())]
    NoLibrary(PathBuf),
    /// cargo failed to run or timed out.
    #[error(transparent)]
    Cargo(#[from] frugal_cargo::CargoError),
    /// The copy still does not build after excluding every fn the compiler blamed.
    #[error("the instrumented crate does not build (after {attempts} attempts):\n{messages}")]
    Build {
        /// Builds tried.
        attempts: usize,
        /// The last build's errors (or its stderr when it reported none).
        messages: String,
    },
    /// The thread rewriting the files panicked.
    #[error("instrumentation thread panicked")]
    Panicked,
}

/// Copies `crate_dir` into `out_dir/crate` (the user's tree is never touched), writes the probe
/// crate to `out_dir/frugal-probe`, makes the copy depend on it and rewrites every file of the
/// library's module tree with probes.
pub fn instrument(
    crate_dir: &Path,
    out_dir: &Path,
    opts: &Options,
) -> Result<Instrumented, InstrumentError> {
    std::fs::create_dir_all(out_dir).map_err(|e| copy::io_err(out_dir, e))?;
    let crate_dir = crate_dir
        .canonicalize()
        .map_err(|e| copy::io_err(crate_dir, e))?;
    let out_dir = out_dir
        .canonicalize()
        .map_err(|e| copy::io_err(out_dir, e))?;
    let root = out_dir.join("crate");
    let probe_dir = out_dir.join("frugal-probe");
    probe_src::write_probe_crate(&probe_dir).map_err(|e| copy::io_err(&probe_dir, e))?;

    let package = cargo_toml::prepare(&crate_dir, Some(&probe_dir))?;
    if !crate_dir.join(&package.lib).is_file() {
        return Err(InstrumentError::NoLibrary(crate_dir));
    }
    let walked = std::thread::scope(|s| {
        std::thread::Builder::new()
            // Deeply nested expressions recurse deeply in syn and in the visitor.
            .stack_size(64 << 20)
            .spawn_scoped(s, || walk::walk(&crate_dir, &package.lib, opts))
            .map_err(|e| copy::io_err(&crate_dir, e))?
            .join()
            .map_err(|_| InstrumentError::Panicked)
    })?;

    let mut overrides: HashMap<PathBuf, Vec<u8>> = walked
        .files
        .into_iter()
        .map(|(rel, text)| (rel, text.into_bytes()))
        .collect();
    if package.edition == "2015" {
        // 2015 paths starting with `::` are crate-relative: declare the probe at the root.
        let lib = overrides.entry(package.lib.clone()).or_insert_with(|| {
            crate::tree::read_crate_file(&crate_dir, &package.lib)
                .map(String::into_bytes)
                .unwrap_or_default()
        });
        lib.extend_from_slice(b"\nextern crate frugal_probe;\n");
    }
    overrides.insert(PathBuf::from("Cargo.toml"), package.manifest.into_bytes());
    if let Some(lock) = package.workspace_lock {
        overrides.insert(PathBuf::from("Cargo.lock"), lock);
    }
    copy::copy_tree(&crate_dir, &root, &out_dir, &overrides)?;
    Ok(Instrumented {
        root,
        manifest: walked.manifest,
        regions: walked.regions,
    })
}

/// Copies `crate_dir` to `dest` unchanged but for its manifest, which is made standalone the
/// same way as for the instrumented copy (own workspace, inherited keys resolved, path
/// dependencies absolute): what emitted tests are verified against.
pub fn standalone_copy(crate_dir: &Path, dest: &Path) -> Result<(), InstrumentError> {
    let crate_dir = crate_dir
        .canonicalize()
        .map_err(|e| copy::io_err(crate_dir, e))?;
    let package = cargo_toml::prepare(&crate_dir, None)?;
    let mut overrides: HashMap<PathBuf, Vec<u8>> = HashMap::new();
    overrides.insert(PathBuf::from("Cargo.toml"), package.manifest.into_bytes());
    if let Some(lock) = package.workspace_lock {
        overrides.insert(PathBuf::from("Cargo.lock"), lock);
    }
    copy::copy_tree(&crate_dir, dest, dest, &overrides)
}

/// [`instrument`], then `cargo build --lib` of the copy in `target_dir`. Each compile error is
/// traced to the innermost instrumented fn around it (or, failing that, its file), which is
/// excluded and recorded as [`COMPILE_ERROR`]; then it tries again, up to
/// [`Options::max_builds`] builds. One bad spot never costs the whole crate.
pub fn instrument_and_build(
    crate_dir: &Path,
    out_dir: &Path,
    target_dir: &Path,
    opts: &Options,
) -> Result<Instrumented, InstrumentError> {
    let mut opts = opts.clone();
    let mut last_messages = String::new();
    let attempts = opts.max_builds.max(1);
    for _ in 0..attempts {
        let inst = instrument(crate_dir, out_dir, &opts)?;
        let (errors, stderr) = match compile::build_lib(
            &inst.root,
            target_dir,
            &opts.features.cargo_args(),
            opts.sandbox.as_ref(),
        )? {
            compile::Build::Ok => return Ok(inst),
            compile::Build::Failed { errors, stderr } => (errors, stderr),
        };
        // A const context still calls a fn that lost its `const` (a name the scan could not
        // see, such as one made by a macro): keep every `const fn` as written and try again.
        if opts.strip_const && errors.iter().any(|e| e.rendered.contains("error[E0015]")) {
            opts.strip_const = false;
            continue;
        }
        let new = exclusions_for(&errors, &inst, &opts.exclude);
        last_messages = if errors.is_empty() {
            stderr
        } else {
            errors
                .iter()
                .map(|e| e.rendered.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        if new.is_empty() {
            break;
        }
        opts.exclude.extend(new);
    }
    Err(InstrumentError::Build {
        attempts,
        messages: last_messages,
    })
}

/// New exclusions that should make `errors` go away: the innermost instrumented fn around
/// each error, else the error's whole file if it was instrumented at all.
fn exclusions_for(
    errors: &[compile::CompileError],
    inst: &Instrumented,
    existing: &[Exclusion],
) -> Vec<Exclusion> {
    let mut out: Vec<Exclusion> = Vec::new();
    for err in errors {
        let in_region = err.locations.iter().find_map(|(file, line)| {
            inst.regions
                .iter()
                .filter(|r| &r.file == file && r.start <= *line && *line <= r.end)
                .min_by_key(|r| r.end - r.start)
        });
        let ex = match in_region {
            Some(r) => {
                // First drop the fn's body mutants alone; a fn failing without them is excluded.
                let body_only = Exclusion {
                    file: r.file.clone(),
                    line: Some(r.fn_line),
                    reason: BODY_MUTANT_ERROR.into(),
                };
                let tried = existing.contains(&body_only) || out.contains(&body_only);
                if r.body_mutants && !tried {
                    body_only
                } else {
                    Exclusion {
                        reason: COMPILE_ERROR.into(),
                        ..body_only
                    }
                }
            }
            None => {
                let Some((file, _)) = err
                    .locations
                    .iter()
                    .find(|(f, _)| inst.regions.iter().any(|r| &r.file == f))
                else {
                    continue;
                };
                Exclusion {
                    file: file.clone(),
                    line: None,
                    reason: COMPILE_ERROR.into(),
                }
            }
        };
        if !existing.contains(&ex) && !out.contains(&ex) {
            out.push(ex);
        }
    }
    out
}

/// Instruments one file's text on the current thread (for tests and previews): the rewritten
/// text (the original when nothing changed) and the goals it numbered. `None` when the file
/// does not parse or is test-only; the reason is in the manifest.
pub fn instrument_source(text: &str, file: &str, opts: &Options) -> (Option<String>, Manifest) {
    let mut manifest = Manifest::default();
    // One file, no manifest: only the options say which features are on.
    let cfg = CfgEval::new(EnabledFeatures::resolve(
        &opts.features,
        &Default::default(),
    ));
    // One file: its own const contexts decide which `const fn`s keep `const`.
    let keep_const = opts.strip_const.then(|| {
        let parsed: Vec<syn::File> = syn::parse_file(text).into_iter().collect();
        std::sync::Arc::new(consts::needed_in(&parsed))
    });
    let out = walk::instrument_text(
        text,
        file,
        Vec::new(),
        opts,
        (&cfg, keep_const),
        &mut manifest,
    );
    let text = out.map(|o| o.text.unwrap_or_else(|| text.to_string()));
    (text, manifest)
}
