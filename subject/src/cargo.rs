//! How the subject drives cargo: always through `frugal-cargo`, the one driver, and never for
//! longer than [`build_timeout`].

use std::path::Path;
use std::time::Duration;

use frugal_cargo::Cargo;
pub use frugal_cargo::build_timeout;
use frugal_sandbox::Policy;

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
