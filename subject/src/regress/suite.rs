//! A stored suite read back: its `#[test]` fns with their source text and line ranges, their
//! statements (what each binds, what each asserts), and the file with some tests blanked out.
//! Tests are removed by blanking their lines, so every other line keeps its number and compiler
//! errors and panic locations keep pointing at the original text.

use proc_macro2::LineColumn;
use syn::spanned::Spanned;

use crate::emit::Placement;

/// The suite file.
#[derive(Debug, Clone)]
pub(crate) struct Suite {
    lines: Vec<String>,
    pub tests: Vec<SuiteTest>,
}

/// One `#[test]` fn.
#[derive(Debug, Clone)]
pub(crate) struct SuiteTest {
    pub name: String,
    /// First (its first attribute) and last line, 1-based, inclusive.
    pub first_line: usize,
    pub last_line: usize,
    /// The fn's text as written, attributes included.
    pub body: String,
    /// `#[should_panic]`: `Some(expected)` (`None` inside when no text is expected).
    pub should_panic: Option<Option<String>>,
    pub stmts: Vec<Stmt>,
}

/// One statement of a test.
#[derive(Debug, Clone)]
pub(crate) struct Stmt {
    pub first_line: usize,
    pub last_line: usize,
    /// The statement's text on one line (white space folded).
    pub text: String,
    /// `let NAME = VALUE;`: the name bound and the value's text.
    pub binds: Option<(String, String)>,
    /// `assert_eq!(ACTUAL, ..)`: the actual side, with `format!("{:?}", x)` unwrapped to `x`,
    /// and whether it was so wrapped (the values libtest prints are then `Debug` strings).
    pub asserts: Option<(String, bool)>,
}

impl Suite {
    /// Parses the suite's source; tests are the top-level fns marked `#[test]`, and those in
    /// the module of each home's `frugal_in_*` macro (`emit::home`).
    pub fn parse(source: &str) -> Result<Suite, syn::Error> {
        let file = syn::parse_file(source)?;
        let lines: Vec<String> = source.lines().map(String::from).collect();
        let mut tests = Vec::new();
        collect_tests(&lines, &file.items, true, &mut tests)?;
        Ok(Suite { lines, tests })
    }

    /// The source with the tests at `removed` (indices into `tests`) blanked out.
    pub fn without(&self, removed: &[usize]) -> String {
        let mut lines = self.lines.clone();
        for &i in removed {
            let t = &self.tests[i];
            for line in &mut lines[t.first_line - 1..t.last_line.min(self.lines.len())] {
                line.clear();
            }
        }
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }

    /// The text of line `line` (1-based), empty past the end.
    pub fn line(&self, line: usize) -> &str {
        line.checked_sub(1)
            .and_then(|i| self.lines.get(i))
            .map_or("", String::as_str)
    }
}

