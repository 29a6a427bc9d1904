//! Attribute predicates: which items exist (`cfg`), which are tests, which are hidden, and what
//! they derive. One place decides, so the walker, the index and the constant pool agree.

use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Token};

use super::options::EnabledFeatures;

/// Evaluates `cfg` predicates against the enabled features.
#[derive(Debug, Clone)]
pub(crate) struct CfgEval {
    features: EnabledFeatures,
}

impl CfgEval {
    pub(crate) fn new(features: EnabledFeatures) -> Self {
        CfgEval { features }
    }

    /// False for items compiled out (a `cfg` known false) and for tests and benches.
    pub(crate) fn keeps(&self, attrs: &[Attribute]) -> bool {
        attrs
            .iter()
            .all(|attr| !is_test_marker(attr) && self.attr_allows(attr))
    }

    fn attr_allows(&self, attr: &Attribute) -> bool {
        if !attr.path().is_ident("cfg") {
            return true;
        }
        match attr.parse_args::<Meta>() {
            Ok(pred) => self.eval(&pred) != Some(false),
            // A predicate we cannot read may well be true: keep the item.
            Err(_) => true,
        }
    }

    /// Three-valued: `None` is a predicate we cannot decide here (custom cfgs, other target
    /// keys), which keeps the item, since leaving out real API is worse than listing an extra
    /// callable. The crate is built for this host, so the host's `unix`, `windows`,
    /// `target_os`, `target_family`, `target_arch`, `target_endian` and `target_pointer_width`
    /// decide.
    fn eval(&self, pred: &Meta) -> Option<bool> {
        match pred {
            Meta::Path(path) if path.is_ident("test") => Some(false),
            Meta::Path(path) if path.is_ident("unix") => Some(cfg!(unix)),
            Meta::Path(path) if path.is_ident("windows") => Some(cfg!(windows)),
            Meta::Path(_) => None,
            Meta::NameValue(nv) => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                else {
                    return None;
                };
                let value = s.value();
                let key = nv.path.get_ident()?.to_string();
                match key.as_str() {
                    "feature" => Some(self.features.contains(&value)),
                    "target_os" => Some(value == std::env::consts::OS),
                    "target_family" => Some(value == std::env::consts::FAMILY),
                    "target_pointer_width" => Some(value == (usize::BITS).to_string()),
                    // base64's `Neon` engine is `target_arch = "aarch64"`: kept, it named a
                    // type no x86_64 build has, and every call generic over it failed.
                    "target_arch" => Some(value == std::env::consts::ARCH),
                    "target_endian" => Some(
                        value
                            == if cfg!(target_endian = "little") {
                                "little"
                            } else {
                                "big"
                            },
                    ),
                    _ => None,
                }
            }
            Meta::List(list) => {
                let args = list
                    .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                    .ok()?;
                let values: Vec<Option<bool>> = args.iter().map(|m| self.eval(m)).collect();
                if list.path.is_ident("not") {
                    values.first().copied().flatten().map(|v| !v)
                } else if list.path.is_ident("all") {
                    all3(&values)
                } else if list.path.is_ident("any") {
                    any3(&values)
                } else {
                    None
                }
            }
        }
    }
}

fn all3(values: &[Option<bool>]) -> Option<bool> {
    if values.contains(&Some(false)) {
        Some(false)
    } else if values.iter().all(|v| *v == Some(true)) {
        Some(true)
    } else {
        None
    }
}

fn any3(values: &[Option<bool>]) -> Option<bool> {
    if values.contains(&Some(true)) {
        Some(true)
    } else if values.iter().all(|v| *v == Some(false)) {
        Some(false)
    } else {
        None
    }
}

/// `#[test]`, `#[bench]` and framework variants like `#[tokio::test]`.
fn is_test_marker(attr: &Attribute) -> bool {
    let Some(last) = attr.path().segments.last() else {
        return false;
    };
    matches!(attr.meta, Meta::Path(_) | Meta::List(_))
        && (last.ident == "test" || last.ident == "bench")
}

/// `#[doc(hidden)]`: not part of the API the crate promises.
pub(crate) fn is_doc_hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("doc")
            && attr
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .map(|args| args.iter().any(|m| m.path().is_ident("hidden")))
                .unwrap_or(false)
    })
}

