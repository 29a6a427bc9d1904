//! The suite copy: a clean copy of the crate with a place for a suite (the test target, the
//! library's module tree, or a binary's, as `Placement` says; a home's module file gets the
//! invocation of its section), and the cargo and test-binary runs that build and run it there,
//! confined when a policy is given. Verification (`verify.rs`) and the regression check
//! (`regress`) share it.
//!
//! It must not know what a run's outcome means: verification and the check judge it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::Placement;
use super::home;
use super::verify::{TEST_TARGET, VerifyError, VerifyOptions, broken};
use crate::cargo::build_timeout;
use frugal_cargo::Output;
use frugal_sandbox::Policy;

/// The cargo target holding in-crate tests: the library, else the first binary.
struct CrateRoot {
    /// Root file relative to the crate directory.
    file: PathBuf,
    /// `--lib`, or `--bin <name>`.
    select: Vec<String>,
}

fn crate_root(copy: &Path) -> Option<CrateRoot> {
    let text = std::fs::read_to_string(copy.join("Cargo.toml")).ok()?;
    let doc: toml_edit::DocumentMut = text.parse().ok()?;
    let lib = doc
        .get("lib")
        .and_then(|l| l.get("path"))
        .and_then(|p| p.as_str());
    if let Some(p) = lib.map(PathBuf::from).or_else(|| {
        copy.join("src/lib.rs")
            .is_file()
            .then(|| PathBuf::from("src/lib.rs"))
    }) {
        return Some(CrateRoot {
            file: p,
            select: vec!["--lib".into()],
        });
    }
    let package = doc.get("package")?.get("name")?.as_str()?.to_string();
    let bin = doc
        .get("bin")
        .and_then(|b| b.as_array_of_tables())
        .and_then(|bins| bins.iter().next());
    let name = bin
        .and_then(|b| b.get("name")?.as_str())
        .unwrap_or(&package)
        .to_string();
    let file = bin
        .and_then(|b| b.get("path")?.as_str())
        .unwrap_or("src/main.rs");
    Some(CrateRoot {
        file: PathBuf::from(file),
        select: vec!["--bin".into(), name],
    })
}

/// Where the emitted file goes in a copy of the crate, and the cargo target selection that
/// builds it; for in-crate placement the module declaration is appended to the crate root.
///
/// Nothing is written through a symbolic link: in frugal's own copy (`own`) a `tests` link is
/// replaced by a real directory; in the user's crate (`--write`) it is refused, as is a crate
/// root reached through a link.
fn place(
    copy: &Path,
    placement: Placement,
    own: bool,
) -> Result<(PathBuf, Vec<String>), VerifyError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| VerifyError::Io { path, source }
    };
    let linked = |path: &Path| {
        let path = path.to_path_buf();
        move |source| VerifyError::Copy { path, source }
    };
    match placement {
        Placement::Tests => {
            let tests = copy.join("tests");
            if own {
                crate::instrument::real_dir(copy, &tests).map_err(linked(&tests))?;
            } else {
                refuse_link(copy, &tests)?;
                std::fs::create_dir_all(&tests).map_err(io(copy))?;
            }
            let manifest = copy.join("Cargo.toml");
            let text = std::fs::read_to_string(&manifest).map_err(io(&manifest))?;
            if let Some(declared) = declare_test_target(&text) {
                // Copies keep links as links: never write a manifest through one.
                refuse_link(copy, &manifest)?;
                std::fs::write(&manifest, declared).map_err(io(&manifest))?;
            }
            Ok((
                copy.join("tests").join(format!("{TEST_TARGET}.rs")),
                vec!["--test".into(), TEST_TARGET.into()],
            ))
        }
        Placement::InCrate => {
            let root = crate_root(copy).ok_or_else(|| {
                VerifyError::CrateBroken(
                    "the crate has no library or binary target to hold the tests".into(),
                )
            })?;
            let root_file = copy.join(&root.file);
            refuse_link(copy, &root_file)?;
            let text = std::fs::read_to_string(&root_file).map_err(io(&root_file))?;
            let decl = module_decl();
            if !text.contains(&decl) {
                let sep = if text.ends_with('\n') { "" } else { "\n" };
                std::fs::write(&root_file, format!("{text}{sep}{decl}")).map_err(io(&root_file))?;
            }
            let dir = root_file.parent().unwrap_or(copy).to_path_buf();
            Ok((dir.join(format!("{TEST_TARGET}.rs")), root.select))
        }
    }
}

