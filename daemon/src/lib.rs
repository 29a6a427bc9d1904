//! The daemon side of frugal (package `frugal`, library `frugal_daemon`): `frugald`'s HTTP API,
//! job runner and systemd integration, and the API client the `frugal` CLI wraps.
//!
//! Glue only: the engine is `frugal-subject`/`frugal-search`, measurement is `frugal-profiler`,
//! state is `frugal-storage`, the queue is `frugal-scheduler`, settings are `frugal-config`.
//! This crate is the only one that knows HTTP (STYLE.md); `v1` holds the API's wire types.

pub mod client;
pub mod daemon;
pub mod hooks;
pub mod job;
pub mod live;
pub mod metrics;
pub mod replacement;
pub mod runner;
pub mod server;
pub mod token;
pub mod v1;
