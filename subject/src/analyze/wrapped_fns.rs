//! Methods written inside a macro invocation in an impl block, the macro only wrapping them:
//! smol-rs' `const_fn! { const_if: #[cfg(not(loom))]; pub const fn new(n: usize) -> Semaphore
//! { .. } }` (async-lock, event-listener), which emits the method as written, `const` or not
//! by a `cfg`. Without them a type whose only constructor is so wrapped has no way to be
//! built, and every method taking it is left out.
//!
//! Macros are not expanded: an invocation whose tokens end in one whole method (attributes,
//! doc comments and signature included) is read as that method; any other invocation is left
//! alone. It must not know what the methods are used for.

use proc_macro2::{TokenStream, TokenTree};

/// `imp` with each impl-item macro invocation that wraps one method replaced by the method.
pub(crate) fn unwrapped(imp: &syn::ItemImpl) -> syn::ItemImpl {
    let mut out = imp.clone();
    for item in &mut out.items {
        if let syn::ImplItem::Macro(m) = item
            && let Some(f) = wrapped_fn(&m.mac.tokens)
        {
            *item = syn::ImplItem::Fn(f);
        }
    }
    out
}

/// The method the tokens end in: the first start (an attribute's `#`, `pub`, `const`, `fn`,
/// ...) from which the rest parses as a whole method with a body.
fn wrapped_fn(tokens: &TokenStream) -> Option<syn::ImplItemFn> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    (0..trees.len())
        .filter(|&i| may_start(&trees[i]))
        .find_map(|i| syn::parse2::<syn::ImplItemFn>(trees[i..].iter().cloned().collect()).ok())
}

fn may_start(tree: &TokenTree) -> bool {
    match tree {
        TokenTree::Punct(p) => p.as_char() == '#',
        TokenTree::Ident(id) => {
            matches!(
                id.to_string().as_str(),
                "pub" | "const" | "async" | "unsafe" | "fn"
            )
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn impl_of(src: &str) -> syn::ItemImpl {
        syn::parse_str(src).expect("an impl")
    }

    #[test]
    fn a_method_a_macro_only_wraps_is_read_as_the_method() {
        let imp = impl_of(
            "impl Semaphore {
                const_fn! {
                    const_if: #[cfg(not(loom))];
                    /// A semaphore of `n` permits.
                    pub const fn new(n: usize) -> Semaphore { Semaphore { n } }
                }
                pub fn permits(&self) -> usize { self.n }
            }",
        );
        let names: Vec<String> = unwrapped(&imp)
            .items
            .iter()
            .filter_map(|i| match i {
                syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(names, ["new", "permits"]);
    }

    #[test]
    fn other_invocations_are_left_alone() {
        let imp = impl_of(
            "impl Ops {
                forward!(fn len(&self) -> usize;);
                impl_ops!(Add, add, +);
            }",
        );
        let out = unwrapped(&imp);
        assert!(
            out.items
                .iter()
                .all(|i| matches!(i, syn::ImplItem::Macro(_)))
        );
    }
}
