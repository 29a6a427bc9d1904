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
        "frugal-api",
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
    // The CLI reads the service's shapes from `frugal-api`, never from the service itself.
    assert!(
        !frugal_deps(&deps, "frugal").contains("frugald"),
        "the CLI depends on the service"
    );
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

/// The packages the CLI binary links, with the features it alone resolves (`cargo tree`).
fn cli_closure() -> BTreeSet<String> {
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "tree", "-p", "frugal", "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .current_dir(workspace())
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect()
}

#[test]
fn the_cli_links_no_service_server_or_database() {
    let linked = cli_closure();
    assert!(linked.contains("frugal-api"), "{linked:?}");
    for server in [
        "frugald",
        "axum",
        "hyper",
        "hyper-util",
        "tower-http",
        "sled",
    ] {
        assert!(
            !linked.contains(server),
            "the frugal CLI links {server}: {linked:?}"
        );
    }
}

/// The modules of `daemon/src` (a file, or a directory with its `mod.rs`) and, for each, the
/// other modules its files name through `crate::` paths (`use crate::x`, `crate::x::f()`,
/// `use crate::{x, y}`).
fn daemon_imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = workspace().join("daemon/src");
    let mut modules = BTreeSet::new();
    for e in std::fs::read_dir(&src).expect("read daemon/src").flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if e.path().is_dir() {
            modules.insert(name);
        } else if let Some(m) = name.strip_suffix(".rs")
            && m != "lib"
            && m != "main"
        {
            modules.insert(m.to_string());
        }
    }
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut imports: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for f in files {
        let rel = f.strip_prefix(&src).expect("under daemon/src");
        let first = rel
            .components()
            .next()
            .expect("a path")
            .as_os_str()
            .to_string_lossy()
            .to_string();
        let module = first.strip_suffix(".rs").unwrap_or(&first).to_string();
        let Some(edges) = imports.get_mut(&module) else {
            continue; // lib.rs, main.rs: the crate's root declares every module
        };
        let text = std::fs::read_to_string(&f).expect("read a source file");
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let named: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group
                    .split('}')
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|n| n.trim().split("::").next().unwrap_or_default())
                    .collect(),
                None => vec![
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                        .unwrap_or_default(),
                ],
            };
            for n in named {
                if n != module && modules.contains(n) {
                    edges.insert(n.to_string());
                }
            }
        }
    }
    imports
}

/// The module cycles of a graph: each strongly connected component of more than one module.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    // Reachability by repeated search: the graph is a few dozen modules.
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(m) = stack.pop() {
            for n in graph.get(&m).into_iter().flatten() {
                if seen.insert(n.clone()) {
                    stack.push(n.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for (m, r) in &reached {
        let circle: BTreeSet<String> = r
            .iter()
            .filter(|n| reached[n].contains(*m))
            .cloned()
            .collect();
        if circle.len() > 1 && !out.contains(&circle) {
            out.push(circle);
        }
    }
    out
}

#[test]
fn the_daemon_s_modules_import_each_other_one_way() {
    let imports = daemon_imports();
    assert!(imports.len() > 10, "found only {imports:?}");
    assert!(imports["http"].contains("api"), "{imports:?}");
    let circles = cycles(&imports);
    assert!(
        circles.is_empty(),
        "import circles among daemon/src modules: {circles:?}\n{imports:#?}"
    );
}

#[test]
fn a_circle_of_imports_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_string(), to.into_iter().map(String::from).collect()))
    .collect();
    let found = cycles(&graph);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 3);
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
