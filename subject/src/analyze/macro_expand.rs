//! Expansion of the crate's own `macro_rules!` macros where they are invoked as items
//! (`int_to_from_bytes_impl!(u32, 4);`, `define!(N1: usize = 1);`), so the impls, types and
//! functions they stamp out are indexed as if written: `type Bytes = [u8; 4]` and the real
//! signatures, not guesses from the trait's declaration.
//!
//! Rules are matched as rustc does for the shapes crates write (fragments, `$(..)sep op`
//! repetitions, nested groups), greedily and without backtracking into a repetition; an
//! invocation no rule matches, or whose expansion does not parse as items, is left as it was
//! (then `macros::macro_impls` reads it as before). Expansion is pure token work: nothing runs.
//!
//! It must not know what the items mean; the index reads them.

use std::collections::BTreeMap;

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};

/// Nested invocations expanded at most this deep (recursive macros peel one element a level).
const MAX_DEPTH: usize = 32;
/// Items one module's invocations may produce, all levels together.
const MAX_ITEMS: usize = 20_000;

/// A `macro_rules!` definition: its rules in order.
#[derive(Debug, Clone)]
pub(crate) struct MacroRules {
    rules: Vec<Rule>,
}

#[derive(Debug, Clone)]
struct Rule {
    matcher: Vec<Matcher>,
    body: TokenStream,
}

#[derive(Debug, Clone)]
enum Matcher {
    /// A token the input must repeat (compared by text).
    Token(String),
    Group(Delimiter, Vec<Matcher>),
    Var(String, String),
    Rep {
        inner: Vec<Matcher>,
        sep: Option<String>,
        op: char,
    },
}

#[derive(Debug, Clone)]
enum Binding {
    One(TokenStream),
    Seq(Vec<BTreeMap<String, Binding>>),
}

type Bindings = BTreeMap<String, Binding>;

impl MacroRules {
    /// The rules of a `macro_rules! name { .. }` body; `None` when it is not of that shape.
    pub(crate) fn parse(body: TokenStream) -> Option<MacroRules> {
        let trees: Vec<TokenTree> = body.into_iter().collect();
        let mut rules = Vec::new();
        let mut i = 0;
        while i < trees.len() {
            let TokenTree::Group(m) = &trees[i] else {
                return None;
            };
            let arrow = matches!(
                (trees.get(i + 1), trees.get(i + 2)),
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                    if a.as_char() == '=' && b.as_char() == '>'
            );
            let Some(TokenTree::Group(body)) = trees.get(i + 3).filter(|_| arrow) else {
                return None;
            };
            rules.push(Rule {
                matcher: parse_matcher(m.stream())?,
                body: body.stream(),
            });
            i += 4;
            if matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
                i += 1;
            }
        }
        (!rules.is_empty()).then_some(MacroRules { rules })
    }

    /// The first rule's expansion that matches `input`.
    pub(crate) fn expand(&self, input: TokenStream) -> Option<TokenStream> {
        let input: Vec<TokenTree> = input.into_iter().collect();
        self.rules.iter().find_map(|rule| {
            let mut b = Bindings::new();
            let used = match_prefix(&rule.matcher, &input, &mut b)?;
            (used == input.len())
                .then(|| transcribe(rule.body.clone(), &b))
                .flatten()
        })
    }
}

fn is_dollar(t: Option<&TokenTree>) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == '$')
}

fn parse_matcher(tokens: TokenStream) -> Option<Vec<Matcher>> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        match (&trees[i], trees.get(i + 1)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(name))) if p.as_char() == '$' => {
                let colon =
                    matches!(trees.get(i + 2), Some(TokenTree::Punct(c)) if c.as_char() == ':');
                let Some(TokenTree::Ident(frag)) = trees.get(i + 3).filter(|_| colon) else {
                    return None;
                };
                out.push(Matcher::Var(name.to_string(), frag.to_string()));
                i += 4;
            }
            (TokenTree::Punct(p), Some(TokenTree::Group(g)))
                if p.as_char() == '$' && g.delimiter() == Delimiter::Parenthesis =>
            {
                let inner = parse_matcher(g.stream())?;
                let (sep, op, used) = rep_tail(&trees[i + 2..])?;
                out.push(Matcher::Rep { inner, sep, op });
                i += 2 + used;
            }
            (TokenTree::Group(g), _) => {
                out.push(Matcher::Group(g.delimiter(), parse_matcher(g.stream())?));
                i += 1;
            }
            (t, _) => {
                out.push(Matcher::Token(t.to_string()));
                i += 1;
            }
        }
    }
    Some(out)
}

