//! Boxed closures as values of the pool: a closure type parameter that names a type stands in
//! as a boxed trait object (`analyze::generics::boxed_closure`), and where such a box is a
//! receiver or an argument itself (`impl<T, F: FnMut(&T, &T) -> bool> KMergePredicate<T> for
//! F`, a struct holding the closure) the pool needs a way to make one. The search picks from a
//! small family a reviewer would write: a constant result, the argument itself, a comparison of
//! an argument with a value, and a comparison of two arguments.
//!
//! It reads only the trait object's text, which analysis writes as `dyn FnMut(&i32, &i32) ->
//! bool` over std scalars and strings; it must not know the crate under test.

use super::registry::{int_range, literal_kind};
use super::std_values::{STD_BOX, STD_CMP_ORDERING};
use crate::model::Ty;

/// A closure trait object's text taken apart: `dyn FnMut(&i32, &i32) -> bool + Send`.
#[derive(Debug, PartialEq, Eq)]
struct DynClosure<'a> {
    kind: &'a str,
    inputs: Vec<&'a str>,
    /// Empty for `()`.
    output: &'a str,
}

fn parse(text: &str) -> Option<DynClosure<'_>> {
    let rest = text.strip_prefix("dyn ")?;
    let open = rest.find('(')?;
    let kind = &rest[..open];
    if !matches!(kind, "Fn" | "FnMut" | "FnOnce") {
        return None;
    }
    let mut depth = 0i32;
    let mut close = None;
    for (i, c) in rest.char_indices().skip(open) {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            close = Some(i);
            break;
        }
    }
    let close = close?;
    let list = &rest[open + 1..close];
    let inputs = top_level_parts(list);
    let after = &rest[close + 1..];
    // Auto traits follow the output (` + Send`); a plain output type has no `+`.
    let after = after.split(" + ").next().unwrap_or_default();
    let output = after.strip_prefix(" -> ").unwrap_or("").trim();
    Some(DynClosure {
        kind,
        inputs,
        output,
    })
}

