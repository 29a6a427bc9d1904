//! `cargo-frugal`: the `frugal` CLI as a cargo subcommand, so CI scripts can say
//! `cargo frugal check --commit "$SHA"`. Cargo runs `cargo-frugal frugal <args>`; this drops
//! that leading `frugal` and replaces itself with the `frugal` binary installed beside it (or
//! the one on `PATH`), so both names are the same program with the same arguments and exit
//! codes.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

/// The arguments for `frugal`: cargo's leading `frugal` removed (absent when run directly).
fn frugal_args(mut args: Vec<OsString>) -> Vec<OsString> {
    if args.first().is_some_and(|a| a == "frugal") {
        args.remove(0);
    }
    args
}

/// `frugal` beside this executable (as `cargo install` and `cargo build` place them), or the
/// name alone, which `exec` looks up on `PATH`.
fn frugal_binary() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("frugal")))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("frugal"))
}

fn main() {
    let args = frugal_args(std::env::args_os().skip(1).collect());
    let bin = frugal_binary();
    let err = Command::new(&bin).args(args).exec();
    eprintln!(
        "cargo-frugal: cannot run {}: {err} (install it with `cargo install --path cli`, which \
         installs both `frugal` and `cargo-frugal`)",
        bin.display()
    );
    std::process::exit(frugal_api::exit::ERROR);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_leading_frugal_of_cargo_is_dropped_once() {
        let a = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(frugal_args(a(&["frugal", "check"])), a(&["check"]));
        assert_eq!(frugal_args(a(&["check"])), a(&["check"]));
        assert_eq!(
            frugal_args(a(&["frugal", "frugal"])),
            a(&["frugal"]),
            "only cargo's"
        );
    }
}
