//! The documented keys and defaults (`config/frugal.example.toml`, which docs/daemon.md points to)
//! against the code's: a key added, renamed or given a new default without its documentation
//! fails here.

use std::collections::BTreeSet;
use std::path::Path;

use frugal_config::{Config, KEYS};

fn example() -> (std::path::PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("frugal.example.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

/// `section.key` for every `key = ...` line, commented out or not, in the scalar sections (the
/// commented `[[repo]]` example ends them).
fn documented_keys(text: &str) -> BTreeSet<String> {
    let mut section = None;
    let mut keys = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim_start_matches('#').trim();
        if line.contains("[[repo]]") {
            break;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(name.to_string());
            continue;
        }
        let Some((key, _)) = line.split_once(" = ") else {
            continue;
        };
        if let Some(s) = &section
            && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        {
            keys.insert(format!("{s}.{key}"));
        }
    }
    keys
}

#[test]
fn the_example_documents_exactly_the_keys_in_their_sections() {
    let (_, text) = example();
    let code: BTreeSet<String> = KEYS.iter().map(|k| k.to_string()).collect();
    assert_eq!(documented_keys(&text), code);
}

#[test]
fn the_example_shows_every_default() {
    let (path, _) = example();
    let example = Config::load_with_env(&path, Vec::<(String, String)>::new()).unwrap();
    let defaults = Config::default();
    assert_eq!(example.daemon, defaults.daemon);
    assert_eq!(example.search, defaults.search);
    assert_eq!(example.executor, defaults.executor);
    assert_eq!(example.scheduler, defaults.scheduler);
    assert_eq!(example.sandbox, defaults.sandbox);
    assert_eq!(example.regressions, defaults.regressions);
    assert_eq!(example.jobs, defaults.jobs);
    assert_eq!(example.retention, defaults.retention);
}