/// A repetition's separator and operator after its group: `*`, `,*`, `;+`, `?`.
fn rep_tail(rest: &[TokenTree]) -> Option<(Option<String>, char, usize)> {
    let op_of = |t: Option<&TokenTree>| match t {
        Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?') => Some(p.as_char()),
        _ => None,
    };
    if let Some(op) = op_of(rest.first()) {
        return Some((None, op, 1));
    }
    let sep = rest.first()?.to_string();
    op_of(rest.get(1)).map(|op| (Some(sep), op, 2))
}

/// How many of `input`'s trees `ms` match from the start, with what they bound.
fn match_prefix(ms: &[Matcher], input: &[TokenTree], b: &mut Bindings) -> Option<usize> {
    let mut pos = 0;
    for m in ms {
        let rest = &input[pos..];
        pos += match m {
            Matcher::Token(text) => (rest.first()?.to_string() == *text).then_some(1)?,
            Matcher::Group(delim, inner) => {
                let TokenTree::Group(g) = rest.first()? else {
                    return None;
                };
                if g.delimiter() != *delim {
                    return None;
                }
                let trees: Vec<TokenTree> = g.stream().into_iter().collect();
                (match_prefix(inner, &trees, b)? == trees.len()).then_some(1)?
            }
            Matcher::Var(name, frag) => {
                let used = fragment_len(frag, rest)?;
                b.insert(
                    name.clone(),
                    Binding::One(rest[..used].iter().cloned().collect()),
                );
                used
            }
            Matcher::Rep { inner, sep, op } => match_rep(inner, sep.as_deref(), *op, rest, b)?,
        };
    }
    Some(pos)
}

fn match_rep(
    inner: &[Matcher],
    sep: Option<&str>,
    op: char,
    input: &[TokenTree],
    b: &mut Bindings,
) -> Option<usize> {
    let mut iterations: Vec<Bindings> = Vec::new();
    let mut pos = 0;
    loop {
        if op == '?' && !iterations.is_empty() {
            break;
        }
        let mut at = pos;
        if let (Some(sep), false) = (sep, iterations.is_empty()) {
            match input.get(at) {
                Some(t) if t.to_string() == sep => at += 1,
                _ => break,
            }
        }
        let mut one = Bindings::new();
        match match_prefix(inner, &input[at..], &mut one) {
            Some(used) if used > 0 => {
                pos = at + used;
                iterations.push(one);
            }
            _ => break,
        }
    }
    if op == '+' && iterations.is_empty() {
        return None;
    }
    for name in var_names(inner) {
        let seq = iterations
            .iter()
            .map(|it| match it.get(&name) {
                Some(Binding::Seq(s)) => BTreeMap::from([(name.clone(), Binding::Seq(s.clone()))]),
                Some(one) => BTreeMap::from([(name.clone(), one.clone())]),
                None => BTreeMap::new(),
            })
            .collect();
        b.insert(name, Binding::Seq(seq));
    }
    Some(pos)
}

fn var_names(ms: &[Matcher]) -> Vec<String> {
    let mut out = Vec::new();
    for m in ms {
        match m {
            Matcher::Var(name, _) => out.push(name.clone()),
            Matcher::Group(_, inner) | Matcher::Rep { inner, .. } => out.extend(var_names(inner)),
            Matcher::Token(_) => {}
        }
    }
    out
}

