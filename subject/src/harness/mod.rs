//! The harness: a generated dispatch module injected into the instrumented copy (so that
//! crate-private items stay reachable), and a thin binary whose `main` serves test cases.
//!
//! Operations that fail to compile are dropped and the build retried; the reasons are kept
//! for the summary, so one odd signature never costs the whole crate.

mod builders;
pub(crate) mod closure_values;
pub(crate) mod op_expr;
pub mod registry;
pub mod render;
pub mod std_values;

use std::path::{Path, PathBuf};

use crate::cargo::build_timeout;
use crate::manifest::Manifest;
use crate::model::{ApiModel, Unsupported};
use frugal_cargo::Output;
use frugal_search::Pass;
use registry::{OpCode, Registry};

/// A built harness binary and the operations it serves.
#[derive(Debug)]
pub struct Harness {
    /// The built harness executable.
    pub binary: PathBuf,
    /// The operations it serves, by the ids its dispatch table uses.
    pub registry: Registry,
}

/// Why the harness could not be built.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// A harness source file could not be written.
    #[error("failed to write the harness into {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// cargo failed to run or timed out.
    #[error(transparent)]
    Cargo(#[from] frugal_cargo::CargoError),
    /// The harness does not compile, even after dropping the operations the compiler blamed.
    #[error("the harness for {krate} does not compile:\n{errors}")]
    Compile {
        /// The crate's name.
        krate: String,
        /// The compiler's first errors, or why dropping operations stopped.
        errors: String,
    },
}

const DISPATCH_MOD: &str = "__frugal_dispatch";
/// Rounds of dropping operations that break the build.
const MAX_ROUNDS: usize = 8;

/// Writes the dispatch module and harness package, builds them, and returns the binary.
/// `copy` is the instrumented crate, `probe` the probe crate's directory.
pub fn build(
    work: &Path,
    copy: &Path,
    probe: &Path,
    model: &ApiModel,
    manifest: &Manifest,
    registry: Registry,
) -> Result<Harness, HarnessError> {
    build_with_features(
        work,
        copy,
        probe,
        model,
        manifest,
        registry,
        &BuildOptions::default(),
    )
}

/// How the harness is built beyond [`build`]'s defaults.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// The crate's features enabled in the harness's dependency on it.
    pub features: Vec<String>,
    /// Confinement of the build (the crate's build scripts and proc macros run in it).
    pub sandbox: Option<frugal_sandbox::Policy>,
}

