//! The persisted job queue.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use frugal_storage::{JobId, JobRecord, JobState, RepoId, RunId, Store, now_ms};

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
    /// Jobs running at once; [`Scheduler::claim`] returns nothing beyond it.
    pub max_concurrent: usize,
    /// A running job not renewed within this is presumed dead ([`Scheduler::requeue_expired`]).
    pub lease: Duration,
    /// Claims before a job that keeps dying is marked failed.
    pub max_attempts: u32,
    /// Queued jobs one token may have at once (merging into a queued job adds none): one
    /// committer cannot fill the queue ahead of everyone else.
    pub max_queued_per_token: usize,
}

impl Default for SchedulerOptions {
    fn default() -> Self {
        SchedulerOptions {
            max_concurrent: 1,
            lease: Duration::from_secs(600),
            max_attempts: 3,
            max_queued_per_token: 16,
        }
    }
}

/// The job queue over a [`Store`]. One per daemon process (sled is single-process); the mutex
/// makes check-then-write sequences atomic within it, and every write is flushed before a method
/// returns.
pub struct Scheduler {
    store: Store,
    opts: SchedulerOptions,
    lock: Mutex<()>,
}

fn same_crate(a: &JobRecord, repo: RepoId, krate: &str) -> bool {
    a.repo == repo && a.krate == krate
}

/// The queued jobs `by` asked for.
fn jobs_queued_by<'a>(jobs: &'a [JobRecord], by: &str) -> Vec<&'a JobRecord> {
    jobs.iter()
        .filter(|j| j.state == JobState::Queued && j.by.as_deref() == Some(by))
        .collect()
}

impl Scheduler {
    /// The queue over `store`'s job records, with limits `opts`; call [`Scheduler::recover`]
    /// before the first claim.
    pub fn new(store: Store, opts: SchedulerOptions) -> Self {
        Scheduler {
            store,
            opts,
            lock: Mutex::new(()),
        }
    }

    /// The store the jobs are kept in (shared with the rest of the daemon).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The queue's limits.
    pub fn options(&self) -> &SchedulerOptions {
        &self.opts
    }

