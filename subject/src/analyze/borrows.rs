//! Which inputs of a callable its result may borrow from, read off the signature's lifetimes.
//!
//! The harness keeps results in a pool of `'static` values, so a result that borrows an
//! argument (`Reader::from_str(&s)`, `reader.read_event(&mut buf)`) needs that argument lent
//! for the rest of the test (`frugal_probe::harness::Pool::lend`). Lending too much only makes
//! later uses of the argument invalid; lending too little would not compile, and the harness
//! build drops the operation. The rules are rustc's: named lifetimes shared with the return
//! type, elided return lifetimes taken from `&self` or from the only input with a lifetime,
//! and type parameters instantiated with a reference (`B = &[u8]`) that the return type
//! carries.

use std::collections::BTreeSet;

use syn::visit::Visit;

/// Lifetimes and type names one type mentions.
#[derive(Debug, Default)]
struct Mentions {
    named: BTreeSet<String>,
    /// A reference without a lifetime, `'_`, or a crate type whose lifetime is left out.
    elided: bool,
    /// Single-segment type names (`B`, `Self`), to find type parameters.
    idents: BTreeSet<String>,
}

struct Collector<'a> {
    out: Mentions,
    hides_lifetime: &'a dyn Fn(&syn::Path) -> bool,
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_lifetime(&mut self, l: &'ast syn::Lifetime) {
        match l.ident.to_string().as_str() {
            "_" => self.out.elided = true,
            "static" => {}
            name => {
                self.out.named.insert(name.to_string());
            }
        }
    }

    fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
        if r.lifetime.is_none() {
            self.out.elided = true;
        }
        syn::visit::visit_type_reference(self, r);
    }

    fn visit_type_path(&mut self, tp: &'ast syn::TypePath) {
        if tp.qself.is_none() {
            if let Some(id) = tp.path.get_ident() {
                self.out.idents.insert(id.to_string());
            }
            let gives_lifetime = tp.path.segments.last().is_some_and(|s| {
                matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                    if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Lifetime(_))))
            });
            if !gives_lifetime && (self.hides_lifetime)(&tp.path) {
                self.out.elided = true;
            }
        }
        syn::visit::visit_type_path(self, tp);
    }
}

fn mentions(ty: &syn::Type, hides_lifetime: &dyn Fn(&syn::Path) -> bool) -> Mentions {
    let mut c = Collector {
        out: Mentions::default(),
        hides_lifetime,
    };
    c.visit_type(ty);
    c.out
}

/// What the impl block contributes: the lifetimes of its self type (which `Self` stands for)
/// and its type parameters instantiated with a borrowed type.
#[derive(Debug, Default, Clone)]
pub(crate) struct ImplBorrows {
    pub self_lifetimes: BTreeSet<String>,
    pub self_borrows: bool,
}

