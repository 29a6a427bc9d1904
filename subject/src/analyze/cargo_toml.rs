//! The few facts analysis needs from `Cargo.toml`: library name, root file, feature table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml_edit::DocumentMut;

use super::error::AnalyzeError;

/// The library target of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LibTarget {
    /// Name as used in paths: `[lib] name`, else the package name with `-` turned into `_`.
    pub crate_name: String,
    /// Root file relative to the crate directory.
    pub root: PathBuf,
    /// `[features]`: feature name to what it enables.
    pub features: BTreeMap<String, Vec<String>>,
    /// `[dependencies]`: name to version requirement (empty for path or git dependencies).
    pub dependencies: BTreeMap<String, String>,
    /// `package.edition` as a year (2015 when absent, as cargo reads it).
    pub edition: u16,
}

/// The library target; with `allow_bin`, a package without one yields its (first) binary's
/// root instead, which in-crate placement treats as the crate root.
pub(crate) fn read_lib_target(
    crate_dir: &Path,
    allow_bin: bool,
) -> Result<LibTarget, AnalyzeError> {
    let path = crate_dir.join("Cargo.toml");
    let text =
        crate::tree::read_crate_file(crate_dir, Path::new("Cargo.toml")).map_err(|source| {
            AnalyzeError::Read {
                path: path.clone(),
                source,
            }
        })?;
    let doc: DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| AnalyzeError::Manifest {
                path: path.clone(),
                message: crate::tree::toml_problem(&text, &e),
            })?;
    let lib = doc.get("lib");
    let lib_str = |key: &str| lib.and_then(|l| l.get(key)).and_then(|v| v.as_str());
    let package_name = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|v| v.as_str());
    let crate_name = lib_str("name")
        .or(package_name)
        .ok_or_else(|| AnalyzeError::Manifest {
            path: path.clone(),
            message: "no [package] name and no [lib] name".to_string(),
        })?
        .replace('-', "_");
    let root = match lib_str("path") {
        Some(p) => PathBuf::from(p),
        None if crate_dir.join("src/lib.rs").is_file() => PathBuf::from("src/lib.rs"),
        None => match bin_root(&doc, crate_dir).filter(|_| allow_bin) {
            Some(root) => root,
            None => return Err(AnalyzeError::NoLibrary { path }),
        },
    };
    Ok(LibTarget {
        crate_name,
        root,
        features: feature_table(&doc),
        dependencies: dependency_table(&doc),
        edition: doc
            .get("package")
            .and_then(|p| p.get("edition"))
            .and_then(|e| e.as_str())
            .and_then(|e| e.parse().ok())
            .unwrap_or(2015),
    })
}

/// Root file of the package's first binary: `[[bin]] path`, else `src/main.rs`.
pub(crate) fn bin_root(doc: &DocumentMut, crate_dir: &Path) -> Option<PathBuf> {
    let declared = doc
        .get("bin")
        .and_then(|b| b.as_array_of_tables())
        .and_then(|bins| bins.iter().find_map(|b| b.get("path")?.as_str()))
        .map(PathBuf::from);
    declared
        .or_else(|| Some(PathBuf::from("src/main.rs")))
        .filter(|p| crate_dir.join(p).is_file())
}

fn feature_table(doc: &DocumentMut) -> BTreeMap<String, Vec<String>> {
    let Some(table) = doc.get("features").and_then(|f| f.as_table_like()) else {
        return BTreeMap::new();
    };
    table
        .iter()
        .map(|(name, value)| {
            let implied = value
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            (name.to_string(), implied)
        })
        .collect()
}

fn dependency_table(doc: &DocumentMut) -> BTreeMap<String, String> {
    let Some(table) = doc.get("dependencies").and_then(|d| d.as_table_like()) else {
        return BTreeMap::new();
    };
    table
        .iter()
        .map(|(name, spec)| {
            let version = spec
                .as_str()
                .or_else(|| spec.as_table_like()?.get("version")?.as_str())
                .unwrap_or_default();
            (name.to_string(), version.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_linked_out_of_the_crate_is_refused_without_its_text() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = crate::tree::crate_with_manifest_linked_out(tmp.path(), "ADMIN-TOKEN-0123");
        let err = read_lib_target(&dir, false).unwrap_err().to_string();
        crate::tree::assert_refused_without(&err, "ADMIN-TOKEN-0123");
    }
}
