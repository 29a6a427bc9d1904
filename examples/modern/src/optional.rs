//! Optional borrowed parameters, ranges and `Cow` conversions, as quick-xml's unescaping and
//! attribute parsing take them: `Option<&str>`, `Option<&[u8]>`, `Option<&HashMap<..>>`,
//! `Range<usize>`, `RangeInclusive<u32>` and `C: Into<Cow<'a, str>>`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::{Range, RangeInclusive};

/// A greeting for `name`, or for nobody in particular.
pub fn greet(name: Option<&str>) -> String {
    match name {
        Some("") => "hello, you".to_string(),
        Some(n) => format!("hello, {n}"),
        None => "hello".to_string(),
    }
}

/// The wrapping sum of `bytes` plus `seed`; `seed` alone without bytes.
pub fn checksum(bytes: Option<&[u8]>, seed: u8) -> u8 {
    match bytes {
        Some(b) if b.len() > 3 => b.iter().fold(seed, |acc, x| acc.wrapping_add(*x)),
        Some(b) => seed.wrapping_sub(b.len() as u8),
        None => seed,
    }
}

/// `text` with every `&name;` replaced by `custom[name]`, or left as it is when `custom` has
/// no such entry (or there is no `custom`).
pub fn expand(text: &str, custom: Option<&HashMap<String, String>>) -> String {
    let Some(custom) = custom else {
        return text.to_string();
    };
    let mut out = text.to_string();
    for (name, value) in custom {
        if !name.is_empty() {
            out = out.replace(&format!("&{name};"), value);
        }
    }
    out
}

/// The part of `text` inside `range`, when the range is in bounds and on char boundaries.
pub fn window(text: &str, range: Range<usize>) -> Option<String> {
    if range.start > range.end {
        return None;
    }
    text.get(range).map(str::to_string)
}

/// How many values `span` holds, saturating.
pub fn span_len(span: RangeInclusive<u32>) -> u32 {
    if span.is_empty() {
        0
    } else {
        (span.end() - span.start()).saturating_add(1)
    }
}

/// `text` as an owned or borrowed string, trimmed of one trailing newline.
pub fn chomp<'a, C: Into<Cow<'a, str>>>(text: C) -> Cow<'a, str> {
    let text = text.into();
    if text.ends_with('\n') {
        Cow::Owned(text.trim_end_matches('\n').to_string())
    } else {
        text
    }
}
