//! Call-site observers (\[testability\]): the instrumenter rewrites a known flag call such as
//! `s.starts_with(p)` into a block that binds the receiver and argument once, asks the
//! observer here for the distance to `true`/`Some`/`Ok`, calls the original method unchanged
//! and records two goals of the site from the result and the distance ([`site`]).
//!
//! The instrumenter has no types, only a method name, so the distance is chosen by autoref
//! specialisation on a wrapper of the borrowed operands, as for comparisons (`distance.rs`):
//! `(&&&Obs2(r, &a)).d_contains()` finds the text impl (on `&&Obs2`) when the receiver is
//! string-like and the argument a pattern, the collection impl (on `&Obs2`) when it is a
//! collection of comparable elements, and the fallback (on `Obs2`) otherwise, such as a user
//! type with its own `contains`: that site gets a flag (no distance). The result is classified
//! the same way ([`Out`]): `bool`, `Option` and `Result` decide the goal, anything else records
//! nothing.
//!
//! Observers only borrow; they never panic (`flags.rs` is total) and never touch the value the
//! call returns. The distance is computed before the call, while the argument is still there to
//! borrow, and only when the tables are set up.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

pub use crate::flags::KeyRef;
use crate::flags::{self, int_bounds};
use crate::tables::{push, record_pair, recording};

/// The operands of a one-argument call: the receiver and the argument, borrowed.
pub struct Obs2<'a, R: ?Sized, A: ?Sized>(pub &'a R, pub &'a A);
/// The receiver of a call without arguments, borrowed.
pub struct Obs1<'a, R: ?Sized>(pub &'a R);
/// A call's result, borrowed, to classify it.
pub struct Out<'a, T: ?Sized>(pub &'a T);

/// Whether observers should measure (the tables are set up).
#[inline]
pub fn on() -> bool {
    recording()
}

/// Records a site's two goals: the outcome reached is covered; the other gets `d` (its
/// distance, for the `true`/`Some`/`Ok` side) or a flag. A distance of 0 that the result
/// contradicts (a capped scan, a user type) is a flag too: the result is the truth.
#[inline]
pub fn site(t_goal: u32, f_goal: u32, d: Option<f64>, went: Option<bool>) {
    if let Some(pair) = went.map(|w| pair(d, w)) {
        record_pair(t_goal, f_goal, pair);
    }
}

/// [`site`] for a call that is a leaf of an `if`/`while`/guard condition: the pair is also
/// pushed for the condition (as `leaf` would push a flag), so the branch goals of the
/// condition get the call's distance; `operand` are the leaf's own goals under `&&`/`||`.
#[inline]
pub fn site_cond(
    t_goal: u32,
    f_goal: u32,
    operand: Option<(u32, u32)>,
    d: Option<f64>,
    went: Option<bool>,
) {
    if !on() {
        return;
    }
    // A condition is a `bool`; `None` cannot happen, but a flag keeps the stack balanced.
    let p = pair(d, went.unwrap_or(false));
    record_pair(t_goal, f_goal, p);
    if let Some((t, f)) = operand {
        record_pair(t, f, p);
    }
    push(p);
}

fn pair(d: Option<f64>, went: bool) -> (f64, f64) {
    if went {
        (0.0, 1.0)
    } else {
        (d.filter(|d| *d > 0.0 && d.is_finite()).unwrap_or(1.0), 0.0)
    }
}

/// `s.parse::<T>()`: the grammar of `T` when it is a std number, `bool` or `char` (by
/// `type_name`, which needs no bound, so the target type may still be inferred from later
/// code); a flag otherwise.
#[inline]
pub fn parsed<T, E>(t_goal: u32, f_goal: u32, s: Option<&str>, r: &Result<T, E>) {
    if !on() {
        return;
    }
    let d = match (r, s) {
        (Err(_), Some(s)) => parse_distance(std::any::type_name::<T>(), s),
        _ => None,
    };
    site(t_goal, f_goal, d, Some(r.is_ok()));
}

