//! Private items made `pub(crate)` in the instrumented copy, so the harness's dispatch module
//! at the crate root can call what in-module placement's tests call from inside each module.
//!
//! Only frugal's copy is changed: the emitted tests reach the same items from a module inside
//! the one declaring them, against the crate as its author wrote it. The edit inserts or
//! replaces visibility tokens on one line, so no line number moves.

use syn::spanned::Spanned;

use super::edits::{Edit, Kind};

/// Edits giving `pub(crate)` to every private or restricted item of `items` (and of inline
/// modules among them): functions, types, constants, statics, traits, modules, named and
/// tuple struct fields, and the functions, constants and types of inherent impls. `use`
/// items stay as they are: widening an import can make a glob import elsewhere ambiguous.
pub(crate) fn open(items: &[syn::Item], seq: &mut u32) -> Vec<Edit> {
    let mut out = Vec::new();
    for item in items {
        open_item(item, seq, &mut out);
    }
    out
}

fn open_item(item: &syn::Item, seq: &mut u32, out: &mut Vec<Edit>) {
    match item {
        syn::Item::Fn(f) => widen(&f.vis, first_token(&f.sig), seq, out),
        syn::Item::Const(c) => widen(&c.vis, c.const_token.span, seq, out),
        syn::Item::Static(s) => widen(&s.vis, s.static_token.span, seq, out),
        syn::Item::Type(t) => widen(&t.vis, t.type_token.span, seq, out),
        syn::Item::Trait(t) => widen(&t.vis, trait_start(t), seq, out),
        syn::Item::Enum(e) => widen(&e.vis, e.enum_token.span, seq, out),
        syn::Item::Struct(s) => {
            widen(&s.vis, s.struct_token.span, seq, out);
            for field in &s.fields {
                widen(&field.vis, field_start(field), seq, out);
            }
        }
        syn::Item::Mod(m) => {
            let start = m.unsafety.map_or(m.mod_token.span, |u| u.span);
            widen(&m.vis, start, seq, out);
            if let Some((_, items)) = &m.content {
                for inner in items {
                    open_item(inner, seq, out);
                }
            }
        }
        syn::Item::Impl(i) if i.trait_.is_none() => {
            for member in &i.items {
                match member {
                    syn::ImplItem::Fn(f) => widen(&f.vis, first_token(&f.sig), seq, out),
                    syn::ImplItem::Const(c) => widen(&c.vis, c.const_token.span, seq, out),
                    syn::ImplItem::Type(t) => widen(&t.vis, t.type_token.span, seq, out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// The first token of a signature: `const`, `async`, `unsafe`, `extern` or `fn`.
fn first_token(sig: &syn::Signature) -> proc_macro2::Span {
    sig.span()
}

fn trait_start(t: &syn::ItemTrait) -> proc_macro2::Span {
    if let Some(u) = &t.unsafety {
        u.span
    } else if let Some(a) = &t.modifiers.auto_token {
        a.span
    } else {
        t.trait_token.span
    }
}

fn field_start(field: &syn::Field) -> proc_macro2::Span {
    match &field.ident {
        Some(ident) => ident.span(),
        None => field.ty.span(),
    }
}

/// `pub(crate) ` before `start` for an inherited visibility; a restricted one (`pub(super)`,
/// `pub(self)`, `pub(in ..)`) replaced by `pub(crate)`; `pub` and `pub(crate)` kept.
fn widen(vis: &syn::Visibility, start: proc_macro2::Span, seq: &mut u32, out: &mut Vec<Edit>) {
    let (pos, kind, text) = match vis {
        syn::Visibility::Public(_) => return,
        syn::Visibility::Restricted(r) if is_crate(r) => return,
        syn::Visibility::Restricted(r) => {
            let range = r.span().byte_range();
            (range.start, Kind::Replace { end: range.end }, "pub(crate)")
        }
        syn::Visibility::Inherited => (start.byte_range().start, Kind::Open, "pub(crate) "),
    };
    *seq += 1;
    out.push(Edit {
        pos,
        kind,
        node: (pos, pos),
        seq: *seq,
        text: text.to_string(),
    });
}

fn is_crate(r: &syn::VisRestricted) -> bool {
    r.in_token.is_none() && r.path.is_ident("crate")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened(src: &str) -> String {
        let file = syn::parse_file(src).expect("parses");
        let edits = open(&file.items, &mut 0);
        super::super::edits::apply(src, edits).expect("no overlap")
    }

    #[test]
    fn private_items_become_crate_visible_and_lines_stay() {
        let src = "/// doc\nfn a() {}\nconst unsafe fn b() {}\nstruct S { x: u8, pub y: u8 }\n\
                   struct T(u8, pub(super) u16);\npub(super) enum E { A }\n\
                   impl S {\n    fn m(&self) {}\n    pub fn n() {}\n}\n\
                   impl Clone for S { fn clone(&self) -> S { todo!() } }\n\
                   mod m { static X: u8 = 1; pub(crate) type Y = u8; }\nuse std::fmt;\n";
        let out = opened(src);
        assert_eq!(
            out,
            "/// doc\npub(crate) fn a() {}\npub(crate) const unsafe fn b() {}\n\
             pub(crate) struct S { pub(crate) x: u8, pub y: u8 }\n\
             pub(crate) struct T(pub(crate) u8, pub(crate) u16);\npub(crate) enum E { A }\n\
             impl S {\n    pub(crate) fn m(&self) {}\n    pub fn n() {}\n}\n\
             impl Clone for S { fn clone(&self) -> S { todo!() } }\n\
             pub(crate) mod m { pub(crate) static X: u8 = 1; pub(crate) type Y = u8; }\nuse std::fmt;\n"
        );
        assert_eq!(out.lines().count(), src.lines().count());
        syn::parse_file(&out).expect("still parses");
    }
}
