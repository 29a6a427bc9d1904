//! Value classes of the output and input criteria: which classes a type splits into, and how far
//! an observed value is from each. Values are seen as text: a statement's `Debug` summary, or a
//! literal rendered the way its `Debug` would render it, so one parser serves both criteria.
//!
//! Classes follow EvoSuite's output and input coverage (\[evosuite\]), by type: integers negative/zero/positive;
//! floats negative/zero/positive/non-finite; bool true/false; char alphabetic/digit/other;
//! strings and sequences empty/non-empty; `Option` and `Result` by variant and, one level down,
//! `Some` and `Ok` by the class of their payload; crate enums by variant name; anything else
//! one class. `Err` stays one class: error enums are usually shared by a whole crate, so most of
//! their variants cannot come out of any one callable, and branch goals already steer the
//! search into each error path.

use frugal_search::Value;

use crate::harness::registry::int_range;
use crate::model::{ApiModel, Ty, TypeKind};

/// How values of one type split into classes.
#[derive(Debug, Clone, PartialEq)]
pub enum Scheme {
    /// Integers: negative (signed types only), zero, positive.
    Int {
        /// A signed type: it has a negative class.
        signed: bool,
    },
    /// Floats: negative, zero, positive, NaN or infinite.
    Float,
    /// `bool`: false, true.
    Bool,
    /// Characters: alphabetic, digit (`char::is_numeric`), other.
    Char,
    /// `String` and `&str`: empty, non-empty.
    Text,
    /// `Vec` and slices: empty, non-empty.
    Seq,
    /// A crate enum with `Debug`: one class per variant name.
    Enum(Vec<String>),
    /// `None`, then `Some` per class of the payload.
    Option(Box<Scheme>),
    /// `Ok` per class of the payload, then `Err` per class of the error (always [`Scheme::Any`]
    /// from [`Scheme::of`], see the module docs).
    Result(Box<Scheme>, Box<Scheme>),
    /// Structs, tuples, `()` and anything else: one class, "any value".
    Any,
}

/// Distance of a class that was reached but not hit, when there is no gradient.
const MISS: f64 = 0.5;
/// Distance of a payload class when the value is the other variant: farther than any value of
/// the right variant, whose payload distances are halved into `[0, 0.5)`.
const OTHER_VARIANT: f64 = 0.75;
/// Largest distance handed out: goals' distances must stay below 1.
const FAR: f64 = 1.0 - 1e-9;

/// Payloads of `Option`/`Result` get classes one level down only: deeper nesting would multiply
/// goals that say little about the code.
const MAX_DEPTH: usize = 1;

impl Scheme {
    /// The scheme of a type (references see through to what they point at).
    pub fn of(ty: &Ty, model: &ApiModel) -> Scheme {
        Self::at(ty, model, 0)
    }

    fn at(ty: &Ty, model: &ApiModel, depth: usize) -> Scheme {
        let inner = |t: &Ty| {
            if depth >= MAX_DEPTH {
                Scheme::Any
            } else {
                Self::at(t, model, depth + 1)
            }
        };
        match ty {
            Ty::Prim(p) if p == "bool" => Scheme::Bool,
            Ty::Prim(p) if p == "char" => Scheme::Char,
            Ty::Prim(p) if p == "f32" || p == "f64" => Scheme::Float,
            Ty::Prim(p) if int_range(p).is_some() => Scheme::Int {
                signed: p.starts_with('i'),
            },
            Ty::String | Ty::Str => Scheme::Text,
            Ty::Ref { inner: t, .. } => Self::at(t, model, depth),
            Ty::Vec(_) | Ty::Slice(_) => Scheme::Seq,
            Ty::Option(t) => Scheme::Option(Box::new(inner(t))),
            Ty::Result(t, _) => Scheme::Result(Box::new(inner(t)), Box::new(Scheme::Any)),
            Ty::Adt { path, .. } => enum_variants(model, path).map_or(Scheme::Any, Scheme::Enum),
            Ty::Prim(_) | Ty::Unit | Ty::Tuple(_) | Ty::Other(_) => Scheme::Any,
        }
    }