fn parse_distance(ty: &str, s: &str) -> Option<f64> {
    if let Some((lo, hi)) = int_bounds(ty) {
        return Some(flags::parse_int(s, lo, hi));
    }
    match ty {
        "f32" | "f64" => Some(flags::parse_float(s)),
        "bool" => Some(flags::parse_bool(s)),
        "char" => Some(flags::parse_char(s)),
        _ => None,
    }
}

/// The type name of a value, for [`tried`]: `type_name` needs no bound, so this compiles for
/// any argument.
#[inline]
pub fn type_of<T: ?Sized>(_: &T) -> &'static str {
    std::any::type_name::<T>()
}

/// `T::try_from(v)` with `v` a number of type `src`: when `T` is a std integer or `char`, the
/// distance to `T`'s range for `Ok`, and for `Err` how far `v` is from leaving the range on a
/// side `src` can reach, in orders of magnitude (as for overflowing `parse`): both outcomes
/// are goals worth a gradient, and `u32::try_from(x: u64)` can only fail upwards.
#[inline]
pub fn tried<T, E>(t_goal: u32, f_goal: u32, v: Option<f64>, src: &str, r: &Result<T, E>) {
    if !on() {
        return;
    }
    let ty = std::any::type_name::<T>();
    let bounds = |ty: &str| {
        if ty == "char" {
            Some((0.0, 0x10_FFFF as f64))
        } else {
            int_bounds(ty)
        }
    };
    let (Some(v), Some((lo, hi))) = (v, bounds(ty)) else {
        return site(t_goal, f_goal, None, Some(r.is_ok()));
    };
    if r.is_ok() {
        let (slo, shi) = bounds(src).unwrap_or((f64::MIN, f64::MAX));
        let slog = |x: f64| x.signum() * (1.0 + x.abs()).log10();
        let up = (shi > hi).then(|| 1.0 + (slog(hi + 1.0) - slog(v)).max(0.0));
        let down = (slo < lo).then(|| 1.0 + (slog(v) - slog(lo - 1.0)).max(0.0));
        let d_err = match (up, down) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => 1.0,
        };
        record_pair(t_goal, f_goal, (0.0, d_err));
    } else {
        let d = if ty == "char" {
            flags::char_range(v)
        } else {
            flags::to_range(v, lo, hi)
        };
        site(t_goal, f_goal, Some(d), Some(false));
    }
}

// ---- the operand kinds ----

/// Implements a trait of `&self` methods for `&T` and `&mut T` by delegating to `T`, so the
/// operand kinds see through the references the crate's code holds.
macro_rules! through_refs {
    ($tr:ident { $($m:ident -> $ret:ty),* }) => {
        impl<T: $tr + ?Sized> $tr for &T {
            $(fn $m(&self) -> $ret {
                (**self).$m()
            })*
        }
        impl<T: $tr + ?Sized> $tr for &mut T {
            $(fn $m(&self) -> $ret {
                (**self).$m()
            })*
        }
    };
}

/// A string-method pattern the observers measure: a string or a char.
pub enum PatRef<'a> {
    /// A string pattern (`&str` or `String`).
    Text(&'a str),
    /// A single-char pattern.
    Char(char),
}

/// Patterns of `str` methods that have a distance (closures and char sets do not).
pub trait Pat {
    /// The pattern, borrowed.
    fn pat(&self) -> PatRef<'_>;
}

impl Pat for str {
    fn pat(&self) -> PatRef<'_> {
        PatRef::Text(self)
    }
}
impl Pat for String {
    fn pat(&self) -> PatRef<'_> {
        PatRef::Text(self)
    }
}
impl Pat for char {
    fn pat(&self) -> PatRef<'_> {
        PatRef::Char(*self)
    }
}
through_refs!(Pat { pat -> PatRef<'_> });

/// Values with a distance between them: numbers, strings, chars, bools.
pub trait Key {
    /// The value reduced to a [`KeyRef`], the form distances are computed on.
    fn key(&self) -> KeyRef<'_>;
}

macro_rules! num_key {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline]
            fn key(&self) -> KeyRef<'_> {
                KeyRef::Num(*self as f64)
            }
        }
    )*};
}
num_key!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

