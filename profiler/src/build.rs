//! Building a crate's test binaries with cargo and finding them in cargo's JSON messages.

use std::path::{Path, PathBuf};
use std::time::Duration;

use frugal_cargo::{Artifact, Cargo, Metadata, Output, Package};

use crate::error::ProfileError;
use crate::report::{Suite, TestBinary};

/// The longest `cargo fetch` may take before a confined build.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Name of the integration test target that holds the generated suite.
pub const GENERATED_TARGET: &str = "frugal_generated";

/// What `cargo metadata` says about the crate.
#[derive(Clone, Debug)]
pub(crate) struct CrateInfo {
    pub name: String,
    pub version: String,
    pub dir: PathBuf,
    id: String,
    pub has_generated: bool,
    /// Names of library targets whose doc tests `cargo test` would run.
    pub doctest_targets: Vec<String>,
}

/// A built test binary.
#[derive(Clone, Debug)]
pub(crate) struct BuiltBinary {
    pub binary: TestBinary,
    pub executable: PathBuf,
}

/// Reads the crate's package from `cargo metadata --no-deps`.
pub(crate) fn crate_info(dir: &Path) -> Result<CrateInfo, ProfileError> {
    read_package(dir).map(|p| crate_info_of(&p))
}

/// The crate's package as `cargo metadata --no-deps` describes it.
pub(crate) fn read_package(dir: &Path) -> Result<Package, ProfileError> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(ProfileError::NotACrate(dir.to_path_buf()));
    }
    let failed = |stderr: String| ProfileError::Metadata {
        dir: dir.to_path_buf(),
        stderr,
    };
    let metadata = Metadata::read(&Cargo::new(), &manifest).map_err(|e| failed(e.to_string()))?;
    metadata.package_at(&manifest).cloned().ok_or_else(|| {
        failed("no package with this manifest (is it a virtual workspace manifest?)".into())
    })
}

pub(crate) fn crate_info_of(package: &Package) -> CrateInfo {
    let has_generated = package
        .targets
        .iter()
        .any(|t| t.name == GENERATED_TARGET && t.kinds.iter().any(|k| k == "test"));
    CrateInfo {
        name: package.name.clone(),
        version: package.version.clone(),
        dir: package
            .dir()
            .canonicalize()
            .unwrap_or_else(|_| package.dir().to_path_buf()),
        id: package.id.clone(),
        has_generated,
        doctest_targets: package
            .targets
            .iter()
            .filter(|t| t.doctest)
            .map(|t| t.name.clone())
            .collect(),
    }
}

/// Options of the cargo build.
pub(crate) struct BuildOptions<'a> {
    pub suite: Suite,
    pub release: bool,
    pub target_dir: Option<&'a Path>,
    pub cargo_args: &'a [String],
    /// Confines the build (fetched unconfined first, then offline).
    pub sandbox: Option<&'a frugal_sandbox::Policy>,
}

/// `cargo test --no-run --message-format json`, returning the test binaries of the suite.
pub(crate) fn build_tests(
    info: &CrateInfo,
    options: &BuildOptions<'_>,
) -> Result<Vec<BuiltBinary>, ProfileError> {
    if options.suite == Suite::Generated && !info.has_generated {
        return Err(ProfileError::NoGeneratedSuite {
            krate: info.name.clone(),
        });
    }
    let mut cargo = Cargo::new();
    if let Some(dir) = options.target_dir {
        cargo = cargo.target_dir(dir);
    }
    if let Some(policy) = options.sandbox {
        cargo = cargo.fetch_then_sandbox(&info.dir.join("Cargo.toml"), policy, FETCH_TIMEOUT);
    }
    let mut command = cargo.command(&info.dir);
    command
        .args([
            "test",
            "--no-run",
            "--message-format",
            "json",
            "--manifest-path",
        ])
        .arg(info.dir.join("Cargo.toml"));
    if options.suite == Suite::Generated {
        command.args(["--test", GENERATED_TARGET]);
    }
    if options.release {
        command.arg("--release");
    }
    command.args(options.cargo_args);
    let output = cargo
        .output(command, frugal_cargo::build_timeout())
        .map_err(|e| ProfileError::Cargo(e.to_string()))?;
    if !output.success {
        return Err(ProfileError::Build {
            krate: info.name.clone(),
            dir: info.dir.clone(),
            first_errors: first_errors(&output),
        });
    }
    let mut binaries: Vec<BuiltBinary> = artifacts(&output.messages.artifacts, &info.id)
        .into_iter()
        .filter(|b| match options.suite {
            Suite::Both => true,
            suite => b.binary.suite == suite,
        })
        .collect();
    // Cargo reports artifacts in completion order; reports should not depend on it.
    binaries.sort_by(|a, b| {
        (&a.binary.kind, &a.binary.target).cmp(&(&b.binary.kind, &b.binary.target))
    });
    Ok(binaries)
}

