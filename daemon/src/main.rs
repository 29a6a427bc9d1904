//! `frugald`: the frugal daemon. Parses its few flags, loads the configuration, and hands over
//! to `frugald::service`. Exit codes: 0 after a clean stop, 2 on an error (one message on
//! stderr naming what failed, e.g. the config file, line and key).

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use frugald::service::{self, DaemonOptions};

/// The frugal daemon: watches repositories, regenerates test suites, serves them over HTTP.
#[derive(Debug, Parser)]
#[command(name = "frugald", version, about, long_about = None)]
struct Args {
    /// Configuration file (default: $FRUGAL_CONFIG, else /etc/frugal/frugal.toml if present).
    #[arg(long, short)]
    config: Option<PathBuf>,
    /// Check the configuration, print it resolved, and exit.
    #[arg(long)]
    check_config: bool,
    /// Seconds from SIGTERM to exit: jobs in flight get what is left, then are checkpointed.
    #[arg(long, default_value_t = 10)]
    shutdown_timeout: u64,
    /// Log JSON lines whatever daemon.log_format says.
    #[arg(long)]
    log_json: bool,
    /// Runs per test when profiling a new suite.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    profile_repeat: u32,
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Debug, clap::Subcommand)]
enum Cmd {
    /// Copy a whole store into another (sled to PostgreSQL, or back), then compare every
    /// tree's count and checksum; exit 2 on a difference. Stop frugald first.
    StoreMigrate(frugald::migrate::MigrateArgs),
}

fn main() {
    // Before anything else: this executable is also the profiler's launcher, so an install
    // without `frugal-launch` can still measure suites.
    frugal_profiler::launcher::serve_if_asked();
    let args = Args::parse();
    if let Err(e) = run(args) {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    if let Some(Cmd::StoreMigrate(m)) = args.command {
        return frugald::migrate::run(&m);
    }
    let cfg = service::load_config(args.config.as_deref())?;
    service::init_logging(cfg.daemon.log_format, args.log_json);
    service::check(&cfg)?;
    if args.check_config {
        println!("{cfg:#?}");
        return Ok(());
    }
    service::run(
        cfg,
        DaemonOptions {
            shutdown_timeout: Duration::from_secs(args.shutdown_timeout),
            log_json: args.log_json,
            profile_repeat: args.profile_repeat,
        },
    )
}