/// How many trees at the start of `input` a fragment of kind `frag` takes.
fn fragment_len(frag: &str, input: &[TokenTree]) -> Option<usize> {
    use syn::parse::{ParseStream, Parser};
    match frag {
        "tt" => return input.first().map(|_| 1),
        "ident" => return matches!(input.first(), Some(TokenTree::Ident(_))).then_some(1),
        "lifetime" => {
            let quote = matches!(input.first(), Some(TokenTree::Punct(p)) if p.as_char() == '\'');
            return (quote && matches!(input.get(1), Some(TokenTree::Ident(_)))).then_some(2);
        }
        "literal" => {
            return match (input.first(), input.get(1)) {
                (Some(TokenTree::Literal(_)), _) => Some(1),
                (Some(TokenTree::Ident(i)), _) if i == "true" || i == "false" => Some(1),
                (Some(TokenTree::Punct(p)), Some(TokenTree::Literal(_))) if p.as_char() == '-' => {
                    Some(2)
                }
                _ => None,
            };
        }
        _ => {}
    }
    let stream: TokenStream = input.iter().cloned().collect();
    let parse_one = |s: ParseStream| -> syn::Result<()> {
        match frag {
            "ty" => s.parse::<syn::Type>().map(drop),
            "path" => s.parse::<syn::Path>().map(drop),
            "expr" => s.parse::<syn::Expr>().map(drop),
            "pat" | "pat_param" => syn::Pat::parse_single(s).map(drop),
            "item" => s.parse::<syn::Item>().map(drop),
            "block" => s.parse::<syn::Block>().map(drop),
            "stmt" => s.parse::<syn::Stmt>().map(drop),
            "vis" => s.parse::<syn::Visibility>().map(drop),
            "meta" => s.parse::<syn::Meta>().map(drop),
            _ => Err(s.error("unknown fragment")),
        }
    };
    let rest = (|s: ParseStream| -> syn::Result<usize> {
        parse_one(s)?;
        let rest: TokenStream = s.parse()?;
        Ok(rest.into_iter().count())
    })
    .parse2(stream)
    .ok()?;
    Some(input.len() - rest)
}

/// The body with its variables replaced; `None` when a repetition's variables disagree.
fn transcribe(body: TokenStream, b: &Bindings) -> Option<TokenStream> {
    let trees: Vec<TokenTree> = body.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        if is_dollar(trees.get(i)) {
            match trees.get(i + 1) {
                Some(TokenTree::Ident(name)) if name == "crate" => {
                    out.push(TokenTree::Ident(Ident::new("crate", name.span())));
                    i += 2;
                    continue;
                }
                Some(TokenTree::Ident(name)) => match b.get(&name.to_string()) {
                    Some(Binding::One(tokens)) => {
                        out.extend(parenthesised(tokens.clone()));
                        i += 2;
                        continue;
                    }
                    Some(Binding::Seq(_)) => return None,
                    None => {}
                },
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                    if let Some((sep, _, used)) = rep_tail(&trees[i + 2..]) {
                        out.extend(transcribe_rep(g.stream(), sep, b)?);
                        i += 2 + used;
                        continue;
                    }
                }
                _ => {}
            }
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), transcribe(g.stream(), b)?);
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            t => out.push(t.clone()),
        }
        i += 1;
    }
    Some(out.into_iter().collect())
}

/// A fragment as it goes back in: an expression of several tokens in parentheses, so that
/// `$a * 2` keeps its meaning; anything else as written (types and paths must stay paths for
/// the index to read them).
fn parenthesised(tokens: TokenStream) -> TokenStream {
    let several = tokens.clone().into_iter().nth(1).is_some();
    if several
        && syn::parse2::<syn::Expr>(tokens.clone()).is_ok()
        && syn::parse2::<syn::Type>(tokens.clone()).is_err()
    {
        let mut g = Group::new(Delimiter::Parenthesis, tokens);
        g.set_span(Span::call_site());
        return TokenTree::Group(g).into();
    }
    tokens
}

fn transcribe_rep(inner: TokenStream, sep: Option<String>, b: &Bindings) -> Option<TokenStream> {
    let used = used_names(inner.clone());
    let lens: Vec<usize> = used
        .iter()
        .filter_map(|n| match b.get(n) {
            Some(Binding::Seq(s)) => Some(s.len()),
            _ => None,
        })
        .collect();
    let n = *lens.first()?;
    if lens.iter().any(|&l| l != n) {
        return None;
    }
    let mut out = TokenStream::new();
    for k in 0..n {
        let mut scoped = b.clone();
        for name in &used {
            if let Some(Binding::Seq(s)) = b.get(name) {
                scoped.remove(name);
                scoped.extend(s[k].clone());
            }
        }
        if k > 0
            && let Some(sep) = &sep
        {
            out.extend(syn::parse_str::<TokenStream>(sep).ok()?);
        }
        out.extend(transcribe(inner.clone(), &scoped)?);
    }
    Some(out)
}

