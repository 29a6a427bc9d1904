//! `textparse`: an example crate for frugal's test generator.
//!
//! It exercises string parsing that returns `Result` with a crate error
//! enum: a `key=value;key2=value2` config line, compound durations such as
//! `"1h30m"`, and semantic versions such as `"1.2.3-beta"`. The code uses
//! `?`, `if let`, `let ... else`, `match` on `&str` and on `char`, and
//! `&&`/`||` chains. All keywords, units and separators appear as literals,
//! so a generator that seeds strings from the crate's constants can reach
//! every branch.

use std::fmt;

/// Separator between config entries.
pub const ENTRY_SEPARATOR: char = ';';

/// Longest accepted duration, in seconds (one week).
pub const MAX_SECONDS: u64 = 604_800;

/// Most digits accepted in one number (durations and version parts).
pub const MAX_DIGITS: usize = 6;

/// Largest accepted `retries` value.
pub const MAX_RETRIES: u8 = 10;

/// Everything that can go wrong while parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    Empty,
    MissingSeparator(usize),
    EmptyKey(usize),
    UnknownKey(usize),
    DuplicateKey(usize),
    BadBool(usize),
    BadNumber,
    OutOfRange,
    MissingNumber(char),
    MissingUnit,
    InvalidChar(char),
    Overflow,
    MissingPart(u8),
    LeadingZero(u8),
    TooManyParts,
    EmptyPreRelease,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => write!(f, "empty input"),
            ParseError::MissingSeparator(i) => write!(f, "entry {i}: missing '='"),
            ParseError::EmptyKey(i) => write!(f, "entry {i}: empty key"),
            ParseError::UnknownKey(i) => write!(f, "entry {i}: unknown key"),
            ParseError::DuplicateKey(i) => write!(f, "entry {i}: duplicate key"),
            ParseError::BadBool(i) => write!(f, "entry {i}: not a boolean"),
            ParseError::BadNumber => write!(f, "not a number"),
            ParseError::OutOfRange => write!(f, "value out of range"),
            ParseError::MissingNumber(u) => write!(f, "unit '{u}' without a number"),
            ParseError::MissingUnit => write!(f, "number without a unit"),
            ParseError::InvalidChar(c) => write!(f, "invalid character '{c}'"),
            ParseError::Overflow => write!(f, "value overflows"),
            ParseError::MissingPart(p) => write!(f, "version part {p} missing"),
            ParseError::LeadingZero(p) => write!(f, "version part {p} has a leading zero"),
            ParseError::TooManyParts => write!(f, "too many version parts"),
            ParseError::EmptyPreRelease => write!(f, "empty pre-release tag"),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses a boolean word: `true/yes/on/1` or `false/no/off/0`.
pub fn parse_bool(word: &str) -> Option<bool> {
    match word.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// Parses a duration such as `"30s"`, `"5m"`, `"2h"`, `"1d"` or a compound
/// like `"1h30m"` into seconds. Numbers have at most `MAX_DIGITS` digits
/// and the total may not exceed `MAX_SECONDS`.
pub fn parse_duration(text: &str) -> Result<u64, ParseError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ParseError::Empty);
    }
    let mut total: u64 = 0;
    let mut pending: Option<u64> = None;
    let mut digits = 0;
    for c in text.chars() {
        match c {
            '0'..='9' => {
                digits += 1;
                if digits > MAX_DIGITS {
                    return Err(ParseError::Overflow);
                }
                let digit = u64::from(c as u8 - b'0');
                pending = Some(pending.unwrap_or(0) * 10 + digit);
            }
            's' | 'm' | 'h' | 'd' => {
                let Some(amount) = pending.take() else {
                    return Err(ParseError::MissingNumber(c));
                };
                digits = 0;
                let factor = match c {
                    's' => 1,
                    'm' => 60,
                    'h' => 3_600,
                    _ => 86_400,
                };
                total += amount * factor;
                if total > MAX_SECONDS {
                    return Err(ParseError::OutOfRange);
                }
            }
            other => return Err(ParseError::InvalidChar(other)),
        }
    }
    if pending.is_some() {
        return Err(ParseError::MissingUnit);
    }
    Ok(total)
}

/// Settings read from a config line.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub name: String,
    pub timeout_secs: u64,
    pub retries: u8,
    pub verbose: bool,
    pub tags: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            name: String::from("default"),
            timeout_secs: 30,
            retries: 3,
            verbose: false,
            tags: Vec::new(),
        }
    }
}