/// Indices (receiver first) of the inputs the result of `sig` may borrow from.
/// `ref_params`: type parameters instantiated with a type that holds a reference;
/// `hides_lifetime`: whether a path names a crate type with lifetime parameters.
pub(crate) fn lent_inputs(
    sig: &syn::Signature,
    imp: &ImplBorrows,
    ref_params: &BTreeSet<String>,
    hides_lifetime: &dyn Fn(&syn::Path) -> bool,
) -> Vec<usize> {
    let syn::ReturnType::Type(_, ret) = &sig.output else {
        return Vec::new();
    };
    let mut out_m = mentions(ret, hides_lifetime);
    if out_m.idents.contains("Self") {
        out_m.named.extend(imp.self_lifetimes.iter().cloned());
    }
    // `Self` of `impl<R: BufRead> Lines<R>` with `R = &[u8]` carries `R`.
    let self_carries = out_m.idents.contains("Self") && imp.self_borrows;
    let carried: BTreeSet<&String> = ref_params
        .iter()
        .filter(|p| self_carries || out_m.idents.contains(*p))
        .collect();
    if out_m.named.is_empty() && !out_m.elided && carried.is_empty() {
        return Vec::new();
    }
    let inputs: Vec<Mentions> = sig
        .inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Receiver(r) => receiver_mentions(r, hides_lifetime),
            syn::FnArg::Typed(pt) => mentions(&pt.ty, hides_lifetime),
        })
        .collect();
    let elision_source = elision_source(sig, &inputs);
    // An elided return lifetime is the source's named one when it has one, which other
    // inputs may share (`fn element<'a>(&'a mut self, name: &'a N) -> Element<W>`).
    if out_m.elided
        && let Some(source) = elision_source.and_then(|i| inputs.get(i))
    {
        out_m.named.extend(source.named.iter().cloned());
    }
    inputs
        .iter()
        .enumerate()
        .filter(|(i, m)| {
            m.named.intersection(&out_m.named).next().is_some()
                || (out_m.elided && elision_source == Some(*i))
                || m.idents.iter().any(|id| carried.contains(id))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Indices (receiver first) of the inputs a call stores in another input it borrows mutably:
/// `Request::parse(&mut self, buf: &'b [u8])` of `impl<'h, 'b> Request<'h, 'b>` keeps `buf`
/// in the request, as `parse_headers(src: &'b [u8], dst: &'h mut [Header<'b>])` keeps `src`
/// in `dst`. Such an input outlives the call like one the result borrows.
pub(crate) fn stored_inputs(
    sig: &syn::Signature,
    imp: &ImplBorrows,
    hides_lifetime: &dyn Fn(&syn::Path) -> bool,
) -> Vec<usize> {
    // The lifetimes inside each `&mut` input: what may be stored there.
    let holders: Vec<BTreeSet<String>> = sig
        .inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Receiver(r)
                if matches!(r.kind, syn::ReceiverKind::Reference(_, _, Some(_))) =>
            {
                imp.self_lifetimes.clone()
            }
            syn::FnArg::Typed(pt) => match &*pt.ty {
                syn::Type::Reference(r) if r.mutability.is_some() => {
                    mentions(&r.elem, hides_lifetime).named
                }
                _ => BTreeSet::new(),
            },
            _ => BTreeSet::new(),
        })
        .collect();
    sig.inputs
        .iter()
        .enumerate()
        .filter(|(i, arg)| {
            let syn::FnArg::Typed(pt) = arg else {
                return false;
            };
            let own = mentions(&pt.ty, hides_lifetime).named;
            holders
                .iter()
                .enumerate()
                .any(|(j, held)| j != *i && own.intersection(held).next().is_some())
        })
        .map(|(i, _)| i)
        .collect()
}

/// A receiver's own borrow only: the lifetimes inside `Self` belong to data it points to.
fn receiver_mentions(r: &syn::Receiver, hides_lifetime: &dyn Fn(&syn::Path) -> bool) -> Mentions {
    let mut m = Mentions::default();
    match &r.kind {
        syn::ReceiverKind::Reference(_, lifetime, _) => {
            match lifetime.as_ref().map(|l| l.ident.to_string()) {
                Some(name) if name == "static" => {}
                Some(name) if name != "_" => {
                    m.named.insert(name);
                }
                _ => m.elided = true,
            }
        }
        syn::ReceiverKind::Typed(_, ty) => m = mentions(ty, hides_lifetime),
        _ => {}
    }
    m
}