/// [`build`] with [`BuildOptions`].
pub fn build_with_features(
    work: &Path,
    copy: &Path,
    probe: &Path,
    model: &ApiModel,
    manifest: &Manifest,
    mut registry: Registry,
    opts: &BuildOptions,
) -> Result<Harness, HarnessError> {
    let features = &opts.features;
    let package = package_name(copy).unwrap_or_else(|| model.crate_name.clone());
    let root = lib_root(copy);
    inject_mod(&root)?;
    let dir = work.join("harness");
    write_package(&dir, copy, probe, &package, &model.crate_name, features)?;
    let target = work.join("target");
    let cargo = crate::cargo::builder(&dir, &target, opts.sandbox.as_ref());
    for _ in 0..MAX_ROUNDS {
        let dispatch = render::dispatch(
            &registry,
            model,
            manifest.goals.len(),
            manifest.functions.len(),
            manifest.loops.len(),
        );
        let file = copy.join("src").join(format!("{DISPATCH_MOD}.rs"));
        write(&file, &dispatch.text)?;
        let mut cmd = cargo.command(&dir);
        cmd.args(["build", "--release", "--message-format=json"]);
        // The test profile's checks, so that the harness behaves like the emitted tests.
        cmd.env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1");
        cmd.env("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "true");
        cmd.env("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "true");
        cmd.env("CARGO_PROFILE_RELEASE_DEBUG", "false");
        cmd.env("CARGO_PROFILE_RELEASE_INCREMENTAL", "true");
        let out = cargo.output(cmd, build_timeout())?;
        if out.success {
            let binary = target.join("release").join("frugal-harness");
            return Ok(Harness { binary, registry });
        }
        let bad = failing_ops(&out, &dispatch.op_lines);
        if bad.is_empty() {
            return Err(HarnessError::Compile {
                krate: model.crate_name.clone(),
                errors: out.summarise_errors(3),
            });
        }
        drop_ops(&mut registry, model, &bad, &out);
    }
    Err(HarnessError::Compile {
        krate: model.crate_name.clone(),
        errors: format!("still failing after {MAX_ROUNDS} rounds of dropping operations"),
    })
}

fn write(path: &Path, text: &str) -> Result<(), HarnessError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|source| HarnessError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn package_name(copy: &Path) -> Option<String> {
    let text = std::fs::read_to_string(copy.join("Cargo.toml")).ok()?;
    let doc: toml_edit::DocumentMut = text.parse().ok()?;
    doc.get("package")?
        .get("name")?
        .as_str()
        .map(str::to_string)
}

/// The copy's library root: `[lib] path` (a binary crate's copy has one, see
/// `instrument::cargo_toml`), else `src/lib.rs`.
fn lib_root(copy: &Path) -> PathBuf {
    let declared = std::fs::read_to_string(copy.join("Cargo.toml"))
        .ok()
        .and_then(|text| text.parse::<toml_edit::DocumentMut>().ok())
        .and_then(|doc| Some(doc.get("lib")?.get("path")?.as_str()?.to_string()));
    copy.join(declared.unwrap_or_else(|| "src/lib.rs".into()))
}

/// Appends the module declaration at the end of the library root, so no user line moves.
fn inject_mod(lib: &Path) -> Result<(), HarnessError> {
    let lib = lib.to_path_buf();
    let text = std::fs::read_to_string(&lib).map_err(|source| HarnessError::Io {
        path: lib.clone(),
        source,
    })?;
    let line = format!("#[doc(hidden)] pub mod {DISPATCH_MOD};");
    if text.contains(&line) {
        return Ok(());
    }
    let sep = if text.ends_with('\n') { "" } else { "\n" };
    write(&lib, &format!("{text}{sep}{line}\n"))
}

fn write_package(
    dir: &Path,
    copy: &Path,
    probe: &Path,
    package: &str,
    krate: &str,
    features: &[String],
) -> Result<(), HarnessError> {
    std::fs::create_dir_all(dir.join("src")).map_err(|source| HarnessError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let manifest = format!(
        "[package]\nname = \"frugal-harness\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\n{krate} = {{ package = \"{package}\", path = {copy:?}, features = {features:?} }}\nfrugal-probe = {{ path = {probe:?} }}\n\n[workspace]\n",
        copy = copy.display().to_string(),
        probe = probe.display().to_string(),
    );
    write(&dir.join("Cargo.toml"), &manifest)?;
    seed_lock(dir, copy)?;
    let main = format!(
        "//! Generated by frugal. Do not edit.\n\
         #[global_allocator]\nstatic ALLOC: frugal_probe::alloc::CountingAlloc = frugal_probe::alloc::CountingAlloc;\n\n\
         fn main() {{\n    std::process::exit({krate}::{DISPATCH_MOD}::serve());\n}}\n"
    );
    write(&dir.join("src").join("main.rs"), &main)
}

/// Starts the harness's `Cargo.lock` from the crate's, so that the harness runs the crate
/// with the dependency versions its own tests use (before: the newest ones, whose `Debug`
/// output and behaviour differ, so tests the search wrote failed against the real crate).
/// Seeded again whenever the crate's lock changes; cargo adds the harness's own packages.
fn seed_lock(dir: &Path, copy: &Path) -> Result<(), HarnessError> {
    // The copy keeps the crate's links as links: a `Cargo.lock` linked out of the copy would
    // otherwise be read here, unconfined, and its text reach cargo's error about the harness.
    let Ok(lock) = crate::tree::read_in_tree(copy, Path::new("Cargo.lock")) else {
        return Ok(());
    };
    let seeded = dir.join("crate.lock");
    if std::fs::read_to_string(&seeded).is_ok_and(|old| old == lock) {
        return Ok(());
    }
    write(&dir.join("Cargo.lock"), &lock)?;
    write(&seeded, &lock)
}

/// Operations whose generated function holds a compiler error.
fn failing_ops(out: &Output, op_lines: &[usize]) -> Vec<(usize, String)> {
    let mut bad: Vec<(usize, String)> = Vec::new();
    let file = format!("{DISPATCH_MOD}.rs");
    for e in &out.messages.errors {
        // Along the macro chain: an error inside a std macro has its call site here.
        let Some(at) = e.chain.iter().find(|l| l.file.ends_with(&file)) else {
            continue;
        };
        let idx = op_lines.partition_point(|&l| l <= at.line);
        if idx > 0 && !bad.iter().any(|(i, _)| *i == idx - 1) {
            let first = e.rendered.lines().next().unwrap_or_default().to_string();
            bad.push((idx - 1, first));
        }
    }
    bad
}

fn drop_ops(reg: &mut Registry, model: &ApiModel, bad: &[(usize, String)], _out: &Output) {
    // A borrow that must outlive the call is kept by the callee (`OnceRef::set(&self, value:
    // &'a T)` stores `value` through a cell, which the signature's lifetimes alone do not
    // show): lent for the rest of the test, as a result's borrow is, the call compiles.
    let bad: Vec<&(usize, String)> = bad
        .iter()
        .filter(|(i, why)| !(why.starts_with("error[E0597]") && lend_borrowed_args(reg, model, *i)))
        .collect();
    let mut remove: Vec<usize> = bad.iter().map(|(i, _)| *i).collect();
    remove.sort_unstable();
    for (i, why) in bad {
        // The twin with a deciding closure is extra: its callable is still called.
        if reg.ops[*i].keyed {
            continue;
        }
        let path = match reg.ops[*i].code {
            OpCode::Call(c) => model.callables[c].path.clone(),
            _ => reg.ops[*i].name.clone(),
        };
        reg.dropped.push(Unsupported {
            path,
            reason: "harness compile error".into(),
            detail: why.clone(),
        });
    }
    for i in remove.into_iter().rev() {
        reg.ops.remove(i);
    }
    reg.prune(model);
}

/// Turns the borrowed arguments of call `i` into loans for the rest of the test
/// (`Pass::Lend`, `Pass::LendMut`): first those after the receiver, then, when the call still
/// fails, the receiver too (`GetAll::into_iter` of `impl<'a, T> IntoIterator for &'a
/// GetAll<'a, T>`). `false` when there is none left to turn, so a call still failing is
/// dropped.
fn lend_borrowed_args(reg: &mut Registry, model: &ApiModel, i: usize) -> bool {
    let op = &mut reg.ops[i];
    let OpCode::Call(c) = op.code else {
        return false;
    };
    let first = model.callables[c].first_param();
    lend_from(&mut op.params, first) || lend_from(&mut op.params, 0)
}

/// [`lend_borrowed_args`] for the parameters from `first` on; whether any was turned.
fn lend_from(params: &mut [registry::ParamSlot], first: usize) -> bool {
    let mut lent = false;
    for (_, pass, source) in params.iter_mut().skip(first) {
        // Views built in the call's frame (`&[&str]`, a reader's slice) cannot be lent.
        let plain = registry::elem_view(source).is_none()
            && registry::slice_reader(source).is_none()
            && !registry::str_ref_ref(source);
        let to = match pass {
            Pass::Ref if plain => Pass::Lend,
            Pass::Mut if plain => Pass::LendMut,
            _ => continue,
        };
        *pass = to;
        lent = true;
    }
    lent
}

#[cfg(test)]
mod tests {
    use super::seed_lock;

    #[test]
    fn the_harness_lock_starts_from_the_crates_and_keeps_cargos_additions() {
        let dir = tempfile::tempdir().unwrap();
        let (harness, copy) = (dir.path().join("harness"), dir.path().join("crate"));
        std::fs::create_dir_all(&harness).unwrap();
        std::fs::create_dir_all(&copy).unwrap();
        let read = || std::fs::read_to_string(harness.join("Cargo.lock")).unwrap();
        // No lock in the crate: cargo resolves the harness on its own.
        seed_lock(&harness, &copy).unwrap();
        assert!(!harness.join("Cargo.lock").exists());
        std::fs::write(copy.join("Cargo.lock"), "globset 0.4.8\n").unwrap();
        seed_lock(&harness, &copy).unwrap();
        assert_eq!(read(), "globset 0.4.8\n");
        // Cargo adds the harness's packages; an unchanged crate lock leaves them.
        std::fs::write(
            harness.join("Cargo.lock"),
            "globset 0.4.8\nfrugal-harness\n",
        )
        .unwrap();
        seed_lock(&harness, &copy).unwrap();
        assert_eq!(read(), "globset 0.4.8\nfrugal-harness\n");
        // A changed crate lock is taken again.
        std::fs::write(copy.join("Cargo.lock"), "globset 0.4.9\n").unwrap();
        seed_lock(&harness, &copy).unwrap();
        assert_eq!(read(), "globset 0.4.9\n");
    }
}
