//! The expected value of a regression assertion as a Rust expression, read back from the
//! `Debug` form the harness recorded and the value's static type: `vec![1, 2]`,
//! `Some(String::from("a"))`, `modern::Mode::Fast`, `modern::Point { x: 1, y: 2 }`. A reviewer
//! keeps `assert_eq!(value, expression)`; a comparison of `Debug` strings is the fallback.
//!
//! Only types whose equality is known are written: primitives, `String`, `Vec`, `Option`,
//! `Result` and tuples of them, and non-generic crate types with `PartialEq` whose variants or
//! fields are public and readable from their `Debug` form. Floats are written only where
//! `==` holds (no `NaN` inside a value).

use crate::model::{ApiModel, Field, Ty, TypeDef, TypeKind, VariantShape};

/// How deep values nest before the fallback takes over (a test should read at a glance).
const MAX_DEPTH: usize = 4;

/// The expression equal to a value of type `t` whose `Debug` form is `debug`, or `None`.
pub(crate) fn expression(t: &Ty, debug: &str, model: &ApiModel) -> Option<String> {
    let reader = Reader { model };
    // `None` or `Vec::new()` compare only if the type they stand for does.
    if !reader.comparable(t, 0) {
        return None;
    }
    reader.value(t, debug.trim(), Place::Top, 0)
}

/// Where a value sits: a `String` compares with a `&str` literal at the top and as a `Vec`'s
/// element (`String: PartialEq<&str>`), but must be a `String` inside `Option`, tuples, ...
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Top,
    VecElement,
    Nested,
}

struct Reader<'m> {
    model: &'m ApiModel,
}