/// Parses `"name=web;timeout=1m;retries=2;verbose=yes;tags=a,b"`.
/// Missing keys keep their defaults; blank entries are skipped.
pub fn parse_config(line: &str) -> Result<Config, ParseError> {
    if line.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let mut config = Config::default();
    let mut seen: Vec<&str> = Vec::new();
    for (index, entry) in line.split(ENTRY_SEPARATOR).enumerate() {
        let entry = entry.trim();
        if entry.is_empty() || entry.starts_with('#') {
            continue;
        }
        let Some((key, value)) = entry.split_once('=') else {
            return Err(ParseError::MissingSeparator(index));
        };
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() {
            return Err(ParseError::EmptyKey(index));
        }
        if seen.contains(&key) {
            return Err(ParseError::DuplicateKey(index));
        }
        match key {
            "name" => config.name = value.to_string(),
            "timeout" => config.timeout_secs = parse_duration(value)?,
            "retries" => {
                let n: u8 = value.parse().map_err(|_| ParseError::BadNumber)?;
                if n > MAX_RETRIES {
                    return Err(ParseError::OutOfRange);
                }
                config.retries = n;
            }
            "verbose" => match parse_bool(value) {
                Some(b) => config.verbose = b,
                None => return Err(ParseError::BadBool(index)),
            },
            "tags" => {
                config.tags = value
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(String::from)
                    .collect();
            }
            _ => return Err(ParseError::UnknownKey(index)),
        }
        seen.push(key);
    }
    Ok(config)
}

/// A semantic version `MAJOR.MINOR.PATCH[-PRE]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Option<String>,
}

fn parse_part(part: Option<&str>, position: u8) -> Result<u64, ParseError> {
    let part = match part {
        Some(p) if !p.is_empty() => p,
        _ => return Err(ParseError::MissingPart(position)),
    };
    if part.len() > 1 && part.starts_with('0') {
        return Err(ParseError::LeadingZero(position));
    }
    if part.len() > MAX_DIGITS {
        return Err(ParseError::Overflow);
    }
    let mut value: u64 = 0;
    for c in part.chars() {
        let Some(digit) = c.to_digit(10) else {
            return Err(ParseError::BadNumber);
        };
        value = value * 10 + u64::from(digit);
    }
    Ok(value)
}

impl Version {
    /// Creates a release version without a pre-release tag.
    pub fn new(major: u64, minor: u64, patch: u64) -> Self {
        Version {
            major,
            minor,
            patch,
            pre: None,
        }
    }

    /// Parses `"1.2.3"`, `"v1.2.3"` or `"1.2.3-beta.1"`.
    pub fn parse(text: &str) -> Result<Version, ParseError> {
        let mut text = text.trim();
        if text.is_empty() {
            return Err(ParseError::Empty);
        }
        if let Some(rest) = text.strip_prefix('v') {
            text = rest;
        }
        let (core, pre) = match text.split_once('-') {
            Some((_, "")) => return Err(ParseError::EmptyPreRelease),
            Some((core, tag)) => (core, Some(tag.to_string())),
            None => (text, None),
        };
        let mut parts = core.split('.');
        let major = parse_part(parts.next(), 0)?;
        let minor = parse_part(parts.next(), 1)?;
        let patch = parse_part(parts.next(), 2)?;
        if parts.next().is_some() {
            return Err(ParseError::TooManyParts);
        }
        Ok(Version {
            major,
            minor,
            patch,
            pre,
        })
    }

    /// Returns the next version for `"major"`, `"minor"` or `"patch"`.
    pub fn bump(&self, level: &str) -> Result<Version, ParseError> {
        let next = match level {
            "major" => Version::new(self.major.saturating_add(1), 0, 0),
            "minor" => Version::new(self.major, self.minor.saturating_add(1), 0),
            "patch" if self.pre.is_some() => Version::new(self.major, self.minor, self.patch),
            "patch" => Version::new(self.major, self.minor, self.patch.saturating_add(1)),
            _ => return Err(ParseError::BadNumber),
        };
        Ok(next)
    }

    /// Caret compatibility: `other` can replace `self` without breaking.
    pub fn is_compatible(&self, other: &Version) -> bool {
        if self.major != other.major || (other.pre.is_some() && self.pre.is_none()) {
            return false;
        }
        if self.major == 0 {
            self.minor == other.minor && other.patch >= self.patch
        } else {
            (other.minor, other.patch) >= (self.minor, self.patch)
        }
    }

    /// Formats the version back to text.
    pub fn render(&self) -> String {
        match &self.pre {
            Some(tag) => format!("{}.{}.{}-{}", self.major, self.minor, self.patch, tag),
            None => format!("{}.{}.{}", self.major, self.minor, self.patch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(30));
        assert_eq!(parse_duration("1h30m"), Ok(5_400));
        assert_eq!(parse_duration("2d"), Ok(172_800));
        assert_eq!(parse_duration("m"), Err(ParseError::MissingNumber('m')));
        assert_eq!(parse_duration("12"), Err(ParseError::MissingUnit));
        assert_eq!(parse_duration("5x"), Err(ParseError::InvalidChar('x')));
        assert_eq!(parse_duration(""), Err(ParseError::Empty));
    }

    #[test]
    fn bools() {
        assert_eq!(parse_bool(" YES "), Some(true));
        assert_eq!(parse_bool("off"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn version_parts() {
        assert_eq!(parse_part(Some("01"), 1), Err(ParseError::LeadingZero(1)));
        assert_eq!(parse_part(None, 2), Err(ParseError::MissingPart(2)));
        assert_eq!(parse_part(Some("0"), 0), Ok(0));
    }
}
