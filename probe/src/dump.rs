//! Coverage of a whole process, for running a crate's own tests on the instrumented copy.
//!
//! Nobody calls [`crate::init`] in a test binary. When `FRUGAL_COVERAGE_OUT` (a file) and
//! `FRUGAL_COVERAGE_SIZES` (`goals,functions,loops`, from the instrumenter's manifest) are set,
//! the first probe call initialises the tables and registers an `atexit` handler that appends
//! the ids of the goals covered (distance 0) to that file, one per line, followed by a line `.`
//! that marks a complete dump. Appending in one `write` lets several processes share one file
//! (their union is what a suite covers). Without the variables nothing happens, and the probe
//! crate stays dependency-free (`atexit` is declared here, not taken from `libc`).
//!
//! Limitation: the environment is read on the first probe call, which allocates; a crate whose
//! own global allocator is instrumented would re-enter it.

use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;

/// File the covered goal ids are appended to at exit.
pub const OUT_ENV: &str = "FRUGAL_COVERAGE_OUT";
/// `goals,functions,loops`: the table sizes of the instrumented crate.
pub const SIZES_ENV: &str = "FRUGAL_COVERAGE_SIZES";
/// Last line of a complete dump.
pub const END_MARK: &str = ".";

static OUT: OnceLock<PathBuf> = OnceLock::new();

unsafe extern "C" {
    fn atexit(f: extern "C" fn()) -> i32;
}

/// Reads the coverage environment; when both variables are valid, sizes the tables and
/// registers the dump.
pub(crate) fn init_from_env() {
    let (Some(out), Some(sizes)) = (std::env::var_os(OUT_ENV), std::env::var(SIZES_ENV).ok())
    else {
        return;
    };
    let Some((goals, functions, loops)) = parse_sizes(&sizes) else {
        return;
    };
    crate::tables::init(goals, functions, loops);
    if OUT.set(PathBuf::from(out)).is_ok() {
        // SAFETY: `dump_at_exit` is a plain `extern "C" fn()` that never unwinds.
        unsafe {
            atexit(dump_at_exit);
        }
    }
}

fn parse_sizes(text: &str) -> Option<(usize, usize, usize)> {
    let mut parts = text.split(',').map(|p| p.trim().parse::<usize>().ok());
    let sizes = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(sizes)
}

/// The text one process appends: covered ids, then the end mark.
pub fn render(ids: &[u32]) -> String {
    let mut text = String::with_capacity(ids.len() * 6 + 2);
    for id in ids {
        text.push_str(&id.to_string());
        text.push('\n');
    }
    text.push_str(END_MARK);
    text.push('\n');
    text
}

extern "C" fn dump_at_exit() {
    // Unwinding out of an `extern "C"` fn aborts; nothing here may panic.
    let _ = std::panic::catch_unwind(|| {
        let Some(path) = OUT.get() else { return };
        let text = render(&crate::tables::covered_goals());
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(text.as_bytes());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_need_three_numbers() {
        assert_eq!(parse_sizes("10,2,1"), Some((10, 2, 1)));
        assert_eq!(parse_sizes(" 3 , 0 ,0"), Some((3, 0, 0)));
        assert_eq!(parse_sizes("10,2"), None);
        assert_eq!(parse_sizes("10,2,1,4"), None);
        assert_eq!(parse_sizes("a,2,1"), None);
    }

    #[test]
    fn a_dump_ends_with_the_mark() {
        assert_eq!(render(&[0, 7]), "0\n7\n.\n");
        assert_eq!(render(&[]), ".\n");
    }
}
