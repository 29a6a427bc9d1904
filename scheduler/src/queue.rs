//! The persisted job queue.

use std::time::Duration;

use frugal_storage::{JobId, JobRecord, JobState, JobsTx, RepoId, RunId, Store, now_ms};

use crate::budget::{BudgetDecision, CrateBudget, plan_budgets};
use crate::cron::CronSchedule;
use crate::git::{changed_files, poll_head, resolve_commit};
use crate::{Result, SchedulerError};

/// Why a job was asked for. Decides priority: API > hook > poll > cron > recovered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A user or CI asked through the API or `frugal trigger` by hand.
    Api,
    /// A git hook (`post-commit`, `post-merge`, `post-receive`).
    Hook,
    /// The poller saw a new commit.
    Poll,
    /// A cron schedule fired.
    Cron,
}

impl Reason {
    /// The name stored in a job record's `reason` (`api`, `hook`, `poll`, `cron`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Api => "api",
            Reason::Hook => "hook",
            Reason::Poll => "poll",
            Reason::Cron => "cron",
        }
    }

    /// The job priority it gives: 3 for `Api` down to 0 for `Cron`; higher is claimed first.
    pub fn priority(self) -> u8 {
        match self {
            Reason::Api => 3,
            Reason::Hook => 2,
            Reason::Poll => 1,
            Reason::Cron => 0,
        }
    }
}

/// A request for a job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// The registered repository the crate belongs to.
    pub repo: RepoId,
    /// Name of the crate to regenerate.
    pub krate: String,
    /// Why the job is asked for; sets its priority.
    pub reason: Reason,
    /// Commit to build; `None` leaves a merged job's commit as it was.
    pub commit: Option<String>,
    /// Multiplier of the configured search budget (see [`crate::plan_budgets`]).
    pub budget_factor: f64,
    /// Who asks, when a token does: a new job is refused beyond
    /// [`SchedulerOptions::max_queued_per_token`] queued jobs of the same `by`.
    pub by: Option<String>,
}

impl JobSpec {
    /// A request with the configured budget (`budget_factor` 1.0) and no token behind it.
    pub fn new(repo: RepoId, krate: &str, reason: Reason, commit: Option<&str>) -> Self {
        JobSpec {
            repo,
            krate: krate.to_string(),
            reason,
            commit: commit.map(str::to_string),
            budget_factor: 1.0,
            by: None,
        }
    }
}

/// What [`Scheduler::enqueue`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnqueueOutcome {
    /// A new job was queued.
    Enqueued(JobId),
    /// Merged into the crate's queued job.
    Deduped(JobId),
}

impl EnqueueOutcome {
    /// The id of the job that was queued or merged into.
    pub fn job(self) -> JobId {
        match self {
            EnqueueOutcome::Enqueued(id) | EnqueueOutcome::Deduped(id) => id,
        }
    }
}

/// How a job ended.
#[derive(Clone, Debug, PartialEq)]
pub enum JobOutcome {
    /// The run finished and stored its results.
    Succeeded {
        /// The run the job made, if any; `None` keeps the run already on the job record.
        run: Option<RunId>,
    },
    /// The job failed.
    Failed {
        /// Why; kept as the job record's `outcome`.
        error: String,
        /// The run the job made, if it got that far; `None` keeps the run already on the job
        /// record.
        run: Option<RunId>,
    },
    /// The running job was stopped before it ended; the record keeps the run it had, if any.
    Cancelled,
}

/// What [`Scheduler::recover`] did with jobs that were running when the daemon stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recovery {
    /// Back in the queue, to be re-run.
    pub requeued: Vec<JobId>,
    /// Folded into a job already queued for the same crate (which will run instead).
    pub merged: Vec<(JobId, JobId)>,
    /// Interrupted `max_attempts` times: marked failed rather than crash-looping.
    pub failed: Vec<JobId>,
}

/// What a trigger ([`Scheduler::on_commit`], [`Scheduler::poll_repo`],
/// [`Scheduler::on_cron`]) did.
#[derive(Clone, Debug, PartialEq)]
pub struct TriggerReport {
    /// Commit considered (HEAD for a poll).
    pub commit: Option<String>,
    /// False when a poll saw no new commit (nothing was planned).
    pub new_commit: bool,
    /// The budget decision for every crate of the repository (empty when nothing was planned).
    pub plan: Vec<CrateBudget>,
    /// Each crate that runs, by name, with the job it was queued as or merged into.
    pub jobs: Vec<(String, EnqueueOutcome)>,
}