    fn guard(&self) -> std::sync::MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(|e| e.into_inner())
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
        let _g = self.guard();
        self.enqueue_locked(spec)
    }

    /// [`Scheduler::enqueue_spec`] under the queue's lock, which the caller holds.
    fn enqueue_locked(&self, spec: JobSpec) -> Result<EnqueueOutcome> {
        let jobs = self.store.active_jobs()?;
        if let Some(mut q) = jobs
            .into_iter()
            .find(|j| j.state == JobState::Queued && same_crate(j, spec.repo, &spec.krate))
        {
            q.reason = spec.reason.as_str().to_string();
            if spec.commit.is_some() {
                q.commit = spec.commit;
            }
            q.priority = q.priority.max(spec.reason.priority());
            q.budget_factor = q.budget_factor.max(spec.budget_factor);
            q.triggers += 1;
            self.store.put_job(&q)?;
            return Ok(EnqueueOutcome::Deduped(q.id));
        }
        if let Some(by) = &spec.by {
            self.check_room(&jobs_queued_by(&self.store.active_jobs()?, by), by, 1)?;
        }
        let id = self.store.next_job_id()?;
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
        self.store.put_job(&job)?;
        Ok(EnqueueOutcome::Enqueued(job.id))
    }

    /// Refuses `more` new jobs for `by` when it would then have more than its share queued.
    fn check_room(&self, queued: &[&JobRecord], by: &str, more: usize) -> Result<()> {
        let limit = self.opts.max_queued_per_token;
        if queued.len() + more > limit {
            return Err(SchedulerError::QueueFull {
                by: by.to_string(),
                queued: queued.len(),
                more,
                limit,
            });
        }
        Ok(())
    }

    /// Takes the next job: highest priority, then oldest; never beyond `max_concurrent` running
    /// jobs and never a crate that is already running. Marks it running with a lease.
    pub fn claim(&self) -> Result<Option<JobRecord>> {
        self.claim_where(|_| true)
    }

    /// [`Scheduler::claim`] among the queued jobs `allowed` accepts (the runner holds back a
    /// crate whose timed-out job is still being torn down).
    pub fn claim_where(&self, allowed: impl Fn(&JobRecord) -> bool) -> Result<Option<JobRecord>> {
        let _g = self.guard();
        let jobs = self.store.active_jobs()?;
        let running: Vec<&JobRecord> = jobs
            .iter()
            .filter(|j| j.state == JobState::Running)
            .collect();
        if running.len() >= self.opts.max_concurrent {
            return Ok(None);
        }
        let Some(next) = jobs
            .iter()
            .filter(|j| j.state == JobState::Queued && allowed(j))
            .filter(|j| !running.iter().any(|r| same_crate(r, j.repo, &j.krate)))
            .min_by_key(|j| (std::cmp::Reverse(j.priority), j.enqueued_at, j.id))
        else {
            return Ok(None);
        };
        let mut job = next.clone();
        let now = now_ms();
        job.state = JobState::Running;
        job.attempts += 1;
        job.started = Some(now);
        job.lease_until = Some(now + self.opts.lease.as_millis() as u64);
        self.store.put_job(&job)?;
        Ok(Some(job))
    }

    /// The job `id`, which must be running (the caller holds the guard).
    fn running(&self, id: JobId) -> Result<JobRecord> {
        let job = self.store.job(id)?.ok_or(SchedulerError::NoSuchJob(id))?;
        if job.state != JobState::Running {
            return Err(SchedulerError::NotRunning {
                id,
                state: job.state,
            });
        }
        Ok(job)
    }

    /// Extends a running job's lease (call it while the job makes progress).
    pub fn renew(&self, id: JobId) -> Result<()> {
        let _g = self.guard();
        let mut job = self.running(id)?;
        job.lease_until = Some(now_ms() + self.opts.lease.as_millis() as u64);
        self.store.put_job(&job)?;
        Ok(())
    }

    /// Ends a running job.
    pub fn finish(&self, id: JobId, outcome: JobOutcome) -> Result<JobRecord> {
        let _g = self.guard();
        let mut job = self.running(id)?;
        let (state, note, run) = match outcome {
            JobOutcome::Succeeded { run } => (JobState::Succeeded, None, run),
            JobOutcome::Failed { error, run } => (JobState::Failed, Some(error), run),
            JobOutcome::Cancelled => (JobState::Cancelled, Some("cancelled".to_string()), None),
        };
        job.state = state;
        job.outcome = note;
        job.run = run.or(job.run);
        job.finished = Some(now_ms());
        job.lease_until = None;
        self.store.put_job(&job)?;
        Ok(job)
    }

    /// Cancels a queued job (a running one is cancelled by the daemon, then finished).
    pub fn cancel(&self, id: JobId) -> Result<bool> {
        let _g = self.guard();
        let mut job = self.store.job(id)?.ok_or(SchedulerError::NoSuchJob(id))?;
        if job.state != JobState::Queued {
            return Ok(false);
        }
        job.state = JobState::Cancelled;
        job.finished = Some(now_ms());
        job.outcome = Some("cancelled before it ran".to_string());
        self.store.put_job(&job)?;
        Ok(true)
    }

    /// Puts a running job back in the queue (or merges it, or fails it after too many attempts).
    fn requeue(&self, mut job: JobRecord, why: &str, rec: &mut Recovery) -> Result<()> {
        job.lease_until = None;
        if job.attempts >= self.opts.max_attempts {
            job.state = JobState::Failed;
            job.finished = Some(now_ms());
            job.outcome = Some(format!(
                "{why} {} time(s); giving up (see the daemon log of those attempts)",
                job.attempts
            ));
            self.store.put_job(&job)?;
            rec.failed.push(job.id);
            return Ok(());
        }
        let jobs = self.store.active_jobs()?;
        if let Some(mut q) = jobs
            .into_iter()
            .find(|j| j.state == JobState::Queued && same_crate(j, job.repo, &job.krate))
        {
            // The queued job builds a newer commit; it inherits the interrupted one's claim.
            q.priority = q.priority.max(job.priority);
            q.budget_factor = q.budget_factor.max(job.budget_factor);
            q.triggers += job.triggers;
            q.commit = q.commit.or(job.commit.clone());
            self.store.put_job(&q)?;
            job.state = JobState::Cancelled;
            job.finished = Some(now_ms());
            job.outcome = Some(format!("{why}; merged into queued job {}", q.id));
            self.store.put_job(&job)?;
            rec.merged.push((job.id, q.id));
            return Ok(());
        }
        job.state = JobState::Queued;
        job.outcome = Some(format!("{why}; requeued"));
        self.store.put_job(&job)?;
        rec.requeued.push(job.id);
        Ok(())
    }

    /// Call once at startup, before claiming: every job still marked running was interrupted by
    /// the previous process's end (crash, `kill -9`, power loss) and is queued again.
    pub fn recover(&self) -> Result<Recovery> {
        let _g = self.guard();
        let mut rec = Recovery::default();
        for job in self.store.active_jobs()? {
            if job.state == JobState::Running {
                self.requeue(job, "interrupted by a daemon restart", &mut rec)?;
            }
        }
        Ok(rec)
    }

    /// Requeues running jobs whose lease ran out before `now` (unix ms): a worker that hangs or
    /// died without the daemon noticing.
    pub fn requeue_expired(&self, now: u64) -> Result<Recovery> {
        let _g = self.guard();
        let mut rec = Recovery::default();
        for job in self.store.active_jobs()? {
            if job.state == JobState::Running && job.lease_until.is_some_and(|t| t < now) {
                self.requeue(job, "lease expired", &mut rec)?;
            }
        }
        Ok(rec)
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
        let _g = self.guard();
        Ok(self.store.prune_jobs(keep, false)?.jobs.len())
    }

    fn enqueue_plan(
        &self,
        repo: RepoId,
        reason: Reason,
        commit: Option<&str>,
        plan: &[CrateBudget],
        by: Option<&str>,
    ) -> Result<Vec<(String, EnqueueOutcome)>> {
        // One lock for the check and the queueing: two triggers of one token at once must not
        // both pass the check and then fail halfway.
        let _g = self.guard();
        if let Some(by) = by {
            // All or nothing: a trigger beyond the token's share queues none of its crates.
            let active = self.store.active_jobs()?;
            let queued = |k: &str| {
                active
                    .iter()
                    .any(|j| j.state == JobState::Queued && same_crate(j, repo, k))
            };
            let more = plan
                .iter()
                .filter(|c| matches!(c.decision, BudgetDecision::Run { .. }) && !queued(&c.krate))
                .count();
            if more > 0 {
                self.check_room(&jobs_queued_by(&active, by), by, more)?;
            }
        }
        let mut jobs = Vec::new();
        for c in plan {
            if let BudgetDecision::Run { budget_factor, .. } = c.decision {
                let mut spec = JobSpec::new(repo, &c.krate, reason, commit);
                spec.budget_factor = budget_factor;
                spec.by = by.map(str::to_string);
                jobs.push((c.krate.clone(), self.enqueue_locked(spec)?));
            }
        }
        Ok(jobs)
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
        let path = Path::new(&rec.path);
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
        let head = poll_head(Path::new(&rec.path), rec.last_seen_commit.as_deref())?;
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
