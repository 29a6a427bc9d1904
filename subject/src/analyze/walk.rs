//! The module tree, walked from the library root like rustc finds files: `mod foo;` is
//! `foo.rs` or `foo/mod.rs` next to the declaring file (inside `self/` for a non-`mod.rs`
//! file), or the `#[path]` given; inline `mod foo { .. }` nests in place.
//!
//! Items compiled out by `cfg` (and tests) are dropped here, so later passes never see them. A
//! file that is missing or does not parse becomes a warning and an empty module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::attrs::{self, CfgEval};
use super::error::{AnalyzeError, AnalyzeWarning};
use super::index::{Vis, vis_of};

/// Index of a module in [`ModuleTree::modules`]; the crate root is 0.
pub(crate) type ModId = usize;

/// One module of the crate.
#[derive(Debug, Clone)]
pub(crate) struct Module {
    pub parent: Option<ModId>,
    /// The file holding its items, relative to the crate directory, `/`-separated.
    pub file: String,
    /// Its declared visibility (the root counts as `pub`).
    pub vis: Vis,
    pub hidden: bool,
    pub items: Vec<syn::Item>,
    pub children: BTreeMap<String, ModId>,
}

#[derive(Debug, Default)]
pub(crate) struct ModuleTree {
    pub modules: Vec<Module>,
    pub warnings: Vec<AnalyzeWarning>,
}

/// Where the children of a module live on disk.
struct Dirs {
    /// Directory for `mod foo;` lookups (`foo.rs`, `foo/mod.rs`).
    children: PathBuf,
    /// Directory a `#[path]` is relative to.
    path_base: PathBuf,
}

struct Walker<'a> {
    crate_dir: &'a Path,
    cfg: &'a CfgEval,
    tree: ModuleTree,
    seen_files: BTreeSet<PathBuf>,
}

pub(crate) fn walk(
    crate_dir: &Path,
    root: &Path,
    cfg: &CfgEval,
) -> Result<ModuleTree, AnalyzeError> {
    let file = parse_file(crate_dir, root).map_err(|message| AnalyzeError::RootParse {
        path: crate_dir.join(root),
        message,
    })?;
    let mut walker = Walker {
        crate_dir,
        cfg,
        tree: ModuleTree::default(),
        seen_files: BTreeSet::from([root.to_path_buf()]),
    };
    let dir = root.parent().map(Path::to_path_buf).unwrap_or_default();
    let root_mod = Module {
        parent: None,
        file: slash_path(root),
        vis: Vis::Public,
        hidden: false,
        items: Vec::new(),
        children: BTreeMap::new(),
    };
    let dirs = Dirs {
        children: dir.clone(),
        path_base: dir,
    };
    walker.add_module(root_mod, file.items, &dirs);
    Ok(walker.tree)
}

impl Walker<'_> {
    fn add_module(&mut self, module: Module, items: Vec<syn::Item>, dirs: &Dirs) -> ModId {
        let id = self.tree.modules.len();
        let file = module.file.clone();
        self.tree.modules.push(module);
        let items: Vec<syn::Item> = items
            .into_iter()
            .filter(|item| self.cfg.keeps(attrs::item_attrs(item)))
            .collect();
        for item in &items {
            if let syn::Item::Mod(m) = item
                && let Some(child) = self.child_module(id, &file, m, dirs)
            {
                self.tree.modules[id]
                    .children
                    .insert(m.ident.to_string(), child);
            }
        }
        self.tree.modules[id].items = items;
        id
    }

    fn child_module(
        &mut self,
        parent: ModId,
        parent_file: &str,
        m: &syn::ItemMod,
        dirs: &Dirs,
    ) -> Option<ModId> {
        let name = m.ident.to_string();
        let mut module = Module {
            parent: Some(parent),
            file: parent_file.to_string(),
            vis: vis_of(&m.vis),
            hidden: attrs::is_doc_hidden(&m.attrs),
            items: Vec::new(),
            children: BTreeMap::new(),
        };
        if let Some((_, items)) = &m.content {
            let inner = dirs
                .children
                .join(attrs::path_attr(&m.attrs).unwrap_or(name));
            let child_dirs = Dirs {
                children: inner.clone(),
                path_base: inner,
            };
            return Some(self.add_module(module, items.clone(), &child_dirs));
        }
        let (file, child_dirs) = self.locate(&name, &m.attrs, dirs, parent_file)?;
        module.file = slash_path(&file);
        if !self.seen_files.insert(file.clone()) {
            self.warn(
                parent_file,
                format!(
                    "module `{name}` loads {} a second time; skipped",
                    module.file
                ),
            );
            return None;
        }
        let items = match parse_file(self.crate_dir, &file) {
            Ok(parsed) if self.cfg.keeps(&parsed.attrs) => parsed.items,
            Ok(_) => return None,
            Err(message) => {
                self.warn(&module.file, format!("failed to parse: {message}"));
                Vec::new()
            }
        };
        Some(self.add_module(module, items, &child_dirs))
    }

    /// Finds the file of `mod name;` and the directories its own children live in.
    fn locate(
        &mut self,
        name: &str,
        item_attrs: &[syn::Attribute],
        dirs: &Dirs,
        parent_file: &str,
    ) -> Option<(PathBuf, Dirs)> {
        if let Some(custom) = attrs::path_attr(item_attrs) {
            let file = dirs.path_base.join(custom);
            if !self.crate_dir.join(&file).is_file() {
                self.warn(
                    parent_file,
                    format!(
                        "module `{name}`: #[path] file {} not found",
                        slash_path(&file)
                    ),
                );
                return None;
            }
            // A #[path] file behaves like a mod.rs: its children sit next to it.
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            return Some((
                file,
                Dirs {
                    children: dir.clone(),
                    path_base: dir,
                },
            ));
        }
        let flat = dirs.children.join(format!("{name}.rs"));
        if self.crate_dir.join(&flat).is_file() {
            let flat_dir = flat.parent().map(Path::to_path_buf).unwrap_or_default();
            let children = dirs.children.join(name);
            return Some((
                flat,
                Dirs {
                    children,
                    path_base: flat_dir,
                },
            ));
        }
        let nested = dirs.children.join(name).join("mod.rs");
        if self.crate_dir.join(&nested).is_file() {
            let dir = dirs.children.join(name);
            return Some((
                nested,
                Dirs {
                    children: dir.clone(),
                    path_base: dir,
                },
            ));
        }
        self.warn(
            parent_file,
            format!(
                "module `{name}`: neither {} nor {} exists",
                slash_path(&flat),
                slash_path(&nested)
            ),
        );
        None
    }

    fn warn(&mut self, file: &str, message: String) {
        tracing::warn!(file, %message, "analysis skipped part of the crate");
        self.tree.warnings.push(AnalyzeWarning {
            file: file.to_string(),
            message,
        });
    }
}

fn parse_file(crate_dir: &Path, rel: &Path) -> Result<syn::File, String> {
    let text = std::fs::read_to_string(crate_dir.join(rel)).map_err(|e| e.to_string())?;
    syn::parse_file(&text).map_err(|e| {
        let at = e.span().start();
        format!("{e} (line {}, column {})", at.line, at.column + 1)
    })
}

fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
