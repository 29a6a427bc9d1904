//! Extension traits: methods added to `str`-like types through a blanket impl over
//! `AsRef<str>`, to byte slices and to integers, called as `"text".to_snake()`; and a method
//! generic over a sealed trait the crate implements for each unsigned integer through a
//! `macro_rules!` macro.

/// Case conversions for anything that reads as a `str`.
pub trait CaseExt {
    /// `HelloWorld` and `hello world` become `hello_world`.
    fn to_snake(&self) -> String;
    /// Number of words separated by spaces, dashes or underscores.
    fn word_count(&self) -> usize;
}

impl<T: AsRef<str>> CaseExt for T {
    fn to_snake(&self) -> String {
        let mut out = String::new();
        for (i, c) in self.as_ref().chars().enumerate() {
            if c.is_uppercase() {
                if i > 0 && !out.ends_with('_') {
                    out.push('_');
                }
                out.extend(c.to_lowercase());
            } else if c == ' ' || c == '-' {
                out.push('_');
            } else {
                out.push(c);
            }
        }
        out
    }

    fn word_count(&self) -> usize {
        self.as_ref()
            .split([' ', '-', '_'])
            .filter(|w| !w.is_empty())
            .count()
    }
}

/// Checks over byte strings.
pub trait BytesExt {
    /// XOR of all bytes.
    fn checksum(&self) -> u8;
    /// Whether every byte is printable ASCII.
    fn is_printable(&self) -> bool;
}

impl BytesExt for [u8] {
    fn checksum(&self) -> u8 {
        self.iter().fold(0, |acc, b| acc ^ b)
    }

    fn is_printable(&self) -> bool {
        self.iter().all(|b| (0x20..0x7f).contains(b))
    }
}

/// Digits of an unsigned number.
pub trait DigitsExt {
    /// Number of decimal digits (`0` has one).
    fn digits(self) -> u32;
}

impl DigitsExt for u32 {
    fn digits(self) -> u32 {
        if self == 0 {
            1
        } else {
            self.ilog10() + 1
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Unsigned integers a [`Packer`] takes; implemented for `u8`, `u16` and `u32` only.
pub trait Width: sealed::Sealed + Copy {
    /// Bits the value takes in the packed word.
    const BITS: u32;
    /// The value widened to `u64`.
    fn widen(self) -> u64;
}

macro_rules! impl_width {
    ($($t:ty),*) => {
        $(
            impl sealed::Sealed for $t {}
            impl Width for $t {
                const BITS: u32 = <$t>::BITS;
                fn widen(self) -> u64 {
                    self as u64
                }
            }
        )*
    };
}

impl_width!(u8, u16, u32);

/// Packs unsigned values into one 64-bit word, first value in the low bits.
#[derive(Debug, Default)]
pub struct Packer {
    word: u64,
    used: u32,
}

impl Packer {
    /// An empty packer.
    pub fn new() -> Self {
        Packer::default()
    }

    /// Appends `value`; `false` (and nothing appended) when it does not fit.
    pub fn push<W: Width>(&mut self, value: W) -> bool {
        if self.used + W::BITS > 64 {
            return false;
        }
        self.word |= value.widen() << self.used;
        self.used += W::BITS;
        true
    }

    /// The packed word so far.
    pub fn word(&self) -> u64 {
        self.word
    }

    /// Bits still free.
    pub fn free(&self) -> u32 {
        64 - self.used
    }
}