/// The `[[test]]` table that makes `tests/frugal_generated.rs` a test target where cargo does
/// not discover tests by itself.
pub const TEST_TARGET_DECL: &str =
    "[[test]]\nname = \"frugal_generated\"\npath = \"tests/frugal_generated.rs\"\n";

/// The manifest with the generated suite declared as a test target, when the package turns off
/// test discovery (`autotests = false`, as every manifest a recent cargo publishes does) and
/// does not declare it yet; `None` when cargo finds the file by itself.
pub fn declare_test_target(manifest: &str) -> Option<String> {
    let doc: toml_edit::DocumentMut = manifest.parse().ok()?;
    let autotests = doc
        .get("package")
        .and_then(|p| p.get("autotests"))
        .and_then(|a| a.as_bool())
        .unwrap_or(true);
    let declared = doc
        .get("test")
        .and_then(|t| t.as_array_of_tables())
        .is_some_and(|ts| {
            ts.iter()
                .any(|t| t.get("name").and_then(|n| n.as_str()) == Some(TEST_TARGET))
        });
    if autotests || declared {
        return None;
    }
    let sep = if manifest.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    Some(format!("{manifest}{sep}{TEST_TARGET_DECL}"))
}

/// The declaration in-crate placement appends to the crate root (no user line moves).
pub fn module_decl() -> String {
    format!("#[cfg(test)]\n#[path = \"{TEST_TARGET}.rs\"]\nmod {TEST_TARGET};\n")
}

/// Writes `text` where `placement` puts the suite inside the crate at `crate_dir` (and for
/// in-crate placement declares the module at the root, and each home's tests at the end of
/// that module's file, removing those of the suite it replaces); returns the files written.
pub fn write_into(
    crate_dir: &Path,
    placement: Placement,
    text: &str,
) -> Result<Vec<PathBuf>, VerifyError> {
    let (file, _) = place(crate_dir, placement, false)?;
    refuse_link(crate_dir, &file)?;
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    let write = |path: &Path, text: &str| {
        refuse_link(crate_dir, path)?;
        std::fs::write(path, text).map_err(|source| VerifyError::Io {
            path: path.to_path_buf(),
            source,
        })
    };
    for h in home::declared(&old) {
        let module = home_file(crate_dir, &h)?;
        if let Ok(current) = std::fs::read_to_string(&module) {
            let call = home::invocation(&h.module);
            write(&module, &current.replace(call.trim_start(), ""))?;
        }
    }
    write(&file, text)?;
    let mut written = vec![file];
    for h in home::declared(text) {
        let module = home_file(crate_dir, &h)?;
        refuse_link(crate_dir, &module)?;
        write(&module, &with_invocation(&read(&module)?, &h.module))?;
        written.push(module);
    }
    Ok(written)
}

/// A home's module file inside `root`; a path leaving it is refused.
fn home_file(root: &Path, h: &crate::model::Home) -> Result<PathBuf, VerifyError> {
    let rel = Path::new(&h.file);
    let inside = rel
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !inside {
        return Err(VerifyError::CrateBroken(format!(
            "the suite places tests in `{}`, which is not a file inside the crate",
            h.file
        )));
    }
    Ok(root.join(rel))
}

fn read(path: &Path) -> Result<String, VerifyError> {
    std::fs::read_to_string(path).map_err(|source| VerifyError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// A module file's text with a home's invocation appended (once).
fn with_invocation(text: &str, module: &str) -> String {
    let call = home::invocation(module);
    if text.contains(call.trim_start()) {
        return text.to_string();
    }
    let sep = if text.ends_with('\n') || text.is_empty() {
        ""
    } else {
        "\n"
    };
    format!("{text}{sep}{}", call.trim_start())
}

/// Fails when `path`, or a directory between `root` and it, is a symbolic link.
fn refuse_link(root: &Path, path: &Path) -> Result<(), VerifyError> {
    let linked = |source| VerifyError::Copy {
        path: path.to_path_buf(),
        source,
    };
    crate::instrument::no_link_above(root, path).map_err(linked)?;
    match std::fs::read_link(path) {
        Ok(target) => Err(VerifyError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(format!(
                "refusing to write through a symbolic link (it points to {})",
                target.display()
            )),
        }),
        Err(_) => Ok(()),
    }
}

/// Writes the suite into frugal's verification copy: a link in its place (planted by the
/// confined build of an earlier round) is removed, a link above it refused, never followed.
fn write_own(copy: &Path, file: &Path, text: &str) -> Result<(), VerifyError> {
    crate::instrument::no_link_above(copy, file).map_err(|source| VerifyError::Copy {
        path: file.to_path_buf(),
        source,
    })?;
    let io = |source| VerifyError::Io {
        path: file.to_path_buf(),
        source,
    };
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::remove_file(file).map_err(io)?;
    }
    std::fs::write(file, text).map_err(io)
}