/// The input elided return lifetimes come from: `&self`/`&mut self`, else the only input
/// that has a lifetime.
fn elision_source(sig: &syn::Signature, inputs: &[Mentions]) -> Option<usize> {
    if let Some(syn::FnArg::Receiver(r)) = sig.inputs.first()
        && matches!(r.kind, syn::ReceiverKind::Reference(..))
    {
        return Some(0);
    }
    let with: Vec<usize> = inputs
        .iter()
        .enumerate()
        .filter(|(_, m)| m.elided || !m.named.is_empty())
        .map(|(i, _)| i)
        .collect();
    (with.len() == 1).then(|| with[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lent(src: &str, imp: ImplBorrows, refs: &[&str]) -> Vec<usize> {
        let f: syn::ImplItemFn = syn::parse_str(src).expect("parses");
        let refs: BTreeSet<String> = refs.iter().map(|s| s.to_string()).collect();
        let hides = |p: &syn::Path| p.is_ident("Attributes");
        lent_inputs(&f.sig, &imp, &refs, &hides)
    }

    #[test]
    fn inputs_kept_in_a_mutably_borrowed_input_are_lent() {
        let stored = |src: &str, self_lifetimes: &[&str]| {
            let f: syn::ImplItemFn = syn::parse_str(src).expect("parses");
            let imp = ImplBorrows {
                self_lifetimes: self_lifetimes.iter().map(|s| s.to_string()).collect(),
                self_borrows: false,
            };
            stored_inputs(&f.sig, &imp, &|_| false)
        };
        assert_eq!(
            stored("fn parse(&mut self, buf: &'b [u8]) {}", &["h", "b"]),
            [1]
        );
        assert_eq!(
            stored(
                "fn parse_headers(src: &'b [u8], dst: &'h mut [Header<'b>]) {}",
                &[]
            ),
            [0]
        );
        assert!(stored("fn parse(&self, buf: &'b [u8]) {}", &["b"]).is_empty());
        assert!(stored("fn push(&mut self, buf: &[u8]) {}", &["b"]).is_empty());
    }

    #[test]
    fn named_lifetime_shared_with_the_return_lends_that_input() {
        let src = "fn from_str(s: &'a str) -> Reader<&'a [u8]> {}";
        assert_eq!(lent(src, ImplBorrows::default(), &[]), vec![0]);
    }

    #[test]
    fn an_elided_return_lifetime_lends_what_shares_the_receivers_named_one() {
        let src = "fn attrs<'a, N: ?Sized>(&'a mut self, name: &'a N, n: &u8) -> Attributes {}";
        assert_eq!(lent(src, ImplBorrows::default(), &[]), vec![0, 1]);
    }

    #[test]
    fn only_the_buffer_is_lent_when_the_return_names_its_lifetime() {
        let src =
            "fn read_event<'a, 'b>(&'a mut self, buf: &'b mut Vec<u8>) -> Result<Event<'b>> {}";
        assert_eq!(lent(src, ImplBorrows::default(), &[]), vec![1]);
    }

    #[test]
    fn elided_return_lifetime_comes_from_self() {
        let src = "fn attributes(&self, other: &str) -> Attributes {}";
        assert_eq!(lent(src, ImplBorrows::default(), &[]), vec![0]);
        let src = "fn name(&self) -> &[u8] {}";
        assert_eq!(lent(src, ImplBorrows::default(), &[]), vec![0]);
    }

    #[test]
    fn elided_return_lifetime_comes_from_the_only_borrowed_input() {
        let src = "fn first(n: usize, s: &str) -> &str {}";
        assert_eq!(lent(src, ImplBorrows::default(), &[]), vec![1]);
    }

    #[test]
    fn owned_results_lend_nothing() {
        let src = "fn len(&self, s: &str) -> usize {}";
        assert!(lent(src, ImplBorrows::default(), &[]).is_empty());
        let src = "fn into_owned(self) -> BytesStart<'static> {}";
        assert!(lent(src, ImplBorrows::default(), &[]).is_empty());
    }

    #[test]
    fn self_carries_the_impl_lifetimes() {
        let imp = ImplBorrows {
            self_lifetimes: ["a".to_string()].into(),
            self_borrows: false,
        };
        let src = "fn borrowed_name(name: &'a [u8]) -> Self {}";
        assert_eq!(lent(src, imp, &[]), vec![0]);
        // `&self` points at a `Self<'a>`: the receiver's own borrow is not in the result.
        let imp = ImplBorrows {
            self_lifetimes: ["a".to_string()].into(),
            self_borrows: false,
        };
        let src = "fn to_end(&self) -> BytesEnd<'a> {}";
        assert!(lent(src, imp, &[]).is_empty());
    }

    #[test]
    fn type_parameters_instantiated_with_references_are_carried() {
        let src = "fn from_reader(reader: B) -> Reader<B> {}";
        assert_eq!(lent(src, ImplBorrows::default(), &["B"]), vec![0]);
        assert!(lent(src, ImplBorrows::default(), &[]).is_empty());
        let imp = ImplBorrows {
            self_lifetimes: BTreeSet::new(),
            self_borrows: true,
        };
        let src = "fn new(inner: R, limit: usize) -> Self {}";
        assert_eq!(lent(src, imp, &["R"]), vec![0]);
    }
}