/// Limits of the queue.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedulerOptions {
    /// Jobs this node runs at once; [`Scheduler::claim`] returns nothing beyond it.
    pub max_concurrent: usize,
    /// A running job not renewed within this is presumed dead ([`Scheduler::requeue_expired`]).
    pub lease: Duration,
    /// Claims before a job that keeps dying is marked failed.
    pub max_attempts: u32,
    /// Queued jobs one token may have at once (merging into a queued job adds none): one
    /// committer cannot fill the queue ahead of everyone else.
    pub max_queued_per_token: usize,
    /// This node's id: the lease holder written on the jobs it claims. On a shared store only
    /// the holder renews or finishes a job, and a restart recovers only its own jobs.
    pub node: String,
    /// This node's mirrors of repositories registered by URL, and the URLs it accepts.
    pub mirrors: crate::Mirrors,
}

impl Default for SchedulerOptions {
    fn default() -> Self {
        SchedulerOptions {
            max_concurrent: 1,
            lease: Duration::from_secs(600),
            max_attempts: 3,
            max_queued_per_token: 16,
            node: "local".to_string(),
            mirrors: crate::Mirrors::default(),
        }
    }
}

/// Queued jobs a claim looks at (the runner's `allowed` filter may refuse some).
const CLAIM_WINDOW: usize = 16;

/// The job queue over a [`Store`]. Every operation is one queue transaction
/// ([`Store::jobs_tx`]): serialised by a mutex on sled (one process), and on PostgreSQL a SQL
/// transaction whose row locks and unique indexes keep the fleet's nodes apart.
pub struct Scheduler {
    store: Store,
    opts: SchedulerOptions,
}

/// Whether `more` new jobs fit `by`'s share of the queue beside its `queued` ones.
fn check_room(opts: &SchedulerOptions, queued: usize, by: &str, more: usize) -> Result<()> {
    let limit = opts.max_queued_per_token;
    if queued + more > limit {
        return Err(SchedulerError::QueueFull {
            by: by.to_string(),
            queued,
            more,
            limit,
        });
    }
    Ok(())
}

impl Scheduler {
    /// The queue over `store`'s job records, with limits `opts`; call [`Scheduler::recover`]
    /// before the first claim.
    pub fn new(store: Store, opts: SchedulerOptions) -> Self {
        Scheduler { store, opts }
    }

    /// The store the jobs are kept in (shared with the rest of the daemon).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The queue's limits.
    pub fn options(&self) -> &SchedulerOptions {
        &self.opts
    }

    /// Runs `f` as one queue transaction; store errors inside it may run it again (PostgreSQL),
    /// the queue's own errors roll it back.
    fn tx<T>(&self, f: impl Fn(&JobsTx<'_, '_>) -> Result<T>) -> Result<T> {
        self.store.jobs_tx(|tx| match f(tx) {
            Ok(v) => Ok(Ok(v)),
            Err(SchedulerError::Store(e)) => Err(e),
            Err(e) => Ok(Err(e)),
        })?
    }

    /// Whether this node holds `job`'s lease (on sled, the one process holds every lease).
    fn holds(&self, job: &JobRecord) -> bool {
        !self.store.is_shared() || job.node.as_deref() == Some(self.opts.node.as_str())
    }

    /// Queues a job for a crate, or merges into the crate's queued job.
    pub fn enqueue(
        &self,
        repo: RepoId,
        krate: &str,
        reason: Reason,
        commit: Option<&str>,
    ) -> Result<EnqueueOutcome> {
        self.enqueue_spec(JobSpec::new(repo, krate, reason, commit))
    }

    /// [`Scheduler::enqueue`] with a budget factor.
    pub fn enqueue_spec(&self, spec: JobSpec) -> Result<EnqueueOutcome> {
        self.tx(|tx| self.enqueue_in(tx, spec.clone()))
    }