impl Reader<'_> {
    fn value(&self, t: &Ty, s: &str, place: Place, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        match t {
            Ty::Prim(p) => primitive(p, s),
            Ty::String => string(s, place),
            // A `&str` compares with a literal wherever it sits.
            Ty::Ref {
                mutable: false,
                inner,
            } if **inner == Ty::Str => string(s, Place::Top),
            Ty::Unit => (s == "()").then(|| "()".to_string()),
            Ty::Vec(e) => {
                let items = split(enclosed(s, '[', ']')?)?;
                let items = items
                    .iter()
                    .map(|i| self.value(e, i, Place::VecElement, depth + 1))
                    .collect::<Option<Vec<_>>>()?;
                // An empty `vec![]` alone leaves its element type to inference, which may not
                // decide; inside another value the enclosing type decides.
                match (items.is_empty(), place) {
                    (true, Place::Top) => None,
                    (true, _) => Some("Vec::new()".into()),
                    (false, _) => Some(format!("vec![{}]", items.join(", "))),
                }
            }
            Ty::Option(inner) => match s {
                "None" => Some("None".into()),
                _ => self.wrapped("Some", inner, s, depth),
            },
            // Both sides compare (`expression` checked the whole type first).
            Ty::Result(ok, err) => self
                .wrapped("Ok", ok, s, depth)
                .or_else(|| self.wrapped("Err", err, s, depth)),
            Ty::Tuple(ts) => {
                let items = self.positional(ts.iter(), s, depth)?;
                let trailing = if items.len() == 1 { "," } else { "" };
                Some(format!("({}{trailing})", items.join(", ")))
            }
            Ty::Adt { path, args } if args.is_empty() => self.adt(path, s, depth),
            _ => None,
        }
    }

    /// `Name(inner)` read as `Name(<inner>)`.
    fn wrapped(&self, name: &str, inner: &Ty, s: &str, depth: usize) -> Option<String> {
        let body = enclosed(s.strip_prefix(name)?, '(', ')')?;
        let v = self.value(inner, body, Place::Nested, depth + 1)?;
        Some(format!("{name}({v})"))
    }

    /// Whether values of `t` can be compared at all (its leaves have `PartialEq`).
    fn comparable(&self, t: &Ty, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match t {
            Ty::Prim(_) | Ty::String | Ty::Unit => true,
            Ty::Ref { inner, .. } => **inner == Ty::Str,
            Ty::Vec(e) | Ty::Option(e) => self.comparable(e, depth + 1),
            Ty::Result(a, b) => self.comparable(a, depth + 1) && self.comparable(b, depth + 1),
            Ty::Tuple(ts) => ts.iter().all(|t| self.comparable(t, depth + 1)),
            Ty::Adt { path, args } => {
                args.is_empty() && self.type_def(path).is_some_and(partial_eq)
            }
            _ => false,
        }
    }

    fn type_def(&self, path: &str) -> Option<&TypeDef> {
        self.model.types.iter().find(|d| d.path == path)
    }

    /// A crate enum variant or struct, written by its path.
    fn adt(&self, path: &str, s: &str, depth: usize) -> Option<String> {
        let def = self
            .type_def(path)
            .filter(|d| partial_eq(d) && !d.generic)?;
        let name = path.rsplit("::").next()?;
        match &def.kind {
            TypeKind::Enum { variants } => {
                let (head, _) = split_head(s);
                let v = variants.iter().find(|v| v.name == head)?;
                let at = format!("{path}::{}", v.name);
                let rest = &s[head.len()..];
                match &v.shape {
                    VariantShape::Unit => self.fields(&at, &[], rest, depth),
                    VariantShape::Tuple(tys) => {
                        let fields: Vec<Field> = tys
                            .iter()
                            .enumerate()
                            .map(|(i, ty)| Field {
                                name: i.to_string(),
                                ty: ty.clone(),
                            })
                            .collect();
                        self.fields(&at, &fields, rest, depth)
                    }
                    VariantShape::Struct(fields) => self.fields(&at, fields, rest, depth),
                }
            }
            TypeKind::Struct {
                fields: Some(fields),
                ..
            } => {
                let rest = s.strip_prefix(name)?;
                self.fields(path, fields, rest, depth)
            }
            TypeKind::Struct { fields: None, .. } => None,
        }
    }

    /// The values of `(a, b, ..)`, one per type.
    fn positional<'t>(
        &self,
        tys: impl ExactSizeIterator<Item = &'t Ty>,
        s: &str,
        depth: usize,
    ) -> Option<Vec<String>> {
        let items = split(enclosed(s, '(', ')')?)?;
        if items.len() != tys.len() {
            return None;
        }
        tys.zip(&items)
            .map(|(t, i)| self.value(t, i, Place::Nested, depth + 1))
            .collect()
    }

    /// `at` followed by its fields read from `rest`: nothing, `(a, b)` or `{ f: a, g: b }`.
    fn fields(&self, at: &str, fields: &[Field], rest: &str, depth: usize) -> Option<String> {
        let rest = rest.trim();
        if fields.is_empty() {
            return rest.is_empty().then(|| at.to_string());
        }
        let tuple = fields
            .iter()
            .enumerate()
            .all(|(i, f)| f.name == i.to_string());
        if tuple {
            let vals = self.positional(fields.iter().map(|f| &f.ty), rest, depth)?;
            return Some(format!("{at}({})", vals.join(", ")));
        }
        let items = split(enclosed(rest, '{', '}')?)?;
        if items.len() != fields.len() {
            return None;
        }
        let mut vals = Vec::with_capacity(items.len());
        for (f, item) in fields.iter().zip(&items) {
            let v = item.strip_prefix(f.name.as_str())?.trim_start();
            let v = v.strip_prefix(':')?.trim();
            vals.push(format!(
                "{}: {}",
                f.name,
                self.value(&f.ty, v, Place::Nested, depth + 1)?
            ));
        }
        Some(format!("{at} {{ {} }}", vals.join(", ")))
    }
}

fn partial_eq(d: &TypeDef) -> bool {
    d.traits.iter().any(|t| t == "PartialEq" || t == "Eq")
}

