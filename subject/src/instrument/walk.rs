//! Walking the library's module tree from its root file and instrumenting each file.
//!
//! Like cargo-mutants' `walk_package` (\[cargo-mutants\]): start at the target's top file, queue each `mod foo;`
//! breadth-first (the order numbers the goals), and count a missing, unparsable or outside
//! file instead of failing. Which file a declaration loads, and whether it is compiled in at
//! all, is [`crate::modtree`]'s call, shared with analysis. Files are read from the user's
//! tree and their rewritten text returned; nothing here writes to disk.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

use super::Options;
use super::edits;
use super::skip;
use super::visit::{FileInstrumenter, ModDecl, Region};
use crate::analyze::attrs::CfgEval;
use crate::analyze::{cargo_toml, options::EnabledFeatures};
use crate::manifest::{CompiledOut, Manifest, Skipped};
use crate::modtree::{ModFile, ModTree, slash_path};

/// Result of instrumenting a module tree.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    pub manifest: Manifest,
    /// Rewritten files, relative to the crate root, with their new text.
    pub files: Vec<(PathBuf, String)>,
    pub regions: Vec<Region>,
}

/// One file waiting to be instrumented.
struct Queued {
    file: ModFile,
    namespace: Vec<String>,
}

/// The `cfg` the copy is built under: the run's features closed over the manifest's
/// `[features]` table, as analysis resolves them.
fn build_cfg(crate_dir: &Path, opts: &Options) -> CfgEval {
    let features = cargo_toml::read_lib_target(crate_dir, true)
        .map(|lib| lib.features)
        .unwrap_or_default();
    CfgEval::new(EnabledFeatures::resolve(&opts.features, &features))
}

/// Instruments every file of the module tree rooted at `root_rel` (relative to `crate_dir`).
pub(crate) fn walk(crate_dir: &Path, root_rel: &Path, opts: &Options) -> Walked {
    let cfg = build_cfg(crate_dir, opts);
    let keep_const = opts
        .strip_const
        .then(|| std::sync::Arc::new(super::consts::needed_const(crate_dir)));
    let tree = ModTree::new(crate_dir, &cfg);
    let mut walked = Walked::default();
    let root = match tree.root(root_rel) {
        Ok(file) => file,
        Err(reason) => {
            skipped(&mut walked.manifest, &slash_path(root_rel), 0, reason);
            return walked;
        }
    };
    let mut queue = VecDeque::from([Queued {
        file: root,
        namespace: Vec::new(),
    }]);
    let mut seen = HashSet::new();
    while let Some(q) = queue.pop_front() {
        if !seen.insert(q.file.rel.clone()) {
            continue;
        }
        let rel_str = slash_path(&q.file.rel);
        let text = match tree.read(&q.file.rel) {
            Ok(t) => t,
            Err(e) => {
                skipped(
                    &mut walked.manifest,
                    &rel_str,
                    0,
                    format!("unreadable module file: {e}"),
                );
                continue;
            }
        };
        let Some(out) = instrument_text(
            &text,
            &rel_str,
            q.namespace.clone(),
            opts,
            (&cfg, keep_const.clone()),
            &mut walked.manifest,
        ) else {
            continue;
        };
        for decl in &out.mods {
            match child_file(&tree, &q, decl) {
                Ok(child) if decl.compiled_out => {
                    walked.manifest.compiled_out.push(CompiledOut {
                        file: slash_path(&child.file.rel),
                        start: 1,
                        end: usize::MAX,
                    });
                }
                Ok(child) => queue.push_back(child),
                Err(_) if decl.compiled_out => {}
                Err(reason) => skipped(&mut walked.manifest, &rel_str, decl.line, reason),
            }
        }
        walked.regions.extend(out.regions);
        if let Some(new_text) = out.text {
            walked.files.push((q.file.rel, new_text));
        }
    }
    walked
}

/// What instrumenting one file produced.
pub(crate) struct FileOutput {
    /// The rewritten text; `None` when the file is unchanged.
    pub text: Option<String>,
    pub mods: Vec<ModDecl>,
    pub regions: Vec<Region>,
}