/// What a stand-in module holds.
const STAND_IN: &str =
    "// frugal: the published crate leaves this test module out of its package.\n";

/// Empty stand-ins, in frugal's copy, for the crate's own `#[cfg(test)] mod x;` files that are
/// not there: a published crate often leaves its test modules out of the package (time
/// 0.3.7's `mod tests;`), and an in-crate suite is built with the crate's test cfg, so before
/// nothing compiled and the run failed after its whole search.
fn stand_in_for_missing_test_modules(copy: &Path) -> Result<Vec<PathBuf>, VerifyError> {
    let mut made = Vec::new();
    let mut pending = vec![copy.join("src")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            // Links are never followed: a copy keeps them as the crate has them.
            let (path, kind) = (e.path(), e.file_type());
            match kind {
                Ok(k) if k.is_dir() => pending.push(path),
                Ok(k) if k.is_file() && path.extension().is_some_and(|x| x == "rs") => {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let dir = module_dir(&path);
                    for name in test_modules(&text) {
                        let file = dir.join(format!("{name}.rs"));
                        let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
                        if exists(&file) || exists(&dir.join(&name).join("mod.rs")) {
                            continue;
                        }
                        refuse_link(copy, &dir)?;
                        std::fs::create_dir_all(&dir).map_err(|source| VerifyError::Io {
                            path: dir.clone(),
                            source,
                        })?;
                        write_own(copy, &file, STAND_IN)?;
                        made.push(file);
                    }
                }
                _ => {}
            }
        }
    }
    Ok(made)
}

/// The directory a file's child modules live in: its own for `lib.rs`, `main.rs` and
/// `mod.rs`, else the one named after it.
fn module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(""));
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("lib" | "main" | "mod") | None => parent.to_path_buf(),
        Some(stem) => parent.join(stem),
    }
}

/// Names of the `#[cfg(test)] mod x;` declarations in `text` without a `#[path]`.
fn test_modules(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut cfg_test, mut path) = (false, false);
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[") {
            let attr: String = line.split_whitespace().collect();
            cfg_test |= attr.starts_with("#[cfg(test)]");
            path |= attr.starts_with("#[path");
            continue;
        }
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let decl = line.strip_prefix("pub ").unwrap_or(line);
        let name = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';'));
        if let (true, false, Some(name)) = (cfg_test, path, name) {
            out.push(name.trim().to_string());
        }
        (cfg_test, path) = (false, false);
    }
    out
}

/// Whether a path the compiler or a panic names is the suite's file.
pub(crate) fn is_suite_file(path: &str) -> bool {
    path.ends_with(&format!("{TEST_TARGET}.rs"))
}

/// A clean copy of the crate with a place for a suite, and the cargo and test-binary runs that
/// build and run it there: what verification and the regression check share.
pub(crate) struct SuiteCopy {
    /// The copy's root.
    root: PathBuf,
    /// Where the suite is written inside the copy.
    file: PathBuf,
    /// `--test frugal_generated`, `--lib` or `--bin NAME`.
    select: Vec<String>,
    placement: Placement,
    cargo: frugal_cargo::Cargo,
    cargo_args: Vec<String>,
    sandbox: Option<Policy>,
    /// Module files given a home's invocation by the last write, with their text before it.
    homes: RefCell<BTreeMap<PathBuf, String>>,
    /// The module of each test that lives in a home, by name (from the last write).
    modules: RefCell<BTreeMap<String, String>>,
}

/// How one run of a test binary ended, and what it printed.
#[derive(Debug, Default)]
pub(crate) struct BinaryRun {
    pub stdout: String,
    pub stderr: String,
    /// `None` when the run was killed at its limit.
    pub status: Option<std::process::ExitStatus>,
}

impl BinaryRun {
    pub fn timed_out(&self) -> bool {
        self.status.is_none()
    }

