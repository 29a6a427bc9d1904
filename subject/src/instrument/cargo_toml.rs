//! The copy's `Cargo.toml`: standalone, with absolute paths and the probe dependency.
//!
//! As cargo-mutants' `manifest.rs` (\[cargo-mutants\]), relative `path` dependencies become absolute (the copy lives
//! elsewhere). Beyond that the copy must build on its own: it gets an empty `[workspace]`, and
//! `workspace = true` inheritance is resolved from the enclosing workspace's manifest, which the
//! copy no longer sits under.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::InstrumentError;

/// What the rest of the instrumenter needs from the manifest.
#[derive(Debug, Clone)]
pub(crate) struct Package {
    /// The library's root file, relative to the crate root.
    pub lib: PathBuf,
    /// `2015`, `2018`, `2021`, `2024`.
    pub edition: String,
    /// The rewritten manifest for the copy.
    pub manifest: String,
    /// The enclosing workspace's lock file (its bytes, read inside the tree), when the crate
    /// has none of its own.
    pub workspace_lock: Option<Vec<u8>>,
}

const DEP_TABLES: &[&str] = &[
    "dependencies",
    "dev-dependencies",
    "build-dependencies",
    "dev_dependencies",
    "build_dependencies",
];

/// The enclosing workspace: its root directory and manifest.
struct Workspace {
    root: PathBuf,
    doc: DocumentMut,
}

/// Reads `crate_dir/Cargo.toml` and rewrites it for a copy depending on the probe crate at
/// `probe_dir` (absolute), or for a plain standalone copy when `probe_dir` is `None`.
pub(crate) fn prepare(
    crate_dir: &Path,
    probe_dir: Option<&Path>,
) -> Result<Package, InstrumentError> {
    let path = crate_dir.join("Cargo.toml");
    let text = crate::tree::read_crate_file(crate_dir, Path::new("Cargo.toml"))
        .map_err(|e| super::copy::io_err(&path, e))?;
    let err = |message: String| InstrumentError::Manifest {
        path: path.clone(),
        message,
    };
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| err(crate::tree::toml_problem(&text, &e)))?;
    let tree = crate::tree::root_of(crate_dir);
    named_paths_inside(&doc, crate_dir, &tree).map_err(err)?;
    let workspace = if doc.contains_key("workspace") {
        None
    } else {
        find_workspace(crate_dir, &tree, &doc)
    };
    resolve_package(&mut doc, workspace.as_ref()).map_err(err)?;
    if let Some(pkg) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
        // The copy is its own workspace root.
        pkg.remove("workspace");
    }
    if doc
        .get("lints")
        .and_then(|l| l.get("workspace"))
        .and_then(Item::as_bool)
        == Some(true)
    {
        // Lints are capped to warnings in instrumented builds anyway.
        doc.remove("lints");
    }
    for_each_dep_table(&mut doc, &mut |name, item| {
        fix_dep(name, item, crate_dir, workspace.as_ref())
    })
    .map_err(err)?;
    fix_patches(&mut doc, crate_dir);
    if let Some(ws) = &workspace {
        inherit_patches(&mut doc, ws);
    }
    if !doc.contains_key("workspace") {
        doc.insert("workspace", Item::Table(Table::new()));
    }
    if let Some(probe_dir) = probe_dir {
        add_probe(&mut doc, probe_dir);
        bin_as_lib(&mut doc, crate_dir);
    }
    let lib = doc
        .get("lib")
        .and_then(|l| l.get("path"))
        .and_then(Item::as_str)
        .map_or_else(|| PathBuf::from("src/lib.rs"), PathBuf::from);
    let edition = doc
        .get("package")
        .and_then(|p| p.get("edition"))
        .and_then(Item::as_str)
        .unwrap_or("2015")
        .to_string();
    let workspace_lock = workspace
        .filter(|_| !crate_dir.join("Cargo.lock").is_file())
        .and_then(|ws| crate::tree::read_bytes_in_tree(&tree, &ws.root.join("Cargo.lock")).ok());
    Ok(Package {
        lib,
        edition,
        manifest: doc.to_string(),
        workspace_lock,
    })
}