    /// Class labels, in goal order.
    pub fn labels(&self) -> Vec<String> {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect();
        match self {
            Scheme::Int { signed: true } => words(&["negative", "zero", "positive"]),
            Scheme::Int { signed: false } => words(&["zero", "positive"]),
            Scheme::Float => words(&["negative", "zero", "positive", "non-finite"]),
            Scheme::Bool => words(&["true", "false"]),
            Scheme::Char => words(&["alphabetic", "digit", "other"]),
            Scheme::Text | Scheme::Seq => words(&["empty", "non-empty"]),
            Scheme::Enum(vs) => vs.clone(),
            Scheme::Option(t) => {
                let mut out = vec!["None".to_string()];
                out.extend(wrapped("Some", t));
                out
            }
            Scheme::Result(t, e) => {
                let mut out = wrapped("Ok", t);
                out.extend(wrapped("Err", e));
                out
            }
            Scheme::Any => words(&["any"]),
        }
    }

    /// Distance of the value `text` to each class (aligned with [`Scheme::labels`]; 0 = in the
    /// class), or `None` when the text says nothing (no summary, or one this scheme cannot
    /// read, such as a hand-written `Debug`).
    pub fn distances(&self, text: Option<&str>) -> Option<Vec<f64>> {
        if *self == Scheme::Any {
            return Some(vec![0.0]);
        }
        let t = text?.trim();
        match self {
            Scheme::Int { signed } => int_distances(t.parse().ok()?, *signed),
            Scheme::Float => float_distances(t.parse().ok()?),
            Scheme::Bool => one_of(&["true", "false"], t),
            Scheme::Char => char_distances(parse_char(t)?),
            Scheme::Text => {
                let body = t.strip_prefix('"')?.strip_suffix('"')?;
                Some(emptiness(body.len()))
            }
            Scheme::Seq => {
                let body = t.strip_prefix('[')?.strip_suffix(']')?;
                Some(emptiness(body.len()))
            }
            Scheme::Enum(vs) => {
                let name = t.split(['(', ' ', '{']).next().unwrap_or(t);
                let names: Vec<&str> = vs.iter().map(String::as_str).collect();
                one_of(&names, name)
            }
            Scheme::Option(inner) => {
                let n = wrapped("Some", inner).len();
                if t == "None" {
                    return Some(std::iter::once(0.0).chain(vec![OTHER_VARIANT; n]).collect());
                }
                let payload = unwrap_tag(t, "Some")?;
                let mut out = vec![OTHER_VARIANT];
                out.extend(payload_distances(inner, payload));
                Some(out)
            }
            Scheme::Result(ok, err) => {
                let (n_ok, n_err) = (wrapped("Ok", ok).len(), wrapped("Err", err).len());
                if let Some(p) = unwrap_tag(t, "Ok") {
                    let mut out = payload_distances(ok, p);
                    out.extend(vec![OTHER_VARIANT; n_err]);
                    Some(out)
                } else {
                    let p = unwrap_tag(t, "Err")?;
                    let mut out = vec![OTHER_VARIANT; n_ok];
                    out.extend(payload_distances(err, p));
                    Some(out)
                }
            }
            Scheme::Any => Some(vec![0.0]),
        }
    }
}

/// The `Debug` text of a literal, so literals and summaries go through one parser.
pub fn literal_text(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Char(c) => format!("{c:?}"),
        Value::Str(s) => format!("{s:?}"),
    }
}

/// Variant names of a crate enum whose `Debug` output starts with them.
fn enum_variants(model: &ApiModel, path: &str) -> Option<Vec<String>> {
    let def = model.types.iter().find(|t| t.path == path)?;
    let TypeKind::Enum { variants } = &def.kind else {
        return None;
    };
    let debug = def.traits.iter().any(|t| t == "Debug");
    (debug && !variants.is_empty()).then(|| variants.iter().map(|v| v.name.clone()).collect())
}

