//! Building a crate's test binaries with cargo and finding them in cargo's JSON messages.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::error::ProfileError;
use crate::report::{Suite, TestBinary};

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
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(ProfileError::NotACrate(dir.to_path_buf()));
    }
    let output = cargo()
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .map_err(|e| ProfileError::Spawn {
            command: "cargo metadata".into(),
            source: e,
        })?;
    if !output.status.success() {
        return Err(ProfileError::Metadata {
            dir: dir.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).map_err(|e| ProfileError::Metadata {
            dir: dir.to_path_buf(),
            stderr: format!("unreadable JSON: {e}"),
        })?;
    parse_metadata(&metadata, &manifest).ok_or_else(|| ProfileError::Metadata {
        dir: dir.to_path_buf(),
        stderr: "no package with this manifest (is it a virtual workspace manifest?)".into(),
    })
}

fn parse_metadata(metadata: &Value, manifest: &Path) -> Option<CrateInfo> {
    let wanted = manifest.canonicalize().ok()?;
    let package = metadata["packages"].as_array()?.iter().find(|p| {
        p["manifest_path"]
            .as_str()
            .and_then(|m| Path::new(m).canonicalize().ok())
            .is_some_and(|m| m == wanted)
    })?;
    let targets = package["targets"].as_array()?;
    let kinds = |t: &Value| -> Vec<String> {
        t["kind"]
            .as_array()
            .map(|k| {
                k.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let has_generated = targets.iter().any(|t| {
        t["name"].as_str() == Some(GENERATED_TARGET) && kinds(t).iter().any(|k| k == "test")
    });
    let doctest_targets = targets
        .iter()
        .filter(|t| t["doctest"].as_bool() == Some(true))
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect();
    Some(CrateInfo {
        name: package["name"].as_str()?.to_string(),
        version: package["version"].as_str().unwrap_or_default().to_string(),
        dir: wanted.parent()?.to_path_buf(),
        id: package["id"].as_str()?.to_string(),
        has_generated,
        doctest_targets,
    })
}

/// Options of the cargo build.
pub(crate) struct BuildOptions<'a> {
    pub suite: Suite,
    pub release: bool,
    pub target_dir: Option<&'a Path>,
    pub cargo_args: &'a [String],
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
    let mut command = cargo();
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
    if let Some(dir) = options.target_dir {
        command.arg("--target-dir").arg(dir);
    }
    command.args(options.cargo_args);
    // Own process group, like every child of frugal (see STYLE.md).
    command.process_group(0);
    let output = command.output().map_err(|e| ProfileError::Spawn {
        command: "cargo test --no-run".into(),
        source: e,
    })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(ProfileError::Build {
            krate: info.name.clone(),
            dir: info.dir.clone(),
            first_errors: first_errors(&stdout, &String::from_utf8_lossy(&output.stderr)),
        });
    }
    let mut binaries: Vec<BuiltBinary> = artifacts(&stdout, &info.id)
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

/// Test executables of `package_id` among cargo's JSON messages.
fn artifacts(messages: &str, package_id: &str) -> Vec<BuiltBinary> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter(|m| m["profile"]["test"] == true && m["package_id"] == package_id)
        .filter_map(|m| {
            let executable = PathBuf::from(m["executable"].as_str()?);
            let target = m["target"]["name"].as_str()?.to_string();
            let kind = m["target"]["kind"][0]
                .as_str()
                .unwrap_or("unknown")
                .to_string();
            let suite = if kind == "test" && target == GENERATED_TARGET {
                Suite::Generated
            } else {
                Suite::Existing
            };
            Some(BuiltBinary {
                binary: TestBinary {
                    target,
                    kind,
                    suite,
                },
                executable,
            })
        })
        .collect()
}

/// The compiler's first error messages, or cargo's own stderr when there are none.
fn first_errors(messages: &str, stderr: &str) -> String {
    const MAX_MESSAGES: usize = 3;
    const MAX_LINES: usize = 40;
    let rendered: Vec<String> = messages
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-message" && m["message"]["level"] == "error")
        .filter_map(|m| m["message"]["rendered"].as_str().map(String::from))
        .take(MAX_MESSAGES)
        .collect();
    let text = if rendered.is_empty() {
        stderr.trim().to_string()
    } else {
        rendered.join("")
    };
    let lines: Vec<&str> = text.lines().take(MAX_LINES).collect();
    lines.join("\n")
}

/// `cargo`, or `$CARGO` when a cargo process runs us (it points at the toolchain in use).
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifacts_keep_test_executables_of_the_package_only() {
        let messages = r#"{"reason":"compiler-artifact","package_id":"p","target":{"name":"p","kind":["lib"]},"profile":{"test":true},"executable":"/t/p-1"}
{"reason":"compiler-artifact","package_id":"p","target":{"name":"p","kind":["lib"]},"profile":{"test":false},"executable":null}
{"reason":"compiler-artifact","package_id":"dep","target":{"name":"dep","kind":["lib"]},"profile":{"test":true},"executable":"/t/dep"}
{"reason":"compiler-artifact","package_id":"p","target":{"name":"frugal_generated","kind":["test"]},"profile":{"test":true},"executable":"/t/g-2"}
{"reason":"build-finished","success":true}"#;
        let found = artifacts(messages, "p");
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
        assert_eq!(
            first_errors(messages, "cargo noise"),
            "error[E0308]: mismatched types"
        );
        assert_eq!(first_errors("", "error: manifest\n"), "error: manifest");
    }
}
