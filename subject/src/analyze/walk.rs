//! The module tree, walked depth-first from the library root; which file a `mod foo;` loads,
//! and whether it is compiled in, is [`crate::modtree`]'s call (shared with instrumentation);
//! inline `mod foo { .. }` nests in place.
//!
//! Items compiled out by `cfg` (and tests) are dropped here, so later passes never see them. A
//! file that is missing, outside the crate or does not parse becomes a warning and an empty
//! module (or no module).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::attrs::{self, CfgEval};
use super::error::{AnalyzeError, AnalyzeWarning};
use super::index::{Vis, vis_of};
use super::macro_expand;
use crate::modtree::{Dirs, ModTree, slash_path};

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

struct Walker<'a> {
    modtree: ModTree<'a>,
    tree: ModuleTree,
    seen_files: BTreeSet<PathBuf>,
}

pub(crate) fn walk(
    crate_dir: &Path,
    root: &Path,
    cfg: &CfgEval,
) -> Result<ModuleTree, AnalyzeError> {
    let modtree = ModTree::new(crate_dir, cfg);
    let root_error = |message| AnalyzeError::RootParse {
        path: crate_dir.join(root),
        message,
    };
    let root = modtree.root(root).map_err(root_error)?;
    let file = parse_file(&modtree, &root.rel).map_err(root_error)?;
    let mut walker = Walker {
        modtree,
        tree: ModuleTree::default(),
        seen_files: BTreeSet::from([root.rel.clone()]),
    };
    let root_mod = Module {
        parent: None,
        file: slash_path(&root.rel),
        vis: Vis::Public,
        hidden: false,
        items: Vec::new(),
        children: BTreeMap::new(),
    };
    walker.add_module(root_mod, file.items, &root.dirs);
    walker.expand_macros();
    Ok(walker.tree)
}

impl Walker<'_> {
    /// Invocations of the crate's own `macro_rules!` macros, replaced by the items they expand
    /// to (`macro_expand`), compiled in or out as written items are.
    fn expand_macros(&mut self) {
        let defs = macro_expand::definitions(self.tree.modules.iter().flat_map(|m| &m.items));
        if defs.is_empty() {
            return;
        }
        let modtree = &self.modtree;
        let keep = |item: &syn::Item| modtree.compiled(attrs::item_attrs(item));
        for module in &mut self.tree.modules {
            let items = std::mem::take(&mut module.items);
            module.items = macro_expand::expand_items(items, &defs, &keep);
        }
    }

    fn add_module(&mut self, module: Module, items: Vec<syn::Item>, dirs: &Dirs) -> ModId {
        let id = self.tree.modules.len();
        let file = module.file.clone();
        self.tree.modules.push(module);
        let items: Vec<syn::Item> = items
            .into_iter()
            .filter(|item| self.modtree.compiled(attrs::item_attrs(item)))
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
            let child_dirs = dirs.inline(&name, attrs::path_attr(&m.attrs).as_deref());
            return Some(self.add_module(module, items.clone(), &child_dirs));
        }
        let path = attrs::path_attr(&m.attrs);
        let child = match self.modtree.resolve(&name, path.as_deref(), dirs) {
            Ok(child) => child,
            Err(message) => {
                self.warn(parent_file, message);
                return None;
            }
        };
        let (file, child_dirs) = (child.rel, child.dirs);
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
        let items = match parse_file(&self.modtree, &file) {
            Ok(parsed) if self.modtree.compiled(&parsed.attrs) => parsed.items,
            Ok(_) => return None,
            Err(message) => {
                self.warn(&module.file, format!("failed to parse: {message}"));
                Vec::new()
            }
        };
        Some(self.add_module(module, items, &child_dirs))
    }

    fn warn(&mut self, file: &str, message: String) {
        tracing::warn!(file, %message, "analysis skipped part of the crate");
        self.tree.warnings.push(AnalyzeWarning {
            file: file.to_string(),
            message,
        });
    }
}

fn parse_file(modtree: &ModTree<'_>, rel: &Path) -> Result<syn::File, String> {
    let text = modtree.read(rel).map_err(|e| e.to_string())?;
    syn::parse_file(&text).map_err(|e| {
        let at = e.span().start();
        format!("{e} (line {}, column {})", at.line, at.column + 1)
    })
}
