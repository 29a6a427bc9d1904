//! `frugal`: the command-line interface. It parses arguments, calls the engine crates, and
//! prints; the engine lives in `frugal-subject` and `frugal-search`. `run` and `profile` work
//! alone; `repo`, `trigger`, `status`, `suite` and `hooks` talk to `frugald` (`client_cmd`).

mod client_cmd;
mod profile_cmd;
mod replace_cmd;
mod run_cmd;

use clap::{Parser, Subcommand};

/// Performance-aware test generation for Rust crates.
#[derive(Debug, Parser)]
#[command(name = "frugal", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    conn: client_cmd::Conn,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate a verified regression test suite for a crate, one-shot.
    Run(run_cmd::RunArgs),
    /// Measure what a crate's tests cost to run, one process per test.
    Profile(profile_cmd::ProfileArgs),
    /// Find the cheapest mix of a crate's own tests and generated tests covering what its own
    /// suite covers, with measured cost before and after (locally, or from frugald with --repo).
    Replace(replace_cmd::ReplaceArgs),
    /// Manage the repositories frugald watches.
    #[command(subcommand)]
    Repo(client_cmd::RepoCmd),
    /// Ask frugald to regenerate the suites of a repository.
    Trigger(client_cmd::TriggerArgs),
    /// Show frugald's state, or one run with its live progress.
    Status(client_cmd::StatusArgs),
    /// Get stored suites from frugald.
    #[command(subcommand)]
    Suite(client_cmd::SuiteCmd),
    /// Install the git hooks that tell frugald about new commits.
    #[command(subcommand)]
    Hooks(client_cmd::HooksCmd),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run_cmd::run(args),
        Command::Profile(args) => profile_cmd::run(args),
        Command::Replace(args) => replace_cmd::run(&cli.conn, args),
        Command::Repo(cmd) => client_cmd::repo(&cli.conn, cmd),
        Command::Trigger(args) => client_cmd::trigger(&cli.conn, args),
        Command::Status(args) => client_cmd::status(&cli.conn, args),
        Command::Suite(cmd) => client_cmd::suite(&cli.conn, cmd),
        Command::Hooks(cmd) => client_cmd::hooks_cmd(&cli.conn, cmd),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}
