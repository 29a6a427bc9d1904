//! A borrowing iterator that is also `Display`, as percent-encoding's `PercentEncode`: each way
//! of consuming it runs its own code. Its own method (`needs_escaping`, as `PercentDecode`'s
//! `decode_utf8`) needs the iterator itself as a receiver.

use std::fmt;

/// The pieces of `input` with every `%` and space escaped.
pub struct Escaped<'a> {
    rest: &'a str,
}

/// Escapes `input` lazily.
pub fn escape(input: &str) -> Escaped<'_> {
    Escaped { rest: input }
}

impl Escaped<'_> {
    /// Whether anything in the rest of the input would be escaped, and where the first is.
    pub fn needs_escaping(&self) -> Option<usize> {
        self.rest.find(['%', ' '])
    }
}

impl<'a> Iterator for Escaped<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let first = self.rest.chars().next()?;
        let (piece, len) = match first {
            '%' => ("%25", 1),
            ' ' => ("%20", 1),
            c => {
                let end = self.rest.find(['%', ' ']).unwrap_or(self.rest.len());
                (&self.rest[..end], end.max(c.len_utf8()))
            }
        };
        self.rest = &self.rest[len..];
        Some(piece)
    }
}

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rest.is_empty() {
            return f.write_str("(nothing)");
        }
        for piece in (Escaped { rest: self.rest }) {
            f.write_str(piece)?;
        }
        Ok(())
    }
}
