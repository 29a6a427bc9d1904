//! The invariants of ARCHITECTURE.md that a machine can check: which crates may depend on
//! which (read from `cargo metadata`), and no `#[path]` include that crosses a crate boundary.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use frugal_testkit::workspace;

/// Each workspace package's direct dependencies (normal, build and dev), by package name.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(workspace())
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let mut deps = BTreeMap::new();
    for p in meta["packages"].as_array().expect("packages") {
        let names = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null()) // normal dependencies only
            .filter_map(|d| d["name"].as_str().map(String::from))
            .collect();
        deps.insert(p["name"].as_str().expect("name").to_string(), names);
    }
    deps
}

fn frugal_deps(deps: &BTreeMap<String, BTreeSet<String>>, krate: &str) -> BTreeSet<String> {
    deps.get(krate)
        .unwrap_or_else(|| panic!("no package {krate}"))
        .iter()
        .filter(|d| d.starts_with("frugal"))
        .cloned()
        .collect()
}

#[test]
fn dependencies_point_one_way() {
    let deps = dependencies();
    let set =
        |names: &[&str]| -> BTreeSet<String> { names.iter().map(|s| s.to_string()).collect() };
    // The runtime linked into instrumented crates depends on nothing at all.
    assert!(
        deps["frugal-probe"].is_empty(),
        "{:?}",
        deps["frugal-probe"]
    );
    // Pure crates: no other frugal crate.
    for pure in [
        "frugal-proxies",
        "frugal-config",
        "frugal-storage",
        "frugal-testkit",
        "frugal-sandbox",
    ] {
        assert_eq!(frugal_deps(&deps, pure), set(&[]), "{pure}");
    }
    // The search knows neither Rust source nor processes.
    assert_eq!(
        frugal_deps(&deps, "frugal-search"),
        set(&["frugal-proxies"])
    );
    // Below the engine, nothing knows the engine.
    for low in ["frugal-cargo", "frugal-profiler", "frugal-scheduler"] {
        let d = frugal_deps(&deps, low);
        for engine in [
            "frugal-subject",
            "frugal-search",
            "frugal-probe",
            "frugald",
            "frugal",
        ] {
            assert!(!d.contains(engine), "{low} depends on {engine}");
        }
    }
    // Only the service serves HTTP.
    for (name, d) in &deps {
        if name != "frugald" {
            assert!(
                !d.contains("axum") && !d.contains("hyper"),
                "{name} serves HTTP"
            );
        }
    }
    // Nothing below the binaries depends on them.
    for (name, d) in &deps {
        if name != "frugal" {
            assert!(!d.contains("frugal"), "{name} depends on the CLI");
        }
        if name != "frugal" && name != "frugald" {
            assert!(!d.contains("frugald"), "{name} depends on the service");
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        let name = e.file_name();
        // Fixture crates are test data; some leave their crate on purpose.
        if name == "target" || name == "fixtures" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The directory of the package a file belongs to: the nearest ancestor with a Cargo.toml.
fn package_dir(file: &Path) -> PathBuf {
    file.ancestors()
        .skip(1)
        .find(|d| d.join("Cargo.toml").is_file())
        .expect("every file sits in a package")
        .to_path_buf()
}

#[test]
fn no_path_include_crosses_a_crate_boundary() {
    let root = workspace();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut crossing = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            let Some(rest) = line.trim().strip_prefix("#[path = \"") else {
                continue;
            };
            let target = rest.split('"').next().unwrap_or_default();
            let resolved = f.parent().expect("file has a dir").join(target);
            let Ok(resolved) = resolved.canonicalize() else {
                continue; // a fixture's deliberately missing file
            };
            let home = package_dir(f).canonicalize().expect("package dir");
            if !resolved.starts_with(&home) {
                crossing.push(format!("{}:{}", f.display(), i + 1));
            }
        }
    }
    assert!(
        crossing.is_empty(),
        "#[path] includes leaving their crate: {crossing:#?}"
    );
    assert!(files.len() > 100, "walked only {} files", files.len());
}
