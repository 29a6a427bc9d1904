//! How the subject drives cargo: always through `frugal-cargo`, the one driver, and never for
//! longer than [`build_timeout`] ([`BUILD_TIMEOUT`] unless `FRUGAL_BUILD_TIMEOUT_SECS` says).

use std::path::Path;
use std::time::Duration;

use frugal_cargo::Cargo;
use frugal_sandbox::Policy;

/// The longest a build of the crate (instrumented, harness or verification) may take before its
/// whole process tree is killed: cold builds of real crates take 100–170 s on 2 cores, and a
/// build script that hangs must not hold a daemon's job slot for ever.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The environment variable that lowers (or raises) [`BUILD_TIMEOUT`], in whole seconds.
pub const BUILD_TIMEOUT_ENV: &str = "FRUGAL_BUILD_TIMEOUT_SECS";

/// The build timeout in force: `FRUGAL_BUILD_TIMEOUT_SECS` when it holds a positive number of
/// seconds, else [`BUILD_TIMEOUT`]. The one place the variable is read.
pub fn build_timeout() -> Duration {
    std::env::var(BUILD_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .map_or(BUILD_TIMEOUT, Duration::from_secs)
}

/// The longest `cargo fetch` may take before a confined build.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The cargo driver for a build in `dir` (which runs the crate's build scripts and proc
/// macros) into `target_dir`. With a policy, the dependencies are first fetched unconfined
/// (network allowed, but fetching runs no crate code), then the build is confined and offline.
/// A failed fetch is left for the offline build to report.
///
/// The fetch runs from `/`, naming the manifest: cargo reads `.cargo/config.toml` from the
/// working directory up, and one planted in the work dir by confined code (a credential
/// provider, `git-fetch-with-cli`) must not make the unconfined fetch run a program. The
/// crate's own cargo config therefore applies to the confined build, not to the fetch.
pub(crate) fn builder(dir: &Path, target_dir: &Path, sandbox: Option<&Policy>) -> Cargo {
    let cargo = Cargo::new().target_dir(target_dir);
    let Some(policy) = sandbox else {
        return cargo;
    };
    let mut fetch = cargo.command(Path::new("/"));
    fetch
        .arg("fetch")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"));
    let _ = cargo.output(fetch, FETCH_TIMEOUT);
    cargo.sandbox(policy.clone().env("CARGO_NET_OFFLINE", "true"))
}
