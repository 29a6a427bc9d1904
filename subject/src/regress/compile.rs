//! Naming the crate item a compile error of a stored test is about: the API that changed.
//! Resolution errors name it themselves (`cannot find function `parse_duration` in crate
//! `humantime``, `no method named `x` found for struct `T``); for the others (`this function
//! takes 2 arguments`, mismatched types) it is the call found in the test's source at the
//! error's span, or the call that produced the variable there.

use frugal_cargo::CompilerError;

use super::suite::{Suite, SuiteTest};

/// The compiler's message without its `error[E0425]: ` prefix (first line only).
pub(crate) fn message(e: &CompilerError) -> &str {
    let first = e.rendered.lines().next().unwrap_or("");
    match first.strip_prefix("error") {
        Some(rest) => rest.split_once(": ").map_or(rest, |(_, m)| m).trim(),
        None => first.trim(),
    }
}

/// The crate item the error in test `t` is about, when the error or the source tells.
pub(crate) fn item(e: &CompilerError, suite: &Suite, t: &SuiteTest) -> Option<String> {
    named(message(e)).or_else(|| {
        let at = e.primary();
        at_span(suite.line(at.line), at.column.checked_sub(1)?, t, at.line)
    })
}

/// The backticked names of `msg`, in order.
fn ticked(msg: &str) -> Vec<&str> {
    msg.split('`').skip(1).step_by(2).collect()
}

/// A type as the compiler prints it, without references: `&mut Meter` -> `Meter`.
fn bare_type(t: &str) -> &str {
    let t = t.trim_start_matches('&');
    t.strip_prefix("mut ").unwrap_or(t).trim()
}

/// The item a resolution error names.
fn named(msg: &str) -> Option<String> {
    let names = ticked(msg);
    let (first, second) = (names.first().copied(), names.get(1).copied());
    let joined = |outer: &str, inner: &str| format!("{}::{inner}", bare_type(outer));
    if msg.starts_with("cannot find ") {
        return match (first, second) {
            (Some(x), Some(c)) if msg.contains(" in crate ") || msg.contains(" in module ") => {
                Some(joined(c, x))
            }
            (Some(x), _) => Some(x.to_string()),
            _ => None,
        };
    }
    if msg.starts_with("failed to resolve") {
        return match (first, second) {
            (Some(x), Some(c)) if msg.contains("could not find") => Some(joined(c, x)),
            (Some(x), _) => Some(x.to_string()),
            _ => None,
        };
    }
    if msg.starts_with("no method named")
        || msg.starts_with("no function or associated item named")
        || msg.starts_with("no variant or associated item named")
        || msg.starts_with("no variant named")
        || msg.starts_with("no associated item named")
    {
        return Some(joined(second?, first?));
    }
    if msg.starts_with("no field") {
        return Some(format!("{}.{}", bare_type(second?), first?));
    }
    if msg.contains("has no field named") {
        return Some(format!("{}.{}", bare_type(first?), second?));
    }
    if msg.starts_with("unresolved import") {
        return first.map(String::from);
    }
    None
}

/// Characters of a path expression: identifiers and `::`.
fn path_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == ':'
}

/// The leading path of a call expression's text: `numeric::gcd(4, 2)` -> `numeric::gcd`.
fn callee(value: &str) -> Option<String> {
    let value = value.trim_start_matches('&');
    let value = value.strip_prefix("mut ").unwrap_or(value);
    let end = value.find(|c: char| !path_char(c))?;
    let rest = value[end..].trim_start();
    let rest = match rest.strip_prefix("::<") {
        Some(generics) => generics.split_once('>')?.1.trim_start(),
        None => rest,
    };
    (end > 0 && rest.starts_with('(')).then(|| value[..end].trim_end_matches(':').to_string())
}

/// The item the source names at `column` (0-based, in chars) of `line`: the path there when it
/// is called, a method with its receiver's type when that is known, the call that bound the
/// variable there, else the innermost call the position lies in.
fn at_span(line_text: &str, column: usize, t: &SuiteTest, line: usize) -> Option<String> {
    let chars: Vec<char> = line_text.chars().collect();
    let mut start = column.min(chars.len());
    while start > 0 && path_char(chars[start - 1]) {
        start -= 1;
    }
    let from: String = chars[start..].iter().collect();
    let word: String = from.chars().take_while(|c| path_char(*c)).collect();
    let before = chars[..start].iter().rev().find(|c| !c.is_whitespace());
    if before == Some(&'.') {
        let receiver: String = {
            let mut end = start - 1;
            while end > 0 && chars[end - 1].is_whitespace() {
                end -= 1;
            }
            let mut s = end;
            while s > 0 && path_char(chars[s - 1]) {
                s -= 1;
            }
            chars[s..end].iter().collect()
        };
        let owner =
            t.binding_before(&receiver, line)
                .and_then(callee)
                .map(|c| match c.rsplit_once("::") {
                    Some((ty, f)) if f.starts_with(|ch: char| ch.is_lowercase()) => ty.to_string(),
                    _ => c,
                });
        return Some(match owner {
            Some(ty) => format!("{ty}::{word}"),
            None => word,
        });
    }
    if let Some(c) = callee(&from) {
        return Some(c);
    }
    if let Some(bound) = t.binding_before(&word, line).and_then(callee) {
        return Some(bound);
    }
    enclosing_call(&chars[..start])
}