/// Refuses a manifest naming a file outside the crate's tree for cargo and rustc to read: the
/// build script, a target's root, the readme or licence file. The builds that read them are
/// confined, but where the host lacks Landlock a build script named `/etc/frugal/token` would
/// have rustc quote its first line in the compile error stored with the run.
fn named_paths_inside(doc: &DocumentMut, crate_dir: &Path, tree: &Path) -> Result<(), String> {
    let mut named: Vec<(String, &str)> = Vec::new();
    for key in ["build", "readme", "license-file", "workspace"] {
        if let Some(p) = doc
            .get("package")
            .and_then(|p| p.get(key))
            .and_then(Item::as_str)
        {
            named.push((format!("package.{key}"), p));
        }
    }
    if let Some(p) = doc
        .get("lib")
        .and_then(|l| l.get("path"))
        .and_then(Item::as_str)
    {
        named.push(("lib.path".into(), p));
    }
    for kind in ["bin", "test", "bench", "example"] {
        let targets = doc.get(kind).and_then(Item::as_array_of_tables);
        for t in targets.into_iter().flat_map(|ts| ts.iter()) {
            if let Some(p) = t.get("path").and_then(Item::as_str) {
                named.push((format!("[[{kind}]] path"), p));
            }
        }
    }
    match named
        .into_iter()
        .find(|(_, p)| !crate::tree::stays_inside(tree, &crate_dir.join(p)))
    {
        Some((key, p)) => Err(format!(
            "`{key} = \"{p}\"` names a file outside the crate's tree ({}): frugal builds only \
             what the tree holds",
            tree.display()
        )),
        None => Ok(()),
    }
}

/// A package without a library gets its first binary's root as the library of the copy, and
/// loses its binaries: the harness links the crate as a library, and in-crate tests reach its
/// items with `crate::` paths either way (the harness brings its own `main`, so the crate's is set aside).
fn bin_as_lib(doc: &mut DocumentMut, crate_dir: &Path) {
    if doc.contains_key("lib") || crate_dir.join("src/lib.rs").is_file() {
        return;
    }
    let declared = doc
        .get("bin")
        .and_then(Item::as_array_of_tables)
        .and_then(|bins| bins.iter().find_map(|b| b.get("path")?.as_str()))
        .map(PathBuf::from);
    let Some(root) = declared
        .or_else(|| Some(PathBuf::from("src/main.rs")))
        .filter(|p| crate_dir.join(p).is_file())
    else {
        return;
    };
    let mut lib = Table::new();
    lib.insert("path", toml_edit::value(root.to_string_lossy().as_ref()));
    doc.insert("lib", Item::Table(lib));
    doc.remove("bin");
    if let Some(pkg) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
        pkg.insert("autobins", toml_edit::value(false));
    }
}

/// The nearest ancestor manifest with a `[workspace]` table, or the one `package.workspace`
/// names, searched only inside the crate's tree (`tree`, see `crate::tree::root_of`).
fn find_workspace(crate_dir: &Path, tree: &Path, doc: &DocumentMut) -> Option<Workspace> {
    let explicit = doc
        .get("package")
        .and_then(|p| p.get("workspace"))
        .and_then(Item::as_str);
    let candidates: Vec<PathBuf> = match explicit {
        // `named_paths_inside` refused one outside the tree already.
        Some(rel) => vec![crate_dir.join(rel)],
        None => crate_dir
            .ancestors()
            .skip(1)
            .take_while(|d| d.canonicalize().is_ok_and(|c| c.starts_with(tree)))
            .map(Path::to_path_buf)
            .collect(),
    };
    candidates.into_iter().find_map(|dir| {
        let text = crate::tree::read_in_tree(tree, &dir.join("Cargo.toml")).ok()?;
        let doc: DocumentMut = text.parse().ok()?;
        doc.contains_key("workspace")
            .then_some(Workspace { root: dir, doc })
    })
}

fn inherits(item: &Item) -> bool {
    item.get("workspace").and_then(Item::as_bool) == Some(true)
}

