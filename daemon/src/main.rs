//! `frugal`: the command-line interface. It parses arguments, calls the engine crates, and
//! prints; the engine lives in `frugal-subject` and `frugal-search`.

mod profile_cmd;
mod run_cmd;

use clap::{Parser, Subcommand};

/// Performance-aware test generation for Rust crates.
#[derive(Debug, Parser)]
#[command(name = "frugal", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate a verified regression test suite for a crate, one-shot.
    Run(run_cmd::RunArgs),
    /// Measure what a crate's tests cost to run, one process per test.
    Profile(profile_cmd::ProfileArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run_cmd::run(args),
        Command::Profile(args) => profile_cmd::run(args),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}
