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