    /// How the run ended, for a run that did not report every test: a signal, an exit code, a
    /// timeout; with the last lines of its stderr (where the runtime says "has overflowed its
    /// stack"). `finished`: libtest printed its closing line.
    pub fn ended(&self, finished: bool) -> String {
        use std::os::unix::process::ExitStatusExt;
        let how = match self.status {
            None => "did not finish in time".to_string(),
            Some(s) => match (s.signal(), s.code()) {
                (Some(sig), _) => format!("killed by signal {sig} ({})", signal_name(sig)),
                (None, Some(code)) if finished => format!("exited with code {code}"),
                (None, Some(code)) => {
                    format!("exited with code {code} before reporting every test")
                }
                (None, None) => "ended abnormally".to_string(),
            },
        };
        let tail: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        let tail = tail[tail.len().saturating_sub(3)..].join(" | ");
        if tail.is_empty() {
            how
        } else {
            format!("{how}: {}", crate::libtest::clip(&tail, 300))
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGXCPU => "SIGXCPU",
        _ => "signal",
    }
}

impl SuiteCopy {
    /// Copies the crate at `crate_dir` to `root` (see [`crate::instrument::standalone_copy`])
    /// and prepares the place `opts.placement` puts the suite; builds go to `target`.
    pub fn new(
        crate_dir: &Path,
        root: PathBuf,
        target: &Path,
        opts: &VerifyOptions,
    ) -> Result<SuiteCopy, VerifyError> {
        crate::instrument::standalone_copy(crate_dir, &root).map_err(|source| {
            VerifyError::Copy {
                path: root.clone(),
                source,
            }
        })?;
        let (file, select) = place(&root, opts.placement, true)?;
        if opts.placement == Placement::InCrate {
            stand_in_for_missing_test_modules(&root)?;
        }
        let cargo = crate::cargo::builder(&root, target, opts.sandbox.as_ref());
        Ok(SuiteCopy {
            root,
            file,
            select,
            placement: opts.placement,
            cargo,
            cargo_args: opts.cargo_args.clone(),
            sandbox: opts.sandbox.clone(),
            homes: RefCell::default(),
            modules: RefCell::default(),
        })
    }

    /// Writes the suite's text into the copy (see [`write_own`]), and the invocation of each
    /// home it declares into that module's file, undoing those of the last write first.
    pub fn write(&self, text: &str) -> Result<(), VerifyError> {
        write_own(&self.root, &self.file, text)?;
        let mut touched = self.homes.borrow_mut();
        for (file, original) in std::mem::take(&mut *touched) {
            write_own(&self.root, &file, &original)?;
        }
        for h in home::declared(text) {
            let file = home_file(&self.root, &h)?;
            // A module file the crate links elsewhere is never read or written through.
            refuse_link(&self.root, &file)?;
            let original = read(&file)?;
            write_own(&self.root, &file, &with_invocation(&original, &h.module))?;
            touched.insert(file, original);
        }
        *self.modules.borrow_mut() = home::modules_by_test(text);
        Ok(())
    }

    /// `cargo test --no-run --message-format=json` of the target holding the suite.
    pub fn build(&self) -> Result<Output, VerifyError> {
        let mut cmd = self.cargo.command(&self.root);
        cmd.arg("test")
            .args(&self.select)
            .args(["--no-run", "--message-format=json"])
            .args(&self.cargo_args);
        Ok(self.cargo.output(cmd, build_timeout())?)
    }

    /// The copy under `work/verify`, built in `work/target-verify`: the one [`preflight`] and
    /// [`verify`] share.
    pub(super) fn in_work(
        crate_dir: &Path,
        work: &Path,
        opts: &VerifyOptions,
    ) -> Result<Self, VerifyError> {
        SuiteCopy::new(
            crate_dir,
            work.join("verify"),
            &work.join("target-verify"),
            opts,
        )
    }

    /// Why a failed [`SuiteCopy::build`] failed outside the suite's tests: the target that failed,
    /// its first compiler errors, and the cargo command that shows the same in the crate.
    pub fn explain_broken(&self, out: &Output) -> String {
        broken(out, &self.select, &self.cargo_args)
    }

    /// The test executable a successful [`SuiteCopy::build`] made.
    pub fn executable(&self, out: &Output) -> Result<PathBuf, VerifyError> {
        let mut executables = out
            .messages
            .artifacts
            .iter()
            .filter_map(|a| Some((a.target.as_str(), a.executable.as_deref()?)));
        let exe = match self.placement {
            Placement::Tests => executables.find(|(n, _)| *n == TEST_TARGET),
            Placement::InCrate => executables.next_back(),
        };
        exe.map(|(_, exe)| exe.to_path_buf())
            .ok_or_else(|| VerifyError::CrateBroken("cargo built no test executable".into()))
    }

