//! FBR (function body replacement, cargo-mutants' main operator): the values a fn's body is
//! replaced by, named as cargo-mutants names them so the crate's own survivors find their
//! counterparts, and the code that returns them right after the entry probe.
//!
//! It must not know how the probes evaluate mutants: `frugal_probe::mutants::body` decides
//! whether a value is returned.

use super::visit::FileInstrumenter;
use crate::manifest::GoalKind;

impl FileInstrumenter<'_> {
    /// FBR (cargo-mutants' main operator): the function's body replaced by a value of its
    /// return type. One goal per value ([`replacements`]), infected whenever the function is
    /// entered (whether the value differs from what the body returns is for the strong run to
    /// see); the returned code goes after the entry probe: with a mutant on, the function
    /// returns its value at once. `None` when the fn gets no body mutants; otherwise its code.
    pub(super) fn body_mutants(&mut self, sig: &syn::Signature, fn_line: usize) -> Option<String> {
        if !self.mutants {
            return None;
        }
        let values = replacements(&sig.output, self.in_macro == 0);
        if values.is_empty() {
            return None;
        }
        let mut code = String::new();
        for value in values {
            let g = self.goal(
                GoalKind::Mutant,
                fn_line,
                format!("FBR body -> {}", value.label),
            );
            let ret = if value.code == "()" {
                "return;".to_string()
            } else {
                format!("return {};", value.code)
            };
            code.push_str(&format!(
                "if ::frugal_probe::mutants::body({g}) {{ {ret} }} "
            ));
        }
        Some(code)
    }
}

/// One value a body is replaced by: the label names it as cargo-mutants does (so survivors
/// find their counterparts), the code is what the instrumented body returns.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Value {
    label: String,
    code: String,
}

impl Value {
    fn same(text: &str) -> Value {
        Value {
            label: text.to_string(),
            code: text.to_string(),
        }
    }

    /// The value inside `f(..)` (`Some`, `Ok`, `Box::new`), in the label and the code alike.
    fn wrapped(&self, f: &str) -> Value {
        Value {
            label: format!("{f}({})", self.label),
            code: format!("{f}({})", self.code),
        }
    }
}

/// Values tried per body at most: a tuple's values are the product of its parts' (as
/// cargo-mutants makes them), which grows fast.
const MAX_VALUES: usize = 12;

/// The values a body is replaced by, for a return type written as one of the types whose
/// values need no knowledge of the crate (cargo-mutants' defaults for them): `()`, `bool`,
/// numbers, `String`, `&str`, `Option<T>`, `Result<T, _>` (`Ok` of `T`'s values; `fmt::Result`
/// too), `Vec<T>`, `Box<T>`, `Cow<str>` and tuples of these. Any other named type (`Self`, a
/// crate type) gets `Default::default()`, as in cargo-mutants, when `guess` allows: a value
/// that does not compile costs a build (`instrument_and_build` then drops the fn's body mutants
/// and keeps its probes). In a `macro_rules!` body a failed build costs the whole macro, so
/// there (`guess` false) only values that always compile are tried.
fn replacements(output: &syn::ReturnType, guess: bool) -> Vec<Value> {
    match output {
        syn::ReturnType::Default => vec![Value::same("()")],
        syn::ReturnType::Type(_, ty) => {
            let mut v = values_of(ty, 0);
            let named = matches!(&**ty, syn::Type::Path(p) if p.qself.is_none());
            if v.is_empty() && named && guess {
                v.push(Value::same("Default::default()"));
            }
            if !guess && !always_compiles(ty) {
                v.clear();
            }
            v.truncate(MAX_VALUES);
            v
        }
    }
}

/// Whether the values of [`values_of`] for `ty` compile whatever the crate defines: not so for
/// a one-argument `Result<T>`, which may be an alias of another shape.
fn always_compiles(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().is_none_or(|last| {
            let one_arg = matches!(&last.arguments, syn::PathArguments::AngleBracketed(a) if a.args.len() == 1);
            !(last.ident == "Result" && one_arg)
        }),
        _ => true,
    }
}

fn values_of(ty: &syn::Type, depth: usize) -> Vec<Value> {
    if depth > 2 {
        return Vec::new();
    }
    match ty {
        syn::Type::Paren(p) => values_of(&p.elem, depth),
        syn::Type::Tuple(t) if t.elems.is_empty() => vec![Value::same("()")],
        syn::Type::Tuple(t) => tuple_values(t, depth),
        syn::Type::Reference(r) if r.mutability.is_none() && is_ident(&r.elem, "str") => {
            vec![Value::same("\"\""), Value::same("\"xyzzy\"")]
        }
        syn::Type::Path(p) if p.qself.is_none() => path_values(&p.path, depth),
        _ => Vec::new(),
    }
}

