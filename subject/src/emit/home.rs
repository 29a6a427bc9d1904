//! In-module placement: tests that call private items of a module live inside that module.
//!
//! The suite stays one file. Its tests for module `date` sit in a macro,
//! `frugal_in_date`, which `src/date.rs` invokes on a line appended at its end
//! (`crate::frugal_generated::frugal_in_date!();`): expanded there, the tests are a child
//! module of `date` and may name its private items, while the crate's own lines do not move.
//! A `// frugal-home: date src/date.rs` line opens each such section; placement reads it to
//! know which files get the invocation.
//!
//! Macros are re-exported by path (`pub(crate) use`), which edition 2015 lacks: analysis
//! gives private items no home there.

use std::collections::BTreeMap;

use crate::model::{ApiModel, Home};

/// Where one test must live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestHome {
    /// With the other tests, where the placement puts the suite.
    Root,
    /// Inside this module.
    Module(Home),
    /// It calls private items of two modules neither of which encloses the other.
    Conflict(String, String),
}

impl TestHome {
    /// Why a test cannot be placed, if it cannot.
    pub fn refusal(&self) -> Option<String> {
        match self {
            TestHome::Conflict(a, b) => Some(format!(
                "calls private items of modules `{a}` and `{b}`: no test module can name both"
            )),
            _ => None,
        }
    }

    /// The module the test must be compiled in, when it is one.
    pub fn module(&self) -> Option<&Home> {
        match self {
            TestHome::Module(h) => Some(h),
            _ => None,
        }
    }
}

/// The module a test's text must be compiled in: the deepest home of the crate paths it names
/// and of the callables it `calls` (a method call names no path).
pub fn of_test<'a>(text: &str, calls: impl Iterator<Item = &'a str>, model: &ApiModel) -> TestHome {
    if model.homes.is_empty() {
        return TestHome::Root;
    }
    let mut home: Option<&Home> = None;
    let paths = crate_paths(text, &model.crate_name);
    let calls: Vec<&str> = calls.collect();
    for path in paths.iter().map(String::as_str).chain(calls) {
        let Some(found) = model.home_of(path) else {
            continue;
        };
        home = match home {
            None => Some(found),
            Some(h) if encloses(&h.module, &found.module) => Some(found),
            Some(h) if encloses(&found.module, &h.module) => Some(h),
            Some(h) => return TestHome::Conflict(h.module.clone(), found.module.clone()),
        };
    }
    match home {
        Some(h) => TestHome::Module(h.clone()),
        None => TestHome::Root,
    }
}

/// Whether module `outer` is `inner` or one of its ancestors.
pub(crate) fn encloses(outer: &str, inner: &str) -> bool {
    outer == inner
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with("::"))
}

/// Every `krate::a::B` path in `text` (generic arguments and the rest cut off).
fn crate_paths(text: &str, krate: &str) -> Vec<String> {
    let prefix = format!("{krate}::");
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(&prefix).map(|i| from + i) {
        from = at + prefix.len();
        if text[..at].chars().next_back().is_some_and(ident) {
            continue;
        }
        let len = text[at..]
            .find(|c: char| !(ident(c) || c == ':'))
            .unwrap_or(text.len() - at);
        out.push(text[at..at + len].trim_end_matches(':').to_string());
    }
    out
}

/// The macro holding a module's tests: `frugal_in_meta__size` for `meta::size`.
pub fn macro_name(module: &str) -> String {
    format!("frugal_in_{}", module.replace("::", "__"))
}

/// The line placement appends to a home's file.
pub fn invocation(module: &str) -> String {
    format!(
        "\n#[cfg(test)]\ncrate::{}::{}!();\n",
        super::verify::TEST_TARGET,
        macro_name(module)
    )
}

const MARK: &str = "// frugal-home: ";

/// The opening lines of a home's section, up to where its tests start, and its closing lines.
pub fn section(home: &Home, krate: &str) -> (String, String) {
    let name = macro_name(&home.module);
    let open = format!(
        "{MARK}{module} {file}\n\
         /// Tests of private items of `{module}`: `{file}` ends with\n\
         /// `crate::{target}::{name}!();`, which expands them inside that module.\n\
         macro_rules! {name} {{\n    () => {{\n        \
         #[allow({allows})]\n        \
         mod {target} {{\n{std}            use crate as {krate};\n",
        allows = super::IN_CRATE_ALLOWS,
        module = home.module,
        file = home.file,
        target = super::verify::TEST_TARGET,
        std = indent(super::STD_IN_MODULE),
    );
    let close = format!("        }}\n    }};\n}}\npub(crate) use {name};\n");
    (open, close)
}

