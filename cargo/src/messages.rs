//! Cargo's `--message-format=json` stream: compiler errors and built artifacts.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A place a compiler error points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// As cargo reports it: relative to the package root, or absolute.
    pub file: String,
    /// 1-based line where the span starts (0 when cargo gave none).
    pub line: usize,
    /// 1-based column where the span starts (0 when cargo gave none).
    pub column: usize,
}

/// A compiler error: its primary span and the call sites of the macros that span was expanded
/// from (innermost first), and its rendered text as a user would see it.
#[derive(Debug, Clone)]
pub struct CompilerError {
    /// The primary span first (the first span when none is marked primary), then the call
    /// site of each macro it was expanded from, outwards. Empty when the error has no span.
    pub chain: Vec<Location>,
    /// The error as rustc renders it for a terminal; empty when cargo gave none.
    pub rendered: String,
    /// The target being compiled, as `kind name` (`lib helper`, `test frugal_generated`);
    /// empty when cargo did not say.
    pub target: String,
}

impl CompilerError {
    /// The primary span (file and line; empty and 0 when the error has none).
    pub fn primary(&self) -> Location {
        self.chain.first().cloned().unwrap_or(Location {
            file: String::new(),
            line: 0,
            column: 0,
        })
    }

    /// The chain's locations inside the package at `root`, relative to it and `/`-separated.
    pub fn locations_in(&self, root: &Path) -> Vec<(String, usize)> {
        self.chain
            .iter()
            .filter_map(|l| Some((relative(&l.file, root)?, l.line)))
            .collect()
    }
}

/// A `compiler-artifact` message.
#[derive(Debug, Clone)]
pub struct Artifact {
    /// Cargo's package id, as in `cargo metadata`'s `id` ([`crate::Package::id`]).
    pub package_id: String,
    /// The target's name, as in [`crate::Target::name`].
    pub target: String,
    /// The target's first kind (`lib`, `bin`, `test`, ...).
    pub kind: String,
    /// Built with the test profile (a test harness).
    pub test: bool,
    /// The binary that was built, when the target is one (bins, examples, test harnesses);
    /// `None` for libraries.
    pub executable: Option<PathBuf>,
}

/// The messages of one cargo run.
#[derive(Debug, Default)]
pub struct Messages {
    /// Compiler messages at level `error` (and `error: internal compiler error`), in order;
    /// warnings are dropped.
    pub errors: Vec<CompilerError>,
    /// Every `compiler-artifact` message, in the order cargo finished them.
    pub artifacts: Vec<Artifact>,
}

impl Messages {
    /// Parses cargo's JSON lines; other lines are skipped.
    pub fn parse(stdout: &str) -> Messages {
        let mut m = Messages::default();
        for v in stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            match v["reason"].as_str() {
                Some("compiler-message") => m.errors.extend(error(&v["message"], &v["target"])),
                Some("compiler-artifact") => m.artifacts.push(artifact(&v)),
                _ => {}
            }
        }
        m
    }
}

fn error(msg: &Value, target: &Value) -> Option<CompilerError> {
    if !msg["level"].as_str()?.starts_with("error") {
        return None;
    }
    let spans = msg["spans"].as_array().cloned().unwrap_or_default();
    let primary = spans
        .iter()
        .find(|s| s["is_primary"] == true)
        .or(spans.first());
    let mut chain = Vec::new();
    let mut cur = primary;
    while let Some(s) = cur {
        chain.push(Location {
            file: s["file_name"].as_str().unwrap_or_default().to_string(),
            line: s["line_start"].as_u64().unwrap_or(0) as usize,
            column: s["column_start"].as_u64().unwrap_or(0) as usize,
        });
        cur = s.get("expansion").and_then(|e| e.get("span"));
    }
    let target = match (target["kind"][0].as_str(), target["name"].as_str()) {
        (Some(kind), Some(name)) => format!("{kind} {name}"),
        _ => String::new(),
    };
    Some(CompilerError {
        chain,
        rendered: msg["rendered"].as_str().unwrap_or_default().to_string(),
        target,
    })
}

fn artifact(v: &Value) -> Artifact {
    let text = |x: &Value| x.as_str().unwrap_or_default().to_string();
    Artifact {
        package_id: text(&v["package_id"]),
        target: text(&v["target"]["name"]),
        kind: v["target"]["kind"][0]
            .as_str()
            .unwrap_or("unknown")
            .to_string(),
        test: v["profile"]["test"] == true,
        executable: v["executable"].as_str().map(PathBuf::from),
    }
}

/// `file` relative to `root` when it lies inside (relative paths are taken as such), never a
/// path that climbs out or a `<macro>` pseudo-file.
fn relative(file: &str, root: &Path) -> Option<String> {
    let p = Path::new(file);
    let rel = if p.is_absolute() {
        p.strip_prefix(root).ok()?
    } else {
        p
    };
    let s = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    (!s.is_empty() && !s.starts_with("..") && !s.starts_with('<')).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_located_through_macro_expansions() {
        let line = r#"{"reason":"compiler-message","message":{"level":"error","rendered":"error[E0308]: x","spans":[{"file_name":"/rustc/lib/core/src/macros.rs","line_start":5,"is_primary":true,"expansion":{"span":{"file_name":"src/lib.rs","line_start":12,"is_primary":false}}}]}}"#;
        let m = Messages::parse(line);
        assert_eq!(m.errors.len(), 1);
        assert_eq!(
            m.errors[0].locations_in(Path::new("/tmp/c")),
            vec![("src/lib.rs".to_string(), 12)]
        );
        assert_eq!(m.errors[0].primary().line, 5);
        assert_eq!(m.errors[0].primary().column, 0, "no column given");
        let none = Messages::parse(r#"{"reason":"build-finished","success":false}"#);
        assert!(none.errors.is_empty() && none.artifacts.is_empty());
    }

    #[test]
    fn warnings_are_not_errors() {
        let line = r#"{"reason":"compiler-message","message":{"level":"warning","rendered":"w","spans":[]}}"#;
        assert!(Messages::parse(line).errors.is_empty());
    }

    #[test]
    fn absolute_paths_inside_the_package_are_made_relative() {
        assert_eq!(
            relative("/tmp/c/src/a.rs", Path::new("/tmp/c")),
            Some("src/a.rs".into())
        );
        assert_eq!(relative("/elsewhere/x.rs", Path::new("/tmp/c")), None);
        assert_eq!(relative("../x.rs", Path::new("/tmp/c")), None);
    }

    #[test]
    fn artifacts_carry_target_kind_profile_and_executable() {
        let line = r#"{"reason":"compiler-artifact","package_id":"p","target":{"name":"frugal_generated","kind":["test"]},"profile":{"test":true},"executable":"/t/g-2"}"#;
        let a = &Messages::parse(line).artifacts[0];
        assert_eq!(
            (
                a.package_id.as_str(),
                a.target.as_str(),
                a.kind.as_str(),
                a.test
            ),
            ("p", "frugal_generated", "test", true)
        );
        assert_eq!(a.executable.as_deref(), Some(Path::new("/t/g-2")));
    }
}
