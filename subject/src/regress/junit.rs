//! JUnit XML for a [`Report`]: the format CI systems display. quick-xml writes it, escaping
//! markup; characters XML 1.0 cannot carry at all (most control characters, which panic
//! messages may hold) are replaced first.

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::report::{Outcome, Report, TestReport};

/// The JUnit document for `reports`: one `testsuite` per crate checked.
pub(crate) fn render(reports: &[&Report]) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing into a Vec cannot fail.
    let _ = write(&mut w, reports);
    let mut text = String::from_utf8(w.into_inner()).unwrap_or_default();
    text.push('\n');
    text
}

/// `tests`, `failures`, `errors` and `time` over `reports`.
fn counts(reports: &[&Report]) -> [(&'static str, String); 4] {
    let sum = |f: fn(&Report) -> usize| reports.iter().map(|r| f(r)).sum::<usize>().to_string();
    let time: f64 = reports
        .iter()
        .map(|r| r.build_seconds + r.run_seconds)
        .sum();
    [
        ("tests", sum(|r| r.tests.len())),
        ("failures", sum(|r| r.changed() + r.no_longer_compile())),
        ("errors", sum(|r| r.crashed() + r.timed_out())),
        ("time", format!("{time:.3}")),
    ]
}

fn write(w: &mut Writer<Vec<u8>>, reports: &[&Report]) -> std::io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let all = counts(reports);
    w.create_element("testsuites")
        .with_attribute(("name", "frugal check"))
        .with_attributes(all.iter().map(|(k, v)| (*k, v.as_str())))
        .write_inner_content(|w| {
            for r in reports {
                let krate = xml_text(&r.krate);
                let classname = format!("{krate}::frugal_generated");
                let own = counts(&[r]);
                w.create_element("testsuite")
                    .with_attribute(("name", krate.as_str()))
                    .with_attributes(own.iter().map(|(k, v)| (*k, v.as_str())))
                    .with_attribute(("skipped", "0"))
                    .write_inner_content(|w| {
                        for t in &r.tests {
                            testcase(w, t, &classname)?;
                        }
                        Ok(())
                    })?;
            }
            Ok(())
        })?;
    Ok(())
}

fn testcase(w: &mut Writer<Vec<u8>>, t: &TestReport, classname: &str) -> std::io::Result<()> {
    let name = xml_text(&t.name);
    let case = w
        .create_element("testcase")
        .with_attribute(("name", name.as_str()))
        .with_attribute(("classname", classname));
    let (element, kind) = match &t.outcome {
        Outcome::Passed => {
            case.write_empty()?;
            return Ok(());
        }
        Outcome::Flaky { .. } => {
            let note = xml_text(&format!("flaky: {}", t.describe()));
            case.write_inner_content(|w| {
                w.create_element("system-out")
                    .write_text_content(BytesText::new(&note))?;
                Ok(())
            })?;
            return Ok(());
        }
        Outcome::Changed { .. } => ("failure", "behaviour-changed"),
        Outcome::NoLongerCompiles { .. } => ("failure", "no-longer-compiles"),
        Outcome::Crashed { .. } => ("error", "crashed"),
        Outcome::TimedOut => ("error", "timed-out"),
    };
    let message = xml_text(&t.describe());
    let detail = xml_text(&details(t));
    case.write_inner_content(|w| {
        w.create_element(element)
            .with_attribute(("type", kind))
            .with_attribute(("message", message.as_str()))
            .write_text_content(BytesText::new(&detail))?;
        Ok(())
    })?;
    Ok(())
}

/// The failure's body: the full compiler error or change, then the test's source.
fn details(t: &TestReport) -> String {
    let what = match &t.outcome {
        Outcome::NoLongerCompiles { error, .. } => error.clone(),
        Outcome::Changed {
            change:
                super::Change::Value {
                    expected,
                    actual,
                    assertion,
                    ..
                },
        } => format!("{assertion}\nexpected: {expected}\n  actual: {actual}"),
        Outcome::Changed {
            change: super::Change::UnexpectedPanic { message },
        } => format!("panicked: {message}"),
        _ => t.describe(),
    };
    format!("{what}\n\n{}\n", t.body)
}

