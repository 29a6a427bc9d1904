//! Fuzzing the config parser: arbitrary text, TOML shaped from the real sections and keys with
//! values of every type, and arbitrary environment overrides must end in a config or an error
//! naming where, never a panic. A smoke in `cargo test`; `FRUGAL_FUZZ_SECS=600` for a long run
//! (see `frugal_testkit::fuzz`).

use frugal_config::{Config, KEYS, env_var};
use frugal_testkit::fuzz::fuzz;
use proptest::prelude::*;

/// A TOML value of any shape, often near a valid one.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        "[a-z0-9 .:/*@-]{0,12}".prop_map(|s| format!("{s:?}")),
        any::<String>().prop_map(|s| format!("{s:?}")),
        "(0|1|30|5|999999999999999999999)(|ms|s|m|h|K|M|G|T|iB|x)".prop_map(|s| format!("{s:?}")),
        Just("[]".to_string()),
        Just("{ name = \"a\", dir = \"../x\" }".to_string()),
        Just("1.5".to_string()),
        Just("1979-05-27T07:32:00Z".to_string()),
    ]
}

/// A config file: sections from the real ones (and some not), keys from the real ones (and
/// some not), any values, sometimes broken syntax.
fn document() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        proptest::sample::select(KEYS).prop_map(|k| k.to_string()),
        "[a-z]{1,8}\\.[a-z_]{1,12}",
    ];
    let line = prop_oneof![
        (key, value()).prop_map(|(k, v)| {
            let (section, name) = k.split_once('.').unwrap_or(("x", "y"));
            format!("[{section}]\n{name} = {v}\n")
        }),
        "[^\\n]{0,20}".prop_map(|s| format!("{s}\n")),
        Just("[[repo]]\npath = \"/r\"\ncrates = [\"a\", { name = \"\" }]\n".to_string()),
        Just("[[repo]]\n".to_string()),
    ];
    proptest::collection::vec(line, 0..8).prop_map(|v| v.concat())
}

fn env() -> impl Strategy<Value = Vec<(String, String)>> {
    let var = prop_oneof![
        proptest::sample::select(KEYS).prop_map(env_var),
        "FRUGAL_(DAEMON|JOBS|RETENTION)_[A-Z_]{0,10}",
    ];
    proptest::collection::vec((var, "[^\\x00]{0,16}"), 0..3)
}

/// Parses, and renders the error as a user would see it (the message code runs too).
fn parse(text: &str, env: Vec<(String, String)>) {
    match Config::from_toml(text, Some(std::path::Path::new("/etc/frugal/f.toml")), env) {
        Ok(c) => {
            let _ = c.origin("daemon.listen");
        }
        Err(e) => {
            let _ = (e.to_string(), e.line(), e.key());
        }
    }
}

#[test]
fn arbitrary_text_never_panics_the_parser() {
    fuzz("config text", any::<String>(), |text| {
        parse(&text, Vec::new());
        Ok(())
    });
}

#[test]
fn config_shaped_documents_and_overrides_never_panic_the_parser() {
    fuzz("config documents", (document(), env()), |(text, env)| {
        parse(&text, env);
        Ok(())
    });
}
