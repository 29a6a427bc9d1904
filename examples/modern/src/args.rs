//! Command-line arguments as `OsStr` and `OsString`, the way argument lexers (clap_lex) take
//! them: borrowed `&OsStr`, owned `OsString`, and anything `Into<OsString>`.

use std::ffi::{OsStr, OsString};

/// `--name=value` split at the first `=`: the name, and the value when there is one.
pub fn split_long(arg: &OsStr) -> Option<(String, Option<OsString>)> {
    let rest = arg.to_str()?.strip_prefix("--")?;
    if rest.is_empty() {
        return None;
    }
    match rest.split_once('=') {
        Some((name, value)) => Some((name.to_string(), Some(OsString::from(value)))),
        None => Some((rest.to_string(), None)),
    }
}

/// The arguments of one command line, in order.
#[derive(Debug, Clone, Default)]
pub struct Args {
    items: Vec<OsString>,
}

impl Args {
    /// From anything that converts into `OsString` (`&str`, `String`, `PathBuf`, ...).
    pub fn new<I, S>(items: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Args {
            items: items.into_iter().map(Into::into).collect(),
        }
    }

    /// Appends one argument.
    pub fn push(&mut self, arg: OsString) {
        self.items.push(arg);
    }

    /// Arguments before `--` that start with `-`: long flags count once, `-abc` once per letter.
    pub fn flags(&self) -> usize {
        let mut n = 0;
        for arg in &self.items {
            let Some(s) = arg.to_str() else { continue };
            if s == "--" {
                break;
            }
            if s.starts_with("--") {
                n += 1;
            } else if let Some(short) = s.strip_prefix('-') {
                n += short.chars().count();
            }
        }
        n
    }
}

/// An extension trait implemented for `OsStr` itself, as clap_lex's `OsStrExt`.
pub trait ArgExt {
    /// `--name` or `--name=value`.
    fn is_long_flag(&self) -> bool;
}

impl ArgExt for OsStr {
    fn is_long_flag(&self) -> bool {
        self.to_str()
            .is_some_and(|s| s.len() > 2 && s.starts_with("--"))
    }
}

/// How many arguments are long flags, taken as clap_lex's `RawArgs::new` takes them.
pub fn count_long(items: impl IntoIterator<Item = impl Into<OsString>>) -> usize {
    items
        .into_iter()
        .map(Into::into)
        .filter(|a: &OsString| a.as_os_str().is_long_flag())
        .count()
}