/// The callee of the innermost call left open in `chars` (the text before a position).
fn enclosing_call(chars: &[char]) -> Option<String> {
    let mut depth = 0usize;
    for i in (0..chars.len()).rev() {
        match chars[i] {
            ')' => depth += 1,
            '(' if depth > 0 => depth -= 1,
            '(' => {
                let mut s = i;
                while s > 0 && path_char(chars[s - 1]) {
                    s -= 1;
                }
                let path: String = chars[s..i].iter().collect();
                let path = path.trim_end_matches(':');
                return (!path.is_empty()).then(|| path.to_string());
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(rendered: &str, line: usize, column: usize) -> CompilerError {
        CompilerError {
            chain: vec![frugal_cargo::Location {
                file: "tests/frugal_generated.rs".into(),
                line,
                column,
            }],
            rendered: rendered.into(),
            target: String::new(),
        }
    }

    const SUITE: &str = "#[test]
fn t() {
    let mut meter = numeric::Meter::new(10);
    let n = numeric::gcd(4, 2);
    let flag = meter.record(n);
    assert_eq!(n, 2);
    let s = numeric::stats(&vec![numeric::gcd(1, 2, 3)][..]);
}
";

    fn item_of(rendered: &str, line: usize, column: usize) -> Option<String> {
        let suite = Suite::parse(SUITE).unwrap();
        item(&error(rendered, line, column), &suite, &suite.tests[0])
    }

    #[test]
    fn resolution_errors_name_the_item_themselves() {
        let cases = [
            (
                "error[E0425]: cannot find function `parse_duration` in crate `humantime`",
                "humantime::parse_duration",
            ),
            ("error[E0425]: cannot find value `x` in this scope", "x"),
            (
                "error[E0433]: failed to resolve: could not find `Meter` in `numeric`",
                "numeric::Meter",
            ),
            (
                "error[E0599]: no method named `record` found for struct `Meter` in the current scope",
                "Meter::record",
            ),
            (
                "error[E0599]: no method named `len` found for reference `&Meter` in the current scope",
                "Meter::len",
            ),
            (
                "error[E0599]: no function or associated item named `new` found for struct `numeric::Meter` in the current scope",
                "numeric::Meter::new",
            ),
            (
                "error[E0599]: no variant or associated item named `Scalene` found for enum `Triangle` in the current scope",
                "Triangle::Scalene",
            ),
            (
                "error[E0609]: no field `peak` on type `Meter`",
                "Meter.peak",
            ),
            (
                "error[E0432]: unresolved import `numeric::gone`",
                "numeric::gone",
            ),
        ];
        for (rendered, want) in cases {
            assert_eq!(
                item_of(rendered, 4, 13).as_deref(),
                Some(want),
                "{rendered}"
            );
        }
    }

    #[test]
    fn other_errors_name_the_call_at_their_span() {
        // `numeric::gcd` at line 4, column 13 (1-based).
        assert_eq!(
            item_of(
                "error[E0061]: this function takes 3 arguments but 2 arguments were supplied",
                4,
                13
            )
            .as_deref(),
            Some("numeric::gcd")
        );
        // The method `record` (column 22) on `meter`, bound by `numeric::Meter::new`.
        assert_eq!(
            item_of(
                "error[E0061]: this method takes 2 arguments but 1 argument was supplied",
                5,
                22
            )
            .as_deref(),
            Some("numeric::Meter::record")
        );
        // Mismatched types at the asserted variable `n` (column 16): the call that bound it.
        assert_eq!(
            item_of("error[E0308]: mismatched types", 6, 16).as_deref(),
            Some("numeric::gcd")
        );
        // At an argument (`1`, column 47 of line 7): the call it is passed to.
        assert_eq!(
            item_of("error[E0308]: mismatched types", 7, 47).as_deref(),
            Some("numeric::gcd")
        );
    }

    #[test]
    fn the_message_loses_its_code() {
        let e = error("error[E0425]: cannot find x\n --> here", 1, 1);
        assert_eq!(message(&e), "cannot find x");
        let e = error("error: expected one of `,`", 1, 1);
        assert_eq!(message(&e), "expected one of `,`");
    }
}