    /// [`Scheduler::enqueue_spec`] inside the caller's queue transaction.
    fn enqueue_in(&self, tx: &JobsTx<'_, '_>, spec: JobSpec) -> Result<EnqueueOutcome> {
        if let Some(mut q) = tx.queued_of(spec.repo, &spec.krate)? {
            q.reason = spec.reason.as_str().to_string();
            if spec.commit.is_some() {
                q.commit = spec.commit;
            }
            q.priority = q.priority.max(spec.reason.priority());
            q.budget_factor = q.budget_factor.max(spec.budget_factor);
            q.triggers += 1;
            tx.put(&q)?;
            return Ok(EnqueueOutcome::Deduped(q.id));
        }
        if let Some(by) = &spec.by {
            check_room(&self.opts, tx.queued_by(by)?, by, 1)?;
        }
        let id = tx.next_id()?;
        let job = JobRecord {
            commit: spec.commit,
            budget_factor: spec.budget_factor,
            by: spec.by,
            ..JobRecord::new(
                id,
                spec.repo,
                spec.krate,
                spec.reason.as_str(),
                spec.reason.priority(),
            )
        };
        tx.put(&job)?;
        Ok(EnqueueOutcome::Enqueued(job.id))
    }

    /// Takes the next job: highest priority, then oldest; never beyond `max_concurrent` jobs
    /// running on this node and never a crate that is already running anywhere. Marks it
    /// running with a lease held by this node.
    pub fn claim(&self) -> Result<Option<JobRecord>> {
        self.claim_where(|_| true)
    }

    /// [`Scheduler::claim`] among the queued jobs `allowed` accepts (the runner holds back a
    /// crate whose timed-out job is still being torn down).
    pub fn claim_where(&self, allowed: impl Fn(&JobRecord) -> bool) -> Result<Option<JobRecord>> {
        self.tx(|tx| {
            let mine = tx.running()?.iter().filter(|j| self.holds(j)).count();
            if mine >= self.opts.max_concurrent {
                return Ok(None);
            }
            let Some(mut job) = tx.claimable(CLAIM_WINDOW)?.into_iter().find(|j| allowed(j)) else {
                return Ok(None);
            };
            let now = now_ms();
            job.state = JobState::Running;
            job.attempts += 1;
            job.started = Some(now);
            job.lease_until = Some(now + self.opts.lease.as_millis() as u64);
            job.node = Some(self.opts.node.clone());
            tx.put(&job)?;
            Ok(Some(job))
        })
    }

    /// The job `id`, which must be running with this node's lease.
    fn held(&self, tx: &JobsTx<'_, '_>, id: JobId) -> Result<JobRecord> {
        let job = tx.job(id)?.ok_or(SchedulerError::NoSuchJob(id))?;
        if job.state != JobState::Running {
            return Err(SchedulerError::NotRunning {
                id,
                state: job.state,
            });
        }
        if !self.holds(&job) {
            return Err(SchedulerError::NotLeaseHolder {
                id,
                holder: job.node.unwrap_or_default(),
            });
        }
        Ok(job)
    }

    /// Extends a running job's lease (call it while the job makes progress).
    pub fn renew(&self, id: JobId) -> Result<()> {
        self.tx(|tx| {
            let mut job = self.held(tx, id)?;
            job.lease_until = Some(now_ms() + self.opts.lease.as_millis() as u64);
            tx.put(&job)?;
            Ok(())
        })
    }

    /// Ends a running job. Only the lease holder may: a node whose lease ran out while it
    /// worked gets [`SchedulerError::NotLeaseHolder`], and the node that claimed the job again
    /// decides its outcome.
    pub fn finish(&self, id: JobId, outcome: JobOutcome) -> Result<JobRecord> {
        self.tx(|tx| {
            let mut job = self.held(tx, id)?;
            let (state, note, run) = match outcome.clone() {
                JobOutcome::Succeeded { run } => (JobState::Succeeded, None, run),
                JobOutcome::Failed { error, run } => (JobState::Failed, Some(error), run),
                JobOutcome::Cancelled => (JobState::Cancelled, Some("cancelled".to_string()), None),
            };
            job.state = state;
            job.outcome = note;
            job.run = run.or(job.run);
            job.finished = Some(now_ms());
            job.lease_until = None;
            tx.put(&job)?;
            Ok(job)
        })
    }