/// The `$name`s a transcriber piece uses, at any depth.
fn used_names(tokens: TokenStream) -> Vec<String> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Ident(name) if i > 0 && is_dollar(trees.get(i - 1)) => {
                out.push(name.to_string());
            }
            TokenTree::Group(g) => out.extend(used_names(g.stream())),
            _ => {}
        }
    }
    out
}

/// The crate's `macro_rules!` definitions by name, from every module's items (a later
/// definition of the same name adds its rules after the earlier's).
pub(crate) fn definitions<'a>(
    items: impl Iterator<Item = &'a syn::Item>,
) -> BTreeMap<String, Vec<MacroRules>> {
    let mut out: BTreeMap<String, Vec<MacroRules>> = BTreeMap::new();
    for item in items {
        if let syn::Item::Macro(im) = item
            && im.mac.path.is_ident("macro_rules")
            && let Some(name) = &im.ident
            && let Some(rules) = MacroRules::parse(im.mac.tokens.clone())
        {
            out.entry(name.to_string()).or_default().push(rules);
        }
    }
    out
}

/// The crate macro an item invokes (`name!`, `crate::name!`, `self::name!`), if any.
fn invoked<'d>(
    im: &syn::ItemMacro,
    defs: &'d BTreeMap<String, Vec<MacroRules>>,
) -> Option<&'d [MacroRules]> {
    if im.ident.is_some() {
        return None;
    }
    local_macro(&im.mac.path, defs)
}

/// The crate macro a macro path names (`name`, `crate::name`, `self::name`), if any.
fn local_macro<'d>(
    path: &syn::Path,
    defs: &'d BTreeMap<String, Vec<MacroRules>>,
) -> Option<&'d [MacroRules]> {
    let segs = &path.segments;
    let local = segs.len() == 1
        || (segs.len() == 2 && matches!(segs[0].ident.to_string().as_str(), "crate" | "self"));
    if !local {
        return None;
    }
    defs.get(&segs.last()?.ident.to_string()).map(Vec::as_slice)
}

/// `items` with each invocation of a crate macro replaced by the items it expands to (their
/// own invocations expanded too), keeping the invocation's attributes (its `cfg`) on each.
/// `keep` decides which expanded items are compiled in.
pub(crate) fn expand_items(
    items: Vec<syn::Item>,
    defs: &BTreeMap<String, Vec<MacroRules>>,
    keep: &dyn Fn(&syn::Item) -> bool,
) -> Vec<syn::Item> {
    let mut budget = MAX_ITEMS;
    let mut out = expand_level(items, defs, keep, 0, &mut budget);
    let mut types = TypeMacros { defs, depth: 0 };
    for item in &mut out {
        syn::visit_mut::VisitMut::visit_item_mut(&mut types, item);
    }
    out
}

/// Expands crate macros in type position (itertools' `(ignore_ident!(a, A), ..)` tuples).
struct TypeMacros<'d> {
    defs: &'d BTreeMap<String, Vec<MacroRules>>,
    depth: usize,
}

impl TypeMacros<'_> {
    /// What a crate macro in type or expression position expands to, read as a `T`.
    fn expand_as<T: syn::parse::Parse>(&self, mac: &syn::Macro) -> Option<T> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        local_macro(&mac.path, self.defs)?
            .iter()
            .find_map(|r| r.expand(mac.tokens.clone()))
            .and_then(|t| syn::parse2::<T>(t).ok())
    }
}

