//! The constant pool: literals from the crate's non-test code, for seeding search values.
//!
//! Comparisons against literals are where branch distances bottom out, so the literals the
//! code itself compares with (`match` arms included) are the values most likely to flip a
//! branch. Macro arguments (`assert!`, `format!`, `vec!`) are read when they parse as
//! expressions; attributes (doc comments above all) are not code and are skipped.

use std::collections::BTreeSet;

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

use super::attrs::CfgEval;
use crate::model::ConstantPool;

/// Per kind; a crate with more literals than this is seeded from the first ones found.
pub(crate) const MAX_PER_KIND: usize = 256;
const MAX_STRING_CHARS: usize = 64;

#[derive(Default)]
struct Collector<'a> {
    cfg: Option<&'a CfgEval>,
    ints: BTreeSet<i128>,
    floats: Vec<f64>,
    strings: BTreeSet<String>,
    chars: BTreeSet<char>,
}

/// Collects literals from the given module item lists (inline modules are their own lists).
pub(crate) fn collect<'i>(
    cfg: &CfgEval,
    item_lists: impl Iterator<Item = &'i [syn::Item]>,
) -> ConstantPool {
    let mut c = Collector {
        cfg: Some(cfg),
        ..Collector::default()
    };
    for items in item_lists {
        for item in items {
            c.visit_item(item);
        }
    }
    let mut floats = c.floats;
    floats.sort_by(f64::total_cmp);
    floats.dedup_by(|a, b| a.to_bits() == b.to_bits());
    ConstantPool {
        ints: c.ints.into_iter().collect(),
        floats,
        strings: c.strings.into_iter().collect(),
        chars: c.chars.into_iter().collect(),
    }
}

impl Collector<'_> {
    fn add_lit(&mut self, lit: &syn::Lit, negated: bool) {
        match lit {
            syn::Lit::Int(i) => {
                let value = i.base10_parse::<i128>().ok().or_else(|| {
                    // u128 values above i128::MAX do not fit the pool; skip them.
                    i.base10_parse::<u128>()
                        .ok()
                        .and_then(|v| i128::try_from(v).ok())
                });
                if let Some(v) = value {
                    self.add_int(if negated { -v } else { v });
                }
            }
            syn::Lit::Float(f) => {
                if let Ok(v) = f.base10_parse::<f64>() {
                    self.add_float(if negated { -v } else { v });
                }
            }
            syn::Lit::Str(s) => self.add_string(s.value()),
            syn::Lit::ByteStr(b) => {
                if let Ok(s) = String::from_utf8(b.value()) {
                    self.add_string(s);
                }
            }
            syn::Lit::Char(ch) if self.chars.len() < MAX_PER_KIND => {
                self.chars.insert(ch.value());
            }
            syn::Lit::Byte(b) => self.add_int(i128::from(b.value())),
            _ => {}
        }
    }

    fn add_int(&mut self, v: i128) {
        if self.ints.len() < MAX_PER_KIND {
            self.ints.insert(v);
        }
    }

    fn add_float(&mut self, v: f64) {
        if self.floats.len() < MAX_PER_KIND
            && !self.floats.iter().any(|f| f.to_bits() == v.to_bits())
        {
            self.floats.push(v);
        }
    }

    fn add_string(&mut self, s: String) {
        let len = s.chars().count();
        if len > 0 && len <= MAX_STRING_CHARS && self.strings.len() < MAX_PER_KIND {
            self.strings.insert(s);
        }
    }

    fn keeps(&self, attrs: &[syn::Attribute]) -> bool {
        self.cfg.is_none_or(|cfg| cfg.keeps(attrs))
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    /// Inline modules are walked as modules of their own, with their cfg already applied.
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_item(&mut self, item: &'ast syn::Item) {
        if self.keeps(super::attrs::item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if self.keeps(&f.attrs) {
            visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_expr_lit(&mut self, e: &'ast syn::ExprLit) {
        self.add_lit(&e.lit, false);
    }

    fn visit_expr_unary(&mut self, e: &'ast syn::ExprUnary) {
        if let (syn::UnOp::Neg(_), syn::Expr::Lit(lit)) = (&e.op, &*e.expr) {
            self.add_lit(&lit.lit, true);
            return;
        }
        visit::visit_expr_unary(self, e);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = mac.parse_body_with(parser) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::options::EnabledFeatures;

    fn pool(src: &str) -> ConstantPool {
        let file = syn::parse_file(src).expect("parses");
        let cfg = CfgEval::new(EnabledFeatures::Set(Default::default()));
        collect(&cfg, std::iter::once(file.items.as_slice()))
    }

    #[test]
    fn literals_of_every_kind_are_pooled_once() {
        let p = pool(
            r#"
            /// Doc comments are not constants.
            const LIMIT: i64 = -40;
            fn f(x: i32, s: &str) -> f64 {
                match s { "start" => 1.5, "" => 0.0, _ => if x > 40 { 'a' as u8 as f64 } else { -2.5 } }
            }
            fn g() { assert_eq!(1 + 1, 2, "math"); let _ = b"bytes"; let _ = b'z'; }
            #[cfg(test)] fn t() { let _ = 999; }
            "#,
        );
        assert_eq!(p.ints, vec![-40, 1, 2, 40, 122]);
        assert_eq!(p.floats, vec![-2.5, 0.0, 1.5]);
        assert_eq!(p.strings, vec!["bytes", "math", "start"]);
        assert_eq!(p.chars, vec!['a']);
    }
}
