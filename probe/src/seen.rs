//! Dynamic seeding (the input tracking of \[testability\], EvoSuite's dynamic constant pool):
//! the strings a test's values were compared against while it ran, for the search to try as
//! values next. A needle the crate computes at run time (a prefix built with `format!`, the
//! first word of the input looked for again) is in no literal of the crate; the probes see it
//! at the comparison that fails, and the search's next value can be exactly it.
//!
//! The probes note both operands of a string comparison that came out unequal and the pattern
//! of a text flag call that failed (`starts_with`, `contains`, ...); the search drops what it
//! already knows (its own values, the crate's literals). Noting is on the hot path of string
//! comparisons, so it never allocates and stays O(1): a fixed thread-local buffer of
//! [`SLOTS`] strings of at most [`MAX_LEN`] bytes, filled once per test; a string whose
//! (length, first bytes, last byte) fingerprint was noted before is taken for a repeat
//! without comparing it (a rare fingerprint clash loses a string, never a test).

use std::cell::RefCell;

/// Strings noted per test.
pub const SLOTS: usize = 16;
/// Longest string noted, in bytes: needles are words and prefixes, not documents.
pub const MAX_LEN: usize = 48;

struct Seen {
    bytes: [[u8; MAX_LEN]; SLOTS],
    lens: [u8; SLOTS],
    n: usize,
    /// A 256-bit set of the fingerprints noted in this test.
    prints: [u64; 4],
}

thread_local! {
    static SEEN: RefCell<Seen> = const {
        RefCell::new(Seen {
            bytes: [[0; MAX_LEN]; SLOTS],
            lens: [0; SLOTS],
            n: 0,
            prints: [0; 4],
        })
    };
}

/// Notes `s` as a value the current test was compared against.
#[inline]
pub fn note(s: &str) {
    if s.is_empty() || s.len() > MAX_LEN {
        return;
    }
    // `try_with`: a comparison in a thread-local destructor runs after ours is gone.
    let _ = SEEN.try_with(|seen| {
        if let Ok(mut seen) = seen.try_borrow_mut() {
            seen.push(s.as_bytes());
        }
    });
}

impl Seen {
    fn push(&mut self, s: &[u8]) {
        if self.n == SLOTS {
            return;
        }
        let print = fingerprint(s);
        let (word, bit) = ((print >> 6) as usize & 3, 1u64 << (print & 63));
        if self.prints[word] & bit != 0 {
            return;
        }
        self.prints[word] |= bit;
        self.bytes[self.n][..s.len()].copy_from_slice(s);
        self.lens[self.n] = s.len() as u8;
        self.n += 1;
    }
}

/// Eight bits from the length, the first four bytes and the last one.
#[inline]
fn fingerprint(s: &[u8]) -> u8 {
    let mut head = [0u8; 4];
    let k = s.len().min(4);
    head[..k].copy_from_slice(&s[..k]);
    let x = u64::from(u32::from_le_bytes(head))
        ^ (s.len() as u64) << 32
        ^ u64::from(s[s.len() - 1]) << 40;
    (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8
}

/// Forgets what the previous test noted.
pub fn clear() {
    let _ = SEEN.try_with(|seen| {
        if let Ok(mut seen) = seen.try_borrow_mut() {
            seen.n = 0;
            seen.prints = [0; 4];
        }
    });
}

/// Moves what this test noted into `out`, in the order noted (valid UTF-8 only: a noted
/// string is whole, never cut).
pub fn drain(out: &mut Vec<String>) {
    let _ = SEEN.try_with(|seen| {
        if let Ok(mut seen) = seen.try_borrow_mut() {
            for i in 0..seen.n {
                let bytes = &seen.bytes[i][..usize::from(seen.lens[i])];
                if let Ok(s) = std::str::from_utf8(bytes) {
                    out.push(s.to_string());
                }
            }
            seen.n = 0;
            seen.prints = [0; 4];
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drained() -> Vec<String> {
        let mut v = Vec::new();
        drain(&mut v);
        v
    }

    #[test]
    fn notes_each_string_once_in_order_and_forgets_at_clear() {
        clear();
        for s in ["ABC-3:", "x", "ABC-3:", "héllo", "x"] {
            note(s);
        }
        assert_eq!(drained(), ["ABC-3:", "x", "héllo"]);
        note("y");
        clear();
        assert!(drained().is_empty());
    }

    #[test]
    fn skips_empty_and_long_strings_and_stops_when_full() {
        clear();
        note("");
        note(&"a".repeat(MAX_LEN + 1));
        note(&"b".repeat(MAX_LEN));
        for i in 0..2 * SLOTS {
            note(&format!("w{i}"));
        }
        let got = drained();
        assert_eq!(got.len(), SLOTS);
        assert_eq!(got[0], "b".repeat(MAX_LEN));
    }
}
