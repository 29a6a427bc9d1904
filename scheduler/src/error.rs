//! Errors of the scheduler.

use std::path::PathBuf;

use frugal_storage::{JobId, JobState, StoreError};

/// What went wrong. Messages fit after "failed to ...".
#[derive(Debug, thiserror::Error)]
pub enum SchedulerError {
    /// Reading or writing the job or repository records failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A git command could not run, failed, or printed something unusable.
    #[error("run `git {args}` in {}: {message}", repo.display())]
    Git {
        /// The repository the command ran on.
        repo: PathBuf,
        /// The command's arguments after `git`, joined by spaces (without the `-c` settings
        /// every command carries).
        args: String,
        /// Why it failed: git's stderr and exit status, or the error of starting it.
        message: String,
    },
    /// A user-given commit name is refused or names no commit of the repository.
    #[error("resolve commit `{commit}`: it is not a commit of the repository ({message})")]
    BadCommit {
        /// The name as given.
        commit: String,
        /// Why it was refused (empty, too long, control characters, unknown to git).
        message: String,
    },
    /// A commit's files could not be written into a snapshot directory.
    #[error("extract commit {commit} into {}: {reason}", dest.display())]
    Snapshot {
        /// The commit being extracted.
        commit: String,
        /// The snapshot directory.
        dest: PathBuf,
        /// What failed: emptying or creating `dest`, or the export itself.
        reason: String,
    },
    /// A schedule expression does not parse; holds the parser's message.
    #[error("parse schedule: {0}")]
    Cron(String),
    /// No job record has this id.
    #[error("find job {0}: not in the queue")]
    NoSuchJob(JobId),
    /// A job that must be running (to renew its lease or finish it) is not.
    #[error("finish job {id}: it is {state:?}, not running (was it recovered after a restart?)")]
    NotRunning {
        /// The job.
        id: JobId,
        /// The state it is in instead.
        state: JobState,
    },
    /// Another node holds the job's lease: this node's lease ran out and the job was claimed
    /// again, so its outcome is the other node's to decide.
    #[error("finish job {id}: node `{holder}` holds its lease now (this node's lease ran out)")]
    NotLeaseHolder {
        /// The job.
        id: JobId,
        /// The node holding the lease.
        holder: String,
    },
    /// No registered repository has this id.
    #[error("find repository {0}: not registered")]
    NoSuchRepo(frugal_storage::RepoId),
    #[error(
        "queue jobs for {by}: it has {queued} queued and this needs {more} more, beyond the \
         {limit} one token may have queued (scheduler.max_queued_per_token); retry once some ran"
    )]
    /// A token asked for more new jobs than its share of the queue
    /// ([`crate::SchedulerOptions::max_queued_per_token`]) has room for; nothing was queued.
    QueueFull {
        /// Who asked (`token <id>`).
        by: String,
        /// Jobs `by` already has queued.
        queued: usize,
        /// New jobs the request would have added.
        more: usize,
        /// The most queued jobs one token may have.
        limit: usize,
    },
}
