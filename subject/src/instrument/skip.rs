//! The one predicate deciding which items the instrumenter leaves alone, and why.
//!
//! Checked on every fn, impl, trait and module before descending. Reasons end up in
//! `Manifest::skipped`, so they are short and stable.

use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Signature, Token};

/// Why an item with these attributes is not instrumented, if it is not.
pub(crate) fn attrs_reason(attrs: &[Attribute]) -> Option<&'static str> {
    attrs.iter().find_map(attr_reason)
}

/// Why a fn with this signature is not instrumented, if it is not.
/// `const_ok`: a `const fn` whose `const` the instrumenter removes (`consts.rs`) is not skipped.
pub(crate) fn sig_reason(sig: &Signature, const_ok: bool) -> Option<&'static str> {
    if sig.constness.is_some() && !const_ok {
        // Probes are not `const`: one would break the whole build.
        Some("const fn")
    } else {
        None
    }
}

fn attr_reason(attr: &Attribute) -> Option<&'static str> {
    let path = attr.path();
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = segments.last().map(String::as_str).unwrap_or("");
    if segments == ["frugal", "skip"] {
        return Some("frugal::skip");
    }
    if path.is_ident("cfg") {
        return attr
            .parse_args::<Meta>()
            .ok()
            .filter(requires_test)
            .map(|_| "cfg(test)");
    }
    if path.is_ident("cfg_attr") {
        return cfg_attr_reason(attr);
    }
    if last.ends_with("test") {
        // `#[test]`, `#[tokio::test]`, `#[rstest]`, ...: test code, not code under test.
        return Some("test");
    }
    if path.is_ident("naked") || path.is_ident("unsafe") && naked_inside(attr) {
        // A naked fn may hold nothing but inline assembly.
        return Some("naked fn");
    }
    None
}

/// `#[cfg_attr(pred, attrs...)]`: the attributes it may add count as if written directly.
fn cfg_attr_reason(attr: &Attribute) -> Option<&'static str> {
    let metas = attr
        .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .ok()?;
    metas.iter().skip(1).find_map(|meta| {
        let segments: Vec<String> = meta
            .path()
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if segments == ["frugal", "skip"] {
            Some("frugal::skip")
        } else if segments.last().is_some_and(|s| s.ends_with("test")) {
            Some("test")
        } else {
            None
        }
    })
}

/// `#[unsafe(naked)]`, the 2024 spelling.
fn naked_inside(attr: &Attribute) -> bool {
    attr.parse_args::<Meta>()
        .is_ok_and(|m| m.path().is_ident("naked"))
}

/// Whether a `cfg` predicate can only hold when `test` is set: `test`, or `all(..)` with a
/// conjunct that requires it. `not(test)` and `any(test, x)` do not.
fn requires_test(meta: &Meta) -> bool {
    match meta {
        Meta::Path(p) => p.is_ident("test"),
        Meta::List(list) if list.path.is_ident("all") => list
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .is_ok_and(|inner| inner.iter().any(requires_test)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(src: &str) -> Option<&'static str> {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        attrs_reason(&item.attrs).or_else(|| sig_reason(&item.sig, false))
    }

    #[test]
    fn cfg_test_and_test_attributes_are_skipped() {
        assert_eq!(reason("#[cfg(test)] fn f() {}"), Some("cfg(test)"));
        assert_eq!(
            reason("#[cfg(all(unix, test))] fn f() {}"),
            Some("cfg(test)")
        );
        assert_eq!(reason("#[test] fn f() {}"), Some("test"));
        assert_eq!(reason("#[tokio::test] fn f() {}"), Some("test"));
        assert_eq!(
            reason("#[cfg_attr(test, frugal::skip)] fn f() {}"),
            Some("frugal::skip")
        );
    }

    #[test]
    fn cfg_that_holds_without_test_is_instrumented() {
        assert_eq!(reason("#[cfg(not(test))] fn f() {}"), None);
        assert_eq!(reason("#[cfg(any(test, unix))] fn f() {}"), None);
        assert_eq!(reason("#[inline] fn f() {}"), None);
    }

    #[test]
    fn const_naked_and_frugal_skip_are_skipped() {
        assert_eq!(reason("const fn f() {}"), Some("const fn"));
        // Entered with `enter_async`, which holds nothing across awaits.
        assert_eq!(reason("async fn f() {}"), None);
        assert_eq!(reason("#[unsafe(naked)] fn f() {}"), Some("naked fn"));
        assert_eq!(reason("#[frugal::skip] fn f() {}"), Some("frugal::skip"));
    }
}