/// Test executables of `package_id` among cargo's artifacts.
fn artifacts(all: &[Artifact], package_id: &str) -> Vec<BuiltBinary> {
    all.iter()
        .filter(|a| a.test && a.package_id == package_id)
        .filter_map(|a| {
            let suite = if a.kind == "test" && a.target == GENERATED_TARGET {
                Suite::Generated
            } else {
                Suite::Existing
            };
            Some(BuiltBinary {
                binary: TestBinary {
                    target: a.target.clone(),
                    kind: a.kind.clone(),
                    suite,
                },
                executable: a.executable.clone()?,
            })
        })
        .collect()
}

/// The compiler's first error messages, or cargo's own stderr when there are none.
fn first_errors(output: &Output) -> String {
    const MAX_MESSAGES: usize = 3;
    const MAX_LINES: usize = 40;
    let text = if output.messages.errors.is_empty() {
        output.stderr.trim().to_string()
    } else {
        output
            .messages
            .errors
            .iter()
            .take(MAX_MESSAGES)
            .map(|e| e.rendered.as_str())
            .collect()
    };
    let lines: Vec<&str> = text.lines().take(MAX_LINES).collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_cargo::Messages;

    #[test]
    fn artifacts_keep_test_executables_of_the_package_only() {
        let messages = r#"{"reason":"compiler-artifact","package_id":"p","target":{"name":"p","kind":["lib"]},"profile":{"test":true},"executable":"/t/p-1"}
{"reason":"compiler-artifact","package_id":"p","target":{"name":"p","kind":["lib"]},"profile":{"test":false},"executable":null}
{"reason":"compiler-artifact","package_id":"dep","target":{"name":"dep","kind":["lib"]},"profile":{"test":true},"executable":"/t/dep"}
{"reason":"compiler-artifact","package_id":"p","target":{"name":"frugal_generated","kind":["test"]},"profile":{"test":true},"executable":"/t/g-2"}
{"reason":"build-finished","success":true}"#;
        let found = artifacts(&Messages::parse(messages).artifacts, "p");
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].binary.suite, Suite::Existing);
        assert_eq!(found[0].binary.label(), "lib:p");
        assert_eq!(found[1].binary.suite, Suite::Generated);
        assert_eq!(found[1].executable, PathBuf::from("/t/g-2"));
    }

    #[test]
    fn first_errors_prefer_compiler_messages() {
        let messages = r#"{"reason":"compiler-message","message":{"level":"warning","rendered":"warning: x\n"}}
{"reason":"compiler-message","message":{"level":"error","rendered":"error[E0308]: mismatched types\n"}}"#;
        let output = |stdout: &str, stderr: &str| Output {
            messages: Messages::parse(stdout),
            stderr: stderr.into(),
            ..Output::default()
        };
        assert_eq!(
            first_errors(&output(messages, "cargo noise")),
            "error[E0308]: mismatched types"
        );
        assert_eq!(
            first_errors(&output("", "error: manifest\n")),
            "error: manifest"
        );
    }
}