/// Every combination of the parts' values, in cargo-mutants' order (the first part varies
/// slowest): `(usize, Option<usize>)` gives `(0, None)`, `(0, Some(0))`, ... `(1, Some(1))`.
fn tuple_values(t: &syn::TypeTuple, depth: usize) -> Vec<Value> {
    let mut out: Vec<(Vec<String>, Vec<String>)> = vec![(Vec::new(), Vec::new())];
    for elem in &t.elems {
        let vals = values_of(elem, depth + 1);
        if vals.is_empty() {
            return Vec::new();
        }
        out = out
            .iter()
            .flat_map(|(labels, codes)| {
                vals.iter().map(move |v| {
                    let mut l = labels.clone();
                    let mut c = codes.clone();
                    l.push(v.label.clone());
                    c.push(v.code.clone());
                    (l, c)
                })
            })
            .take(MAX_VALUES)
            .collect();
    }
    let one = t.elems.len() == 1;
    out.into_iter()
        .map(|(l, c)| {
            let comma = if one { "," } else { "" };
            Value {
                label: format!("({}{comma})", l.join(", ")),
                code: format!("({}{comma})", c.join(", ")),
            }
        })
        .collect()
}

fn path_values(path: &syn::Path, depth: usize) -> Vec<Value> {
    let Some(last) = path.segments.last() else {
        return Vec::new();
    };
    let n = path.segments.len();
    let one = n == 1;
    let type_args: Vec<&syn::Type> = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        syn::PathArguments::None => Vec::new(),
        syn::PathArguments::Parenthesized(_) => return Vec::new(),
    };
    let name = last.ident.to_string();
    // `fmt::Result` (a `Display` or `Debug` impl): `Ok(())` whatever it wrote.
    if name == "Result" && type_args.is_empty() && n >= 2 && path.segments[n - 2].ident == "fmt" {
        return vec![Value {
            label: "Ok(Default::default())".into(),
            code: "Ok(Default::default())".into(),
        }];
    }
    let strs = |xs: &[&str]| xs.iter().map(|x| Value::same(x)).collect::<Vec<_>>();
    // Names of std types count only where the signature names them bare (`alloc::vec::Vec`
    // need not be in scope); `None`, `Some` and `Ok` are in every prelude.
    match (name.as_str(), type_args.as_slice()) {
        ("bool", []) if one => strs(&["true", "false"]),
        ("u8" | "u16" | "u32" | "u64" | "u128" | "usize", []) if one => strs(&["0", "1"]),
        ("i8" | "i16" | "i32" | "i64" | "i128" | "isize", []) if one => strs(&["0", "1", "-1"]),
        ("f32" | "f64", []) if one => strs(&["0.0", "1.0"]),
        ("String", []) if one => strs(&["String::new()", "\"xyzzy\".into()"]),
        ("Option", [t]) => {
            let mut v = vec![Value::same("None")];
            v.extend(values_of(t, depth + 1).iter().map(|x| x.wrapped("Some")));
            v
        }
        // `Result<T, E>`, or an alias `Result<T>` of the crate or of `io`: `Ok` of `T`'s values.
        ("Result", [t] | [t, _]) => values_of(t, depth + 1)
            .iter()
            .map(|x| x.wrapped("Ok"))
            .collect(),
        ("Vec", [t]) if one => {
            let mut v = vec![Value::same("Vec::new()")];
            v.extend(values_of(t, depth + 1).iter().map(|x| Value {
                label: format!("vec![{}]", x.label),
                code: format!(
                    "{{ let mut __frugal_v = Vec::new(); __frugal_v.push({}); __frugal_v }}",
                    x.code
                ),
            }));
            v
        }
        ("Box", [t]) if one => values_of(t, depth + 1)
            .iter()
            .map(|x| x.wrapped("Box::new"))
            .collect(),
        // `Cow<'_, str>`, named as the signature names it (`Cow`, `borrow::Cow`).
        ("Cow", [t]) if is_ident(t, "str") => {
            let cow: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            let cow = cow.join("::");
            ["\"\"", "\"xyzzy\""]
                .iter()
                .flat_map(|s| {
                    [
                        Value {
                            label: format!("Cow::Borrowed({s})"),
                            code: format!("{cow}::Borrowed({s})"),
                        },
                        Value {
                            label: format!("Cow::Owned({s}.to_owned())"),
                            code: format!("{cow}::Owned({s}.into())"),
                        },
                    ]
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

fn is_ident(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}
