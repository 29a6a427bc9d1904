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
