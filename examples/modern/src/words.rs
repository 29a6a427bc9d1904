//! Results that are only useful once consumed: iterators (`impl Iterator`, a crate type
//! implementing `Iterator`, over borrowed or `'static` data) and `Display` adaptors (`impl
//! Display`, a tuple wrapper whose only use is its `Display` impl). Their code runs only when
//! a test collects or formats them.

use std::fmt;

/// Words too common to index.
pub static STOP_WORDS: [&str; 5] = ["a", "an", "the", "of", "and"];

/// The stop words longer than `n` bytes, from static data.
pub fn stop_words_longer_than(n: usize) -> impl Iterator<Item = &'static str> {
    STOP_WORDS.iter().copied().filter(move |w| w.len() > n)
}

/// Even numbers below `limit`, counting down when `down` is set.
pub fn evens(limit: u32, down: bool) -> impl Iterator<Item = u32> {
    let all = (0..limit).filter(|x| x % 2 == 0);
    let mut v: Vec<u32> = all.collect();
    if down {
        v.reverse();
    }
    v.into_iter()
}

/// The words of a text, split on whitespace and punctuation, borrowing from it.
pub struct Words<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let start = self.rest.find(|c: char| c.is_alphanumeric())?;
        let rest = &self.rest[start..];
        let end = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

/// Iterates over the words of `text`.
pub fn words(text: &str) -> Words<'_> {
    Words { rest: text }
}

/// Shows a word shouted: upper case, with one `!` per vowel.
pub struct Shout<'a>(pub &'a str);

impl fmt::Display for Shout<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let vowels = self.0.chars().filter(|c| "aeiou".contains(*c)).count();
        if vowels == 0 {
            return write!(f, "{}?", self.0.to_uppercase());
        }
        write!(f, "{}{}", self.0.to_uppercase(), "!".repeat(vowels))
    }
}

/// `word` shouted.
pub fn shout(word: &str) -> Shout<'_> {
    Shout(word)
}

/// The numbers as a comma-separated list, `(none)` when empty.
pub fn listing(numbers: &[u32]) -> impl fmt::Display + '_ {
    struct Listing<'a>(&'a [u32]);
    impl fmt::Display for Listing<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            if self.0.is_empty() {
                return f.write_str("(none)");
            }
            for (i, n) in self.0.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{n}")?;
            }
            Ok(())
        }
    }
    Listing(numbers)
}

/// The width of text given as characters from either end, as unicode-width's
/// `S: DoubleEndedIterator<Item = char>`: the last digit seen from the back, if any.
pub fn last_digit<S: DoubleEndedIterator<Item = char>>(chars: S) -> Option<u32> {
    chars.rev().find_map(|c| c.to_digit(10))
}

/// Vowels among characters taken as any iterator.
pub fn vowels(chars: impl Iterator<Item = char>) -> usize {
    chars.filter(|c| "aeiouAEIOU".contains(*c)).count()
}

/// An extension trait on every iterator (itertools' shape): its receiver is an iterator
/// stand-in, `Vec::<i32>::new().into_iter()` when empty, which `vec![].into_iter()` would not
/// type.
pub trait Tally: Iterator + Sized {
    /// How many items the iterator yields.
    fn tally(self) -> usize {
        self.count()
    }
}

impl<I: Iterator> Tally for I {}
