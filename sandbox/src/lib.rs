//! Confinement of every process that runs code under test.
//!
//! This crate owns the policy that fences in whatever frugal executes on behalf of a
//! job: the crate's build scripts and proc macros (run by cargo), harness processes,
//! verification and profiler runs, and runs of the crate's own tests. A [`Policy`] says
//! which directories may be written or read, which environment variables survive, which
//! resource limits apply and how long the job may run; [`Policy::command`] or
//! [`Policy::apply`] turn it into a `std::process::Command` that enters the confinement
//! between `fork` and `exec` (Landlock, seccomp, rlimits, a new session, a job cgroup, a
//! private mount namespace hiding socket files),
//! and [`ConfinedChild`] makes sure the whole process tree ends with the job.
//! A [`JobScope`] is one job's cgroup, with its memory and process limits: every confined
//! command whose policy was made while it was entered runs in it, and it is killed whole.
//! [`Capabilities::probe`] says honestly which kernel features are there and what is
//! used instead when one is missing.
//! Commands that run no code under test (git, tar, `cargo fetch`) get the same deadline
//! without the confinement: [`output_in_group`].
//!
//! It must know nothing about search, HTTP, storage or Rust source: it confines
//! processes, whatever they are.
//!
//! Linux only.

mod caps;
mod cgroup;
mod child;
mod enter;
mod error;
mod group;
mod hide;
mod landlock_rules;
mod policy;
mod reap;
mod seccomp;

pub use caps::Capabilities;
pub use cgroup::{Entered, JobLimits, JobScope};
pub use child::{ConfinedChild, ConfinedOutput, Finished};
pub use error::Error;
pub use group::output_in_group;
pub use hide::hide_from_confined;
pub use policy::{Job, Limits, Policy, Sandboxed, crate_workspace};
pub use reap::{become_subreaper, reap_orphans};
