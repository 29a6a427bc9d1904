//! Syntax highlighting of Rust source for the suite and commit pages: a small tokeniser that
//! wraps comments, strings, characters, numbers, keywords, macros, types and attributes in
//! `<span class="…">`, everything else escaped as text.
//!
//! Decision: hand-rolled, not `syntect`. The text shown is frugal's own generated tests (calls,
//! literals, `assert_eq!`), which a 100-line lexer colours correctly; syntect would bring a
//! regex engine and its syntax and theme dumps (megabytes in the daemon, minutes of build on
//! CI) for grammar this code never meets. Whatever the lexer misreads is still shown as text.

use maud::{Markup, PreEscaped, html};

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while",
];

/// The kind of a token, and its CSS class (`None`: plain text).
fn class_of(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Comment => Some("c"),
        Kind::Str => Some("s"),
        Kind::Num => Some("n"),
        Kind::Keyword => Some("k"),
        Kind::Macro => Some("m"),
        Kind::Type => Some("t"),
        Kind::Attr => Some("a"),
        Kind::Plain => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Comment,
    Str,
    Num,
    Keyword,
    Macro,
    Type,
    Attr,
    Plain,
}

/// Splits `src` into tokens that together are exactly `src`.
fn tokens(src: &str) -> Vec<(Kind, &str)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (kind, end) = token_at(src, i);
        let end = end.max(i + 1).min(b.len());
        // Never split a UTF-8 sequence: extend to the next char boundary.
        let end = (end..=b.len())
            .find(|e| src.is_char_boundary(*e))
            .unwrap_or(b.len());
        out.push((kind, &src[i..end]));
        i = end;
    }
    out
}

/// The token starting at byte `i`: its kind and end.
fn token_at(src: &str, i: usize) -> (Kind, usize) {
    let b = src.as_bytes();
    let rest = &src[i..];
    let c = b[i];
    if rest.starts_with("//") {
        return (Kind::Comment, i + rest.find('\n').unwrap_or(rest.len()));
    }
    if rest.starts_with("/*") {
        return (
            Kind::Comment,
            i + rest.find("*/").map_or(rest.len(), |e| e + 2),
        );
    }
    if rest.starts_with("#[") || rest.starts_with("#![") {
        return (Kind::Attr, i + rest.find(']').map_or(rest.len(), |e| e + 1));
    }
    if c == b'"' {
        return (Kind::Str, string_end(b, i + 1));
    }
    if (rest.starts_with("r\"") || rest.starts_with("r#"))
        && let Some(e) = raw_string_end(rest)
    {
        return (Kind::Str, i + e);
    }
    if rest.starts_with("b\"") {
        return (Kind::Str, string_end(b, i + 2));
    }
    if c == b'\'' {
        return char_or_lifetime(src, i);
    }
    if c.is_ascii_digit() {
        let len = rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
            .unwrap_or(rest.len());
        // `1..2` is two numbers and a range, not one number.
        let len = rest[..len].find("..").unwrap_or(len);
        return (Kind::Num, i + len.max(1));
    }
    if c.is_ascii_alphabetic() || c == b'_' {
        let len = rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..len];
        if rest[len..].starts_with('!') && !rest[len..].starts_with("!=") {
            return (Kind::Macro, i + len + 1);
        }
        let kind = if KEYWORDS.contains(&word) {
            Kind::Keyword
        } else if word.starts_with(|ch: char| ch.is_ascii_uppercase()) {
            Kind::Type
        } else {
            Kind::Plain
        };
        return (kind, i + len);
    }
    (Kind::Plain, i + 1)
}

/// The end of a `"…"` string whose content starts at `from` (after the closing quote).
fn string_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// The length of a raw string `r#"…"#` at the start of `rest`, if it is one.
fn raw_string_end(rest: &str) -> Option<usize> {
    let hashes = rest[1..].bytes().take_while(|c| *c == b'#').count();
    if rest.as_bytes().get(1 + hashes) != Some(&b'"') {
        return None;
    }
    let close = format!("\"{}", "#".repeat(hashes));
    let body = 2 + hashes;
    rest[body..]
        .find(&close)
        .map(|e| body + e + close.len())
        .or(Some(rest.len()))
}

/// `'a'`, `'\\n'` (a character) or `'a` (a lifetime, left plain).
fn char_or_lifetime(src: &str, i: usize) -> (Kind, usize) {
    let b = src.as_bytes();
    if b.get(i + 1) == Some(&b'\\') {
        let close = (i + 2..b.len().min(i + 12)).find(|j| b[*j] == b'\'');
        return (Kind::Str, close.map_or(i + 2, |j| j + 1));
    }
    // Exactly one character, then a quote.
    match src[i + 1..].chars().next() {
        Some(ch) if b.get(i + 1 + ch.len_utf8()) == Some(&b'\'') => {
            (Kind::Str, i + 2 + ch.len_utf8())
        }
        _ => (Kind::Plain, i + 1),
    }
}

/// The source as highlighted HTML (inside a `<pre><code>`).
pub fn rust(src: &str) -> Markup {
    let mut html = String::with_capacity(src.len() * 2);
    for (kind, text) in tokens(src) {
        let escaped = html! { (text) }.into_string();
        match class_of(kind) {
            Some(class) => {
                html.push_str("<span class=\"");
                html.push_str(class);
                html.push_str("\">");
                html.push_str(&escaped);
                html.push_str("</span>");
            }
            None => html.push_str(&escaped),
        }
    }
    PreEscaped(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Kind, &str)> {
        tokens(src)
            .into_iter()
            .filter(|(k, t)| *k != Kind::Plain || !t.trim().is_empty())
            .collect()
    }

    #[test]
    fn tokens_cover_the_source_exactly() {
        let src = "#[test]\nfn t() { let s = \"a\\\"b\"; assert_eq!(numeric::gcd(4, 6), 2u64); } // ok é\n";
        let joined: String = tokens(src).iter().map(|(_, t)| *t).collect();
        assert_eq!(joined, src);
    }

    #[test]
    fn kinds_are_told_apart() {
        let k = kinds(
            "#[test] fn f<'a>(x: &'a str) { let c = '\\n'; Some(1.5); assert!(x != \"y\"); }",
        );
        assert!(k.contains(&(Kind::Attr, "#[test]")));
        assert!(k.contains(&(Kind::Keyword, "fn")));
        assert!(k.contains(&(Kind::Str, "'\\n'")));
        assert!(k.contains(&(Kind::Type, "Some")));
        assert!(k.contains(&(Kind::Num, "1.5")));
        assert!(k.contains(&(Kind::Macro, "assert!")));
        assert!(k.contains(&(Kind::Str, "\"y\"")));
        assert!(
            !k.iter()
                .any(|(kind, t)| *kind == Kind::Str && t.contains("'a"))
        );
    }

    #[test]
    fn markup_is_escaped() {
        let h = rust("let s = \"<script>\";").into_string();
        assert!(h.contains("&lt;script&gt;"), "{h}");
        assert!(!h.contains("<script>"), "{h}");
    }

    #[test]
    fn ranges_and_raw_strings() {
        let k = kinds("for i in 0..10 { r#\"x\"y\"#; }");
        assert!(k.contains(&(Kind::Num, "0")));
        assert!(k.contains(&(Kind::Num, "10")));
        assert!(k.contains(&(Kind::Str, "r#\"x\"y\"#")));
    }
}