impl syn::visit_mut::VisitMut for TypeMacros<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Macro(tm) = ty
            && let Some(found) = self.expand_as::<syn::Type>(&tm.mac)
        {
            *ty = found;
            self.depth += 1;
            self.visit_type_mut(ty);
            self.depth -= 1;
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    /// `[Option<A>; count_ident!($($B)*) - 1]`: a length counted by a macro.
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Macro(em) = e
            && let Some(found) = self.expand_as::<syn::Expr>(&em.mac)
        {
            *e = syn::parse_quote!((#found));
            self.depth += 1;
            syn::visit_mut::visit_expr_mut(self, e);
            self.depth -= 1;
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

fn expand_level(
    items: Vec<syn::Item>,
    defs: &BTreeMap<String, Vec<MacroRules>>,
    keep: &dyn Fn(&syn::Item) -> bool,
    depth: usize,
    budget: &mut usize,
) -> Vec<syn::Item> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let syn::Item::Macro(im) = &item else {
            out.push(item);
            continue;
        };
        let expanded = (depth < MAX_DEPTH)
            .then(|| invoked(im, defs))
            .flatten()
            .and_then(|rules| rules.iter().find_map(|r| r.expand(im.mac.tokens.clone())))
            .and_then(|tokens| syn::parse2::<syn::File>(tokens).ok())
            .filter(|file| file.items.len() <= *budget);
        let Some(file) = expanded else {
            out.push(item);
            continue;
        };
        *budget -= file.items.len();
        let outer: Vec<syn::Attribute> = im.attrs.clone();
        let made: Vec<syn::Item> = file
            .items
            .into_iter()
            .filter(|i| !matches!(i, syn::Item::Mod(_)))
            .map(|mut i| {
                prepend_attrs(&mut i, &outer);
                i
            })
            .filter(|i| keep(i))
            .collect();
        out.extend(expand_level(made, defs, keep, depth + 1, budget));
    }
    out
}

/// Puts `attrs` (an invocation's `#[cfg]` and docs) before the item's own.
fn prepend_attrs(item: &mut syn::Item, attrs: &[syn::Attribute]) {
    if attrs.is_empty() {
        return;
    }
    if let Some(own) = item_attrs_mut(item) {
        let mut all = attrs.to_vec();
        all.append(own);
        *own = all;
    }
}

fn item_attrs_mut(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    Some(match item {
        syn::Item::Const(i) => &mut i.attrs,
        syn::Item::Enum(i) => &mut i.attrs,
        syn::Item::Fn(i) => &mut i.attrs,
        syn::Item::Impl(i) => &mut i.attrs,
        syn::Item::Macro(i) => &mut i.attrs,
        syn::Item::Static(i) => &mut i.attrs,
        syn::Item::Struct(i) => &mut i.attrs,
        syn::Item::Trait(i) => &mut i.attrs,
        syn::Item::Type(i) => &mut i.attrs,
        syn::Item::Union(i) => &mut i.attrs,
        syn::Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(def: &str, call: &str) -> Option<String> {
        let rules = MacroRules::parse(syn::parse_str(def).expect("def"))?;
        rules
            .expand(syn::parse_str(call).expect("call"))
            .map(|t| t.to_string().replace(' ', ""))
    }

    #[test]
    fn a_rule_binds_fragments_and_repeats_with_its_separator() {
        let def = "($T:ty, $L:expr) => { impl FromBytes for $T { type Bytes = [u8; $L]; } };";
        assert_eq!(
            expand(def, "u32, 4").as_deref(),
            Some("implFromBytesforu32{typeBytes=[u8;4];}")
        );
        let def = "($tr:ident for $($t:ty)*) => {$( impl $tr for $t {} )*}";
        assert_eq!(
            expand(def, "MulAdd for i8 i16").as_deref(),
            Some("implMulAddfori8{}implMulAddfori16{}")
        );
        let def = "($name: ident: $type: ty = $val: expr) => { struct $name; \
                   impl Static<$type> for $name { fn val(self) -> $type { $val } } };";
        assert_eq!(
            expand(def, "N1: usize = 1 + 1").as_deref(),
            Some("structN1;implStatic<usize>forN1{fnval(self)->usize{(1+1)}}")
        );
    }

    #[test]
    fn rules_are_tried_in_order_and_a_mismatch_expands_nothing() {
        let def = "() => { struct Empty; }; ($x:ident) => { struct $x; };";
        assert_eq!(expand(def, "").as_deref(), Some("structEmpty;"));
        assert_eq!(expand(def, "Named").as_deref(), Some("structNamed;"));
        assert_eq!(expand(def, "1 2"), None);
    }

    #[test]
    fn nested_repetitions_and_recursive_invocations_expand() {
        let defs: syn::File = syn::parse_str(
            "macro_rules! tuples { () => {}; ($a:ident $($rest:ident)*) => { \
             impl Tuple for ($a, $($rest,)*) {} tuples!($($rest)*); }; } \
             tuples!(A B C);",
        )
        .expect("file");
        let d = definitions(defs.items.iter());
        let out = expand_items(defs.items, &d, &|_| true);
        let impls = out
            .iter()
            .filter(|i| matches!(i, syn::Item::Impl(_)))
            .count();
        assert_eq!(impls, 3, "{out:?}");
    }
}
