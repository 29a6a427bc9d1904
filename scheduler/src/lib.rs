//! frugal-scheduler: when to regenerate which crate, and the queue of that work.
//!
//! Owns the job queue (persisted as job records in the storage `jobs` tree, so it survives
//! restarts and a `kill -9`), dedupe per repository and crate, the concurrency limit, leases and
//! recovery of jobs that were running when the daemon died, cron schedules (5-field crontab and
//! the `cron` crate's 6/7 fields), polling repositories for new commits with the git CLI, a
//! commit's files extracted without running anything the repository's config names
//! (`snapshot.rs`), and change-aware budgets. Knows storage and the config's cron syntax; must not know HTTP, the
//! search or how a job is run: the daemon claims a job, runs the pipeline, and calls `finish`.
//!
//! Decision: dedupe keeps at most one queued and one running job per (repository, crate). A new
//! trigger for a crate that already has a queued job updates that job (latest commit and reason,
//! highest priority and budget) instead of adding one, so a burst of ten commits yields at most
//! two jobs: the one running and one that will build the newest commit. A queued job never starts
//! while the same crate is running, so two jobs never race to store suites for one crate.

mod budget;
mod cron;
mod error;
mod git;
mod mirror;
mod queue;
mod snapshot;

pub use budget::{BudgetDecision, CHANGED_WEIGHT, CrateBudget, plan_budgets};
pub use cron::{CronSchedule, schedule_is_off};
pub use error::SchedulerError;
pub use frugal_storage::{JobId, JobRecord as Job, JobState};
pub use git::{
    GIT_TIMEOUT, Head, ancestors, changed_files, git_command, git_output, poll_head,
    resolve_commit, snapshot,
};
pub use mirror::{Mirrors, is_url};
pub use queue::{
    EnqueueOutcome, JobOutcome, JobSpec, Reason, Recovery, Scheduler, SchedulerOptions,
    TriggerReport,
};
pub use snapshot::export_commit;

/// Result of the scheduler.
pub type Result<T, E = SchedulerError> = std::result::Result<T, E>;
