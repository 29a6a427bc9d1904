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
/// macros) into `target_dir`. With a policy, the dependencies are first fetched unconfined,
/// then the build is confined and offline ([`Cargo::fetch_then_sandbox`]).
pub(crate) fn builder(dir: &Path, target_dir: &Path, sandbox: Option<&Policy>) -> Cargo {
    let cargo = Cargo::new().target_dir(target_dir);
    match sandbox {
        Some(policy) => cargo.fetch_then_sandbox(&dir.join("Cargo.toml"), policy, FETCH_TIMEOUT),
        None => cargo,
    }
}
