//! A `no_std` crate shaped like heck and itoa: its prelude is core's, `String` comes from
//! `alloc`, and its API is extension traits on `str` (one implemented for `str` itself, one
//! through a blanket impl over every type implementing the first) and functions over small
//! integers. frugal's harness module lives inside the crate and must bring std itself.
#![no_std]

extern crate alloc;

use alloc::borrow::ToOwned;
use alloc::string::String;

/// Shouting case for text: `hello world` becomes `HELLO_WORLD`.
pub trait ToShout: ToOwned {
    /// The text upper-cased, words joined by underscores.
    fn to_shout(&self) -> Self::Owned;
}

impl ToShout for str {
    fn to_shout(&self) -> String {
        let mut out = String::new();
        for c in self.chars() {
            if c == ' ' || c == '-' {
                out.push('_');
            } else {
                out.extend(c.to_uppercase());
            }
        }
        out
    }
}

/// A deprecated-style alias trait, implemented for everything that can shout (heck's
/// `ToSnekCase`).
pub trait ToYell: ToOwned {
    /// The shouting form.
    fn to_yell(&self) -> Self::Owned;
}

impl<T: ?Sized + ToShout> ToYell for T {
    fn to_yell(&self) -> Self::Owned {
        self.to_shout()
    }
}

/// The decimal digits of a byte, most significant first, and how many there are.
pub fn digits(n: u8) -> ([u8; 3], usize) {
    if n >= 100 {
        ([n / 100, n / 10 % 10, n % 10], 3)
    } else if n >= 10 {
        ([n / 10, n % 10, 0], 2)
    } else {
        ([n, 0, 0], 1)
    }
}

/// Whether a byte is an ASCII vowel, in either case.
pub fn is_vowel(b: u8) -> bool {
    matches!(b.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Halving for the unsigned integers, implemented by a macro that takes the trait's name as
/// an argument, as num-traits' `int_trait_impl!(Num for usize u8 ...)` does.
pub trait Halve {
    /// Half the value, rounded down, or the value itself when it is below 2.
    fn halve(self) -> Self;
}

macro_rules! halve_impl {
    ($name:ident for $($t:ty)*) => ($(
        impl $name for $t {
            fn halve(self) -> Self {
                if self < 2 { self } else { self / 2 }
            }
        }
    )*)
}

halve_impl!(Halve for u8 u16 u32);

/// Halves a value twice; generic over the crate's own trait.
pub fn quarter<T: Halve>(x: T) -> T {
    x.halve().halve()
}

/// A decimal digit read from text: `FromStr` is core's trait, named by tests through std.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digit(pub u8);

impl core::str::FromStr for Digit {
    type Err = ();

    fn from_str(s: &str) -> Result<Digit, ()> {
        match s.as_bytes() {
            [b @ b'0'..=b'9'] => Ok(Digit(b - b'0')),
            _ => Err(()),
        }
    }
}
