//! `frugald`, the frugal service: its HTTP API (`api`: the router, one module per resource,
//! wire types from `frugal-api`), the whole HTTP surface (`http`: the API and the pages), the
//! state dir's layout (`layout`), the job runner (`runner`, one job in `job`, its first
//! phase, the regression check, in `regression`; a job's disk bounds in `quota`, its processes
//! where it has no cgroup in `procs`, the uid each holds where a uid per job is in force in
//! `uids`), live progress of runs in flight (`live`), the
//! replacement suites it serves (`replacement`), the web pages (`ui`), metrics, who may do
//! what (`auth`: scoped tokens and the `Host` check; `token`: the token file), and its lifecycle
//! (`service`: configuration, logging, systemd notify and watchdog, signals, graceful shutdown).
//!
//! Glue only: the engine is `frugal-subject`/`frugal-search`, measurement is `frugal-profiler`,
//! state is `frugal-storage`, the queue is `frugal-scheduler`, settings are `frugal-config`.
//! This crate is the only one that knows HTTP as a server; the `frugal` CLI (`cli/`) is its
//! client and shares nothing with it but `frugal-api` (wire types, summary, token and address
//! files) and `frugal-config`.

pub mod api;
pub mod auth;
mod deps;
pub mod gc;
pub mod http;
pub mod job;
pub mod layout;
pub mod live;
pub mod metrics;
pub mod migrate;
pub mod procs;
pub mod quota;
pub mod regression;
pub mod replacement;
pub mod runner;
pub mod service;
pub mod token;
pub mod ui;
pub mod uids;
