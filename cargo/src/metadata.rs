//! `cargo metadata --no-deps`: the packages of a workspace and their targets.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::{Cargo, CargoError};

/// The packages of the workspace a manifest belongs to.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// The workspace members (`--no-deps`: no dependencies), in cargo's order.
    pub packages: Vec<Package>,
}

/// One package.
#[derive(Debug, Clone)]
pub struct Package {
    /// The package name from `Cargo.toml` (with `-`, not the crate name).
    pub name: String,
    /// Its version; empty when cargo gave none.
    pub version: String,
    /// Cargo's package id, which [`crate::Artifact::package_id`] matches.
    pub id: String,
    /// Absolute path of its `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// Its targets (lib, bins, tests, benches, examples, build script); nameless ones skipped.
    pub targets: Vec<Target>,
}

/// One target of a package.
#[derive(Debug, Clone)]
pub struct Target {
    /// The target's name (`[lib] name`, `[[bin]] name`, a test file's stem, ...).
    pub name: String,
    /// Cargo's kinds: `lib`, `rlib`, `proc-macro`, `bin`, `test`, `bench`, `example`,
    /// `custom-build`, ...
    pub kinds: Vec<String>,
    /// `cargo test` runs its doc tests.
    pub doctest: bool,
    /// Features the target needs (`required-features`): without them cargo skips it when it
    /// selects targets itself, and refuses it when it is named.
    pub required_features: Vec<String>,
}

/// How long `cargo metadata` may take: it resolves the lock file, never builds.
const METADATA_TIMEOUT: Duration = Duration::from_secs(120);

impl Metadata {
    /// Runs `cargo metadata --no-deps` on `manifest`.
    pub fn read(cargo: &Cargo, manifest: &Path) -> Result<Metadata, CargoError> {
        let dir = manifest.parent().unwrap_or(Path::new("."));
        let mut cmd = cargo.command(dir);
        cmd.args(["metadata", "--no-deps", "--format-version", "1"])
            .arg("--manifest-path")
            .arg(manifest);
        let out = cargo.output(cmd, METADATA_TIMEOUT)?;
        let failed = |stderr: String| CargoError::Metadata {
            manifest: manifest.display().to_string(),
            stderr,
        };
        if !out.success {
            return Err(failed(out.stderr.trim().to_string()));
        }
        let v: Value = serde_json::from_str(&out.stdout)
            .map_err(|e| failed(format!("unreadable JSON: {e}")))?;
        Ok(Metadata::from_json(&v))
    }

    /// Reads the JSON `cargo metadata` printed; packages without a name, id or manifest are skipped.
    pub fn from_json(v: &Value) -> Metadata {
        let packages = v["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(package)
            .collect();
        Metadata { packages }
    }

    /// The package whose manifest is `manifest` (compared canonically).
    pub fn package_at(&self, manifest: &Path) -> Option<&Package> {
        let wanted = manifest.canonicalize().ok()?;
        self.packages
            .iter()
            .find(|p| p.manifest_path.canonicalize().ok().as_deref() == Some(&wanted))
    }
}

impl Package {
    /// The package's directory.
    pub fn dir(&self) -> &Path {
        self.manifest_path.parent().unwrap_or(Path::new(""))
    }

    /// Whether it has a library target.
    pub fn is_lib(&self) -> bool {
        self.targets
            .iter()
            .any(|t| t.kinds.iter().any(|k| k == "lib"))
    }
}

fn package(p: &Value) -> Option<Package> {
    let text = |x: &Value| x.as_str().map(String::from);
    Some(Package {
        name: text(&p["name"])?,
        version: text(&p["version"]).unwrap_or_default(),
        id: text(&p["id"])?,
        manifest_path: PathBuf::from(text(&p["manifest_path"])?),
        targets: p["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| {
                Some(Target {
                    name: text(&t["name"])?,
                    kinds: t["kind"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(text)
                        .collect(),
                    doctest: t["doctest"] == true,
                    required_features: t["required-features"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(text)
                        .collect(),
                })
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_and_targets_are_read() {
        let v: Value = serde_json::from_str(
            r#"{"packages":[{"name":"a","version":"0.1.0","id":"a 0.1.0","manifest_path":"/w/a/Cargo.toml",
            "targets":[{"name":"a","kind":["lib"],"doctest":true},{"name":"t","kind":["test"],"doctest":false,"required-features":["serde"]}]},
            {"name":"broken"}]}"#,
        )
        .unwrap();
        let m = Metadata::from_json(&v);
        assert_eq!(m.packages.len(), 1);
        let a = &m.packages[0];
        assert!(a.is_lib());
        assert_eq!(a.dir(), Path::new("/w/a"));
        assert_eq!(a.targets[1].kinds, vec!["test".to_string()]);
        assert!(a.targets[0].doctest && !a.targets[1].doctest);
        assert!(a.targets[0].required_features.is_empty());
        assert_eq!(a.targets[1].required_features, ["serde"]);
    }
}