/// `s` with every character XML 1.0 cannot hold (control characters other than tab, line
/// feed and carriage return, and the non-characters U+FFFE and U+FFFF) written as `\u{..}`.
pub(crate) fn xml_text(s: &str) -> String {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{D7FF}').contains(&c)
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    };
    if s.chars().all(allowed) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if allowed(c) {
                c.to_string()
            } else {
                format!("\\u{{{:x}}}", c as u32)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{Change, TestReport};
    use super::*;
    use quick_xml::Reader;
    use quick_xml::events::Event;

    fn report() -> Report {
        let body =
            "#[test]\nfn t() {\n    let s = p::f(\"<a & 'b'>\");\n    assert_eq!(s, \"x\");\n}";
        let tests = vec![
            TestReport {
                name: "passes".into(),
                body: body.into(),
                outcome: Outcome::Passed,
            },
            TestReport {
                name: "changed".into(),
                body: body.into(),
                outcome: Outcome::Changed {
                    change: Change::Value {
                        subject: "p::f(\"<a & 'b'>\")".into(),
                        expected: "\"x\"".into(),
                        actual: "\"]]> \u{1b}[31m\u{0} </failure>\"".into(),
                        assertion: "assert_eq!(s, \"x\");".into(),
                    },
                },
            },
            TestReport {
                name: "gone".into(),
                body: body.into(),
                outcome: Outcome::NoLongerCompiles {
                    item: Some("p::f".into()),
                    error: "error[E0425]: cannot find function `f` in crate `p`".into(),
                },
            },
            TestReport {
                name: "crash".into(),
                body: body.into(),
                outcome: Outcome::Crashed {
                    detail: "killed by signal 11 (SIGSEGV)".into(),
                },
            },
        ];
        Report {
            krate: "p".into(),
            tests,
            build_seconds: 1.0,
            run_seconds: 0.25,
        }
    }

    /// An element: its name, its attributes, the text inside.
    type Element = (String, Vec<(String, String)>, String);

    /// Every element of `xml`, in document order.
    fn elements(xml: &str) -> Vec<Element> {
        let mut reader = Reader::from_str(xml);
        let mut out: Vec<Element> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        loop {
            let event = reader.read_event().expect("well-formed XML");
            match &event {
                Event::Start(e) | Event::Empty(e) => {
                    let attrs = e
                        .attributes()
                        .map(|a| {
                            let a = a.expect("a well-formed attribute");
                            let key = String::from_utf8(a.key.as_ref().to_vec()).unwrap();
                            let value = a.unescape_value().expect("escaped value").into_owned();
                            (key, value)
                        })
                        .collect();
                    let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                    out.push((name, attrs, String::new()));
                    if matches!(event, Event::Start(_)) {
                        open.push(out.len() - 1);
                    }
                }
                Event::Text(t) => {
                    if let Some(&i) = open.last() {
                        out[i].2.push_str(&t.decode().unwrap());
                    }
                }
                Event::GeneralRef(r) => {
                    if let Some(&i) = open.last() {
                        let name = r.decode().unwrap();
                        let c = quick_xml::escape::resolve_predefined_entity(&name)
                            .expect("a predefined entity");
                        out[i].2.push_str(c);
                    }
                }
                Event::End(_) => {
                    open.pop();
                }
                Event::Eof => break,
                _ => {}
            }
        }
        out
    }

    #[test]
    fn the_document_parses_back_with_matching_counts_and_escaped_text() {
        let xml = report().junit();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
        let els = elements(&xml);
        let attr =
            |el: &Element, k: &str| el.1.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let suite = els.iter().find(|e| e.0 == "testsuite").unwrap();
        assert_eq!(attr(suite, "tests").as_deref(), Some("4"));
        assert_eq!(attr(suite, "failures").as_deref(), Some("2"));
        assert_eq!(attr(suite, "errors").as_deref(), Some("1"));
        assert_eq!(els.iter().filter(|e| e.0 == "testcase").count(), 4);
        assert_eq!(els.iter().filter(|e| e.0 == "failure").count(), 2);
        assert_eq!(els.iter().filter(|e| e.0 == "error").count(), 1);
        let failure = els.iter().find(|e| e.0 == "failure").unwrap();
        assert_eq!(attr(failure, "type").as_deref(), Some("behaviour-changed"));
        let message = attr(failure, "message").unwrap();
        assert!(
            message.contains("p::f(\"<a & 'b'>\") was \"x\""),
            "{message}"
        );
        assert!(
            message.contains("\\u{1b}[31m\\u{0} </failure>"),
            "{message}"
        );
        assert!(
            failure.2.contains("let s = p::f(\"<a & 'b'>\");"),
            "{}",
            failure.2
        );
        assert!(failure.2.contains("actual: \"]]> \\u{1b}"), "{}", failure.2);
    }

    #[test]
    fn characters_xml_cannot_hold_are_written_as_escapes() {
        assert_eq!(xml_text("a\tb\nc"), "a\tb\nc");
        assert_eq!(
            xml_text("\u{0}x\u{1b}\u{fffe}é😀"),
            "\\u{0}x\\u{1b}\\u{fffe}é😀"
        );
    }
}