/// A primitive's `Debug` form is its literal, except floats that `==` cannot compare.
fn primitive(p: &str, s: &str) -> Option<String> {
    match p {
        "bool" => matches!(s, "true" | "false").then(|| s.to_string()),
        "char" => (s.len() >= 3 && s.starts_with('\'') && s.ends_with('\'')).then(|| s.into()),
        "f32" | "f64" => match s {
            "inf" => Some(format!("{p}::INFINITY")),
            "-inf" => Some(format!("{p}::NEG_INFINITY")),
            _ => s.parse::<f64>().ok().filter(|f| f.is_finite()).map(|_| {
                // `Debug` may print `1e20`; the suffix keeps such a literal a float.
                format!("{s}{p}")
            }),
        },
        _ => s
            .strip_prefix('-')
            .unwrap_or(s)
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| s.to_string())
            .filter(|s| !s.is_empty() && s != "-"),
    }
}

/// A string's `Debug` form is a valid Rust literal (its escapes are Rust's).
fn string(s: &str, place: Place) -> Option<String> {
    if s.len() < 2 || !s.starts_with('"') || !s.ends_with('"') {
        return None;
    }
    Some(match place {
        Place::Top | Place::VecElement => s.to_string(),
        Place::Nested => format!("String::from({s})"),
    })
}

/// The text between an opening and its matching closing delimiter spanning all of `s`.
fn enclosed(s: &str, open: char, close: char) -> Option<&str> {
    let s = s.trim();
    let inner = s.strip_prefix(open)?.strip_suffix(close)?;
    // `(a) (b)` starts with `(` and ends with `)` but is two groups.
    (first_group_end(s)? + close.len_utf8() == s.len()).then_some(inner.trim())
}

/// Where the group opening `s` closes (literals respected).
fn first_group_end(s: &str) -> Option<usize> {
    let mut end = None;
    scan(s, |i, c, depth| {
        if depth == 0 && matches!(c, ')' | ']' | '}') {
            end = Some(i);
        }
        end.is_none()
    })?;
    end
}

/// Walks `s` outside string and char literals, calling `visit` with each character's
/// position, the character and the nesting depth after it, until `visit` returns false;
/// `None` when a literal is unterminated or a delimiter closes nothing.
fn scan(s: &str, mut visit: impl FnMut(usize, char, usize) -> bool) -> Option<usize> {
    let mut depth = 0usize;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => skip_quoted(&mut chars, '"')?,
            '\'' => skip_char(&mut chars),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        if !visit(i, c, depth) {
            break;
        }
    }
    Some(depth)
}

/// The leading identifier of `Name(..)`, `Name { .. }` or `Name`, and the rest.
fn split_head(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    s.split_at(end)
}

/// Top-level, comma-separated items of `s` (nesting and string or char literals respected);
/// `None` when the delimiters do not balance.
fn split(s: &str) -> Option<Vec<&str>> {
    let mut items = Vec::new();
    let mut start = 0;
    let depth = scan(s, |i, c, depth| {
        if c == ',' && depth == 0 {
            items.push(s[start..i].trim());
            start = i + 1;
        }
        true
    })?;
    if depth != 0 {
        return None;
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        items.push(last);
    }
    Some(items)
}

type Chars<'s> = std::iter::Peekable<std::str::CharIndices<'s>>;

fn skip_quoted(chars: &mut Chars<'_>, end: char) -> Option<()> {
    while let Some((_, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            c if c == end => return Some(()),
            _ => {}
        }
    }
    None
}

