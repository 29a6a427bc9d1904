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
