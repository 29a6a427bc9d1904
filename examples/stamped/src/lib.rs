//! An example crate whose code is stamped out per integer type by a `macro_rules!` macro,
//! as itoa and num-traits write theirs: frugal must instrument the macro's body to see it.

/// The number of decimal digits of a value.
pub trait DecimalWidth {
    fn decimal_width(self) -> u32;
}

macro_rules! impl_digits {
    ($($t:ty),*) => {$(
        impl DecimalWidth for $t {
            fn decimal_width(self) -> u32 {
                let mut n = self;
                let mut count = 1;
                while n > 9 {
                    n /= 10;
                    count += 1;
                }
                count
            }
        }
    )*};
}

impl_digits!(u16, u32);

/// The number of decimal digits of `v`, through the trait the macro implements.
pub fn width_of<T: DecimalWidth>(v: T) -> u32 {
    v.decimal_width()
}

/// Division that refuses a zero divisor. No function of the crate calls it: tests must call
/// the trait method on the primitives the macro implements it for. Its name is also an
/// inherent method of the integers, with another signature, as num-traits' `CheckedDiv` is.
pub trait SafeDiv: Sized {
    fn checked_div(&self, by: &Self) -> Option<Self>;
}

/// Takes the trait's name as well as the types, as num-traits' `checked_impl!(CheckedAdd,
/// checked_add, u8)` does.
macro_rules! impl_by_name {
    ($trait_name:ident, $($t:ty),*) => {$(
        impl $trait_name for $t {
            fn checked_div(&self, by: &$t) -> Option<$t> {
                if *by == 0 {
                    return None;
                }
                Some(*self / *by)
            }
        }
    )*};
}

impl_by_name!(SafeDiv, u8, u64);

/// Reads a value from its little-endian bytes. The byte array's length is the impl's
/// associated type, which only the macro's expansion says (num-traits' `FromBytes`): a test
/// needs `[u8; 2]` for `u16` and `[u8; 4]` for `u32`.
pub trait FromLe: Sized {
    type Bytes;
    fn from_le(bytes: &Self::Bytes) -> Self;
}

macro_rules! from_le_impl {
    ($T:ty, $L:expr) => {
        impl FromLe for $T {
            type Bytes = [u8; $L];
            fn from_le(bytes: &Self::Bytes) -> Self {
                if bytes[$L - 1] > 0x7f {
                    return <$T>::MAX;
                }
                <$T>::from_le_bytes(*bytes)
            }
        }
    };
}

from_le_impl!(u16, 2);
from_le_impl!(u32, 4);

/// A scale a type stands for. Its only implementors are unit structs a macro defines, as
/// data-encoding's `define!(N1: usize = 1)` does: nothing but the expansion names them.
pub trait Scale: Copy {
    fn factor(self) -> usize;
}

macro_rules! define_scale {
    ($name:ident = $val:expr) => {
        #[derive(Clone, Copy, Debug)]
        pub struct $name;
        impl Scale for $name {
            fn factor(self) -> usize {
                $val
            }
        }
    };
}

define_scale!(Double = 2);
define_scale!(Triple = 3);

/// `x` scaled, saturating; a generic function only the macro's structs can instantiate.
pub fn scaled<S: Scale>(scale: S, x: usize) -> usize {
    match x.checked_mul(scale.factor()) {
        Some(v) if v > 1000 => 1000,
        Some(v) => v,
        None => usize::MAX,
    }
}

/// A conversion implemented for several targets per type, as num-traits' `AsPrimitive<T>`: a
/// call must name the target, or it does not compile (E0283).
pub trait Widen<T> {
    fn widen(self) -> T;
}

macro_rules! widen_impl {
    ($from:ty => $($to:ty),*) => {$(
        impl Widen<$to> for $from {
            fn widen(self) -> $to {
                if self == 0 {
                    return 1;
                }
                self as $to
            }
        }
    )*};
}

widen_impl!(u8 => u16, u32);

/// A power of a borrowed base, as num-traits' `impl<'a> Pow<u8> for &'a f64`: `self` is the
/// borrow.
pub trait Raise<E> {
    fn raise(self, e: E) -> u32;
}

impl Raise<u8> for &u32 {
    fn raise(self, e: u8) -> u32 {
        if e > 8 {
            return u32::MAX;
        }
        self.saturating_pow(u32::from(e))
    }
}

/// A label from an integer of several widths, as http's `HeaderValue`: the `From` impls are
/// stamped out by a macro, and the argument's type picks one, so an emitted literal says its
/// type (`Label::from(-3i64)`).
#[derive(Debug, PartialEq)]
pub struct Label(pub String);

macro_rules! label_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Label {
            fn from(n: $t) -> Label {
                if n < 0 {
                    return Label(format!("minus {}", n.unsigned_abs()));
                }
                Label(n.to_string())
            }
        }
    )*};
}

label_from!(i32, i64);