/// `a, (b, c), d` split at the commas outside brackets, each part trimmed.
pub(crate) fn top_level_parts(list: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(list[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

/// The pool type of a closure result written as analysis writes it (the inverse of
/// `analyze::generics::plain_text` for the types the pool holds).
fn plain_ty(text: &str) -> Option<Ty> {
    let inner = |prefix: &str| {
        text.strip_prefix(prefix)
            .and_then(|t| t.strip_suffix('>'))
            .and_then(plain_ty)
    };
    match text {
        "String" => Some(Ty::String),
        STD_CMP_ORDERING => Some(Ty::Adt {
            path: STD_CMP_ORDERING.into(),
            args: Vec::new(),
        }),
        // The primitives the search writes as literals (the registry's word for it).
        p if literal_kind(&Ty::Prim(p.into())).is_some() => Some(Ty::Prim(p.into())),
        _ if text.starts_with("std::option::Option<") => {
            inner("std::option::Option<").map(|t| Ty::Option(Box::new(t)))
        }
        _ if text.starts_with("std::vec::Vec<") => {
            inner("std::vec::Vec<").map(|t| Ty::Vec(Box::new(t)))
        }
        _ => None,
    }
}

/// An integer argument, by value or borrowed: its integer type and whether it is read as `*x`.
fn int_arg(input: &str) -> Option<(&str, bool)> {
    let (ty, borrowed) = match input.strip_prefix('&') {
        Some(t) => (t, true),
        None => (input, false),
    };
    int_range(ty).is_some().then_some((ty, borrowed))
}

/// Ways to make a `Box<dyn ...>` of the closure trait object `dyn_text`, each a template over
/// the values it takes (`{0}`), written the same in the harness and in tests.
pub(crate) fn boxed_closures(dyn_text: &str) -> Vec<(String, Vec<Ty>)> {
    let Some(c) = parse(dyn_text) else {
        return Vec::new();
    };
    let boxed = |names: &[&str], body: &str| {
        let args: Vec<String> = names
            .iter()
            .zip(&c.inputs)
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        format!(
            "({STD_BOX}::new(move |{}| {body}) as {STD_BOX}<{dyn_text}>)",
            args.join(", ")
        )
    };
    let ignored = vec!["_"; c.inputs.len()];
    if c.output.is_empty() || c.output == "()" {
        return vec![(boxed(&ignored, "{}"), Vec::new())];
    }
    let Some(output) = plain_ty(c.output) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // A constant result: moved out once for `FnOnce`, copied or cloned for the others.
    let constant = match (c.kind, &output) {
        ("FnOnce", _) | (_, Ty::Prim(_)) => "{0}",
        _ => "{0}.clone()",
    };
    out.push((boxed(&ignored, constant), vec![output.clone()]));
    let named = |at: usize, name: &'static str| {
        let mut names = ignored.clone();
        names[at] = name;
        names
    };
    // The argument itself, where it is the result's scalar (`move |x: &i32| *x`).
    if let Ty::Prim(p) = &output
        && let Some(at) = c.inputs.iter().position(|i| i.trim_start_matches('&') == p)
    {
        let read = if c.inputs[at].starts_with('&') {
            "*x"
        } else {
            "x"
        };
        out.push((boxed(&named(at, "x"), read), Vec::new()));
    }
    let first_int = c.inputs.iter().position(|i| int_arg(i).is_some());
    // A predicate deciding by one argument: keeps some items and drops others.
    if let ("bool", Some(at)) = (c.output, first_int)
        && let Some((ty, borrowed)) = int_arg(c.inputs[at])
    {
        let read = if borrowed { "*x" } else { "x" };
        out.push((
            boxed(&named(at, "x"), &format!("{read} < {{0}}")),
            vec![Ty::Prim(ty.into())],
        ));
    }
    // Two arguments of one integer type compared with each other: an order (`merge_by`,
    // `kmerge_by`, `sorted_by`).
    if let [a, b] = c.inputs.as_slice()
        && a == b
        && let Some((_, borrowed)) = int_arg(a)
    {
        let body = match (c.output, borrowed) {
            ("bool", _) => Some("x < y"),
            (STD_CMP_ORDERING, true) => Some("x.cmp(y)"),
            (STD_CMP_ORDERING, false) => Some("x.cmp(&y)"),
            _ => None,
        };
        if let Some(body) = body {
            out.push((boxed(&["x", "y"], body), Vec::new()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trait_objects_text_is_taken_apart() {
        assert_eq!(
            parse("dyn FnMut(&i32, &i32) -> bool + Send"),
            Some(DynClosure {
                kind: "FnMut",
                inputs: vec!["&i32", "&i32"],
                output: "bool",
            })
        );
        assert_eq!(
            parse("dyn FnOnce()"),
            Some(DynClosure {
                kind: "FnOnce",
                inputs: vec![],
                output: "",
            })
        );
        assert_eq!(
            parse("dyn Fn(std::option::Option<i32>, u8) -> std::vec::Vec<i32>")
                .map(|c| (c.inputs, c.output)),
            Some((vec!["std::option::Option<i32>", "u8"], "std::vec::Vec<i32>"))
        );
        assert_eq!(parse("dyn Iterator<Item = i32>"), None);
    }

    #[test]
    fn boxed_closures_are_a_family_a_reviewer_would_write() {
        let made = boxed_closures("dyn FnMut(&i32, &i32) -> bool");
        let texts: Vec<&str> = made.iter().map(|(t, _)| t.as_str()).collect();
        let cast = "as std::boxed::Box<dyn FnMut(&i32, &i32) -> bool>)";
        assert_eq!(
            texts,
            [
                format!("(std::boxed::Box::new(move |_: &i32, _: &i32| {{0}}) {cast}"),
                format!("(std::boxed::Box::new(move |x: &i32, _: &i32| *x < {{0}}) {cast}"),
                format!("(std::boxed::Box::new(move |x: &i32, y: &i32| x < y) {cast}"),
            ]
        );
        assert_eq!(made[0].1, [Ty::Prim("bool".into())]);
        assert_eq!(made[1].1, [Ty::Prim("i32".into())]);

        let key = boxed_closures("dyn FnMut(&i32) -> i32");
        assert!(
            key.iter()
                .any(|(t, p)| t.contains("move |x: &i32| *x)") && p.is_empty())
        );
        let order = boxed_closures("dyn FnMut(&i32, &i32) -> std::cmp::Ordering");
        assert!(order.iter().any(|(t, _)| t.contains("x.cmp(y)")));
        let unit = boxed_closures("dyn FnOnce(i32)");
        assert_eq!(unit.len(), 1);
        assert!(unit[0].0.contains("move |_: i32| {}") && unit[0].1.is_empty());
        let owned = boxed_closures("dyn Fn() -> String");
        assert!(owned[0].0.contains("{0}.clone()"));
        // A result the pool cannot hold leaves the box to the crate's callables.
        assert!(boxed_closures("dyn Fn() -> std::vec::IntoIter<i32>").is_empty());
    }
}