/// `Tag(l)` per payload class, or the bare tag when the payload has one class.
fn wrapped(tag: &str, inner: &Scheme) -> Vec<String> {
    if *inner == Scheme::Any {
        return vec![tag.to_string()];
    }
    inner
        .labels()
        .into_iter()
        .map(|l| format!("{tag}({l})"))
        .collect()
}

/// Distances inside a payload, halved; a payload the scheme cannot read is in no class.
fn payload_distances(inner: &Scheme, text: &str) -> Vec<f64> {
    let n = wrapped("", inner).len();
    match inner.distances(Some(text)) {
        Some(ds) => ds.into_iter().map(|d| d * 0.5).collect(),
        None => vec![MISS; n],
    }
}

/// `Tag(payload)` -> `payload`.
fn unwrap_tag<'t>(t: &'t str, tag: &str) -> Option<&'t str> {
    t.strip_prefix(tag)?.strip_prefix('(')?.strip_suffix(')')
}

/// Maps `[0, inf)` onto `[0, 1)`, monotonically.
fn norm(x: f64) -> f64 {
    if x.is_nan() {
        return FAR;
    }
    (x / (x + 1.0)).min(FAR)
}

/// A missed class's distance: the gradient, but never 0.
fn miss(x: f64) -> f64 {
    norm(x).max(1e-12)
}

fn int_distances(v: i128, signed: bool) -> Option<Vec<f64>> {
    let a = v.unsigned_abs() as f64;
    let zero = if v == 0 { 0.0 } else { miss(a) };
    let positive = if v > 0 { 0.0 } else { miss(a + 1.0) };
    if !signed {
        return Some(vec![zero, positive]);
    }
    let negative = if v < 0 { 0.0 } else { miss(a + 1.0) };
    Some(vec![negative, zero, positive])
}

fn float_distances(v: f64) -> Option<Vec<f64>> {
    if !v.is_finite() {
        return Some(vec![MISS, MISS, MISS, 0.0]);
    }
    let a = v.abs();
    let negative = if v < 0.0 { 0.0 } else { miss(a + 1.0) };
    let zero = if v == 0.0 { 0.0 } else { miss(a) };
    let positive = if v > 0.0 { 0.0 } else { miss(a + 1.0) };
    // Larger magnitudes are closer to overflowing to infinity.
    let non_finite = (1.0 / (a + 1.0)).clamp(1e-12, FAR);
    Some(vec![negative, zero, positive, non_finite])
}

fn char_distances(c: char) -> Option<Vec<f64>> {
    let class = if c.is_alphabetic() {
        0
    } else if c.is_numeric() {
        1
    } else {
        2
    };
    Some(
        (0..3)
            .map(|i| if i == class { 0.0 } else { MISS })
            .collect(),
    )
}

/// Empty / non-empty distances for a body of `len` bytes.
fn emptiness(len: usize) -> Vec<f64> {
    if len == 0 {
        vec![0.0, MISS]
    } else {
        vec![miss(len as f64), 0.0]
    }
}

/// 0 for the matching name, [`MISS`] for the others; `None` when nothing matches.
fn one_of(names: &[&str], t: &str) -> Option<Vec<f64>> {
    let hit = names.iter().position(|n| *n == t)?;
    Some(
        (0..names.len())
            .map(|i| if i == hit { 0.0 } else { MISS })
            .collect(),
    )
}

