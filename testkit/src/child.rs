//! Child-process entry points for tests that kill a process mid-work (`kill -9`): the test
//! binary re-runs itself with [`CHILD_ENV`] naming an entry point, which does its work and
//! prints acknowledgements on stdout while the parent test kills it.
//!
//! Such a test target sets `harness = false` and calls [`main`] with its tests and entry points:
//! entries run only when asked for and are never listed or counted as tests, while the tests
//! keep libtest's interface (filters, `--list`, nextest) through `libtest-mimic`.

use std::process::{Child, Command, Stdio};

use libtest_mimic::{Arguments, Trial};

/// Names the entry point a re-run test binary runs instead of its tests.
pub const CHILD_ENV: &str = "FRUGAL_TESTKIT_CHILD";
/// The argument handed to the entry point (a directory, usually).
pub const ARG_ENV: &str = "FRUGAL_TESTKIT_CHILD_ARG";

/// A child entry point: gets [`ARG_ENV`]'s value.
pub type Entry = (&'static str, fn(&str));

/// Runs the named entry point when this process is a child, else the tests.
pub fn main(tests: Vec<(&'static str, fn())>, entries: &[Entry]) -> ! {
    if let Ok(name) = std::env::var(CHILD_ENV) {
        let arg = std::env::var(ARG_ENV).unwrap_or_default();
        match entries.iter().find(|(n, _)| *n == name) {
            Some((_, entry)) => entry(&arg),
            None => panic!("no child entry point named {name}"),
        }
        std::process::exit(0);
    }
    let trials = tests
        .into_iter()
        .map(|(name, f)| {
            Trial::test(name, move || {
                f();
                Ok(())
            })
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit()
}

/// Starts this test binary again as the child `entry` with `arg`, stdout piped.
pub fn spawn(entry: &str, arg: &std::path::Path) -> std::io::Result<Child> {
    Command::new(std::env::current_exe()?)
        .env(CHILD_ENV, entry)
        .env(ARG_ENV, arg)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn()
}
