//! Text edits at byte offsets of one source file, applied without re-printing the file.
//!
//! Probes are written as insertions (openers before a node, closers after it) and a few
//! replacements of single operator tokens. Several insertions often land on the same offset
//! (`branch(` + `close_and(` + `leaf(` before the first operand), so the order at one offset is
//! part of the design: closers of nodes ending there come first, innermost first; then openers
//! of nodes starting there, outermost first; then a replacement starting there. "Outer" is
//! decided by the wrapped node's byte range and, for equal ranges, by creation order (the
//! visitor creates outer edits before inner ones).

use std::fmt;

/// What an edit does at its offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Text inserted at the end of `node`.
    Close,
    /// Text inserted at the start of `node`.
    Open,
    /// Replaces `pos..end`, which must hold no other edit.
    Replace { end: usize },
}

/// One insertion or replacement.
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    pub pos: usize,
    pub kind: Kind,
    /// Byte range of the syntax node the text belongs to, for ordering at equal offsets.
    pub node: (usize, usize),
    /// Creation order, for ordering wrappers of equal nodes.
    pub seq: u32,
    pub text: String,
}

/// Two edits claim the same bytes: a bug in the instrumenter, reported per file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Overlap {
    pub pos: usize,
}

impl fmt::Display for Overlap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "overlapping edits at byte {}", self.pos)
    }
}

impl Edit {
    /// Sort key implementing the ordering described in the module docs.
    fn key(&self) -> (usize, u8, i64, i64) {
        let (start, end) = (self.node.0 as i64, self.node.1 as i64);
        let seq = i64::from(self.seq);
        match self.kind {
            Kind::Close => (self.pos, 0, -start, -seq),
            Kind::Open => (self.pos, 1, -end, seq),
            Kind::Replace { .. } => (self.pos, 2, 0, seq),
        }
    }
}

/// Applies `edits` to `text`; every byte outside the edits is kept as it is.
pub(crate) fn apply(text: &str, mut edits: Vec<Edit>) -> Result<String, Overlap> {
    edits.sort_by_key(Edit::key);
    let extra: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = String::with_capacity(text.len() + extra);
    let mut cursor = 0;
    for e in &edits {
        if e.pos < cursor || e.pos > text.len() || !text.is_char_boundary(e.pos) {
            return Err(Overlap { pos: e.pos });
        }
        out.push_str(&text[cursor..e.pos]);
        out.push_str(&e.text);
        cursor = match e.kind {
            Kind::Replace { end } if end >= e.pos && end <= text.len() => end,
            Kind::Replace { .. } => return Err(Overlap { pos: e.pos }),
            Kind::Open | Kind::Close => e.pos,
        };
    }
    out.push_str(&text[cursor..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(pos: usize, kind: Kind, node: (usize, usize), seq: u32, text: &str) -> Edit {
        Edit {
            pos,
            kind,
            node,
            seq,
            text: text.to_string(),
        }
    }

    #[test]
    fn outer_openers_come_first_and_inner_closers_first() {
        // `a` wrapped twice with equal ranges: outer created first.
        let edits = vec![
            edit(0, Kind::Open, (0, 1), 2, "in("),
            edit(1, Kind::Close, (0, 1), 1, "]"),
            edit(0, Kind::Open, (0, 1), 1, "out["),
            edit(1, Kind::Close, (0, 1), 2, ")"),
        ];
        assert_eq!(apply("a", edits).unwrap(), "out[in(a)]");
    }

    #[test]
    fn longer_node_opens_first_and_closes_last() {
        let edits = vec![
            edit(0, Kind::Open, (0, 1), 5, "<"),
            edit(1, Kind::Close, (0, 1), 5, ">"),
            edit(0, Kind::Open, (0, 3), 9, "["),
            edit(3, Kind::Close, (0, 3), 9, "]"),
        ];
        assert_eq!(apply("a+b", edits).unwrap(), "[<a>+b]");
    }

    #[test]
    fn closers_precede_replacements_and_openers_follow_them() {
        let edits = vec![
            edit(1, Kind::Replace { end: 3 }, (0, 4), 1, ", "),
            edit(1, Kind::Close, (0, 1), 2, ")"),
            edit(0, Kind::Open, (0, 1), 2, "f("),
            edit(3, Kind::Open, (3, 4), 3, "g("),
            edit(4, Kind::Close, (3, 4), 3, ")"),
        ];
        assert_eq!(apply("a==b", edits).unwrap(), "f(a), g(b)");
    }

    #[test]
    fn edits_inside_a_replacement_are_rejected() {
        let edits = vec![
            edit(0, Kind::Replace { end: 3 }, (0, 3), 1, "x"),
            edit(1, Kind::Open, (1, 2), 2, "y"),
        ];
        assert_eq!(apply("abc", edits), Err(Overlap { pos: 1 }));
    }
}