/// Reads a char's `Debug` text: `'a'`, `'\n'`, `'\''`, `'\u{301}'`.
fn parse_char(t: &str) -> Option<char> {
    let body = t.strip_prefix('\'')?.strip_suffix('\'')?;
    let Some(esc) = body.strip_prefix('\\') else {
        let mut cs = body.chars();
        let c = cs.next()?;
        return cs.next().is_none().then_some(c);
    };
    match esc {
        "n" => Some('\n'),
        "r" => Some('\r'),
        "t" => Some('\t'),
        "0" => Some('\0'),
        "\\" => Some('\\'),
        "'" => Some('\''),
        "\"" => Some('"'),
        _ => {
            let hex = esc.strip_prefix("u{")?.strip_suffix('}')?;
            char::from_u32(u32::from_str_radix(hex, 16).ok()?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{TypeDef, Variant, VariantShape};

    fn prim(p: &str) -> Ty {
        Ty::Prim(p.into())
    }

    fn model_with_state() -> ApiModel {
        let variant = |n: &str| Variant {
            name: n.into(),
            shape: VariantShape::Unit,
        };
        ApiModel {
            crate_name: "k".into(),
            types: vec![TypeDef {
                path: "k::State".into(),
                kind: TypeKind::Enum {
                    variants: vec![variant("Idle"), variant("Busy")],
                },
                traits: vec!["Debug".into()],
                generic: false,
                params: Vec::new(),
                unsized_tail: false,
            }],
            ..ApiModel::default()
        }
    }

    fn state() -> Ty {
        Ty::Adt {
            path: "k::State".into(),
            args: vec![],
        }
    }

    #[test]
    fn schemes_follow_the_type() {
        let m = model_with_state();
        assert_eq!(Scheme::of(&prim("i32"), &m), Scheme::Int { signed: true });
        assert_eq!(
            Scheme::of(&prim("usize"), &m),
            Scheme::Int { signed: false }
        );
        let str_ref = Ty::Ref {
            mutable: false,
            inner: Box::new(Ty::Str),
        };
        assert_eq!(Scheme::of(&str_ref, &m), Scheme::Text);
        assert_eq!(
            Scheme::of(&Ty::Slice(Box::new(prim("u8"))), &m),
            Scheme::Seq
        );
        assert_eq!(
            Scheme::of(&state(), &m).labels(),
            vec!["Idle".to_string(), "Busy".into()]
        );
        let unknown = Ty::Adt {
            path: "k::Other".into(),
            args: vec![],
        };
        assert_eq!(Scheme::of(&unknown, &m), Scheme::Any);
        assert_eq!(Scheme::of(&Ty::Tuple(vec![]), &m).labels(), vec!["any"]);
    }

    #[test]
    fn option_and_result_classes_go_one_level_down() {
        let m = model_with_state();
        let r = Ty::Result(Box::new(state()), Box::new(Ty::String));
        assert_eq!(
            Scheme::of(&r, &m).labels(),
            vec!["Ok(Idle)", "Ok(Busy)", "Err"]
        );
        let oo = Ty::Option(Box::new(Ty::Option(Box::new(prim("i8")))));
        assert_eq!(
            Scheme::of(&oo, &m).labels(),
            vec!["None", "Some(None)", "Some(Some)"]
        );
        let unit = Ty::Result(Box::new(Ty::Unit), Box::new(prim("u8")));
        assert_eq!(Scheme::of(&unit, &m).labels(), vec!["Ok", "Err"]);
        // Payload classes of `Err` still work when a scheme is built by hand.
        let by_hand = Scheme::Result(
            Box::new(Scheme::Any),
            Box::new(Scheme::Int { signed: false }),
        );
        assert_eq!(by_hand.labels(), vec!["Ok", "Err(zero)", "Err(positive)"]);
        assert_eq!(
            by_hand.distances(Some("Err(3)")),
            Some(vec![0.75, 0.375, 0.0])
        );
    }

    #[test]
    fn integer_distances_are_hand_computed() {
        let s = Scheme::Int { signed: true };
        // -3: negative; zero at 3/4; positive at 4/5.
        assert_eq!(s.distances(Some("-3")), Some(vec![0.0, 0.75, 0.8]));
        assert_eq!(s.distances(Some("0")), Some(vec![0.5, 0.0, 0.5]));
        assert_eq!(s.distances(Some("1")), Some(vec![2.0 / 3.0, 0.5, 0.0]));
        let u = Scheme::Int { signed: false };
        assert_eq!(u.distances(Some("9")), Some(vec![0.9, 0.0]));
        assert_eq!(s.distances(Some("x")), None);
        assert_eq!(s.distances(None), None);
    }

    #[test]
    fn float_distances_cover_zero_signs_and_non_finite() {
        let s = Scheme::Float;
        assert_eq!(
            s.distances(Some("-0.0")),
            Some(vec![0.5, 0.0, 0.5, 1.0 - 1e-9])
        );
        assert_eq!(s.distances(Some("NaN")), Some(vec![0.5, 0.5, 0.5, 0.0]));
        assert_eq!(s.distances(Some("-inf")), Some(vec![0.5, 0.5, 0.5, 0.0]));
        assert_eq!(s.distances(Some("3.0")), Some(vec![0.8, 0.75, 0.0, 0.25]));
        let tiny = s.distances(Some("1e-300")).unwrap();
        assert!(tiny[1] > 0.0 && tiny[2] == 0.0);
    }

    #[test]
    fn chars_strings_and_sequences_parse_their_debug_text() {
        let c = Scheme::Char;
        assert_eq!(c.distances(Some("'a'")), Some(vec![0.0, 0.5, 0.5]));
        assert_eq!(c.distances(Some("'7'")), Some(vec![0.5, 0.0, 0.5]));
        assert_eq!(c.distances(Some("'\\n'")), Some(vec![0.5, 0.5, 0.0]));
        assert_eq!(c.distances(Some("'\\u{e9}'")), Some(vec![0.0, 0.5, 0.5]));
        assert_eq!(c.distances(Some("'ab'")), None);
        let t = Scheme::Text;
        assert_eq!(t.distances(Some("\"\"")), Some(vec![0.0, 0.5]));
        assert_eq!(t.distances(Some("\"abc\"")), Some(vec![0.75, 0.0]));
        assert_eq!(Scheme::Seq.distances(Some("[]")), Some(vec![0.0, 0.5]));
        assert_eq!(Scheme::Seq.distances(Some("[1]")), Some(vec![0.5, 0.0]));
        assert_eq!(Scheme::Bool.distances(Some("false")), Some(vec![0.5, 0.0]));
    }

    #[test]
    fn wrapped_payloads_and_enum_variants() {
        let m = model_with_state();
        let r = Scheme::of(&Ty::Result(Box::new(state()), Box::new(prim("i32"))), &m);
        assert_eq!(r.distances(Some("Ok(Busy)")), Some(vec![0.25, 0.0, 0.75]));
        assert_eq!(r.distances(Some("Err(-2)")), Some(vec![0.75, 0.75, 0.0]));
        assert_eq!(r.distances(Some("Maybe(1)")), None);
        let o = Scheme::of(&Ty::Option(Box::new(state())), &m);
        assert_eq!(o.distances(Some("None")), Some(vec![0.0, 0.75, 0.75]));
        // A payload it cannot read is still `Some`: reached, in no class.
        assert_eq!(o.distances(Some("Some(Gone)")), Some(vec![0.75, 0.5, 0.5]));
        let e = Scheme::Enum(vec!["Pay".into(), "Ship".into(), "Move".into()]);
        assert_eq!(e.distances(Some("Pay(3)")), Some(vec![0.0, 0.5, 0.5]));
        assert_eq!(
            e.distances(Some("Move { x: 1 }")),
            Some(vec![0.5, 0.5, 0.0])
        );
        assert_eq!(Scheme::Any.distances(None), Some(vec![0.0]));
    }

    #[test]
    fn literals_render_like_debug() {
        assert_eq!(literal_text(&Value::Str("a\"b".into())), "\"a\\\"b\"");
        assert_eq!(literal_text(&Value::Char('\'')), "'\\''");
        assert_eq!(literal_text(&Value::Float(2.0)), "2.0");
        assert_eq!(literal_text(&Value::Int(-4)), "-4");
        let t = literal_text(&Value::Char('\''));
        assert_eq!(Scheme::Char.distances(Some(&t)), Some(vec![0.5, 0.5, 0.0]));
    }
}