    /// Cancels a queued job (a running one is cancelled by the daemon, then finished).
    pub fn cancel(&self, id: JobId) -> Result<bool> {
        self.tx(|tx| {
            let mut job = tx.job(id)?.ok_or(SchedulerError::NoSuchJob(id))?;
            if job.state != JobState::Queued {
                return Ok(false);
            }
            job.state = JobState::Cancelled;
            job.finished = Some(now_ms());
            job.outcome = Some("cancelled before it ran".to_string());
            tx.put(&job)?;
            Ok(true)
        })
    }

    /// Puts a running job back in the queue (or merges it, or fails it after too many attempts).
    fn requeue(
        &self,
        tx: &JobsTx<'_, '_>,
        mut job: JobRecord,
        why: &str,
        rec: &mut Recovery,
    ) -> Result<()> {
        job.lease_until = None;
        if job.attempts >= self.opts.max_attempts {
            job.state = JobState::Failed;
            job.finished = Some(now_ms());
            job.outcome = Some(format!(
                "{why} {} time(s); giving up (see the daemon log of those attempts)",
                job.attempts
            ));
            tx.put(&job)?;
            rec.failed.push(job.id);
            return Ok(());
        }
        if let Some(mut q) = tx.queued_of(job.repo, &job.krate)? {
            // The queued job builds a newer commit; it inherits the interrupted one's claim.
            q.priority = q.priority.max(job.priority);
            q.budget_factor = q.budget_factor.max(job.budget_factor);
            q.triggers += job.triggers;
            q.commit = q.commit.or(job.commit.clone());
            tx.put(&q)?;
            job.state = JobState::Cancelled;
            job.finished = Some(now_ms());
            job.outcome = Some(format!("{why}; merged into queued job {}", q.id));
            tx.put(&job)?;
            rec.merged.push((job.id, q.id));
            return Ok(());
        }
        job.state = JobState::Queued;
        job.outcome = Some(format!("{why}; requeued"));
        tx.put(&job)?;
        rec.requeued.push(job.id);
        Ok(())
    }

    /// Call once at startup, before claiming: every job still marked running with this node's
    /// lease (on sled, every running job) was interrupted by the previous process's end (crash,
    /// `kill -9`, power loss) and is queued again.
    pub fn recover(&self) -> Result<Recovery> {
        self.tx(|tx| {
            let mut rec = Recovery::default();
            for job in tx.running()? {
                if self.holds(&job) {
                    self.requeue(tx, job, "interrupted by a daemon restart", &mut rec)?;
                }
            }
            Ok(rec)
        })
    }

    /// Requeues running jobs whose lease ran out before `now` (unix ms): a worker that hangs, or
    /// a node that died (any node of the fleet requeues them).
    pub fn requeue_expired(&self, now: u64) -> Result<Recovery> {
        self.tx(|tx| {
            let mut rec = Recovery::default();
            for job in tx.expired(now)? {
                self.requeue(tx, job, "lease expired", &mut rec)?;
            }
            Ok(rec)
        })
    }

    /// Every job record, oldest first.
    pub fn jobs(&self) -> Result<Vec<JobRecord>> {
        Ok(self.store.jobs()?)
    }

    /// Queued and running jobs (from the index: finished ones are not read).
    pub fn active(&self) -> Result<Vec<JobRecord>> {
        Ok(self.store.active_jobs()?)
    }

    /// Deletes finished jobs beyond the newest `keep`; returns how many were deleted.
    pub fn prune_finished(&self, keep: usize) -> Result<usize> {
        self.tx(|_| Ok(self.store.prune_jobs(keep, false)?.jobs.len()))
    }

    fn enqueue_plan(
        &self,
        repo: RepoId,
        reason: Reason,
        commit: Option<&str>,
        plan: &[CrateBudget],
        by: Option<&str>,
    ) -> Result<Vec<(String, EnqueueOutcome)>> {
        // One transaction for the check and the queueing: two triggers of one token at once must
        // not both pass the check and then fail halfway.
        self.tx(|tx| {
            if let Some(by) = by {
                // All or nothing: a trigger beyond the token's share queues none of its crates.
                let mut more = 0;
                for c in plan {
                    if matches!(c.decision, BudgetDecision::Run { .. })
                        && tx.queued_of(repo, &c.krate)?.is_none()
                    {
                        more += 1;
                    }
                }
                if more > 0 {
                    check_room(&self.opts, tx.queued_by(by)?, by, more)?;
                }
            }
            let mut jobs = Vec::new();
            for c in plan {
                if let BudgetDecision::Run { budget_factor, .. } = c.decision {
                    let mut spec = JobSpec::new(repo, &c.krate, reason, commit);
                    spec.budget_factor = budget_factor;
                    spec.by = by.map(str::to_string);
                    jobs.push((c.krate.clone(), self.enqueue_in(tx, spec)?));
                }
            }
            Ok(jobs)
        })
    }