/// `#[non_exhaustive]`: a struct literal cannot build it outside the crate.
pub(crate) fn is_non_exhaustive(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .any(|attr| attr.path().is_ident("non_exhaustive"))
}

/// Trait names from `#[derive(...)]`, last path segment only (`serde::Serialize` -> `Serialize`).
pub(crate) fn derived_traits(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("derive"))
        .filter_map(|attr| {
            attr.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
                .ok()
        })
        .flatten()
        .filter_map(|path| path.segments.last().map(|s| s.ident.to_string()))
        .collect()
}

/// The value of `#[path = "..."]` on a `mod` declaration.
pub(crate) fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The attributes of an item, for the variants that can carry API or tests.
pub(crate) fn item_attrs(item: &syn::Item) -> &[Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn eval_with(features: &[&str], attr: &str) -> bool {
        let set: BTreeSet<String> = features.iter().map(|s| s.to_string()).collect();
        let cfg = CfgEval::new(EnabledFeatures::Set(set));
        let item: syn::ItemFn = syn::parse_str(&format!("{attr} fn f() {{}}")).expect("parses");
        cfg.keeps(&item.attrs)
    }

    #[test]
    fn cfg_test_and_test_fns_are_dropped() {
        assert!(!eval_with(&[], "#[cfg(test)]"));
        assert!(!eval_with(&[], "#[test]"));
        assert!(!eval_with(&[], "#[tokio::test]"));
        assert!(eval_with(&[], "#[cfg(not(test))]"));
    }

    /// The crate is built for this host (a Linux machine here): its target decides.
    #[test]
    fn the_host_target_decides_platform_cfgs() {
        assert!(eval_with(&[], "#[cfg(unix)]"));
        assert!(!eval_with(&[], "#[cfg(windows)]"));
        assert!(!eval_with(&[], "#[cfg(not(unix))]"));
        assert!(eval_with(&[], "#[cfg(target_os = \"linux\")]"));
        assert!(!eval_with(&[], "#[cfg(target_os = \"windows\")]"));
        assert!(eval_with(&[], "#[cfg(target_pointer_width = \"64\")]"));
        let other_arch = if cfg!(target_arch = "aarch64") {
            "x86_64"
        } else {
            "aarch64"
        };
        let neon = format!(
            "#[cfg(all(feature = \"simd\", target_arch = \"{other_arch}\", target_feature = \"neon\"))]"
        );
        assert!(!eval_with(&["simd"], &neon));
        let here = format!("#[cfg(target_arch = \"{}\")]", std::env::consts::ARCH);
        assert!(eval_with(&[], &here));
        assert!(eval_with(
            &[],
            "#[cfg(any(target_endian = \"little\", target_endian = \"big\"))]"
        ));
        assert!(!eval_with(&[], "#[cfg(all(windows, feature = \"x\"))]"));
    }

    #[test]
    fn features_decide_and_unknown_cfgs_keep() {
        assert!(eval_with(&["x"], "#[cfg(feature = \"x\")]"));
        assert!(!eval_with(&[], "#[cfg(feature = \"x\")]"));
        assert!(eval_with(&[], "#[cfg(my_custom_cfg)]"));
        assert!(eval_with(&[], "#[cfg(not(my_custom_cfg))]"));
        assert!(eval_with(&[], "#[cfg(target_vendor = \"apple\")]"));
        assert!(!eval_with(&[], "#[cfg(all(unix, feature = \"x\"))]"));
        assert!(eval_with(&["x"], "#[cfg(any(test, feature = \"x\"))]"));
        assert!(!eval_with(&[], "#[cfg(any(test, feature = \"x\"))]"));
    }

    #[test]
    fn doc_hidden_and_derives_are_read() {
        let item: syn::ItemStruct =
            syn::parse_str("#[doc(hidden)] #[derive(Clone, std::fmt::Debug)] struct S;")
                .expect("parses");
        assert!(is_doc_hidden(&item.attrs));
        assert_eq!(derived_traits(&item.attrs), vec!["Clone", "Debug"]);
    }
}