    /// The name libtest gives the suite's test fn `name` (in-crate tests sit in a module, those
    /// of a home in a module inside it).
    pub fn test_path(&self, name: &str) -> String {
        match (self.placement, self.modules.borrow().get(name)) {
            (Placement::Tests, _) => name.to_string(),
            (Placement::InCrate, None) => format!("{TEST_TARGET}::{name}"),
            (Placement::InCrate, Some(m)) => format!("{m}::{TEST_TARGET}::{name}"),
        }
    }

    /// The filter that selects every test of the suite and nothing else of the binary.
    pub fn filter(&self) -> Vec<String> {
        match self.placement {
            Placement::Tests => Vec::new(),
            Placement::InCrate => vec![format!("{TEST_TARGET}::")],
        }
    }

    /// Runs the test binary `exe` with `args` in the copy (confined when the options gave a
    /// policy), killing it at `limit`.
    pub fn run(
        &self,
        exe: &Path,
        args: &[String],
        limit: Duration,
    ) -> Result<BinaryRun, VerifyError> {
        self.run_in(exe, args, limit, Env::Job)
    }

    /// [`SuiteCopy::run`] in the environment `env`.
    pub(super) fn run_in(
        &self,
        exe: &Path,
        args: &[String],
        limit: Duration,
        env: Env,
    ) -> Result<BinaryRun, VerifyError> {
        let mut cmd = Command::new(exe);
        cmd.args(args)
            .current_dir(&self.root)
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let moved = match env {
            Env::Job => None,
            Env::Moved => Some(self.moved_dirs()?),
        };
        match (&self.sandbox, moved) {
            (Some(policy), None) => run_confined(policy, cmd, limit),
            (Some(policy), Some((home, tmp))) => {
                let policy = policy
                    .clone()
                    .home(home)
                    .tmpdir(tmp)
                    .env("TERM", MOVED_TERM);
                run_confined(&policy, cmd, limit)
            }
            (None, None) => {
                // As in the sandbox, which passes no `TERM`.
                cmd.env_remove("TERM");
                run_plain(cmd, limit)
            }
            (None, Some((home, tmp))) => {
                cmd.env("HOME", home)
                    .env("TMPDIR", tmp)
                    .env("TERM", MOVED_TERM);
                run_plain(cmd, limit)
            }
        }
    }

    /// `HOME` and `TMPDIR` of [`Env::Moved`], beside the copy, created.
    fn moved_dirs(&self) -> Result<(PathBuf, PathBuf), VerifyError> {
        let base = self.root.with_file_name("moved-env");
        let dirs = (base.join("home"), base.join("tmp"));
        for dir in [&dirs.0, &dirs.1] {
            std::fs::create_dir_all(dir).map_err(|source| VerifyError::Io {
                path: dir.clone(),
                source,
            })?;
        }
        Ok(dirs)
    }

    /// For each compiler error of `out` whose primary span lies in the suite, the index of the
    /// test holding it: the last of `starts` (the tests' first lines, ascending) at or before
    /// the error's line. Errors above the first test are left out.
    pub fn errors_by_test<'o>(
        &self,
        out: &'o Output,
        starts: &[usize],
    ) -> Vec<(usize, &'o frugal_cargo::CompilerError)> {
        // The first location in the suite along the macro chain: an error inside
        // `assert_eq!` has its primary span in core's macros and its call site here.
        out.messages
            .errors
            .iter()
            .filter_map(|e| {
                let at = e.chain.iter().find(|l| is_suite_file(&l.file))?;
                let i = starts.partition_point(|&s| s <= at.line);
                Some((i.checked_sub(1)?, e))
            })
            .collect()
    }
}

/// `TERM` of [`Env::Moved`]: the job runs without one, a developer's terminal has one, and
/// colour libraries decide by it (termcolor's `ColorChoice::Auto`).
const MOVED_TERM: &str = "xterm-256color";

/// Where a run of the suite happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Env {
    /// The job's own `HOME` and `TMPDIR`, as the search ran.
    Job,
    /// Another `HOME` and `TMPDIR`, and a `TERM`.
    Moved,
}

