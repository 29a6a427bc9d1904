//! The items a `macro_rules!` body stamps out, read as ordinary syntax so the visitor can put
//! probes into them (itoa's `impl_Unsigned!` holds its whole formatting loop).
//!
//! A transcriber is not Rust until it is expanded: `$t` stands for a type, `$( .. )*` for a
//! repetition. Each metavariable is read as a plain name spanning `$name`, and each repetition
//! as one copy of its contents, keeping every token's span; a transcriber that then parses as
//! items is instrumented like any other code. Probes are written into the body's text, so
//! every expansion runs them and shares their goals: a line is covered when any expansion ran
//! it, as in line coverage of the compiled crate. Transcribers that do not parse as items
//! (expressions, fragments of items) are left alone.

use proc_macro2::{Delimiter, Group, Ident, Punct, TokenStream, TokenTree};

/// The items of every rule of `mac` whose transcriber parses as items, in order; empty when
/// `mac` is not a `macro_rules!` definition.
pub(super) fn rules_items(mac: &syn::Macro) -> Vec<syn::Item> {
    if !mac.path.is_ident("macro_rules") {
        return Vec::new();
    }
    let trees: Vec<TokenTree> = mac.tokens.clone().into_iter().collect();
    let mut items = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        let TokenTree::Group(body) = tree else {
            continue;
        };
        if i < 2 || !is_arrow(&trees[i - 2], &trees[i - 1]) {
            continue;
        }
        if let Ok(file) = syn::parse2::<syn::File>(plain(body.stream())) {
            items.extend(file.items);
        }
    }
    items
}

/// `=>`, as two punctuation tokens.
fn is_arrow(a: &TokenTree, b: &TokenTree) -> bool {
    matches!((a, b), (TokenTree::Punct(x), TokenTree::Punct(y)) if x.as_char() == '=' && y.as_char() == '>')
}

/// `tokens` with `$name` read as `name` (spanning both tokens, so text inserted around it
/// stays outside the `$`) and `$( .. ) sep op` read as its contents once.
fn plain(tokens: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut trees = tokens.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Punct(dollar) if dollar.as_char() == '$' => match trees.peek().cloned() {
                Some(TokenTree::Ident(name)) => {
                    trees.next();
                    let span = dollar.span().join(name.span()).unwrap_or(name.span());
                    out.push(TokenTree::Ident(Ident::new(&name.to_string(), span)));
                }
                Some(TokenTree::Group(rep)) if rep.delimiter() == Delimiter::Parenthesis => {
                    trees.next();
                    out.extend(plain(rep.stream()));
                    skip_repetition_tail(&mut trees);
                }
                _ => out.push(TokenTree::Punct(dollar)),
            },
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), plain(g.stream()));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

/// Drops a repetition's optional separator and its operator (`*`, `+` or `?`).
fn skip_repetition_tail(trees: &mut std::iter::Peekable<impl Iterator<Item = TokenTree>>) {
    let is_op = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if is_rep_op(p));
    if is_op(trees.peek()) {
        trees.next();
        return;
    }
    // A separator, then the operator.
    if trees.peek().is_some() {
        trees.next();
    }
    if is_op(trees.peek()) {
        trees.next();
    }
}

fn is_rep_op(p: &Punct) -> bool {
    matches!(p.as_char(), '*' | '+' | '?')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The items of the first item of `src`, a macro.
    fn rules_of(src: &str) -> Vec<syn::Item> {
        let file: syn::File = syn::parse_str(src).expect("parses");
        let syn::Item::Macro(m) = &file.items[0] else {
            panic!("a macro item")
        };
        rules_items(&m.mac)
    }

    /// The last name of a path type (`t` for `$t`).
    fn last_name(t: &syn::Type) -> String {
        match t {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default(),
            _ => "?".into(),
        }
    }

    #[test]
    fn metavariables_and_repetitions_read_as_plain_items() {
        let got: Vec<String> = rules_of(
            "macro_rules! imp {
                ($t:ident) => { impl Fmt for $t { fn fmt(self) -> usize { let x = $t::MAX; $crate::f(x) } } };
                ($($t:ty),*) => { $( impl Fmt for $t { fn fmt(self) -> usize { 0 } } )* };
                ($e:expr) => { $e + 1 };
            }",
        )
        .iter()
        .map(|i| match i {
            syn::Item::Impl(i) => format!("impl for {}", last_name(&i.self_ty)),
            _ => "other".into(),
        })
        .collect();
        // The third rule is an expression: no items.
        assert_eq!(got, ["impl for t", "impl for t"]);
    }

    #[test]
    fn a_metavariable_spans_its_dollar() {
        let src = "macro_rules! m { ($n:ident) => { fn $n() {} }; }";
        let got = rules_of(src);
        let syn::Item::Fn(f) = &got[0] else {
            panic!("a fn")
        };
        let r = f.sig.ident.span().byte_range();
        assert_eq!(&src[r], "$n");
    }

    #[test]
    fn other_macros_have_no_items() {
        assert!(rules_of("imp!(u8);").is_empty());
    }
}
