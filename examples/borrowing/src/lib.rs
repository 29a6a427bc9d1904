//! An example crate whose results borrow their inputs: a lexer over `&'a str` yielding
//! `Token<'a>`, and a line reader over any `BufRead` that fills a caller's buffer and returns
//! a `Line<'b>` pointing into it. frugal's harness must lend those inputs to the results.

use std::io::BufRead;

/// A token of the source text, borrowing from it.
#[derive(Debug, Clone, PartialEq)]
pub enum Token<'a> {
    Word(&'a str),
    Number(u64),
    Punct(char),
}

impl<'a> Token<'a> {
    /// Length in bytes of the token's text (numbers count their digits).
    pub fn len(&self) -> usize {
        match self {
            Token::Word(w) => w.len(),
            Token::Number(n) => n.to_string().len(),
            Token::Punct(c) => c.len_utf8(),
        }
    }

    /// Whether the token is empty (never, for tokens the lexer yields).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the token is one of the language's keywords.
    pub fn is_keyword(&self) -> bool {
        matches!(self, Token::Word("let" | "fn" | "if" | "else" | "return"))
    }
}

/// Splits source text into words, numbers and punctuation.
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer { src, pos: 0 }
    }

    /// The next token, or `None` at the end of the text.
    pub fn next_token(&mut self) -> Option<Token<'a>> {
        let rest = &self.src[self.pos..];
        let start = rest.len() - rest.trim_start().len();
        self.pos += start;
        let rest = &self.src[self.pos..];
        let c = rest.chars().next()?;
        if c.is_ascii_digit() {
            let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            self.pos += end;
            let n = rest[..end].parse().unwrap_or(u64::MAX);
            return Some(Token::Number(n));
        }
        if c.is_alphabetic() || c == '_' {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            self.pos += end;
            return Some(Token::Word(&rest[..end]));
        }
        self.pos += c.len_utf8();
        Some(Token::Punct(c))
    }

    /// The text not yet tokenised.
    pub fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }
}

/// A line read into the caller's buffer.
#[derive(Debug)]
pub struct Line<'b> {
    pub number: usize,
    pub text: &'b [u8],
}

impl<'b> Line<'b> {
    /// Whether the line holds only whitespace.
    pub fn is_blank(&self) -> bool {
        self.text.iter().all(u8::is_ascii_whitespace)
    }

    /// Leading spaces, with a tab counting as four.
    pub fn indent(&self) -> usize {
        let mut n = 0;
        for b in self.text {
            match b {
                b' ' => n += 1,
                b'\t' => n += 4,
                _ => break,
            }
        }
        n
    }
}

/// Why a line could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadError {
    /// No more input.
    Eof,
    /// The line is longer than the reader's limit.
    TooLong(usize),
    /// The input could not be read.
    Io(String),
}

/// Parses what `Debug` prints for the two data-free cases and `TooLong(n)`.
impl std::str::FromStr for ReadError {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "Eof" => Ok(ReadError::Eof),
            _ => match s.strip_prefix("TooLong(").and_then(|r| r.strip_suffix(')')) {
                Some(n) => n.parse().map(ReadError::TooLong).map_err(|e| format!("{e}")),
                None => Err(format!("not a read error: {s}")),
            },
        }
    }
}

/// Reads numbered lines from any buffered source.
pub struct Lines<R> {
    inner: R,
    read: usize,
    limit: usize,
}

impl<R: BufRead> Lines<R> {
    pub fn new(inner: R, limit: usize) -> Self {
        Lines {
            inner,
            read: 0,
            limit,
        }
    }

    /// Reads the next line into `buf` (cleared first), without its line ending.
    pub fn read_line<'b>(&mut self, buf: &'b mut Vec<u8>) -> Result<Line<'b>, ReadError> {
        buf.clear();
        let n = self
            .inner
            .read_until(b'\n', buf)
            .map_err(|e| ReadError::Io(e.to_string()))?;
        if n == 0 {
            return Err(ReadError::Eof);
        }
        if buf.ends_with(b"\n") {
            buf.pop();
            if buf.ends_with(b"\r") {
                buf.pop();
            }
        }
        if buf.len() > self.limit {
            return Err(ReadError::TooLong(buf.len()));
        }
        self.read += 1;
        Ok(Line {
            number: self.read,
            text: buf,
        })
    }

    /// Lines read so far.
    pub fn count(&self) -> usize {
        self.read
    }
}
