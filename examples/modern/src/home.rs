//! Values read from the process environment, as lsd's `Config::config_file_path()` (through
//! `xdg`) and clap_lex's `RawArgs::default()` (through `std::env::args_os()`). A test may use
//! them, but an assertion on what they hold is true only where the search ran.

use std::path::{Path, PathBuf};

/// Where the settings would be kept: under `$HOME`.
pub fn settings_path() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    Some(PathBuf::from(home).join(".config").join("modern"))
}

/// The last component of `path`, upper-cased, or `"ROOT"`: the same wherever `$HOME` is.
pub fn label(path: &Path) -> String {
    match path.file_name().and_then(|n| n.to_str()) {
        Some(name) => name.to_ascii_uppercase(),
        None => "ROOT".to_string(),
    }
}

/// The program's arguments after its name, as clap_lex's `RawArgs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    args: Vec<String>,
}

impl Default for Invocation {
    /// The arguments this process was started with: different in every run.
    fn default() -> Self {
        Invocation {
            args: std::env::args().collect(),
        }
    }
}

impl Invocation {
    /// Arguments given by the caller: what a test should use.
    pub fn new(args: Vec<String>) -> Self {
        Invocation { args }
    }

    /// The flags (arguments starting with `-`) among the arguments.
    pub fn flags(&self) -> usize {
        self.args.iter().filter(|a| a.starts_with('-')).count()
    }
}