impl Key for char {
    fn key(&self) -> KeyRef<'_> {
        KeyRef::Char(*self)
    }
}
impl Key for bool {
    fn key(&self) -> KeyRef<'_> {
        KeyRef::Bool(*self)
    }
}
impl Key for str {
    fn key(&self) -> KeyRef<'_> {
        KeyRef::Text(self)
    }
}
impl Key for String {
    fn key(&self) -> KeyRef<'_> {
        KeyRef::Text(self)
    }
}
impl Key for Cow<'_, str> {
    fn key(&self) -> KeyRef<'_> {
        KeyRef::Text(self)
    }
}
impl<T: Key + ?Sized> Key for Box<T> {
    fn key(&self) -> KeyRef<'_> {
        (**self).key()
    }
}
through_refs!(Key { key -> KeyRef<'_> });

/// Std collections of [`Key`]s: their elements, or a map's keys.
pub trait Coll {
    /// The elements (for a map, the keys), as [`KeyRef`]s, in iteration order.
    fn keys(&self) -> impl Iterator<Item = KeyRef<'_>>;
    /// Number of elements (for a map, of entries).
    fn count(&self) -> usize;
    /// Whether `get` looks up a key (maps) rather than an index (sequences).
    fn is_map(&self) -> bool {
        false
    }
}

macro_rules! seq_coll {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<$($g)*> Coll for $t {
            fn keys(&self) -> impl Iterator<Item = KeyRef<'_>> {
                self.iter().map(Key::key)
            }
            fn count(&self) -> usize {
                self.len()
            }
        }
    )*};
}
seq_coll!(
    [T: Key] Vec<T>,
    [T: Key] [T],
    [T: Key, const N: usize] [T; N],
    [T: Key] VecDeque<T>,
    [T: Key, S] HashSet<T, S>,
    [T: Key] BTreeSet<T>
);