/// Replaces `key.workspace = true` in `[package]` with the workspace's value.
fn resolve_package(doc: &mut DocumentMut, ws: Option<&Workspace>) -> Result<(), String> {
    let Some(pkg) = doc.get_mut("package").and_then(Item::as_table_like_mut) else {
        return Ok(());
    };
    let keys: Vec<String> = pkg
        .iter()
        .filter(|(_, v)| inherits(v))
        .map(|(k, _)| k.to_string())
        .collect();
    for key in keys {
        let ws = ws.ok_or_else(|| {
            format!("`package.{key}` uses `workspace = true` but no enclosing workspace was found")
        })?;
        let value = ws
            .doc
            .get("workspace")
            .and_then(|w| w.get("package"))
            .and_then(|p| p.get(&key))
            .and_then(Item::as_value)
            .ok_or_else(|| {
                format!(
                    "`package.{key}` is inherited but `workspace.package.{key}` is missing in {}",
                    ws.root.join("Cargo.toml").display()
                )
            })?;
        let mut value = value.clone();
        if matches!(key.as_str(), "readme" | "license-file") {
            absolutize(&mut value, &ws.root);
        }
        value.decor_mut().clear();
        pkg.insert(&key, Item::Value(value));
    }
    Ok(())
}

/// Calls `f` on every dependency entry of every dependency table, target-specific included.
fn for_each_dep_table(
    doc: &mut DocumentMut,
    f: &mut dyn FnMut(&str, &mut Item) -> Result<(), String>,
) -> Result<(), String> {
    fn visit_tables(
        t: &mut dyn TableLike,
        f: &mut dyn FnMut(&str, &mut Item) -> Result<(), String>,
    ) -> Result<(), String> {
        for name in DEP_TABLES {
            if let Some(deps) = t.get_mut(name).and_then(Item::as_table_like_mut) {
                for (key, item) in deps.iter_mut() {
                    f(key.get(), item)?;
                }
            }
        }
        Ok(())
    }
    visit_tables(doc.as_table_mut(), f)?;
    if let Some(targets) = doc.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, target) in targets.iter_mut() {
            if let Some(t) = target.as_table_like_mut() {
                visit_tables(t, f)?;
            }
        }
    }
    Ok(())
}

/// Resolves `workspace = true` and makes a relative `path` absolute.
fn fix_dep(
    name: &str,
    item: &mut Item,
    crate_dir: &Path,
    ws: Option<&Workspace>,
) -> Result<(), String> {
    if inherits(item) {
        let ws = ws.ok_or_else(|| {
            format!(
                "dependency `{name}` uses `workspace = true` but no enclosing workspace was found"
            )
        })?;
        let mut merged = workspace_dep(ws, name)?;
        if let Some(own) = item.as_table_like() {
            for (key, value) in own.iter() {
                let Some(value) = value.as_value() else {
                    continue;
                };
                match key {
                    "workspace" => {}
                    "features" => merge_features(&mut merged, value),
                    _ => {
                        merged.insert(key, value.clone());
                    }
                }
            }
        }
        *item = Item::Value(Value::InlineTable(merged));
        return Ok(());
    }
    if let Some(path) = item.get_mut("path").and_then(Item::as_value_mut) {
        absolutize(path, crate_dir);
    }
    Ok(())
}

/// `workspace.dependencies.<name>` as an inline table, its `path` absolute.
fn workspace_dep(ws: &Workspace, name: &str) -> Result<InlineTable, String> {
    let dep = ws
        .doc
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(|d| d.get(name))
        .ok_or_else(|| {
            format!(
                "dependency `{name}` is inherited but missing from [workspace.dependencies] in {}",
                ws.root.join("Cargo.toml").display()
            )
        })?;
    let mut table = InlineTable::new();
    if let Some(version) = dep.as_str() {
        table.insert("version", version.into());
    } else if let Some(t) = dep.as_table_like() {
        table = root_inline_table(t, &ws.root);
    }
    Ok(table)
}

/// The values of `t`, a table of the workspace root's manifest at `root`, as an inline table
/// for the copy's manifest: a relative `path` made absolute against `root` (the copy is
/// elsewhere), every value's decor (comments, spacing) dropped.
fn root_inline_table(t: &dyn TableLike, root: &Path) -> InlineTable {
    let mut table = InlineTable::new();
    for (key, value) in t.iter() {
        if let Some(v) = value.as_value() {
            let mut v = v.clone();
            if key == "path" {
                absolutize(&mut v, root);
            }
            v.decor_mut().clear();
            table.insert(key, v);
        }
    }
    table
}

