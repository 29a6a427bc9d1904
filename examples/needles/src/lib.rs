//! Branches behind needles the crate computes at run time from another argument: a prefix
//! built with `format!` and `to_uppercase`, and the first word of a text looked for again.
//! No literal of the crate holds either needle, so the constant pool cannot offer it; the
//! fixture of dynamic seeding (`frugal run --no-dynamic-seeding` is its ablation).

/// What [`read_tagged`] found in a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tagged {
    /// The tag is too short to tag anything.
    NoTag,
    /// The line does not start with the tag's prefix.
    Untagged,
    /// The prefix and nothing after it.
    Empty,
    /// A note after the prefix.
    Note(String),
    /// A note ending in `!`.
    Urgent(String),
}

/// Reads `line` as `TAG-n: text`, where `TAG` is `tag` upper-cased and `n` its length in
/// chars (`read_tagged("todo", "TODO-4: call back")` is a note).
pub fn read_tagged(tag: &str, line: &str) -> Tagged {
    let n = tag.chars().count();
    if n < 4 {
        return Tagged::NoTag;
    }
    let prefix = format!("{}-{}:", tag.to_uppercase(), n);
    match line.strip_prefix(&prefix) {
        None => Tagged::Untagged,
        Some(rest) => {
            let text = rest.trim();
            if text.is_empty() {
                Tagged::Empty
            } else if text.ends_with('!') {
                Tagged::Urgent(text.to_string())
            } else {
                Tagged::Note(text.to_string())
            }
        }
    }
}

/// How often the first word of a text comes back later in it, ignoring case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// No word at all.
    Silent,
    /// The first word is shorter than four chars: not worth looking for.
    Short,
    /// The first word does not come back.
    Once,
    /// It comes back once.
    Twice,
    /// It comes back more than once.
    Many,
}

/// Counts the echoes of the first word of `text` (`echoes("Hello, hello world")` is
/// [`Echo::Once`]: `Hello,` keeps its comma).
pub fn echoes(text: &str) -> Echo {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return Echo::Silent;
    };
    if first.chars().count() < 4 {
        return Echo::Short;
    }
    let key = first.to_lowercase();
    let again = words.filter(|w| w.to_lowercase() == key).count();
    match again {
        0 => Echo::Once,
        1 => Echo::Twice,
        _ => Echo::Many,
    }
}
