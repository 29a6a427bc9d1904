//! Crate traits implemented for arrays of any element: written out (`impl<T> Array for [T;
//! 8]`, `impl<T, const N: usize> Array for [T; N]`) or stamped out by a `macro_rules!` macro
//! over sizes (smallvec's `impl_array!(0, 1, 2, ...)` over `impl<T> Array for [T; $size]`).
//! They make `[i32; N]` the candidate for a bound on the trait (`A: Array`), and the impl's
//! `type Item = T` answers `A::Item` in the signatures of everything generic over it.
//!
//! An expanded invocation's impls are written ones, one per length, merged per trait. For one
//! that did not expand, as in `macros.rs`, a body's `impl ... for [$elem; $var]` names the
//! trait, and the integer literals of an invocation are the lengths.

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use super::index::Index;
use super::walk::ModId;

/// One trait the crate implements for `[T; N]`, for the lengths it lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArrayImpl {
    /// Where the trait path resolves: the impl's module, or the invocation's.
    pub module: ModId,
    pub trait_path: syn::Path,
    /// The lengths it is written for; empty for a const generic length (any).
    pub lengths: Vec<u64>,
    /// Associated types that are the element (`type Item = T;`).
    pub element_types: Vec<String>,
}

/// Every array impl of the crate, written out or made by a macro invocation.
pub(crate) fn array_impls(ix: &Index) -> Vec<ArrayImpl> {
    let mut out: Vec<ArrayImpl> = Vec::new();
    // One impl per length, as a macro's expansion writes them (`impl<T> Array for [T; 0]`,
    // `[T; 1]`, ..): one trait over all the lengths, so the candidate's length is chosen
    // among them. A const generic length (no lengths) allows any.
    for found in ix.impls.iter().filter_map(written_impl) {
        let same = out.iter_mut().find(|o| {
            o.module == found.module
                && o.trait_path == found.trait_path
                && o.element_types == found.element_types
        });
        match same {
            Some(o) if o.lengths.is_empty() || found.lengths.is_empty() => o.lengths.clear(),
            Some(o) => o.lengths.extend(found.lengths),
            None => out.push(found),
        }
    }
    let read = |body: TokenStream| {
        let mut found = Vec::new();
        macro_array_impls(body, &mut found);
        (!found.is_empty()).then_some(found)
    };
    super::macros::each_invocation(ix, read, |m, tokens, found| {
        let mut lengths = Vec::new();
        integer_literals(tokens.clone(), &mut lengths);
        for (trait_path, element_types) in found {
            out.push(ArrayImpl {
                module: m,
                trait_path: trait_path.clone(),
                lengths: lengths.clone(),
                element_types: element_types.clone(),
            });
        }
    });
    out
}

/// `impl<T> Trait for [T; 8] { type Item = T; }` or `impl<T, const N: usize> Trait for [T; N]`.
fn written_impl(imp: &super::index::ImplDecl) -> Option<ArrayImpl> {
    let item = &imp.item;
    let (None, Some((trait_path, _))) = (&item.modifiers.polarity, &item.trait_) else {
        return None;
    };
    let syn::Type::Array(array) = &*item.self_ty else {
        return None;
    };
    let element = single_ident(&array.elem)?;
    if !item.generics.type_params().any(|p| p.ident == element) {
        return None;
    }
    let lengths = match &array.len {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => vec![i.base10_parse::<u64>().ok()?],
        syn::Expr::Path(p)
            if item
                .generics
                .const_params()
                .any(|c| p.path.is_ident(&c.ident)) =>
        {
            Vec::new()
        }
        _ => return None,
    };
    let element_types = item
        .items
        .iter()
        .filter_map(|i| match i {
            syn::ImplItem::Type(t) if single_ident(&t.ty).as_ref() == Some(&element) => {
                Some(t.ident.to_string())
            }
            _ => None,
        })
        .collect();
    Some(ArrayImpl {
        module: imp.module,
        trait_path: trait_path.clone(),
        lengths,
        element_types,
    })
}

fn single_ident(ty: &syn::Type) -> Option<syn::Ident> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    }
}

/// In a macro body, each `impl<...> Trait for [Elem; $len] { ... }`: the trait and the
/// associated types that are `Elem`.
fn macro_array_impls(tokens: TokenStream, out: &mut Vec<(syn::Path, Vec<String>)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => macro_array_impls(g.stream(), out),
            TokenTree::Ident(id) if id == "impl" => {
                if let Some(found) = array_impl_at(&trees[i + 1..]) {
                    out.push(found);
                }
            }
            _ => {}
        }
    }
}

