//! The `frugal` CLI's exit codes, for scripts and CI that branch on them.

/// The command did what it was asked, and found nothing to report.
pub const OK: i32 = 0;

/// The command ran, and what it checked changed or failed: `frugal check` found behaviour
/// changes (or a test that no longer compiles), `frugal status --run` saw the run fail.
pub const CHANGED: i32 = 1;

/// The command could not do its work: bad arguments, an unreachable daemon, an I/O error.
/// One `error: ...` line on stderr says why.
pub const ERROR: i32 = 2;