/// Lines of a test inside a section, indented as the module's body.
pub fn indent(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 12 * text.lines().count());
    for line in text.lines() {
        if !line.is_empty() {
            out.push_str("            ");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The homes a suite's text declares, in order: module path and file.
pub fn declared(text: &str) -> Vec<Home> {
    text.lines()
        .filter_map(|l| l.strip_prefix(MARK))
        .filter_map(|rest| {
            let (module, file) = rest.trim().split_once(' ')?;
            Some(Home {
                module: module.to_string(),
                file: file.to_string(),
            })
        })
        .collect()
}

/// The module each test of a suite's text lives in, for tests inside a home's section.
pub fn modules_by_test(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut module: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(MARK) {
            module = rest.split_once(' ').map(|(m, _)| m.to_string());
        } else if line.starts_with("pub(crate) use frugal_in_") {
            module = None;
        } else if let (Some(m), Some(name)) = (&module, test_fn_name(line)) {
            out.insert(name.to_string(), m.clone());
        }
    }
    out
}

/// `name` of a line `fn name() {`, however indented.
fn test_fn_name(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("fn ")?;
    rest.strip_suffix("() {")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(homes: &[(&str, &str)]) -> ApiModel {
        ApiModel {
            crate_name: "tight".into(),
            homes: homes
                .iter()
                .map(|(p, m)| {
                    let home = Home {
                        module: m.to_string(),
                        file: format!("src/{}.rs", m.replace("::", "/")),
                    };
                    (p.to_string(), home)
                })
                .collect(),
            ..ApiModel::default()
        }
    }

    #[test]
    fn a_test_lives_in_the_deepest_module_it_needs() {
        let m = model(&[
            ("tight::date::days_in_month", "date"),
            ("tight::date::inner", "date"),
            ("tight::date::inner::deep", "date::inner"),
            ("tight::expense::total", "expense"),
        ]);
        let home = |t: &str| of_test(t, std::iter::empty(), &m);
        assert_eq!(home("let x = tight::top(1);"), TestHome::Root);
        assert_eq!(
            home("let a = tight::date::days_in_month(1, 2);")
                .module()
                .map(|h| &h.module[..]),
            Some("date")
        );
        assert_eq!(
            home("tight::date::days_in_month(1, 2); tight::date::inner::deep::<u8>();")
                .module()
                .map(|h| &h.module[..]),
            Some("date::inner")
        );
        assert_eq!(
            home("tight::date::days_in_month(1, 2); tight::expense::total();"),
            TestHome::Conflict("date".into(), "expense".into())
        );
        // Another crate's path that merely ends in the name is not the crate's.
        assert_eq!(home("nottight::date::days_in_month(1, 2);"), TestHome::Root);
        // A method call writes no path; its callable's path places it.
        let called = of_test(
            "d.days_in_month(1)",
            ["tight::date::days_in_month"].into_iter(),
            &m,
        );
        assert_eq!(called.module().map(|h| &h.module[..]), Some("date"));
    }

    #[test]
    fn sections_declare_their_homes_and_tests() {
        let home = Home {
            module: "meta::size".into(),
            file: "src/meta/size.rs".into(),
        };
        let (open, close) = section(&home, "lsd");
        let test = "#[test]\nfn unit_is_kb() {\n    assert!(true);\n}\n";
        let text = format!(
            "//! header\n\n#[test]\nfn root() {{\n}}\n{open}{}{close}",
            indent(test)
        );
        assert_eq!(declared(&text), vec![home]);
        let by_test = modules_by_test(&text);
        assert_eq!(
            by_test.get("unit_is_kb").map(String::as_str),
            Some("meta::size")
        );
        assert!(!by_test.contains_key("root"));
        assert!(open.contains("macro_rules! frugal_in_meta__size"));
        assert_eq!(
            invocation("meta::size"),
            "\n#[cfg(test)]\ncrate::frugal_generated::frugal_in_meta__size!();\n"
        );
    }
}
