//! Walking the library's module tree from its root file and instrumenting each file.
//!
//! Like cargo-mutants' `walk_package` (\[cargo-mutants\]): start at the target's top file, queue each `mod foo;`
//! (`#[path]`, `foo.rs`, `foo/mod.rs`), and count a missing or unparsable file instead of
//! failing. Files are read from the user's tree and their rewritten text returned; nothing
//! here writes to disk.

use std::collections::{HashSet, VecDeque};
use std::path::{Component, Path, PathBuf};

use syn::visit::Visit;

use super::Options;
use super::edits;
use super::skip;
use super::visit::{FileInstrumenter, ModDecl, Region};
use crate::manifest::{Manifest, Skipped};

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
    rel: PathBuf,
    namespace: Vec<String>,
    /// Whether child modules live next to the file (`lib.rs`, `mod.rs`, `#[path]` files)
    /// rather than in a directory named after it.
    mod_rs: bool,
}

/// Instruments every file of the module tree rooted at `root_rel` (relative to `crate_dir`).
pub(crate) fn walk(crate_dir: &Path, root_rel: &Path, opts: &Options) -> Walked {
    let mut walked = Walked::default();
    let mut queue = VecDeque::from([Queued {
        rel: root_rel.to_path_buf(),
        namespace: Vec::new(),
        mod_rs: true,
    }]);
    let mut seen = HashSet::new();
    while let Some(q) = queue.pop_front() {
        if !seen.insert(q.rel.clone()) {
            continue;
        }
        let rel_str = slash_path(&q.rel);
        let text = match std::fs::read_to_string(crate_dir.join(&q.rel)) {
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
            &mut walked.manifest,
        ) else {
            continue;
        };
        for decl in &out.mods {
            match child_file(crate_dir, &q, decl) {
                Ok(child) => queue.push_back(child),
                Err(reason) => skipped(&mut walked.manifest, &rel_str, decl.line, reason),
            }
        }
        walked.regions.extend(out.regions);
        if let Some(new_text) = out.text {
            walked.files.push((q.rel, new_text));
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
/// recorded in `manifest.skipped` and its child modules are not walked).
pub(crate) fn instrument_text(
    original: &str,
    file: &str,
    namespace: Vec<String>,
    opts: &Options,
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
        namespace,
        &opts.exclude,
        opts.line_goals,
    );
    v.mutants = opts.mutants;
    for item in &ast.items {
        v.visit_item(item);
    }
    let (mods, regions, edit_list) = (
        std::mem::take(&mut v.mods),
        std::mem::take(&mut v.regions),
        std::mem::take(&mut v.edits),
    );
    drop(v);
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
fn child_file(crate_dir: &Path, parent: &Queued, decl: &ModDecl) -> Result<Queued, String> {
    let parent_dir = parent
        .rel
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    // Directory of modules declared at the top level of `parent`.
    let own_dir = if parent.mod_rs {
        parent_dir.clone()
    } else {
        let stem = parent
            .rel
            .file_stem()
            .map(PathBuf::from)
            .unwrap_or_default();
        parent_dir.join(stem)
    };
    let mut namespace = parent.namespace.clone();
    namespace.extend(decl.inline.iter().cloned());
    namespace.push(decl.name.clone());
    let (rel, mod_rs) = if let Some(p) = &decl.path_attr {
        // Outside inline modules `#[path]` is relative to the declaring file's directory.
        let base = if decl.inline.is_empty() {
            parent_dir
        } else {
            join_all(&own_dir, &decl.inline)
        };
        (base.join(p), true)
    } else {
        let base = join_all(&own_dir, &decl.inline);
        let flat = base.join(format!("{}.rs", decl.name));
        if crate_dir.join(&flat).is_file() {
            (flat, false)
        } else {
            (base.join(&decl.name).join("mod.rs"), true)
        }
    };
    let rel = normalise_rel(&rel)
        .ok_or_else(|| format!("module `{}` is outside the crate", decl.name))?;
    if !crate_dir.join(&rel).is_file() {
        return Err(format!("module file not found for `mod {};`", decl.name));
    }
    Ok(Queued {
        rel,
        namespace,
        mod_rs,
    })
}

fn join_all(base: &Path, parts: &[String]) -> PathBuf {
    parts.iter().fold(base.to_path_buf(), |p, s| p.join(s))
}

/// Resolves `.` and `..` lexically; `None` if the path leaves the crate.
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

pub(crate) fn slash_path(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
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
