//! The kept tests as a `cargo nextest run -E '<expr>'` filterset (\[nextest\]) and as a plain list.
//!
//! Each test is an exact `test(=name)` predicate scoped to its binary with `binary_id(=id)`, so
//! a test of the same name in another binary is not selected. nextest's binary ids: the package
//! name for the library (and proc-macro) unit tests, `package::target` for integration tests,
//! `package::bin/target`, `package::example/target` and `package::bench/target` for the rest.

use std::collections::BTreeMap;

/// nextest's binary id of a cargo test target.
pub fn binary_id(package: &str, kind: &str, target: &str) -> String {
    match kind {
        "lib" | "proc-macro" | "rlib" | "cdylib" | "dylib" | "staticlib" => package.to_string(),
        "test" => format!("{package}::{target}"),
        other => format!("{package}::{other}/{target}"),
    }
}

/// Backslash-escapes what ends or splits a matcher's argument.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | ')' | '(' | ',') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `(binary_id(=b) & (test(=x) | test(=y))) | ...` over `(binary id, test name)` pairs;
/// `whole` binaries are selected entirely. `none()` when nothing is selected.
pub fn expression(tests: &[(String, String)], whole: &[String]) -> String {
    let mut by_binary: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (binary, name) in tests {
        by_binary.entry(binary).or_default().push(name);
    }
    let mut parts: Vec<String> = by_binary
        .into_iter()
        .map(|(binary, names)| {
            let names: Vec<String> = names
                .iter()
                .map(|n| format!("test(={})", escape(n)))
                .collect();
            format!("(binary_id(={}) & ({}))", escape(binary), names.join(" | "))
        })
        .collect();
    parts.extend(whole.iter().map(|b| format!("binary_id(={})", escape(b))));
    if parts.is_empty() {
        "none()".into()
    } else {
        parts.join(" | ")
    }
}

/// One `binary_id test_name` line per test.
pub fn plain_list(tests: &[(String, String)]) -> String {
    tests
        .iter()
        .map(|(binary, name)| format!("{binary} {name}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_ids_follow_nextest() {
        assert_eq!(binary_id("my-crate", "lib", "my_crate"), "my-crate");
        assert_eq!(binary_id("my-crate", "test", "it"), "my-crate::it");
        assert_eq!(binary_id("p", "bin", "tool"), "p::bin/tool");
    }

    #[test]
    fn expression_groups_by_binary() {
        let tests = vec![
            ("p".to_string(), "tests::a".to_string()),
            ("p::it".to_string(), "b".to_string()),
            ("p".to_string(), "tests::c".to_string()),
        ];
        assert_eq!(
            expression(&tests, &["p::frugal_replacement".into()]),
            "(binary_id(=p) & (test(=tests::a) | test(=tests::c))) | (binary_id(=p::it) & (test(=b))) | binary_id(=p::frugal_replacement)"
        );
        assert_eq!(expression(&[], &[]), "none()");
    }
}