/// The tokens after `impl`: generics, the trait path, `for`, `[Elem; $len]`, the body.
fn array_impl_at(rest: &[TokenTree]) -> Option<(syn::Path, Vec<String>)> {
    let f = rest
        .iter()
        .position(|t| matches!(t, TokenTree::Ident(id) if id == "for"))?;
    let TokenTree::Group(array) = rest.get(f + 1)? else {
        return None;
    };
    if array.delimiter() != Delimiter::Bracket {
        return None;
    }
    let inside: Vec<TokenTree> = array.stream().into_iter().collect();
    let [
        TokenTree::Ident(element),
        TokenTree::Punct(semi),
        TokenTree::Punct(dollar),
        TokenTree::Ident(_),
    ] = inside.as_slice()
    else {
        return None;
    };
    if semi.as_char() != ';' || dollar.as_char() != '$' {
        return None;
    }
    let mut head = &rest[..f];
    // Skip the impl's generics, `<T>`, by their angle brackets.
    if matches!(head.first(), Some(TokenTree::Punct(p)) if p.as_char() == '<') {
        let mut depth = 0i32;
        let end = head.iter().position(|t| {
            if let TokenTree::Punct(p) = t {
                match p.as_char() {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => {}
                }
            }
            depth == 0
        })?;
        head = &head[end + 1..];
    }
    let trait_path = syn::parse2::<syn::Path>(head.iter().cloned().collect()).ok()?;
    let element_types = match rest.get(f + 2) {
        Some(TokenTree::Group(body)) if body.delimiter() == Delimiter::Brace => {
            element_aliases(body.stream(), &element.to_string())
        }
        _ => Vec::new(),
    };
    Some((trait_path, element_types))
}

/// `type Name = elem;` in an impl body's tokens.
fn element_aliases(body: TokenStream, element: &str) -> Vec<String> {
    let trees: Vec<TokenTree> = body.into_iter().collect();
    trees
        .windows(5)
        .filter_map(|w| match w {
            [
                TokenTree::Ident(ty),
                TokenTree::Ident(name),
                TokenTree::Punct(eq),
                TokenTree::Ident(e),
                TokenTree::Punct(semi),
            ] if ty == "type" && eq.as_char() == '=' && e == element && semi.as_char() == ';' => {
                Some(name.to_string())
            }
            _ => None,
        })
        .collect()
}

/// Integer literals among an invocation's tokens (`0x40` too), at most 1 << 20.
fn integer_literals(tokens: TokenStream, out: &mut Vec<u64>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(g) => integer_literals(g.stream(), out),
            TokenTree::Literal(lit) => {
                let parsed = syn::parse_str::<syn::LitInt>(&lit.to_string())
                    .ok()
                    .and_then(|i| i.base10_parse::<u64>().ok());
                if let Some(n) = parsed.filter(|n| *n <= 1 << 20)
                    && !out.contains(&n)
                {
                    out.push(n);
                }
            }
            _ => {}
        }
    }
}

/// The length a candidate array gets: 4 where allowed (small enough to fill and to go past,
/// so both sides of an inline capacity are reachable), else the nearest allowed.
pub(crate) fn chosen_length(lengths: &[u64]) -> u64 {
    const PREFERRED: u64 = 4;
    lengths
        .iter()
        .copied()
        .min_by_key(|n| (n.abs_diff(PREFERRED), *n))
        .unwrap_or(PREFERRED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_macro_over_sizes_names_the_trait_the_element_type_and_the_lengths() {
        let body: TokenStream = syn::parse_str(
            "($($size:expr),+) => { $( unsafe impl<T> Array for [T; $size] { \
             type Item = T; fn size() -> usize { $size } } )+ }",
        )
        .expect("tokens");
        let mut found = Vec::new();
        macro_array_impls(body, &mut found);
        assert_eq!(found.len(), 1);
        assert!(found[0].0.is_ident("Array"));
        assert_eq!(found[0].1, ["Item"]);
        let mut lengths = Vec::new();
        integer_literals(
            syn::parse_str("0, 1, 2, 36, 0x40, 0x10_0000").expect("tokens"),
            &mut lengths,
        );
        assert_eq!(lengths, [0, 1, 2, 36, 64, 1 << 20]);
        assert_eq!(chosen_length(&lengths), 2);
        assert_eq!(chosen_length(&[0, 1, 4, 8]), 4);
        assert_eq!(chosen_length(&[]), 4);
    }

    #[test]
    fn written_impls_over_a_literal_or_a_const_generic_length() {
        let imp = |src: &str| super::super::index::ImplDecl {
            module: 0,
            item: syn::parse_str(src).expect("impl"),
        };
        let literal = written_impl(&imp("impl<T> Array for [T; 8] { type Item = T; }"));
        assert_eq!(literal.as_ref().map(|a| a.lengths.clone()), Some(vec![8]));
        assert_eq!(literal.map(|a| a.element_types), Some(vec!["Item".into()]));
        let any = written_impl(&imp("impl<T, const N: usize> Array for [T; N] {}"));
        assert_eq!(any.map(|a| a.lengths), Some(Vec::new()));
        assert!(written_impl(&imp("impl Array for [u8; 8] {}")).is_none());
        assert!(written_impl(&imp("impl<T> Array for [T; 8] {}")).is_some());
        assert!(written_impl(&imp("impl<T> [T; 8] {}")).is_none());
    }
}
