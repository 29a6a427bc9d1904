//! `flagparse`: an example crate whose branches sit behind std's flag APIs.
//!
//! Every interesting branch is guarded by a call that answers only yes or no: a
//! prefix (`strip_prefix`, `starts_with`), a number (`parse`, `u32::try_from`), a
//! key lookup (`contains_key`), a separator (`split_once`) or a checksum compared
//! with `eq_ignore_ascii_case`. Some guards want values no literal of the crate
//! holds: an id too large for `u32`, or the checksum of the very sentence being
//! parsed, which a search without a gradient finds only by luck. It is the subject
//! of frugal's testability transformations (see `bench/TESTABILITY.md`).

use std::collections::BTreeMap;

/// A parsed request line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    Item(u32),
    Range(u8, u8),
    Quit,
}

/// Everything that can go wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    Empty,
    UnknownVerb,
    BadNumber,
    TooBig,
    MissingDash,
    Reversed,
    MissingEquals,
    UnknownScheme,
    Privileged,
    NoDollar,
    NoChecksum,
    BadChecksum,
    MissingComma,
}

/// Parses `get <id>`, `range <a>-<b>` and `quit`.
pub fn parse_request(line: &str) -> Result<Request, Error> {
    if line.is_empty() {
        return Err(Error::Empty);
    }
    if let Some(rest) = line.strip_prefix("get ") {
        let id: u64 = rest.parse().map_err(|_| Error::BadNumber)?;
        let id = u32::try_from(id).map_err(|_| Error::TooBig)?;
        return Ok(Request::Item(id));
    }
    if let Some(rest) = line.strip_prefix("range ") {
        let (a, b) = rest.split_once('-').ok_or(Error::MissingDash)?;
        let a: u8 = a.parse().map_err(|_| Error::BadNumber)?;
        let b: u8 = b.parse().map_err(|_| Error::BadNumber)?;
        if a > b {
            return Err(Error::Reversed);
        }
        return Ok(Request::Range(a, b));
    }
    if line.starts_with("quit") {
        return Ok(Request::Quit);
    }
    Err(Error::UnknownVerb)
}

/// Default ports of the known schemes, overridable one line at a time.
#[derive(Debug, Clone)]
pub struct Ports {
    ports: BTreeMap<String, u16>,
}

impl Default for Ports {
    fn default() -> Self {
        Self::new()
    }
}

impl Ports {
    /// `http` on 80 and `https` on 443.
    pub fn new() -> Self {
        let ports = [("http".to_string(), 80), ("https".to_string(), 443)]
            .into_iter()
            .collect();
        Ports { ports }
    }

    /// Applies `scheme=port` to a known scheme; ports below 1024 are refused.
    pub fn set(&mut self, line: &str) -> Result<u16, Error> {
        let (scheme, port) = line.split_once('=').ok_or(Error::MissingEquals)?;
        if !self.ports.contains_key(scheme) {
            return Err(Error::UnknownScheme);
        }
        let port: u32 = port.parse().map_err(|_| Error::BadNumber)?;
        let port = u16::try_from(port).map_err(|_| Error::TooBig)?;
        if port < 1024 {
            return Err(Error::Privileged);
        }
        self.ports.insert(scheme.to_string(), port);
        Ok(port)
    }

    /// The port of a scheme, if known.
    pub fn port(&self, scheme: &str) -> Option<u16> {
        self.ports.get(scheme).copied()
    }
}

/// The value of a hexadecimal digit pair such as `"7f"`.
pub fn hex_byte(s: &str) -> Option<u8> {
    let mut chars = s.chars();
    let hi = chars.next()?.to_digit(16)?;
    let lo = chars.next()?.to_digit(16)?;
    if chars.next().is_some() {
        return None;
    }
    Some((hi * 16 + lo) as u8)
}

/// A check digit: the XOR of the bytes of `payload` (as NMEA sentences check themselves),
/// folded to four bits.
fn checksum(payload: &str) -> u8 {
    let x = payload.bytes().fold(0, |acc, b| acc ^ b);
    (x >> 4) ^ (x & 0xf)
}

/// Parses `$name,value*h`, where `h` is the [`checksum`] of `name,value` as one hexadecimal
/// digit (either case), into the name and the value.
pub fn sentence(line: &str) -> Result<(String, i32), Error> {
    let body = line.strip_prefix('$').ok_or(Error::NoDollar)?;
    let (payload, sum) = body.rsplit_once('*').ok_or(Error::NoChecksum)?;
    let (name, value) = payload.split_once(',').ok_or(Error::MissingComma)?;
    let value: i32 = value.parse().map_err(|_| Error::BadNumber)?;
    let expected = format!("{:x}", checksum(payload));
    if !sum.eq_ignore_ascii_case(&expected) {
        return Err(Error::BadChecksum);
    }
    Ok((name.to_string(), value))
}

/// The band of a radio channel. Past the offset, the arms are one channel and a narrow range
/// that no literal of the crate holds, so a search reaches them only by the distance to each
/// arm, which the `match` on integer literals reports (`num_arms`).
pub fn band(channel: u32) -> &'static str {
    match channel.wrapping_sub(70_001) {
        0 => "base",
        4_093 => "emergency",
        31_337..=31_339 => "maritime",
        _ => "other",
    }
}
