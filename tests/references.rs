//! Citations in the workspace's sources and documents: papers and peer tools are cited by the
//! keys of `docs/references.md` (`[adynamosa]`, `\[adynamosa\]` in Rust doc comments), never by
//! the design notes' file name or by seed numbers, which nothing in the repository resolves.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file of the workspace with one of `exts`, skipping build output (`target/`, including
/// `examples/*/target`) and hidden directories.
fn files(exts: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    walk(&path, exts, out);
                }
            } else if exts.iter().any(|e| name.ends_with(&format!(".{e}"))) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), exts, &mut out);
    out.sort();
    assert!(!out.is_empty(), "no files found under {}", root().display());
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The keys `docs/references.md` defines, one `### [key]` heading each.
fn defined_keys() -> BTreeSet<String> {
    let text = fs::read_to_string(root().join("docs/references.md")).expect("docs/references.md");
    let keys: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("### ["))
        .filter_map(|l| l.strip_suffix(']'))
        .map(str::to_owned)
        .collect();
    assert!(
        keys.len() >= 10,
        "too few keys in docs/references.md: {keys:?}"
    );
    keys
}

/// A citation key: lower-case words joined by `-`.
fn is_key(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
        && s.starts_with(|c: char| c.is_ascii_lowercase())
}

/// The `[key]`s cited in a paragraph of prose: brackets escaped or not, outside inline code,
/// not indexing an expression (`xs[i]`), not an attribute (`#[path]`), not a Markdown link
/// (`[text](url)`, `[text]: url`) and not a line of its own (a TOML table such as `[search]`).
fn cited(paragraph: &str) -> Vec<String> {
    let text: String = paragraph
        .replace("\\[", "[")
        .replace("\\]", "]")
        .lines()
        .filter(|l| !is_key(l.trim().trim_start_matches('[').trim_end_matches(']')))
        .collect::<Vec<_>>()
        .join("\n");
    // Drop inline code spans.
    let prose: String = text
        .split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, s)| format!("{s} "))
        .collect();
    let chars: Vec<char> = prose.chars().collect();
    let mut out = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        if c != '[' {
            continue;
        }
        if i > 0
            && (chars[i - 1].is_alphanumeric()
                || matches!(chars[i - 1], '_' | ']' | '[' | '#' | '&'))
        {
            continue;
        }
        let Some(len) = chars[i + 1..].iter().position(|&c| c == ']' || c == '\n') else {
            continue;
        };
        let inner: String = chars[i + 1..i + 1 + len].iter().collect();
        let next = chars.get(i + 2 + len).copied();
        if is_key(&inner) && !matches!(next, Some('(' | ':' | '[')) {
            out.push(inner);
        }
    }
    out
}

/// Paragraphs of prose with the line each starts on: runs of comment lines of a Rust file, and
/// of non-blank lines of a Markdown file outside code fences (inline code may span lines).
fn paragraphs(path: &Path, text: &str) -> Vec<(usize, String)> {
    let rust = path.extension().is_some_and(|e| e == "rs");
    let mut fenced = false;
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (n, line) in text.lines().enumerate() {
        let prose = if rust {
            line.trim_start().strip_prefix("//")
        } else if line.trim_start().starts_with("```") {
            fenced = !fenced;
            None
        } else if fenced || line.trim().is_empty() {
            None
        } else {
            Some(line)
        };
        match (prose, open) {
            (Some(p), true) => {
                let last = out.last_mut().expect("an open paragraph");
                last.1.push('\n');
                last.1.push_str(p);
            }
            (Some(p), false) => out.push((n + 1, p.to_owned())),
            (None, _) => {}
        }
        open = prose.is_some();
    }
    out
}

#[test]
fn no_unresolvable_citations() {
    // Built from pieces so that this file does not match itself.
    let design = format!("{}.md", "DESIGN");
    let seed = format!("{} 00", "seed");
    let mut bad = Vec::new();
    for path in files(&["rs", "md", "py", "toml"]) {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            if line.contains(&design) || lower.contains(&seed) {
                bad.push(format!("{}:{}: {}", relative(&path), n + 1, line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "cite docs/references.md keys instead of the design notes' file or seed numbers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn citations_resolve() {
    let keys = defined_keys();
    let mut used = BTreeSet::new();
    let mut bad = Vec::new();
    for path in files(&["rs", "md"]) {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        for (n, paragraph) in paragraphs(&path, &text) {
            for key in cited(&paragraph) {
                if keys.contains(&key) {
                    used.insert(key);
                } else {
                    bad.push(format!("{}:{n}: [{key}]", relative(&path)));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "citations without an entry in docs/references.md:\n{}",
        bad.join("\n")
    );
    for key in [
        "adynamosa",
        "smart-goals",
        "memetic",
        "hypermutation",
        "testability",
    ] {
        assert!(used.contains(key), "[{key}] is no longer cited anywhere");
    }
}

#[test]
fn cited_finds_keys_and_skips_the_rest() {
    assert_eq!(cited("Eq. 1 of \\[adynamosa\\] §3"), ["adynamosa"]);
    assert_eq!(
        cited("([smart-goals]; [mio]) and `[not-this]`"),
        ["smart-goals", "mio"]
    );
    assert!(cited("xs[i] and [text](url), [def]: url, [`item`], [T], [0, 7), #[path]").is_empty());
    assert!(cited("a `&[u8]\nor [u8]` and\n[search]\n").is_empty());
}
