//! `frugal profile` without the rest of the `frugal` CLI: compiles the daemon's real
//! `profile_cmd.rs`, so this crate's tests exercise it before the lead wires it into `frugal`.
//!
//! `cargo run -p frugal-profiler --example frugal-profile -- path/to/crate [--valgrind] [--json]`
//! (build `frugal-launch` first: `cargo build -p frugal-profiler --bins`).

#[path = "../../daemon/src/profile_cmd.rs"]
mod profile_cmd;

use clap::Parser;

#[derive(Parser)]
#[command(name = "frugal-profile")]
struct Cli {
    #[command(flatten)]
    args: profile_cmd::ProfileArgs,
}

fn main() -> anyhow::Result<()> {
    profile_cmd::run(Cli::parse().args)
}