/// The `#[test]` fns of `items`; at the top level also those of home sections, whose tokens
/// keep their lines in the file.
fn collect_tests(
    lines: &[String],
    items: &[syn::Item],
    top: bool,
    tests: &mut Vec<SuiteTest>,
) -> Result<(), syn::Error> {
    for item in items {
        match item {
            syn::Item::Fn(f) if f.attrs.iter().any(|a| a.path().is_ident("test")) => {
                tests.push(suite_test(lines, item, f));
            }
            syn::Item::Macro(m) if top && is_home_section(m) => {
                for body in rule_bodies(&m.mac.tokens) {
                    let inner: syn::File = syn::parse2(body)?;
                    for module in &inner.items {
                        if let syn::Item::Mod(syn::ItemMod {
                            content: Some((_, items)),
                            ..
                        }) = module
                        {
                            collect_tests(lines, items, false, tests)?;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn suite_test(lines: &[String], item: &syn::Item, f: &syn::ItemFn) -> SuiteTest {
    let (first, last) = (item.span().start().line, item.span().end().line);
    let stmts = f.block.stmts.iter().map(|s| statement(lines, s)).collect();
    SuiteTest {
        name: f.sig.ident.to_string(),
        first_line: first,
        last_line: last,
        body: lines[first - 1..last.min(lines.len())].join("\n"),
        should_panic: should_panic(&f.attrs),
        stmts,
    }
}

/// `macro_rules! frugal_in_<module> { .. }`.
fn is_home_section(m: &syn::ItemMacro) -> bool {
    m.mac.path.is_ident("macro_rules")
        && m.ident
            .as_ref()
            .is_some_and(|i| i.to_string().starts_with("frugal_in_"))
}

/// The transcriber of each `() => { .. };` rule.
fn rule_bodies(tokens: &proc_macro2::TokenStream) -> Vec<proc_macro2::TokenStream> {
    use proc_macro2::{Delimiter, TokenTree};
    let mut out = Vec::new();
    let mut after_arrow = false;
    let mut last_eq = false;
    for tt in tokens.clone() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == '=' => last_eq = true,
            TokenTree::Punct(p) if p.as_char() == '>' && last_eq => {
                after_arrow = true;
                last_eq = false;
            }
            TokenTree::Group(g) if after_arrow && g.delimiter() == Delimiter::Brace => {
                out.push(g.stream());
                after_arrow = false;
            }
            _ => last_eq = false,
        }
    }
    out
}

impl SuiteTest {
    /// The statement covering `line`.
    pub fn stmt_at(&self, line: usize) -> Option<&Stmt> {
        self.stmts
            .iter()
            .find(|s| (s.first_line..=s.last_line).contains(&line))
    }

    /// The value bound to `name` by the last `let` before `line`.
    pub fn binding_before(&self, name: &str, line: usize) -> Option<&str> {
        self.stmts
            .iter()
            .filter(|s| s.last_line < line)
            .filter_map(|s| s.binds.as_ref())
            .rfind(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Where the suite goes, read from its text: in-crate suites name the crate through
/// `use crate as <name>;` (see [`Placement::prelude`]).
pub fn detect_placement(source: &str) -> Placement {
    let in_crate = source
        .lines()
        .any(|l| l.trim_start().starts_with("use crate as "));
    if in_crate {
        Placement::InCrate
    } else {
        Placement::Tests
    }
}

fn should_panic(attrs: &[syn::Attribute]) -> Option<Option<String>> {
    let attr = attrs.iter().find(|a| a.path().is_ident("should_panic"))?;
    let mut expected = None;
    if let syn::Meta::List(_) = &attr.meta {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("expected") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                expected = Some(lit.value());
            }
            Ok(())
        });
    }
    Some(expected)
}

fn statement(lines: &[String], s: &syn::Stmt) -> Stmt {
    let span = s.span();
    let binds = match s {
        syn::Stmt::Local(local) => match (&local.pat, &local.init) {
            (syn::Pat::Ident(p), Some(init)) => Some((
                p.ident.to_string(),
                fold(&text(
                    lines,
                    init.expr.span().start(),
                    init.expr.span().end(),
                )),
            )),
            _ => None,
        },
        _ => None,
    };
    let mac = match s {
        syn::Stmt::Macro(m) => Some(&m.mac),
        syn::Stmt::Expr(syn::Expr::Macro(m), _) => Some(&m.mac),
        _ => None,
    };
    let asserts = mac
        .filter(|m| m.path.is_ident("assert_eq"))
        .and_then(first_arg)
        .map(|actual| actual_side(lines, &actual));
    Stmt {
        first_line: span.start().line,
        last_line: span.end().line,
        text: fold(&text(lines, span.start(), span.end())),
        binds,
        asserts,
    }
}

fn first_arg(mac: &syn::Macro) -> Option<syn::Expr> {
    let args = mac
        .parse_body_with(syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
        .ok()?;
    args.into_iter().next()
}

/// `format!("{:?}", x)` -> (`x`, true); anything else -> (its text, false).
fn actual_side(lines: &[String], e: &syn::Expr) -> (String, bool) {
    if let syn::Expr::Macro(m) = e
        && m.mac.path.is_ident("format")
        && let Ok(args) = m.mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        )
        && args.len() == 2
        && matches!(&args[0], syn::Expr::Lit(l) if matches!(&l.lit, syn::Lit::Str(s) if s.value() == "{:?}"))
    {
        let inner = &args[1];
        return (
            fold(&text(lines, inner.span().start(), inner.span().end())),
            true,
        );
    }
    (fold(&text(lines, e.span().start(), e.span().end())), false)
}

/// The source between two span positions (lines 1-based, columns in chars).
fn text(lines: &[String], start: LineColumn, end: LineColumn) -> String {
    let mut out = String::new();
    for l in start.line..=end.line {
        let Some(line) = lines.get(l - 1) else { break };
        let from = if l == start.line { start.column } else { 0 };
        let to = if l == end.line {
            end.column
        } else {
            usize::MAX
        };
        let piece: String = line
            .chars()
            .skip(from)
            .take(to.saturating_sub(from))
            .collect();
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&piece);
    }
    out
}

/// White space runs folded to one space.
fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = r#"//! header
#![allow(unused_mut)]

/// A documented test.
#[test]
fn plain() {
    let n = numeric::gcd(4, 2);
    assert_eq!(n, 2);
}

#[test]
#[should_panic(expected = "boom")]
fn panics() {
    let mut meter = numeric::Meter::new(10);
    assert_eq!(
        format!("{:?}", meter),
        "Meter { total: 0 }"
    );
    meter.record(1);
}

fn helper() {}
"#;

    #[test]
    fn tests_are_found_with_their_lines_attributes_and_statements() {
        let suite = Suite::parse(SUITE).unwrap();
        let names: Vec<&str> = suite.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["plain", "panics"]);
        let plain = &suite.tests[0];
        assert_eq!((plain.first_line, plain.last_line), (4, 9));
        assert!(
            plain
                .body
                .starts_with("/// A documented test.\n#[test]\nfn plain() {")
        );
        assert_eq!(plain.should_panic, None);
        assert_eq!(
            plain.stmts[0].binds,
            Some(("n".into(), "numeric::gcd(4, 2)".into()))
        );
        assert_eq!(plain.stmts[1].asserts, Some(("n".into(), false)));
        let panics = &suite.tests[1];
        assert_eq!(panics.should_panic, Some(Some("boom".into())));
        let assert = panics.stmt_at(16).expect("the multi-line assertion");
        assert_eq!((assert.first_line, assert.last_line), (15, 18));
        assert_eq!(assert.asserts, Some(("meter".into(), true)));
        assert_eq!(
            assert.text,
            r#"assert_eq!( format!("{:?}", meter), "Meter { total: 0 }" );"#
        );
        assert_eq!(
            panics.binding_before("meter", 15),
            Some("numeric::Meter::new(10)")
        );
    }

    #[test]
    fn removed_tests_leave_blank_lines_so_the_rest_keep_their_numbers() {
        let suite = Suite::parse(SUITE).unwrap();
        let text = suite.without(&[0]);
        assert_eq!(text.lines().count(), SUITE.lines().count());
        assert!(!text.contains("fn plain"));
        assert_eq!(text.lines().nth(12), Some("fn panics() {"));
        assert!(Suite::parse(&text).is_ok());
    }

    #[test]
    fn tests_of_home_sections_are_read_at_their_lines() {
        let home = crate::model::Home {
            module: "date".into(),
            file: "src/date.rs".into(),
        };
        let (open, close) = crate::emit::home::section(&home, "k");
        let test = "#[test]\nfn leap() {\n    assert_eq!(k::date::is_leap(4), true);\n}\n";
        let source = format!(
            "use crate as k;\n\n#[test]\nfn root() {{\n}}\n\n{open}{}{close}",
            crate::emit::home::indent(test)
        );
        let suite = Suite::parse(&source).unwrap();
        let names: Vec<&str> = suite.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["root", "leap"]);
        let leap = &suite.tests[1];
        assert_eq!(suite.line(leap.first_line).trim(), "#[test]");
        assert_eq!(leap.stmts.len(), 1);
        assert!(leap.stmts[0].asserts.is_some());
        let without = suite.without(&[1]);
        assert!(!without.contains("fn leap"), "{without}");
        assert!(syn::parse_file(&without).is_ok());
    }

    #[test]
    fn in_crate_suites_are_recognised_by_their_prelude() {
        let in_crate = Placement::InCrate.prelude("numeric");
        assert_eq!(detect_placement(&in_crate), Placement::InCrate);
        assert_eq!(detect_placement(SUITE), Placement::Tests);
    }
}