/// Instruments one file's text. `None` when the file cannot be parsed or is test-only (it is
/// recorded in `manifest.skipped` and its child modules are not walked), or when its inner
/// `cfg` compiles it out (it contributes nothing, as in analysis). Modules `cfg` compiles out
/// are left alone the same way. `keep_const`: the `const fn`s that stay `const` (`consts.rs`),
/// `None` to keep them all.
pub(crate) fn instrument_text(
    original: &str,
    file: &str,
    namespace: Vec<String>,
    opts: &Options,
    (cfg, keep_const): (
        &CfgEval,
        Option<std::sync::Arc<std::collections::BTreeSet<String>>>,
    ),
    manifest: &mut Manifest,
) -> Option<FileOutput> {
    let text = normalise(original);
    let parse_text = blank_shebang(&text);
    let ast = match syn::parse_file(&parse_text) {
        Ok(ast) => ast,
        Err(e) => {
            let line = e.span().start().line;
            skipped(manifest, file, line, format!("parse error: {e}"));
            return None;
        }
    };
    if let Some(reason) = skip::attrs_reason(&ast.attrs) {
        skipped(manifest, file, 1, reason.to_string());
        return None;
    }
    if !cfg.keeps(&ast.attrs) {
        manifest.compiled_out.push(CompiledOut {
            file: file.to_string(),
            start: 1,
            end: usize::MAX,
        });
        return None;
    }
    let whole_file = opts
        .exclude
        .iter()
        .find(|e| e.file == file && e.line.is_none());
    let mark = (
        manifest.goals.len(),
        manifest.functions.len(),
        manifest.loops.len(),
    );
    let mut v = FileInstrumenter::new(
        file,
        &text,
        manifest,
        cfg,
        namespace,
        &opts.exclude,
        opts.line_goals,
    );
    v.mutants = opts.mutants;
    v.observers = opts.testability;
    v.keep_const = keep_const;
    for item in &ast.items {
        v.visit_item(item);
    }
    let (mods, regions, mut edit_list) = (
        std::mem::take(&mut v.mods),
        std::mem::take(&mut v.regions),
        std::mem::take(&mut v.edits),
    );
    drop(v);
    if opts.open_private {
        // Numbered after the probes' edits: a visibility never shares their offsets anyway.
        let mut seq = u32::MAX / 2;
        edit_list.extend(super::reach::open(&ast.items, &mut seq));
    }
    let rollback = |manifest: &mut Manifest, reason: String| {
        manifest.goals.truncate(mark.0);
        manifest.functions.truncate(mark.1);
        manifest.loops.truncate(mark.2);
        skipped(manifest, file, 0, reason);
    };
    if let Some(ex) = whole_file {
        // Still walked above, for its child modules.
        rollback(manifest, ex.reason.clone());
        return Some(FileOutput {
            text: (text != original).then_some(text),
            mods,
            regions: Vec::new(),
        });
    }
    let changed = match edits::apply(&text, edit_list) {
        Ok(t) if newlines(&t) == newlines(&text) => t,
        Ok(_) => {
            rollback(
                manifest,
                "internal error: instrumentation changed line numbers".into(),
            );
            return Some(FileOutput {
                text: None,
                mods,
                regions: Vec::new(),
            });
        }
        Err(overlap) => {
            rollback(manifest, format!("internal error: {overlap}"));
            return Some(FileOutput {
                text: None,
                mods,
                regions: Vec::new(),
            });
        }
    };
    let text = (changed != original).then_some(changed);
    Some(FileOutput {
        text,
        mods,
        regions,
    })
}

/// Resolves `mod foo;` declared in `parent` to a file to queue.
fn child_file(tree: &ModTree<'_>, parent: &Queued, decl: &ModDecl) -> Result<Queued, String> {
    let dirs = decl
        .inline
        .iter()
        .fold(parent.file.dirs.clone(), |dirs, m| {
            dirs.inline(&m.name, m.path_attr.as_deref())
        });
    let file = tree.resolve(&decl.name, decl.path_attr.as_deref(), &dirs)?;
    let mut namespace = parent.namespace.clone();
    namespace.extend(decl.inline.iter().map(|m| m.name.clone()));
    namespace.push(decl.name.clone());
    Ok(Queued { file, namespace })
}

fn skipped(manifest: &mut Manifest, file: &str, line: usize, reason: String) {
    manifest.skipped.push(Skipped {
        file: file.to_string(),
        line,
        reason,
    });
}

/// Drops a BOM and turns CRLF into LF, as rustc does when it loads a file; offsets below refer
/// to this text.
fn normalise(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains("\r\n") {
        text.replace("\r\n", "\n")
    } else {
        text.to_string()
    }
}

/// syn drops a shebang line before parsing, which would shift byte offsets; blank it instead.
fn blank_shebang(text: &str) -> String {
    if text.starts_with("#!") && !text[2..].trim_start().starts_with('[') {
        let end = text.find('\n').unwrap_or(text.len());
        let mut out = " ".repeat(end);
        out.push_str(&text[end..]);
        out
    } else {
        text.to_string()
    }
}

fn newlines(s: &str) -> usize {
    s.bytes().filter(|&b| b == b'\n').count()
}
