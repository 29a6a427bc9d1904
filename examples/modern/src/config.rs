//! A configuration type whose only constructor is its derived `Default` (fields private,
//! setters on `&mut self`), as httparse's `ParserConfig`; and an extension trait generic over
//! the result's types, as anyhow's `Context<T, E>`.

/// Limits on accepted text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    max_len: usize,
    strict: bool,
}

impl Limits {
    /// Sets the longest accepted text (0: no limit).
    pub fn max_len(&mut self, n: usize) -> &mut Self {
        self.max_len = n;
        self
    }

    /// Refuses control characters when on.
    pub fn strict(&mut self, on: bool) -> &mut Self {
        self.strict = on;
        self
    }

    /// Whether `text` passes the limits.
    pub fn accepts(&self, text: &str) -> bool {
        if self.max_len > 0 && text.len() > self.max_len {
            return false;
        }
        !(self.strict && text.chars().any(char::is_control))
    }
}

/// Explains a failed result with what was being done.
pub trait Explain<T, E> {
    /// The error, prefixed with `what`, as text.
    fn explain(self, what: &str) -> Result<T, String>;
}

impl<T, E: std::fmt::Display> Explain<T, E> for Result<T, E> {
    fn explain(self, what: &str) -> Result<T, String> {
        self.map_err(|e| format!("{what}: {e}"))
    }
}
