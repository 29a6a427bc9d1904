//! Tables a crate defines as constants and statics: a `Table` has no public constructor, so
//! the only values a test can pass are the crate's own `HTTP` and `SMTP`, borrowed for
//! `'static` where the signature asks for it.

/// Status codes of a protocol with their reasons.
#[derive(Debug, PartialEq)]
pub struct Table {
    name: &'static str,
    rows: &'static [(u16, &'static str)],
}

/// HTTP's common status codes.
pub const HTTP: Table = Table {
    name: "http",
    rows: &[(200, "OK"), (301, "Moved Permanently"), (404, "Not Found"), (500, "Internal Server Error")],
};

/// SMTP's reply codes.
pub static SMTP: Table = Table {
    name: "smtp",
    rows: &[(220, "Service ready"), (250, "OK"), (550, "Mailbox unavailable")],
};

/// The reason for `code` in `table`, borrowed from the table for as long as it lives.
pub fn reason(table: &'static Table, code: u16) -> Option<&'static str> {
    table
        .rows
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, r)| *r)
}

/// Whether `code` is an error in `table`'s protocol.
pub fn is_error(table: &Table, code: u16) -> bool {
    match table.name {
        "http" => code >= 400,
        "smtp" => code >= 500 || (400..500).contains(&code),
        _ => false,
    }
}

impl Table {
    /// Number of codes in the table.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table lists no code.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// A set of ASCII bytes, built only at compile time; the crate offers its sets as constants
/// that are references already, as percent-encoding's `NON_ALPHANUMERIC: &AsciiSet`.
#[derive(Debug)]
pub struct Charset {
    mask: u128,
}

/// Letters and digits.
pub const ALNUM: &Charset = &Charset {
    mask: (0x3ff << 48) | (0x7ff_fffe << 65) | (0x7ff_fffe << 97),
};

/// Space and tab.
pub const BLANK: &Charset = &Charset {
    mask: (1 << 32) | (1 << 9),
};

/// How many bytes of `text` the set holds; bytes above 127 never belong.
pub fn count_in(set: &'static Charset, text: &str) -> usize {
    text.bytes()
        .filter(|&b| b < 128 && set.mask & (1u128 << b) != 0)
        .count()
}

/// Both spacing sets at once, made at compile time as percent-encoding's sets are: `with`
/// stays a `const fn` the instrumentation leaves alone.
pub const SPACING: &Charset = &BLANK.with(b'\n');

impl Charset {
    /// The set with `byte` added; a byte above 127 is ignored. A test's only first `Charset`
    /// is one of the `&'static` constants, so the call reads `modern::tables::ALNUM.with(..)`.
    pub const fn with(&self, byte: u8) -> Charset {
        if byte >= 128 {
            return Charset { mask: self.mask };
        }
        Charset {
            mask: self.mask | (1 << byte),
        }
    }
}

/// Levels of a meter, a bit each. Its only value outside the crate is the associated
/// constant `Levels::NONE`.
#[derive(Debug, PartialEq)]
pub struct Levels {
    bits: u8,
}

impl Levels {
    /// No level set.
    pub const NONE: Levels = Levels { bits: 0 };

    /// The levels with `level` (0 to 7) set as well.
    pub fn set(&self, level: u8) -> Option<Levels> {
        let bit = 1u8.checked_shl(u32::from(level))?;
        Some(Levels {
            bits: self.bits | bit,
        })
    }

    /// Whether `level` is set.
    pub fn has(&self, level: u8) -> bool {
        level < 8 && self.bits & (1 << level) != 0
    }
}