/// Runs `cmd` in the sandbox; the whole job is killed when the binary exits or at `limit`.
fn run_confined(
    policy: &Policy,
    mut cmd: Command,
    limit: Duration,
) -> Result<BinaryRun, VerifyError> {
    let sandbox_error = |e: frugal_sandbox::Error| VerifyError::Run(std::io::Error::other(e));
    let limits = frugal_sandbox::Limits {
        fsize: Some(crate::executor::CODE_FILE_LIMIT),
        ..frugal_sandbox::Limits::default()
    };
    let policy = policy.clone().limits(limits).timeout(limit);
    let job = frugal_cargo::confine(&policy, &mut cmd).map_err(sandbox_error)?;
    let out = job
        .spawn(&mut cmd)
        .and_then(|child| child.output_with_timeout(limit))
        .map_err(sandbox_error)?;
    Ok(BinaryRun {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: (!out.finished.timed_out).then_some(out.finished.status),
    })
}

/// Runs `cmd` unconfined in its own process group, killed whole at the end or at `limit` (a
/// run killed at the limit keeps no output).
fn run_plain(mut cmd: Command, limit: Duration) -> Result<BinaryRun, VerifyError> {
    match frugal_sandbox::output_in_group(&mut cmd, limit) {
        Ok(out) => Ok(BinaryRun {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            status: Some(out.status),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Ok(BinaryRun::default()),
        Err(e) => Err(VerifyError::Run(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// frugal's copy keeps a crate's links as links: a home's module file that is one is
    /// refused, not read through (it could point anywhere on the host) nor replaced; so is it
    /// in the crate itself.
    #[test]
    fn a_test_module_the_package_left_out_gets_a_stand_in_in_the_copy() {
        let copy = tempfile::tempdir().unwrap();
        let src = copy.path().join("src");
        std::fs::create_dir_all(src.join("fmt")).unwrap();
        let lib = "mod fmt;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\n#[path = \"x.rs\"]\nmod elsewhere;\n";
        std::fs::write(src.join("lib.rs"), lib).unwrap();
        std::fs::write(
            src.join("fmt.rs"),
            "#[cfg(test)] // unit tests\nmod shipped;\n#[cfg(test)]\nmod gone;\n",
        )
        .unwrap();
        std::fs::write(src.join("fmt/shipped.rs"), "fn t() {}\n").unwrap();
        let mut made = stand_in_for_missing_test_modules(copy.path()).unwrap();
        made.sort();
        assert_eq!(made, [src.join("fmt/gone.rs"), src.join("tests.rs")]);
        assert_eq!(
            std::fs::read_to_string(src.join("fmt/shipped.rs")).unwrap(),
            "fn t() {}\n"
        );
        assert_eq!(test_modules("#[cfg(test)]\npub mod a;\nmod b;\n"), ["a"]);
    }

    #[test]
    fn a_home_file_linked_out_of_the_copy_is_refused() {
        let krate = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("elsewhere.rs");
        std::fs::write(&target, "fn x() {}\n").unwrap();
        std::fs::create_dir_all(krate.path().join("src")).unwrap();
        let manifest = "[package]\nname = \"k\"\nversion = \"0.1.0\"\n";
        std::fs::write(krate.path().join("Cargo.toml"), manifest).unwrap();
        std::fs::write(krate.path().join("src/lib.rs"), "mod date;\n").unwrap();
        std::os::unix::fs::symlink(&target, krate.path().join("src/date.rs")).unwrap();
        let work = tempfile::tempdir().unwrap();
        let opts = VerifyOptions {
            placement: Placement::InCrate,
            ..VerifyOptions::default()
        };
        let copy = SuiteCopy::new(krate.path(), work.path().join("copy"), work.path(), &opts)
            .expect("copied");
        let suite = "use crate as k;\n// frugal-home: date src/date.rs\n";
        assert!(copy.write(suite).is_err());
        let date = work.path().join("copy/src/date.rs");
        assert!(
            std::fs::symlink_metadata(&date)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // `--write` into the crate itself refuses it too.
        assert!(write_into(krate.path(), Placement::InCrate, suite).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "fn x() {}\n");
    }

    #[test]
    fn the_suite_is_declared_only_where_cargo_would_not_find_it() {
        let explicit = "[package]\nname = \"p\"\nautotests = false\n\n[[test]]\nname = \"own\"\npath = \"tests/own.rs\"\n";
        let declared = declare_test_target(explicit).expect("needs the declaration");
        assert!(declared.ends_with(TEST_TARGET_DECL), "{declared}");
        assert!(declared.parse::<toml_edit::DocumentMut>().is_ok());
        assert_eq!(declare_test_target(&declared), None, "declared once");
        assert_eq!(declare_test_target("[package]\nname = \"p\"\n"), None);
    }
}
