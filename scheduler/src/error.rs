//! Errors of the scheduler.

use std::path::PathBuf;

use frugal_storage::{JobId, JobState, StoreError};

/// What went wrong. Messages fit after "failed to ...".
#[derive(Debug, thiserror::Error)]
pub enum SchedulerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("run `git {args}` in {}: {message}", repo.display())]
    Git {
        repo: PathBuf,
        args: String,
        message: String,
    },
    #[error("resolve commit `{commit}`: it is not a commit of the repository ({message})")]
    BadCommit { commit: String, message: String },
    #[error("extract commit {commit} into {}: {reason}", dest.display())]
    Snapshot {
        commit: String,
        dest: PathBuf,
        reason: String,
    },
    #[error("parse schedule: {0}")]
    Cron(String),
    #[error("find job {0}: not in the queue")]
    NoSuchJob(JobId),
    #[error("finish job {id}: it is {state:?}, not running (was it recovered after a restart?)")]
    NotRunning { id: JobId, state: JobState },
    #[error("find repository {0}: not registered")]
    NoSuchRepo(frugal_storage::RepoId),
    #[error(
        "queue jobs for {by}: it has {queued} queued and this needs {more} more, beyond the \
         {limit} one token may have queued (scheduler.max_queued_per_token); retry once some ran"
    )]
    QueueFull {
        by: String,
        queued: usize,
        more: usize,
        limit: usize,
    },
}
