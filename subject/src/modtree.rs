//! Which files make up a crate's module tree. Analysis (the API model) and instrumentation (the
//! goal manifest) both resolve `mod foo;` through here, each in its own walk order, so they
//! agree on the file set.
//!
//! A declaration is compiled in when its `cfg`s allow it (tests are dropped); its file is
//! found like rustc finds it: `foo.rs` or `foo/mod.rs` next to the declaring file (inside
//! `self/` for a non-`mod.rs` file), or the `#[path]` given. A file whose real path (symlinks
//! followed) leaves the crate directory is refused: instrumentation would otherwise read code
//! that is not the crate's, and analysis would model it.

use std::path::{Component, Path, PathBuf};

use syn::Attribute;

use crate::analyze::attrs::CfgEval;

/// Where the children of a module live, relative to the crate directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Dirs {
    /// Directory for `mod foo;` lookups (`foo.rs`, `foo/mod.rs`).
    pub children: PathBuf,
    /// Directory a `#[path]` is relative to.
    pub path_base: PathBuf,
}

impl Dirs {
    /// A file that owns its directory: the crate root, a `mod.rs` or a `#[path]` file.
    pub(crate) fn of_mod_rs(file: &Path) -> Dirs {
        let dir = parent_dir(file);
        Dirs {
            children: dir.clone(),
            path_base: dir,
        }
    }

    /// The directories inside an inline `mod name { .. }`, whose `#[path]` renames its
    /// directory.
    pub(crate) fn inline(&self, name: &str, path: Option<&str>) -> Dirs {
        let inner = self.children.join(path.unwrap_or(name));
        Dirs {
            children: inner.clone(),
            path_base: inner,
        }
    }
}

/// A module file, relative to the crate directory, and where its own children live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModFile {
    pub rel: PathBuf,
    pub dirs: Dirs,
}

/// Resolves the module files of one crate under one `cfg`.
pub(crate) struct ModTree<'a> {
    /// Canonical, so that "inside the crate" survives symlinks.
    crate_dir: PathBuf,
    cfg: &'a CfgEval,
}

impl<'a> ModTree<'a> {
    pub(crate) fn new(crate_dir: &Path, cfg: &'a CfgEval) -> Self {
        let crate_dir = crate_dir
            .canonicalize()
            .unwrap_or_else(|_| crate_dir.to_path_buf());
        ModTree { crate_dir, cfg }
    }

    /// Whether an item (or a file, by its inner attributes) with these attributes is compiled
    /// in: `cfg`s not known false, and not a test.
    pub(crate) fn compiled(&self, attrs: &[Attribute]) -> bool {
        self.cfg.keeps(attrs)
    }

    /// The absolute path of a file this tree resolved, for reading.
    pub(crate) fn full_path(&self, rel: &Path) -> PathBuf {
        self.crate_dir.join(rel)
    }

    /// The text of a file this tree resolved, read without following a link out of the crate
    /// (`crate::tree::read_in_tree`): [`ModTree::inside`] checked the path when it was resolved,
    /// this holds when the file is opened.
    pub(crate) fn read(&self, rel: &Path) -> std::io::Result<String> {
        crate::tree::read_in_tree(&self.crate_dir, rel)
    }

    /// The crate root file (`src/lib.rs`), checked like any module file.
    pub(crate) fn root(&self, rel: &Path) -> Result<ModFile, String> {
        let what = format!("crate root {}", slash_path(rel));
        let rel = self.inside(rel, &what)?;
        if !self.full_path(&rel).is_file() {
            return Err(format!("{what} not found"));
        }
        Ok(ModFile {
            dirs: Dirs::of_mod_rs(&rel),
            rel,
        })
    }

    /// The file of `mod name;` declared where `dirs` apply, with its `#[path]` if any.
    pub(crate) fn resolve(
        &self,
        name: &str,
        path: Option<&str>,
        dirs: &Dirs,
    ) -> Result<ModFile, String> {
        let what = format!("module `{name}`");
        if let Some(custom) = path {
            let rel = self.inside(&dirs.path_base.join(custom), &what)?;
            if !self.full_path(&rel).is_file() {
                return Err(format!(
                    "{what}: #[path] file {} not found",
                    slash_path(&rel)
                ));
            }
            // A #[path] file behaves like a mod.rs: its children sit next to it.
            return Ok(ModFile {
                dirs: Dirs::of_mod_rs(&rel),
                rel,
            });
        }
        let flat = self.inside(&dirs.children.join(format!("{name}.rs")), &what)?;
        if self.full_path(&flat).is_file() {
            let children = self.inside(&dirs.children.join(name), &what)?;
            return Ok(ModFile {
                dirs: Dirs {
                    children,
                    path_base: parent_dir(&flat),
                },
                rel: flat,
            });
        }
        let nested = self.inside(&dirs.children.join(name).join("mod.rs"), &what)?;
        if self.full_path(&nested).is_file() {
            return Ok(ModFile {
                dirs: Dirs::of_mod_rs(&nested),
                rel: nested,
            });
        }
        Err(format!(
            "{what}: neither {} nor {} exists",
            slash_path(&flat),
            slash_path(&nested)
        ))
    }

    /// `rel` with `.` and `..` resolved, if neither it nor what its existing part links to
    /// leaves the crate directory.
    fn inside(&self, rel: &Path, what: &str) -> Result<PathBuf, String> {
        let outside = || format!("{what}: {} is outside the crate", slash_path(rel));
        let rel = normalise_rel(rel).ok_or_else(outside)?;
        // The longest existing prefix is what symlinks can redirect; the rest is a name.
        let real = rel
            .ancestors()
            .find_map(|a| self.crate_dir.join(a).canonicalize().ok());
        match real {
            Some(real) if !real.starts_with(&self.crate_dir) => Err(outside()),
            _ => Ok(rel),
        }
    }
}

fn parent_dir(file: &Path) -> PathBuf {
    file.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// Resolves `.` and `..` lexically; `None` if the path climbs above its start or is absolute.
fn normalise_rel(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// A relative path as manifests and warnings spell it: `/`-separated on every platform.
pub(crate) fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests;
