//! `frugal`: the command-line interface. It parses arguments, calls the engine crates, and
//! prints; the engine lives in `frugal-subject` and `frugal-search`, the service in `frugald`,
//! whose answers, token and address files it reads through `frugal-api` (never `frugald`
//! itself), as are its exit codes (`frugal_api::exit`).
//! One module per subcommand under `cmd/`; `client` is the HTTP client of `frugald`'s API and
//! `hooks` writes the git hooks.

mod client;
mod cmd;
mod hooks;

// The search allocates and frees small vectors for every test it breeds and every result it
// takes in; glibc's allocator was a fifth of the search thread's time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};
use frugal_api::exit;

/// Performance-aware test generation for Rust crates.
#[derive(Debug, Parser)]
#[command(name = "frugal", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    conn: client::Conn,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate a verified regression test suite for a crate, one-shot.
    Run(cmd::run::RunArgs),
    /// Run a stored suite against a crate and report which behaviours changed (exit 1 when
    /// any did).
    Check(cmd::check::CheckArgs),
    /// Measure what a crate's tests cost to run, one process per test.
    Profile(cmd::profile::ProfileArgs),
    /// Find the cheapest mix of a crate's own tests and generated tests covering what its own
    /// suite covers, with measured cost before and after (locally, or from frugald with --repo).
    Replace(cmd::replace::ReplaceArgs),
    /// Manage the repositories frugald watches.
    #[command(subcommand)]
    Repo(cmd::repo::RepoCmd),
    /// Ask frugald to regenerate the suites of a repository.
    Trigger(cmd::trigger::TriggerArgs),
    /// Show frugald's state, or one run with its live progress.
    Status(cmd::status::StatusArgs),
    /// Get stored suites from frugald.
    #[command(subcommand)]
    Suite(cmd::suite::SuiteCmd),
    /// Accept the behaviour changes frugald reported for a commit (CI stops failing on them; a
    /// suite held by `regressions.policy = "hold"` becomes the best one).
    Accept(cmd::accept::AcceptArgs),
    /// Install the git hooks that tell frugald about new commits.
    #[command(subcommand)]
    Hooks(cmd::hooks::HooksCmd),
    /// Make, list and revoke scoped API tokens (read, trigger, admin); needs the admin token.
    #[command(subcommand)]
    Token(cmd::token::TokenCmd),
    /// Delete what frugald's retention settings no longer keep, and old `frugal run` work dirs
    /// from the local cache.
    Gc(cmd::gc::GcArgs),
    /// Move frugald's store between sled and PostgreSQL (runs `frugald store-migrate`).
    #[command(subcommand)]
    Store(cmd::store::StoreCmd),
}

fn main() {
    // Before anything else: this executable is also the profiler's launcher, so an install
    // without `frugal-launch` can still measure suites.
    frugal_profiler::launcher::serve_if_asked();
    let cli = Cli::parse();
    // One cgroup for all the crate code this invocation runs (entered on this thread, where the
    // commands make their sandbox policies); killed whole when it drops, before any exit.
    let runs_code = matches!(
        cli.command,
        Command::Run(_) | Command::Check(_) | Command::Profile(_) | Command::Replace(_)
    );
    let scope = match runs_code.then(cmd::invocation_scope).transpose() {
        Ok(scope) => scope,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(exit::ERROR);
        }
    };
    let entered = scope.as_ref().map(frugal_sandbox::JobScope::enter);
    let mut exit_code = exit::OK;
    let result = match cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Check(args) => cmd::check::run(&cli.conn, args).map(|code| exit_code = code),
        Command::Profile(args) => cmd::profile::run(args),
        Command::Replace(args) => cmd::replace::run(&cli.conn, args),
        Command::Repo(cmd) => cmd::repo::run(&cli.conn, cmd),
        Command::Trigger(args) => cmd::trigger::run(&cli.conn, args),
        Command::Status(args) => cmd::status::run(&cli.conn, args),
        Command::Suite(cmd) => cmd::suite::run(&cli.conn, cmd),
        Command::Accept(args) => cmd::accept::run(&cli.conn, args),
        Command::Hooks(cmd) => cmd::hooks::run(&cli.conn, cmd),
        Command::Token(cmd) => cmd::token::run(&cli.conn, cmd),
        Command::Gc(args) => cmd::gc::run(&cli.conn, args),
        Command::Store(cmd) => cmd::store::run(cmd).map(|code| exit_code = code),
    };
    drop(entered);
    drop(scope);
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(exit::ERROR);
    }
    if exit_code != exit::OK {
        std::process::exit(exit_code);
    }
}