fn merge_features(table: &mut InlineTable, extra: &Value) {
    let Some(extra) = extra.as_array() else {
        return;
    };
    let mut features = table
        .get("features")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for f in extra.iter() {
        if !features.iter().any(|g| g.as_str() == f.as_str()) {
            features.push(f.clone());
        }
    }
    table.insert("features", Value::Array(features));
}

/// `[patch.<source>.<name>] path = ...` relative to the crate becomes absolute.
fn fix_patches(doc: &mut DocumentMut, crate_dir: &Path) {
    let Some(patch) = doc.get_mut("patch").and_then(Item::as_table_like_mut) else {
        return;
    };
    for (_, source) in patch.iter_mut() {
        let Some(source) = source.as_table_like_mut() else {
            continue;
        };
        for (_, dep) in source.iter_mut() {
            if let Some(path) = dep.get_mut("path").and_then(Item::as_value_mut) {
                absolutize(path, crate_dir);
            }
        }
    }
}

/// The workspace root's `[patch]` applied to the member; the copy is its own root now.
fn inherit_patches(doc: &mut DocumentMut, ws: &Workspace) {
    let Some(ws_patch) = ws.doc.get("patch").and_then(Item::as_table_like) else {
        return;
    };
    for (source_name, source) in ws_patch.iter() {
        let Some(source) = source.as_table_like() else {
            continue;
        };
        for (name, dep) in source.iter() {
            let table = dep
                .as_table_like()
                .map(|t| root_inline_table(t, &ws.root))
                .unwrap_or_default();
            let patch = doc.entry("patch").or_insert(toml_edit::table());
            if let Some(patch) = patch.as_table_like_mut() {
                let src = patch.entry(source_name).or_insert(toml_edit::table());
                if let Some(src) = src.as_table_like_mut()
                    && !src.contains_key(name)
                {
                    src.insert(name, Item::Value(Value::InlineTable(table)));
                }
            }
        }
    }
}

fn add_probe(doc: &mut DocumentMut, probe_dir: &Path) {
    let mut dep = InlineTable::new();
    dep.insert("path", probe_dir.to_string_lossy().as_ref().into());
    let deps = doc.entry("dependencies").or_insert(toml_edit::table());
    if let Some(deps) = deps.as_table_like_mut() {
        deps.insert(
            crate::probe_src::PACKAGE,
            Item::Value(Value::InlineTable(dep)),
        );
    }
}

