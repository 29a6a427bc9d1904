//! Names in emitted tests: a test's name from what it calls and how it ends, made unique by
//! its inputs, and variable names in snake case.
//!
//! It must not know how statements are rendered (`render.rs`).

use std::collections::BTreeSet;

use frugal_search::{ExecResult, Status, TestCase, Value};

use super::render::{host_dependent, var_base};
use crate::harness::registry::{OpCode, Registry};
use crate::model::{ApiModel, CallableKind};

/// `BoundedStack` -> `bounded_stack`.
pub fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else if c.is_alphanumeric() || c == '_' {
            out.push(c);
        }
    }
    match out.as_str() {
        "" => "value".into(),
        // Keywords cannot be variable names.
        "as" | "async" | "await" | "box" | "break" | "const" | "continue" | "crate" | "do"
        | "dyn" | "else" | "enum" | "extern" | "final" | "fn" | "for" | "gen" | "if" | "impl"
        | "in" | "let" | "loop" | "macro" | "match" | "mod" | "move" | "mut" | "override"
        | "priv" | "pub" | "ref" | "return" | "self" | "static" | "struct" | "super" | "trait"
        | "try" | "type" | "typeof" | "unsafe" | "unsized" | "use" | "virtual" | "where"
        | "while" | "yield" | "abstract" | "become" | "true" | "false" => format!("{out}_"),
        _ => out,
    }
}

/// `classify_triangle_returns_isosceles`-style names from the last call and its outcome.
pub(super) fn test_name(
    test: &TestCase,
    result: &ExecResult,
    reg: &Registry,
    model: &ApiModel,
) -> String {
    let last_call =
        test.stmts
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, s)| match &reg.ops[s.op as usize].code {
                OpCode::Call(c) => Some((i, Some(*c), None)),
                OpCode::Display(t) | OpCode::DisplayPadded(t) | OpCode::DebugFmt(t) => {
                    Some((i, None, Some((t, "displays"))))
                }
                OpCode::HashOf(t) => Some((i, None, Some((t, "hashes")))),
                _ => None,
            });
    let Some((i, c, shown)) = last_call else {
        return "builds_values".into();
    };
    let Some(c) = c else {
        let (base, verb) = shown.map_or_else(
            || ("value".to_string(), "displays"),
            |(t, verb)| (var_base(t, model), verb),
        );
        return format!("{base}_{verb}");
    };
    let callable = &model.callables[c];
    let mut name = match &callable.kind {
        CallableKind::Free => snake(&callable.name),
        CallableKind::Method { self_ty, .. } | CallableKind::Assoc { self_ty } => {
            format!("{}_{}", var_base(self_ty, model), snake(&callable.name))
        }
    };
    let outcome = match (&result.status, result.summaries.get(i).cloned().flatten()) {
        (Status::Panicked { .. }, _) => "panics".to_string(),
        (_, Some(s)) if !host_dependent(&s) => outcome_word(&s),
        _ => String::new(),
    };
    if !outcome.is_empty() {
        name.push('_');
        name.push_str(&outcome);
    }
    name.trim_start_matches('_').to_string()
}

/// Words for a returned value, so that tests of one call differ by what they show:
/// `returns_err_unknown_event`, `returns_none`, `is_true`, `returns_isosceles`, `returns_0`,
/// `returns_negative`, `returns_empty`, `returns_0_b` (a short string).
pub(super) fn outcome_word(summary: &str) -> String {
    let head: String = summary
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let inner = |prefix: &str| {
        let rest = summary.strip_prefix(prefix)?.strip_prefix('(')?;
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        (name.chars().next()?.is_uppercase() && name.len() <= 24).then(|| snake(&name))
    };
    match head.as_str() {
        "Err" => inner("Err").map_or("returns_err".into(), |v| format!("returns_err_{v}")),
        "Ok" => inner("Ok").map_or("returns_ok".into(), |v| format!("returns_ok_{v}")),
        "None" => "returns_none".into(),
        "Some" => "returns_some".into(),
        "true" => "is_true".into(),
        "false" => "is_false".into(),
        h if h.chars().next().is_some_and(char::is_uppercase) && h.len() <= 24 => {
            format!("returns_{}", snake(h))
        }
        _ => plain_outcome(summary),
    }
}

/// Text as identifier words (`"0 B"` -> `0_b`), or empty when it holds anything but ASCII
/// letters, digits and separators.
pub(super) fn ident_words(text: &str) -> String {
    if !text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.'))
    {
        return String::new();
    }
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("_")
}

/// Words for numbers, empty collections and short strings.
pub(super) fn plain_outcome(summary: &str) -> String {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match summary {
        "[]" | "\"\"" | "{}" => "returns_empty".into(),
        s if s.starts_with('-') && digits(&s[1..]) => "returns_negative".into(),
        s if digits(s) && s.len() <= 6 => format!("returns_{s}"),
        s if s.len() >= 3 && s.len() <= 18 && s.starts_with('"') && s.ends_with('"') => {
            let words = ident_words(&s[1..s.len() - 1]);
            match words.is_empty() {
                true => String::new(),
                false => format!("returns_{words}"),
            }
        }
        _ => String::new(),
    }
}

/// A name taken already gets the first literal of the test that makes it free
/// (`formatted_duration_displays_with_3600` beside `formatted_duration_displays`), so a reader
/// sees what differs; a number only when no literal does.
pub(super) fn unique_by_inputs(
    base: String,
    test: &TestCase,
    names: &mut BTreeSet<String>,
) -> String {
    if base.is_empty() || !names.contains(&base) {
        return unique(base, names);
    }
    let free = test
        .stmts
        .iter()
        .filter_map(|s| s.value.as_ref().and_then(value_words))
        .map(|words| format!("{base}_with_{words}"))
        .find(|name| !names.contains(name));
    match free {
        Some(name) => {
            names.insert(name.clone());
            name
        }
        None => unique(base, names),
    }
}

/// A literal as identifier words: `3600`, `minus_7`, `1_5`, `true`, `empty`, `max_len`; `None`
/// for text that makes no identifier (symbols, non-ASCII) or is too long to read in a name.
pub(super) fn value_words(v: &Value) -> Option<String> {
    const LONGEST: usize = 20;
    let words = match v {
        Value::Int(i) if *i < 0 => format!("minus_{}", i.unsigned_abs()),
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_finite() => {
            let text = ident_words(&f.abs().to_string());
            if *f < 0.0 {
                format!("minus_{text}")
            } else {
                text
            }
        }
        Value::Float(_) => return None,
        Value::Bool(b) => b.to_string(),
        Value::Char(c) => ident_words(&c.to_string()),
        Value::Str(s) if s.is_empty() => "empty".to_string(),
        Value::Str(s) => ident_words(s),
    };
    (!words.is_empty() && words.len() <= LONGEST).then_some(words)
}

pub(super) fn unique(base: String, names: &mut BTreeSet<String>) -> String {
    let base = if base.is_empty() {
        "generated".to_string()
    } else {
        base
    };
    let mut name = base.clone();
    let mut n = 1;
    while names.contains(&name) {
        n += 1;
        name = format!("{base}_{n}");
    }
    names.insert(name.clone());
    name
}
