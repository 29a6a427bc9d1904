//! How the subject drives cargo: always through `frugal-cargo`, the one driver, and never for
//! longer than [`BUILD_TIMEOUT`].

use std::time::Duration;

/// The longest a build of the crate (instrumented, harness or verification) may take before its
/// whole process tree is killed: cold builds of real crates take 100–170 s on 2 cores, and a
/// build script that hangs must not hold a daemon's job slot for ever.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);
