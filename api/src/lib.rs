//! frugal-api: the shapes that programs other than frugald read, each typed and versioned: the
//! `/v1` HTTP API's wire types ([`v1`]), the run summary a finished run carries ([`summary`]),
//! the CLI's exit codes ([`exit`]), and the two files a client finds the daemon by ([`token`],
//! [`addr`]).
//!
//! Owns the formats, not their producers: it must not know HTTP servers, storage, sled, the
//! search or the profiler, so the `frugal` CLI and CI tools can depend on it without linking
//! the service. frugald converts its records into these types at its boundary.
//!
//! Decision: small and stable, after nextest's `nextest-metadata`. A field added is
//! `#[serde(default)]` (older answers and stored summaries still decode) and unknown fields are
//! ignored or kept, never refused, in what the daemon sends; renaming or removing a field needs
//! a new version (`/v2`, [`summary::SUMMARY_VERSION`]).

pub mod addr;
pub mod exit;
pub mod summary;
pub mod token;
pub mod v1;