    /// A new commit of a registered repository (hook, API, or a poll that saw one): plans
    /// change-aware budgets against the last commit seen, queues the changed crates (and any
    /// `forced` ones), and records the commit as seen. `commit: None` resolves HEAD; a given
    /// commit is resolved to its full hash ([`SchedulerError::BadCommit`] if it names none),
    /// which is what the jobs and the repository record from then on.
    pub fn on_commit(
        &self,
        repo: RepoId,
        commit: Option<&str>,
        reason: Reason,
        forced: impl Fn(&str) -> bool,
    ) -> Result<TriggerReport> {
        self.on_commit_by(repo, commit, reason, forced, None)
    }

    /// [`Scheduler::on_commit`] asked for by `by` (a token): refused as a whole, with
    /// [`SchedulerError::QueueFull`], when its new jobs would exceed the token's share.
    pub fn on_commit_by(
        &self,
        repo: RepoId,
        commit: Option<&str>,
        reason: Reason,
        forced: impl Fn(&str) -> bool,
        by: Option<&str>,
    ) -> Result<TriggerReport> {
        let mut rec = self
            .store
            .repo(repo)?
            .ok_or(SchedulerError::NoSuchRepo(repo))?;
        let git_dir = self.opts.mirrors.git_dir(&rec.path)?;
        let path = git_dir.as_path();
        let commit = match commit {
            Some(c) => resolve_commit(path, c)?,
            None => poll_head(path, None)?.commit,
        };
        let changed = match rec.last_seen_commit.as_deref() {
            Some(last) if last == commit => Some(Vec::new()),
            // A last commit that is gone (force push, gc) means unknown history: all changed.
            Some(last) => changed_files(path, last, &commit).ok(),
            None => None,
        };
        let plan = plan_budgets(&rec.crates, changed.as_deref(), forced);
        let jobs = self.enqueue_plan(repo, reason, Some(&commit), &plan, by)?;
        rec.last_seen_commit = Some(commit.clone());
        self.store.put_repo(&rec)?;
        Ok(TriggerReport {
            commit: Some(commit),
            new_commit: true,
            plan,
            jobs,
        })
    }

    /// Polls a repository's HEAD; on a new commit, behaves as [`Scheduler::on_commit`].
    pub fn poll_repo(&self, repo: RepoId) -> Result<TriggerReport> {
        let rec = self
            .store
            .repo(repo)?
            .ok_or(SchedulerError::NoSuchRepo(repo))?;
        let head = poll_head(
            &self.opts.mirrors.git_dir(&rec.path)?,
            rec.last_seen_commit.as_deref(),
        )?;
        if !head.changed {
            return Ok(TriggerReport {
                commit: Some(head.commit),
                new_commit: false,
                plan: Vec::new(),
                jobs: Vec::new(),
            });
        }
        self.on_commit(repo, Some(&head.commit), Reason::Poll, |_| false)
    }

    /// A repository's schedule fired: every crate runs, changed ones (since the last commit
    /// seen) with the larger share.
    pub fn on_cron(&self, repo: RepoId) -> Result<TriggerReport> {
        self.on_commit(repo, None, Reason::Cron, |_| true)
    }

    /// Repositories whose schedule (or `default`) fired in `(last, now]` (unix ms).
    pub fn due_repos(
        &self,
        default: Option<&CronSchedule>,
        last: u64,
        now: u64,
    ) -> Result<Vec<RepoId>> {
        let mut due = Vec::new();
        for r in self.store.repos()? {
            let own = match r.schedule.as_deref() {
                Some(s) if crate::schedule_is_off(s) => continue,
                Some(s) => Some(CronSchedule::parse(s)?),
                None => None,
            };
            if own
                .as_ref()
                .or(default)
                .is_some_and(|s| s.due_between(last, now))
            {
                due.push(r.id);
            }
        }
        Ok(due)
    }
}