/// Makes a string path value absolute against `base`, keeping its decoration.
fn absolutize(value: &mut Value, base: &Path) {
    let Some(s) = value.as_str() else { return };
    let p = Path::new(s);
    if p.is_absolute() {
        return;
    }
    let abs = base.join(p);
    let decor = value.decor().clone();
    *value = Value::from(abs.to_string_lossy().as_ref());
    *value.decor_mut() = decor;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// The error `prepare` (no probe crate) gives once `dir`'s manifest is `manifest`.
    fn refusal(dir: &Path, manifest: &str) -> String {
        write(dir, "Cargo.toml", manifest);
        prepare(dir, None).unwrap_err().to_string()
    }

    #[test]
    fn standalone_crate_gets_workspace_absolute_paths_and_the_probe() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("c");
        write(
            &dir,
            "Cargo.toml",
            "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nhelper = { path = \"../helper\" }\nserde = \"1\"\n",
        );
        let pkg = prepare(&dir, Some(Path::new("/abs/frugal-probe"))).unwrap();
        let doc: DocumentMut = pkg.manifest.parse().unwrap();
        assert!(doc.contains_key("workspace"));
        let helper = doc["dependencies"]["helper"]["path"].as_str().unwrap();
        assert_eq!(Path::new(helper), dir.join("../helper"));
        assert_eq!(doc["dependencies"]["serde"].as_str(), Some("1"));
        assert_eq!(
            doc["dependencies"]["frugal-probe"]["path"].as_str(),
            Some("/abs/frugal-probe")
        );
        assert_eq!(pkg.lib, PathBuf::from("src/lib.rs"));
        assert_eq!(pkg.edition, "2021");
    }

    #[test]
    fn workspace_inheritance_is_resolved_from_the_enclosing_workspace() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            "Cargo.toml",
            "[workspace]\nmembers = [\"m\"]\n\n[workspace.package]\nedition = \"2024\"\nversion = \"1.2.3\"\n\n[workspace.dependencies]\nlocal = { path = \"local\", features = [\"a\"] }\nregex = \"1\"\n",
        );
        write(root, "Cargo.lock", "# lock\n");
        write(
            root,
            "m/Cargo.toml",
            "[package]\nname = \"m\"\nversion.workspace = true\nedition.workspace = true\n\n[lib]\npath = \"lib.rs\"\n\n[dependencies]\nlocal = { workspace = true, features = [\"b\"] }\nregex.workspace = true\n\n[lints]\nworkspace = true\n",
        );
        let pkg = prepare(&root.join("m"), Some(Path::new("/p"))).unwrap();
        let doc: DocumentMut = pkg.manifest.parse().unwrap();
        assert_eq!(doc["package"]["version"].as_str(), Some("1.2.3"));
        assert_eq!(pkg.edition, "2024");
        assert_eq!(pkg.lib, PathBuf::from("lib.rs"));
        let local = &doc["dependencies"]["local"];
        assert_eq!(
            Path::new(local["path"].as_str().unwrap()),
            root.join("local")
        );
        let features: Vec<_> = local["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(features, ["a", "b"]);
        assert_eq!(doc["dependencies"]["regex"]["version"].as_str(), Some("1"));
        assert!(!doc.contains_key("lints"));
        assert_eq!(pkg.workspace_lock.as_deref(), Some(&b"# lock\n"[..]));
    }

    #[test]
    fn a_manifest_linked_out_of_the_tree_is_refused_without_its_text() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = crate::tree::crate_with_manifest_linked_out(tmp.path(), "SECRET-LINE-42");
        let err = prepare(&dir, None).unwrap_err().to_string();
        crate::tree::assert_refused_without(&err, "SECRET-LINE-42");
    }

    #[test]
    fn a_parse_error_names_the_line_not_the_text() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("c");
        let err = refusal(&dir, "[package]\nname = \"c\"\nSECRET-LINE-42\n");
        assert!(
            err.contains("Cargo.toml") && err.contains("line 3"),
            "{err}"
        );
        assert!(!err.contains("SECRET-LINE"), "{err}");
    }

    #[test]
    fn a_workspace_named_outside_the_tree_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "other/Cargo.toml",
            "[workspace]\n\n[workspace.package]\nversion = \"9.9.9\"\n",
        );
        std::fs::create_dir_all(tmp.path().join("repo/.git")).unwrap();
        let dir = tmp.path().join("repo/c");
        let err = refusal(
            &dir,
            "[package]\nname = \"c\"\nworkspace = \"../../other\"\nversion.workspace = true\n",
        );
        assert!(
            err.contains("package.workspace") && err.contains("outside"),
            "{err}"
        );
    }

    #[test]
    fn a_build_script_or_target_outside_the_tree_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "token", "ADMIN\n");
        let dir = tmp.path().join("tree/c");
        write(&dir, "src/lib.rs", "pub fn f() {}\n");
        for (key, table) in [
            (
                "package.build",
                "[package]\nname = \"c\"\nbuild = \"../../token\"\n",
            ),
            (
                "[[test]] path",
                "[package]\nname = \"c\"\n\n[[test]]\nname = \"t\"\npath = \"/etc/passwd\"\n",
            ),
        ] {
            let err = refusal(&dir, table);
            assert!(err.contains(key) && err.contains("outside"), "{err}");
        }
        write(
            &dir,
            "Cargo.toml",
            "[package]\nname = \"c\"\nbuild = \"build.rs\"\n",
        );
        assert!(prepare(&dir, None).is_ok());
    }

    #[test]
    fn inheritance_without_a_workspace_is_a_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("lonely");
        write(
            &dir,
            "Cargo.toml",
            "[package]\nname = \"x\"\nversion.workspace = true\n",
        );
        let err = prepare(&dir, Some(Path::new("/p")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no enclosing workspace"), "{err}");
    }
}