impl<K: Key, V, S> Coll for HashMap<K, V, S> {
    fn keys(&self) -> impl Iterator<Item = KeyRef<'_>> {
        HashMap::keys(self).map(Key::key)
    }
    fn count(&self) -> usize {
        self.len()
    }
    fn is_map(&self) -> bool {
        true
    }
}
impl<K: Key, V> Coll for BTreeMap<K, V> {
    fn keys(&self) -> impl Iterator<Item = KeyRef<'_>> {
        BTreeMap::keys(self).map(Key::key)
    }
    fn count(&self) -> usize {
        self.len()
    }
    fn is_map(&self) -> bool {
        true
    }
}
through_refs!(Coll { keys -> impl Iterator<Item = KeyRef<'_>>, count -> usize, is_map -> bool });

/// Single chars the ASCII class tests and `to_digit` apply to.
pub trait CharLike {
    /// The value as a `char` (a byte is taken as the Latin-1 char of that code).
    fn as_char(&self) -> char;
}
impl CharLike for char {
    fn as_char(&self) -> char {
        *self
    }
}
impl CharLike for u8 {
    fn as_char(&self) -> char {
        char::from(*self)
    }
}
through_refs!(CharLike { as_char -> char });

// ---- one-argument calls: text (on `&&Obs2`), collections (on `&Obs2`), fallback ----

/// Distances of `str` methods taking a pattern.
pub trait TextFlags {
    /// Distance to `s.starts_with(p)` being `true`.
    fn d_starts_with(&self) -> Option<f64>;
    /// Distance to `s.ends_with(p)` being `true`.
    fn d_ends_with(&self) -> Option<f64>;
    /// Distance to `s.contains(p)` being `true`: the best window of `s` for a text pattern, the
    /// nearest char for a char pattern.
    fn d_contains(&self) -> Option<f64>;
    /// Distance to `s.eq_ignore_ascii_case(p)` being `true`; `None` for a char argument, which
    /// that method does not take.
    fn d_eq_ignore_ascii_case(&self) -> Option<f64>;
    /// Distance to `s.strip_prefix(p)` being `Some`: that of `starts_with`.
    fn d_strip_prefix(&self) -> Option<f64> {
        self.d_starts_with()
    }
    /// Distance to `s.strip_suffix(p)` being `Some`: that of `ends_with`.
    fn d_strip_suffix(&self) -> Option<f64> {
        self.d_ends_with()
    }
    /// Distance to `s.find(p)` being `Some`: that of `contains`.
    fn d_find(&self) -> Option<f64> {
        self.d_contains()
    }
    /// Distance to `s.rfind(p)` being `Some`: that of `contains`.
    fn d_rfind(&self) -> Option<f64> {
        self.d_contains()
    }
    /// Distance to `s.split_once(p)` being `Some`: that of `contains`.
    fn d_split_once(&self) -> Option<f64> {
        self.d_contains()
    }
    /// Distance to `s.rsplit_once(p)` being `Some`: that of `contains`.
    fn d_rsplit_once(&self) -> Option<f64> {
        self.d_contains()
    }
}

impl<R: AsRef<str> + ?Sized, A: Pat + ?Sized> TextFlags for &&Obs2<'_, R, A> {
    fn d_starts_with(&self) -> Option<f64> {
        let s = self.0.as_ref();
        Some(match self.1.pat() {
            PatRef::Text(p) => noted(p, flags::prefix(s, p)),
            PatRef::Char(c) => flags::prefix_char(s, c),
        })
    }
    fn d_ends_with(&self) -> Option<f64> {
        let s = self.0.as_ref();
        Some(match self.1.pat() {
            PatRef::Text(p) => noted(p, flags::suffix(s, p)),
            PatRef::Char(c) => flags::suffix_char(s, c),
        })
    }
    fn d_contains(&self) -> Option<f64> {
        let s = self.0.as_ref();
        Some(match self.1.pat() {
            PatRef::Text(p) => noted(p, flags::contains(s, p)),
            PatRef::Char(c) => flags::contains_char(s, c),
        })
    }
    fn d_eq_ignore_ascii_case(&self) -> Option<f64> {
        match self.1.pat() {
            PatRef::Text(p) => Some(noted(p, flags::eq_ignore_ascii_case(self.0.as_ref(), p))),
            PatRef::Char(_) => None,
        }
    }
}

/// `d`, after noting the pattern `p` for dynamic seeding when the call fails (`d > 0`): the
/// needle of `s.starts_with(&prefix)` is often computed at run time (`seen.rs`).
#[inline]
fn noted(p: &str, d: f64) -> f64 {
    if d > 0.0 {
        crate::seen::note(p);
    }
    d
}

/// Distances of collection lookups: the nearest element or key.
pub trait CollFlags {
    /// Distance to `c.contains(x)` being `true`: to the nearest element; `None` when the
    /// collection is empty or no element is comparable with `x`.
    fn d_contains(&self) -> Option<f64>;
    /// Distance to `m.contains_key(k)` being `true`: to the nearest key, as for `contains`.
    fn d_contains_key(&self) -> Option<f64>;
    /// Distance to `c.get(i)` being `Some`: for a sequence and a number, how far `i` is past the
    /// last index; for a map, the distance to the nearest key.
    fn d_get(&self) -> Option<f64>;
}

impl<C: Coll + ?Sized, K: Key + ?Sized> CollFlags for &Obs2<'_, C, K> {
    fn d_contains(&self) -> Option<f64> {
        let (d, key) = flags::nearest_key(self.0.keys(), self.1.key())?;
        // The nearest text key of a failed lookup is what the test's key should have been
        // (a table the crate filled at run time): noted for dynamic seeding (`seen.rs`).
        if let (true, KeyRef::Text(k)) = (d > 0.0, key) {
            crate::seen::note(k);
        }
        Some(d)
    }
    fn d_contains_key(&self) -> Option<f64> {
        self.d_contains()
    }
    fn d_get(&self) -> Option<f64> {
        match self.1.key() {
            KeyRef::Num(i) if !self.0.is_map() => Some(flags::index(i, self.0.count())),
            _ => self.d_contains(),
        }
    }
}

