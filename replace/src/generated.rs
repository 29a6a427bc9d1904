//! Cutting a generated test file (`frugal_generated.rs`) down to the tests a replacement needs.
//!
//! Text only: the emitter writes a preamble (doc comments, `#![allow]`) and then one `#[test]`
//! fn per test, each starting at column 0 with its attributes. A test's text runs from the
//! first attribute line before its `#[test]` to the next test's attributes, so the kept tests
//! are byte-for-byte what verification compiled.

/// A generated file split into its preamble and tests.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedFile {
    /// Everything before the first test (doc comments, inner attributes, `use`s, helpers),
    /// kept whole in every rendering; the whole file when it has no test.
    pub preamble: String,
    /// (name, text) in file order.
    pub tests: Vec<(String, String)>,
}

impl GeneratedFile {
    /// Splits the emitter's text at each test's first attribute line. Never fails: a file
    /// without a `#[test]` is all preamble, and a test whose `fn` is not found at column 0 gets
    /// an empty name.
    pub fn parse(text: &str) -> GeneratedFile {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let starts = test_starts(&lines);
        let Some(&first) = starts.first() else {
            return GeneratedFile {
                preamble: text.to_string(),
                tests: Vec::new(),
            };
        };
        let preamble = lines[..first].concat();
        let tests = starts
            .iter()
            .enumerate()
            .map(|(k, &start)| {
                let end = starts.get(k + 1).copied().unwrap_or(lines.len());
                let chunk = lines[start..end].concat();
                (fn_name(&chunk).unwrap_or_default(), chunk)
            })
            .collect();
        GeneratedFile { preamble, tests }
    }

    /// The file with only the tests named in `keep` (in file order) and a note on top.
    pub fn render(&self, keep: &[String], note: &str) -> String {
        let mut text = String::new();
        for line in note.lines() {
            text.push_str("// ");
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&self.preamble);
        for (name, body) in &self.tests {
            if keep.contains(name) {
                text.push_str(body);
            }
        }
        text
    }
}

/// Line indices where a test's text begins: the first of the attribute lines (and the blank
/// line) right before a `#[test]` line.
fn test_starts(lines: &[&str]) -> Vec<usize> {
    let mut starts = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim_end() != "#[test]" {
            continue;
        }
        let mut start = i;
        while start > 0 && lines[start - 1].starts_with("#[") {
            start -= 1;
        }
        if start > 0 && lines[start - 1].trim().is_empty() {
            start -= 1;
        }
        if starts.last().is_none_or(|&last| last < start) {
            starts.push(start);
        }
    }
    starts
}

/// The name of the first `fn` at column 0.
fn fn_name(chunk: &str) -> Option<String> {
    chunk.lines().find_map(|l| {
        let rest = l.strip_prefix("fn ")?;
        let end = rest.find(['(', '<'])?;
        Some(rest[..end].trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "//! header\n#![allow(unused_mut)]\n\n#[test]\nfn a() {\n    x(1);\n}\n\n#[test]\n#[should_panic(expected = \"boom\")]\nfn b_2() {\n    y();\n}\n";

    #[test]
    fn splits_preamble_and_tests() {
        let f = GeneratedFile::parse(FILE);
        assert_eq!(f.preamble, "//! header\n#![allow(unused_mut)]\n");
        let names: Vec<&str> = f.tests.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "b_2"]);
        assert!(f.tests[1].1.contains("should_panic"));
        assert_eq!(f.render(&["a".into(), "b_2".into()], ""), FILE);
    }

    #[test]
    fn render_keeps_only_the_named_tests() {
        let f = GeneratedFile::parse(FILE);
        let text = f.render(&["b_2".into()], "kept: 1");
        assert!(text.starts_with("// kept: 1\n//! header"));
        assert!(!text.contains("fn a()"));
        assert!(text.contains("fn b_2()"));
    }
}