/// A char literal (`'a'`, `'\n'`, `'\u{301}'`); a lone quote is left alone.
fn skip_char(chars: &mut Chars<'_>) {
    let mut look = chars.clone();
    let closes = match look.next() {
        Some((_, '\\')) => look.any(|(_, c)| c == '\''),
        Some(_) => matches!(look.next(), Some((_, '\''))),
        None => false,
    };
    if closes {
        let _ = skip_quoted(chars, '\'');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ApiModel, Variant};

    fn prim(p: &str) -> Ty {
        Ty::Prim(p.into())
    }

    fn model() -> ApiModel {
        let mut m = ApiModel {
            crate_name: "k".into(),
            ..ApiModel::default()
        };
        m.types.push(TypeDef {
            path: "k::Mode".into(),
            kind: TypeKind::Enum {
                variants: vec![
                    Variant {
                        name: "Fast".into(),
                        shape: VariantShape::Unit,
                    },
                    Variant {
                        name: "Limit".into(),
                        shape: VariantShape::Tuple(vec![prim("u8")]),
                    },
                ],
            },
            traits: vec!["PartialEq".into(), "Debug".into()],
            generic: false,
            params: Vec::new(),
            unsized_tail: false,
        });
        m.types.push(TypeDef {
            path: "k::Point".into(),
            kind: TypeKind::Struct {
                fields: Some(vec![
                    Field {
                        name: "x".into(),
                        ty: prim("i32"),
                    },
                    Field {
                        name: "label".into(),
                        ty: Ty::String,
                    },
                ]),
                tuple: false,
            },
            traits: vec!["PartialEq".into()],
            generic: false,
            params: Vec::new(),
            unsized_tail: false,
        });
        m.types.push(TypeDef {
            path: "k::Opaque".into(),
            kind: TypeKind::Struct {
                fields: Some(vec![]),
                tuple: false,
            },
            traits: vec!["Debug".into()],
            generic: false,
            params: Vec::new(),
            unsized_tail: false,
        });
        m
    }

    fn adt(path: &str) -> Ty {
        Ty::Adt {
            path: path.into(),
            args: vec![],
        }
    }

    #[test]
    fn values_read_back_as_expressions() {
        let m = model();
        let cases: Vec<(Ty, &str, Option<&str>)> = vec![
            (Ty::Vec(Box::new(prim("u8"))), "[1, 2]", Some("vec![1, 2]")),
            (Ty::Vec(Box::new(prim("u8"))), "[]", None),
            (
                Ty::Option(Box::new(Ty::Vec(Box::new(prim("u8"))))),
                "Some([])",
                Some("Some(Vec::new())"),
            ),
            (
                Ty::Vec(Box::new(Ty::String)),
                r#"["a, b", "c\"]"]"#,
                Some(r#"vec!["a, b", "c\"]"]"#),
            ),
            (
                Ty::Option(Box::new(Ty::String)),
                r#"Some("x")"#,
                Some(r#"Some(String::from("x"))"#),
            ),
            (
                Ty::Option(Box::new(prim("char"))),
                "Some(',')",
                Some("Some(',')"),
            ),
            (Ty::Option(Box::new(prim("f64"))), "Some(NaN)", None),
            (
                Ty::Option(Box::new(prim("f64"))),
                "Some(1e20)",
                Some("Some(1e20f64)"),
            ),
            (
                Ty::Tuple(vec![prim("i64"), Ty::String]),
                r#"(-3, "")"#,
                Some(r#"(-3, String::from(""))"#),
            ),
            (adt("k::Mode"), "Fast", Some("k::Mode::Fast")),
            (adt("k::Mode"), "Limit(7)", Some("k::Mode::Limit(7)")),
            (adt("k::Mode"), "Other", None),
            (
                adt("k::Point"),
                r#"Point { x: 1, label: "p" }"#,
                Some(r#"k::Point { x: 1, label: String::from("p") }"#),
            ),
            (adt("k::Opaque"), "Opaque", None),
            (Ty::Option(Box::new(adt("k::Opaque"))), "None", None),
            (
                Ty::Result(Box::new(prim("u8")), Box::new(adt("k::Mode"))),
                "Err(Fast)",
                Some("Err(k::Mode::Fast)"),
            ),
            (
                Ty::Result(Box::new(prim("u8")), Box::new(adt("k::Opaque"))),
                "Ok(1)",
                None,
            ),
            (Ty::Vec(Box::new(prim("u8"))), "[1, 2", None),
            (Ty::Tuple(vec![prim("u8")]), "(1) (2)", None),
            (
                Ty::Option(Box::new(Ty::Ref {
                    mutable: false,
                    inner: Box::new(Ty::Str),
                })),
                r#"Some("Not Found")"#,
                Some(r#"Some("Not Found")"#),
            ),
        ];
        for (t, debug, want) in cases {
            assert_eq!(
                expression(&t, debug, &m).as_deref(),
                want,
                "{t:?} from {debug}"
            );
        }
    }
}