/// `c.to_digit(radix)`.
pub trait DigitFlags {
    /// Distance to `c.to_digit(radix)` being `Some`: to the digits of the radix.
    fn d_to_digit(&self) -> Option<f64>;
}

impl<R: CharLike + ?Sized> DigitFlags for &&Obs2<'_, R, u32> {
    fn d_to_digit(&self) -> Option<f64> {
        Some(flags::to_digit(self.0.as_char(), *self.1))
    }
}

/// Everything else: a flag.
pub trait Fallback2 {
    /// No distance: the site gets a flag.
    fn d_starts_with(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_ends_with(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_contains(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_eq_ignore_ascii_case(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_strip_prefix(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_strip_suffix(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_find(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_rfind(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_split_once(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_rsplit_once(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_contains_key(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_get(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_to_digit(&self) -> Option<f64> {
        None
    }
}

impl<R: ?Sized, A: ?Sized> Fallback2 for Obs2<'_, R, A> {}

// ---- calls without arguments ----

/// The receiver as text (for `parse`) and its emptiness.
pub trait TextFlags1 {
    /// The receiver as a `&str`, for the distance of a `parse` of it.
    fn d_text(&self) -> Option<&str>;
    /// Distance to `s.is_empty()` being `true`: the length in bytes.
    fn d_is_empty(&self) -> Option<f64>;
}

impl<R: AsRef<str> + ?Sized> TextFlags1 for &&Obs1<'_, R> {
    fn d_text(&self) -> Option<&str> {
        Some(self.0.as_ref())
    }
    fn d_is_empty(&self) -> Option<f64> {
        Some(self.0.as_ref().len() as f64)
    }
}

/// A number's value, for the distance of a `try_from` of it (a char's class tests are
/// [`CharFlags1`]'s).
pub trait ScalarFlags1 {
    /// The receiver as a number, for the distance of a `try_from` of it: a number's value, a char's
    /// code point; `None` for other keys.
    fn d_num(&self) -> Option<f64>;
}

impl<R: Key + ?Sized> ScalarFlags1 for &&Obs1<'_, R> {
    fn d_num(&self) -> Option<f64> {
        match self.0.key() {
            KeyRef::Num(v) => Some(v),
            KeyRef::Char(c) => Some(f64::from(c as u32)),
            _ => None,
        }
    }
}

/// `c.is_ascii_digit()` and the other ASCII class tests, by name.
pub trait CharFlags1 {
    /// Distance to the ASCII class test named `class` (`is_ascii_digit`, ...) being `true`; `None`
    /// for a name that is not one.
    fn d_ascii(&self, class: &str) -> Option<f64>;
}

impl<R: CharLike + ?Sized> CharFlags1 for &&Obs1<'_, R> {
    fn d_ascii(&self, class: &str) -> Option<f64> {
        flags::ascii_class(self.0.as_char(), class)
    }
}

/// A collection's emptiness.
pub trait CollFlags1 {
    /// Distance to `c.is_empty()` being `true`: the number of elements.
    fn d_is_empty(&self) -> Option<f64>;
}

impl<C: Coll + ?Sized> CollFlags1 for &Obs1<'_, C> {
    fn d_is_empty(&self) -> Option<f64> {
        Some(self.0.count() as f64)
    }
}

/// Everything else: a flag.
pub trait Fallback1 {
    /// No text: the site gets a flag.
    fn d_text(&self) -> Option<&str> {
        None
    }
    /// No number: the site gets a flag.
    fn d_num(&self) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_ascii(&self, _class: &str) -> Option<f64> {
        None
    }
    /// No distance: the site gets a flag.
    fn d_is_empty(&self) -> Option<f64> {
        None
    }
}

impl<R: ?Sized> Fallback1 for Obs1<'_, R> {}

// ---- results ----

/// Which way a call went: `true`, `Some` and `Ok` are `Some(true)`; other types `None`.
pub trait Went {
    /// Which way the call went: `Some(true)` for `true`, `Some` and `Ok`, `Some(false)` for the
    /// other outcome, `None` for a result of any other type.
    fn went(&self) -> Option<bool>;
}

impl Went for &&Out<'_, bool> {
    #[inline]
    fn went(&self) -> Option<bool> {
        Some(*self.0)
    }
}
impl<T> Went for &&Out<'_, Option<T>> {
    #[inline]
    fn went(&self) -> Option<bool> {
        Some(self.0.is_some())
    }
}
impl<T, E> Went for &&Out<'_, Result<T, E>> {
    #[inline]
    fn went(&self) -> Option<bool> {
        Some(self.0.is_ok())
    }
}
impl<T: ?Sized> Went for Out<'_, T> {
    #[inline]
    fn went(&self) -> Option<bool> {
        None
    }
}

#[cfg(test)]
// The extra borrows are the point: they are how the instrumenter calls the observers.
#[expect(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[test]
    fn text_receivers_and_patterns_dispatch_to_distances() {
        let s = String::from("GET /x");
        let r: &String = &s;
        let p = "GEX";
        assert_eq!((&&&Obs2(r, &p)).d_starts_with(), Some(4.0));
        let t: &str = "a=b";
        assert_eq!((&&&Obs2(&t, &'=')).d_split_once(), Some(0.0));
        assert_eq!((&&&Obs2(&t, &'<')).d_find(), Some(1.0));
        let owned = String::from("=b");
        assert_eq!((&&&Obs2(&t, &&owned)).d_ends_with(), Some(0.0));
    }

    #[test]
    fn collections_dispatch_to_the_nearest_element() {
        let v = vec![1u32, 5, 9];
        let x = 7u32;
        assert_eq!((&&&Obs2(&v, &&x)).d_contains(), Some(2.0));
        let m: HashMap<String, u8> = [("port".to_string(), 1)].into_iter().collect();
        let k = "pors";
        assert_eq!((&&&Obs2(&m, &k)).d_contains_key(), Some(1.0));
        assert_eq!((&&&Obs2(&&m, &k)).d_get(), Some(1.0));
        let i = 4usize;
        assert_eq!((&&&Obs2(&v, &i)).d_get(), Some(2.0));
        let set: BTreeSet<char> = ['a', 'z'].into_iter().collect();
        assert_eq!((&&&Obs2(&set, &&'b')).d_contains(), Some(1.0));
        assert_eq!((&&&Obs1(&v)).d_is_empty(), Some(3.0));
        assert_eq!((&&&Obs1(&"ab")).d_is_empty(), Some(2.0));
    }

    #[test]
    fn other_types_fall_back_to_a_flag() {
        struct Bag;
        let (b, x) = (Bag, 3);
        assert_eq!((&&&Obs2(&b, &x)).d_contains(), None);
        let closure = |c: char| c == 'x';
        let t: &str = "abc";
        assert_eq!((&&&Obs2(&t, &closure)).d_contains(), None);
        assert_eq!((&&&Obs1(&b)).d_is_empty(), None);
        assert_eq!((&&&Obs1(&b)).d_text(), None);
        assert_eq!((&&Out(&b)).went(), None);
        assert_eq!((&&Out(&Some(1))).went(), Some(true));
        assert_eq!((&&Out(&false)).went(), Some(false));
    }

    #[test]
    fn chars_digits_and_numbers() {
        let c = 'g';
        assert_eq!((&&&Obs2(&c, &16u32)).d_to_digit(), Some(1.0));
        assert_eq!((&&&Obs1(&b'/')).d_ascii("is_ascii_digit"), Some(1.0));
        assert_eq!((&&&Obs1(&300i64)).d_num(), Some(300.0));
        assert_eq!((&&&Obs1(&"x")).d_num(), None);
    }

    #[test]
    fn parse_distances_by_type_name() {
        assert_eq!(
            parse_distance(std::any::type_name::<u8>(), "2a"),
            Some(40.0)
        );
        assert!(parse_distance("f64", "1e").is_some());
        assert_eq!(parse_distance("my::Type", "x"), None);
    }
}
