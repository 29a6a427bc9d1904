//! The job runner: one thread that owns the scheduler's clock. Each tick it renews the leases of
//! jobs in flight, requeues expired ones, fires cron schedules, polls repositories, and claims
//! queued jobs, each of which runs on its own thread (the pipeline is blocking and CPU-heavy).
//!
//! Time bounds: the loop beats a [`Heartbeat`] every tick, and the systemd watchdog pings only
//! while it is fresh, so a stuck runner gets the daemon restarted. A job running longer than
//! `jobs.max_seconds` is stopped: its run and job fail with a reason that says so (freeing its
//! slot; its lease is no longer renewed), its thread is told to stop and will store nothing, and
//! its processes are killed (`procs`), again every tick until the thread has ended; meanwhile no
//! other job of the same crate starts, since it would share the crate's directories.
//!
//! Containment: each job runs in a cgroup of its own (`frugal_sandbox::JobScope`, entered on its
//! thread, so every confined command of the job lands in it) with `jobs.max_memory` and
//! `jobs.max_processes`; the cgroup is killed whole when the job ends, when it hits the time cap
//! and when its disk use crosses `jobs.max_disk` or `jobs.max_files` (`quota`, checked by a
//! watcher thread while it runs). Where no cgroup can be had, the job's processes are found by
//! the dirs they work in (`procs`). Processes are never picked by their arguments.
//!
//! Garbage collection (`gc`) runs on this loop every `retention.gc_interval`.
//!
//! Shutdown (SIGTERM): no job is claimed any more; jobs in flight get the grace period to end;
//! the rest are checkpointed: their run is marked interrupted and their job stays `running` in
//! the store, so `Scheduler::recover` at the next start queues it again. A `kill -9` leaves the
//! same state behind, minus the note on the run, which the next start adds.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use frugal_sandbox::{JobLimits, JobScope};

use crate::uids::{AllHeld, JobUids, UidLease};
use frugal_scheduler::{CronSchedule, JobOutcome, Scheduler};
use frugal_storage::{
    JobId, JobRecord, JobState, NodeRecord, RepoId, RunId, RunStatus, Store, now_ms,
};

use crate::gc::SharedGc;
use crate::job::{self, JobEnv};
use crate::live::Live;
use crate::metrics::Metrics;
use crate::procs;
use crate::quota::{DiskLimits, DiskWatch};

/// How often the loop wakes without being asked.
const TICK: Duration = Duration::from_secs(1);
/// How often expired leases are looked for, at most (a short lease is checked more often:
/// [`expiry_check`]).
const EXPIRY_CHECK: Duration = Duration::from_secs(30);

/// How often expired leases are looked for under `lease`: a third of it, at most
/// [`EXPIRY_CHECK`], so a dead node's job waits at most a lease and a third.
fn expiry_check(lease: Duration) -> Duration {
    (lease / 3).clamp(TICK, EXPIRY_CHECK)
}
/// How long a job's store writes wait for an unreachable PostgreSQL before the job fails: an
/// outage shorter than this costs the job nothing (its lease outlives it by default).
const DATABASE_PATIENCE: Duration = Duration::from_secs(120);
/// How far back a schedule window reaches after the fleet (or the one node) was down: a
/// minute, so a restart fires what it just missed and not a night's worth.
const CRON_CATCH_UP: u64 = 60_000;
/// How often a job's disk use is checked while it runs.
const DISK_CHECK: Duration = Duration::from_secs(1);

/// What the runner needs.
pub struct RunnerCtx {
    /// The queue jobs are claimed from and finished in, and its store.
    pub sched: Arc<Scheduler>,
    /// The settings every job runs with.
    pub env: JobEnv,
    /// Progress of the runs in flight, which the jobs update and the API reads.
    pub live: Live,
    /// The counters finished jobs, stored suites and GC passes add to.
    pub metrics: Arc<Metrics>,
    /// `scheduler.poll_interval`: how often every repository is polled for new commits;
    /// `None` when polling is off.
    pub poll_interval: Option<Duration>,
    /// `scheduler.default_schedule`: when repositories without a schedule of their own are
    /// regenerated; `None` for never.
    pub default_schedule: Option<CronSchedule>,
    /// Set once on SIGTERM or SIGINT: claim nothing more.
    pub stopping: Arc<AtomicBool>,
    /// `jobs.max_seconds`: a job still running after this is stopped.
    pub max_job_time: Option<Duration>,
    /// `jobs.max_memory`, `jobs.max_processes`: each job's cgroup.
    pub job_limits: JobLimits,
    /// `jobs.max_disk`, `jobs.max_files`: each job's dirs while it runs.
    pub disk_limits: DiskLimits,
    /// Beaten every tick; the watchdog reads it.
    pub heartbeat: Heartbeat,
    /// Garbage collection, run every `retention.gc_interval`.
    pub gc: SharedGc,
    /// `jobs.uid_range` where it is in force (no job cgroup, frugald root): each job runs as a
    /// uid of the range that no other job or replacement in flight holds.
    pub job_uids: JobUids,
    /// This node as the fleet sees it.
    pub node: NodeInfo,
    /// Benchmarks of the queue only (`FRUGALD_BENCH_SLEEP_JOBS_MS`): every job sleeps this
    /// long and succeeds without running the pipeline, so `bench/fleet.py` measures what the
    /// queue and the nodes add, not the search.
    pub bench_sleep: Option<Duration>,
}

/// What the runner reports of this node on every tick ([`NodeRecord`]).
#[derive(Clone)]
pub struct NodeInfo {
    /// When the daemon started, Unix time in milliseconds.
    pub started: u64,
    /// Where the API listens, once it does.
    pub addr: Arc<Mutex<Option<String>>>,
    /// The token check, reloaded from a shared store every tick.
    pub auth: crate::auth::Auth,
}

/// When the runner loop last went round: the systemd watchdog pings only while this is fresh.
#[derive(Clone, Debug)]
pub struct Heartbeat {
    origin: Instant,
    /// Milliseconds after `origin` of the last beat.
    last: Arc<AtomicU64>,
}

impl Default for Heartbeat {
    fn default() -> Self {
        Heartbeat {
            origin: Instant::now(),
            last: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl Heartbeat {
    /// Records a beat now.
    pub fn beat(&self) {
        let ms = self.origin.elapsed().as_millis() as u64;
        self.last.store(ms, Ordering::SeqCst);
    }

    /// Time since the last beat.
    pub fn age(&self) -> Duration {
        let now = self.origin.elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(self.last.load(Ordering::SeqCst)))
    }
}

/// A job running on its own thread.
struct InFlight {
    job: JobId,
    run: RunId,
    repo: RepoId,
    krate: String,
    started: Instant,
    /// Where the job's processes work (`job::job_dirs`), to find them when it is stopped.
    dirs: Vec<PathBuf>,
    /// Set by the checkpoint or the time cap; the job thread checks it before its final writes.
    abandoned: Arc<Mutex<bool>>,
    /// Set by the time cap: the job thread stops at its next progress report.
    cancel: Arc<AtomicBool>,
    /// The job's cgroup: killed whole at the time cap.
    scope: JobScope,
    /// The job's uid, held until its processes are torn down.
    _uid: Option<UidLease>,
    handle: JoinHandle<()>,
}

/// Kills what a job still runs: its cgroup whole, and without one the processes working in its
/// dirs. Returns how many processes were killed.
fn kill_job(scope: &JobScope, dirs: &[PathBuf]) -> usize {
    scope.kill() + procs::kill_under(dirs)
}

/// Runs the loop until `stopping` is set, then drains: waits up to `grace` for jobs in flight
/// and checkpoints the rest. Returns the number of jobs checkpointed.
pub fn run(ctx: Arc<RunnerCtx>, wake: Receiver<()>, grace: impl Fn() -> Duration) -> usize {
    let mut flights: Vec<InFlight> = Vec::new();
    // Jobs stopped by the time cap whose threads have not ended yet.
    let mut stopped: Vec<InFlight> = Vec::new();
    let mut last_expiry = Instant::now();
    let mut last_poll: Option<Instant> = None;
    let mut last_gc = Instant::now();
    while !ctx.stopping.load(Ordering::SeqCst) {
        ctx.heartbeat.beat();
        report_node(&ctx, &flights);
        reap(&mut flights);
        enforce_time_cap(&ctx, &mut flights, &mut stopped);
        tear_down(&mut stopped);
        renew(&ctx, &flights);
        if last_expiry.elapsed() >= expiry_check(ctx.sched.options().lease) {
            last_expiry = Instant::now();
            requeue_expired(&ctx);
        }
        fire_cron(&ctx);
        if let Some(every) = ctx.poll_interval
            && last_poll.is_none_or(|t| t.elapsed() >= every)
        {
            last_poll = Some(Instant::now());
            poll_all(&ctx);
        }
        if let Some(every) = ctx.gc.retention.gc_interval
            && last_gc.elapsed() >= every
        {
            last_gc = Instant::now();
            collect_garbage(&ctx);
        }
        claim(&ctx, &mut flights, &stopped);
        match wake.recv_timeout(TICK) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            // Every sender is gone: the daemon is going away.
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(TICK),
        }
    }
    for f in &stopped {
        kill_job(&f.scope, &f.dirs);
    }
    drain(&ctx, flights, grace())
}

/// Stops every job running longer than `jobs.max_seconds` (see the module doc).
fn enforce_time_cap(ctx: &RunnerCtx, flights: &mut Vec<InFlight>, stopped: &mut Vec<InFlight>) {
    let Some(cap) = ctx.max_job_time else {
        return;
    };
    let (over, within): (Vec<_>, Vec<_>) =
        flights.drain(..).partition(|f| f.started.elapsed() > cap);
    *flights = within;
    for f in over {
        time_out(ctx, &f, cap);
        stopped.push(f);
    }
}

fn time_out(ctx: &RunnerCtx, f: &InFlight, cap: Duration) {
    let mut abandoned = f.abandoned.lock().unwrap_or_else(|e| e.into_inner());
    // The thread may have made its final writes just before the lock was ours.
    let still_running = matches!(ctx.sched.store().job(f.job),
        Ok(Some(j)) if j.state == frugal_storage::JobState::Running);
    *abandoned = true;
    f.cancel.store(true, Ordering::SeqCst);
    if !still_running {
        return;
    }
    let phase = ctx
        .live
        .get(f.run)
        .map(|l| l.progress.phase)
        .unwrap_or_else(|| "unknown".into());
    let error = format!(
        "stopped: the job ran longer than jobs.max_seconds ({} s) and was in phase `{phase}`;          its processes were killed",
        cap.as_secs()
    );
    let killed = kill_job(&f.scope, &f.dirs);
    tracing::error!(job = %f.job, run = %f.run, killed, "{error}");
    finish(ctx, f.job, f.run, Err(anyhow::anyhow!(error)), "timed-out");
}

/// Kills what the stopped jobs still run (their threads may start a process before they see
/// the stop) and forgets those whose thread has ended.
fn tear_down(stopped: &mut Vec<InFlight>) {
    for f in stopped.iter() {
        kill_job(&f.scope, &f.dirs);
    }
    reap(stopped);
}

/// Writes this node's record (its heartbeat and jobs) to the store, and on a shared store
/// reloads the API tokens, which any node may have created or revoked.
fn report_node(ctx: &RunnerCtx, flights: &[InFlight]) {
    let rec = NodeRecord {
        id: ctx.sched.options().node.clone(),
        addr: ctx.node.addr.lock().ok().and_then(|a| a.clone()),
        version: env!("CARGO_PKG_VERSION").to_string(),
        started: ctx.node.started,
        heartbeat: now_ms(),
        jobs: flights.iter().map(|f| f.job).collect(),
        runs: flights.iter().map(|f| f.run).collect(),
    };
    if let Err(e) = ctx.sched.store().put_node(&rec) {
        tracing::warn!(error = %e, "could not write this node's heartbeat to the store");
    }
    if ctx.sched.store().is_shared()
        && let Err(e) = ctx.node.auth.refresh(ctx.sched.store())
    {
        tracing::warn!(error = %format!("{e:#}"), "could not reload the API tokens");
    }
}

fn collect_garbage(ctx: &RunnerCtx) {
    // One node of a fleet collects at a time: two would race on the same records.
    let r = ctx.sched.store().exclusively("gc", || {
        Ok(ctx.gc.collect(&ctx.sched, false, &|| ctx.heartbeat.beat()))
    });
    let r = match r {
        Ok(Some(r)) => r,
        Ok(None) => {
            tracing::info!("garbage collection skipped: another node is collecting");
            return;
        }
        Err(e) => Err(e.into()),
    };
    match r {
        Ok(r) => {
            ctx.metrics.gc_pass(&r);
            tracing::info!(
                records = r.record_count(),
                bytes = r.bytes_freed,
                dirs = r.dirs.len(),
                kept_bytes = r.bytes_kept,
                ms = r.took_ms,
                "garbage collection"
            );
        }
        Err(e) => tracing::error!(error = %format!("{e:#}"), "garbage collection failed"),
    }
}

fn reap(flights: &mut Vec<InFlight>) {
    let (done, running): (Vec<_>, Vec<_>) = flights.drain(..).partition(|f| f.handle.is_finished());
    *flights = running;
    for f in done {
        if f.handle.join().is_err() {
            tracing::error!(job = %f.job, run = %f.run, "job thread panicked");
        }
    }
}

fn renew(ctx: &RunnerCtx, flights: &[InFlight]) {
    for f in flights {
        if let Err(e) = ctx.sched.renew(f.job) {
            tracing::warn!(job = %f.job, error = %e, "could not renew the job's lease");
        }
    }
}

fn requeue_expired(ctx: &RunnerCtx) {
    match ctx.sched.requeue_expired(now_ms()) {
        Ok(r) if !r.requeued.is_empty() || !r.failed.is_empty() || !r.merged.is_empty() => {
            tracing::warn!(requeued = ?r.requeued, failed = ?r.failed, merged = ?r.merged,
                "jobs whose lease expired");
            // Their runs were another node's (or a hung thread's): they end here.
            let jobs: Vec<JobId> = r
                .requeued
                .iter()
                .chain(&r.failed)
                .copied()
                .chain(r.merged.iter().map(|(from, _)| *from))
                .collect();
            let note = "interrupted: the lease of its job expired (the node running it died or \
                        lost the store); the job was queued again";
            let own = |run: &RunId| ctx.live.runs().contains(run);
            if let Err(e) = mark_runs(
                ctx.sched.store(),
                |run| run.job.is_some_and(|j| jobs.contains(&j)) && !own(&run.id),
                note,
            ) {
                tracing::warn!(error = %format!("{e:#}"), "could not mark the expired jobs' runs");
            }
        }
        Ok(_) => {}
        Err(e) => tracing::error!(error = %e, "could not requeue expired jobs"),
    }
}

/// Fires the schedules due since the last window any node of the fleet fired
/// (`Store::take_cron_window`: each window goes to one node, so a fleet fires each schedule
/// once).
fn fire_cron(ctx: &RunnerCtx) {
    let now = now_ms();
    let last = match ctx.sched.store().take_cron_window(now, CRON_CATCH_UP) {
        Ok(Some(last)) => last,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, "could not read the schedules' clock");
            return;
        }
    };
    match ctx
        .sched
        .due_repos(ctx.default_schedule.as_ref(), last, now)
    {
        Ok(due) => {
            for repo in due {
                match ctx.sched.on_cron(repo) {
                    Ok(r) => tracing::info!(repo = %repo, jobs = r.jobs.len(), "schedule fired"),
                    Err(e) => tracing::warn!(repo = %repo, error = %e, "scheduled trigger failed"),
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "could not evaluate schedules"),
    }
}

fn poll_all(ctx: &RunnerCtx) {
    let repos = match ctx.sched.store().repos() {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "could not list repositories to poll");
            return;
        }
    };
    for r in repos {
        ctx.heartbeat.beat();
        match ctx.sched.poll_repo(r.id) {
            Ok(t) if t.new_commit => {
                tracing::info!(repo = %r.id, commit = ?t.commit, jobs = t.jobs.len(), "poll saw a new commit");
            }
            Ok(_) => {}
            Err(e) => tracing::debug!(repo = %r.id, error = %e, "poll failed"),
        }
    }
}

fn claim(ctx: &Arc<RunnerCtx>, flights: &mut Vec<InFlight>, stopped: &[InFlight]) {
    // A crate whose stopped job is still being torn down waits: they would share directories.
    let free = |j: &JobRecord| {
        !stopped
            .iter()
            .any(|s| s.repo == j.repo && s.krate == j.krate)
    };
    loop {
        let uid = match ctx.job_uids.lease() {
            Ok(uid) => uid,
            // Every uid of the range is held: the next job waits for one to end.
            Err(AllHeld) => return,
        };
        let job = match ctx.sched.claim_where(free) {
            Ok(Some(j)) => j,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(error = %e, "could not claim a job");
                return;
            }
        };
        match start(ctx, job, uid) {
            Some(f) => flights.push(f),
            None => return,
        }
    }
}

/// Creates the run and starts the job's thread; with `uid`, every confined command of the job
/// runs as it (and as the gid of the same number).
fn start(ctx: &Arc<RunnerCtx>, job: JobRecord, uid: Option<UidLease>) -> Option<InFlight> {
    let store = ctx.sched.store();
    let run = match store.create_run(job.repo, &job.krate, job.commit.as_deref(), Some(job.id)) {
        Ok(r) => r.id,
        Err(e) => {
            tracing::error!(job = %job.id, error = %e, "could not record the run; failing the job");
            let _ = ctx.sched.finish(
                job.id,
                JobOutcome::Failed {
                    error: format!("could not record the run: {e}"),
                    run: None,
                },
            );
            return None;
        }
    };
    ctx.live.start(run);
    tracing::info!(job = %job.id, run = %run, repo = %job.repo, krate = %job.krate,
        commit = ?job.commit, reason = %job.reason, attempt = job.attempts, "job started");
    let abandoned = Arc::new(Mutex::new(false));
    let cancel = Arc::new(AtomicBool::new(false));
    let dirs = job::job_dirs(&ctx.env, &job, run);
    let (repo, krate) = (job.repo, job.krate.clone());
    // No git host allowed, no git dependency to build: the job's code has no business in
    // `$CARGO_HOME/git`, which holds the checkouts of other tenants' git dependencies.
    let scope = JobScope::new(ctx.job_limits).cargo_git_readable(!ctx.env.git_hosts.is_empty());
    let scope = match &uid {
        Some(lease) => scope.run_as(lease.uid(), lease.uid()),
        None => scope,
    };
    let (c, a, stop, id) = (ctx.clone(), abandoned.clone(), cancel.clone(), job.id);
    let s = scope.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("job-{}", job.id))
        .spawn(move || {
            frugal_storage::wait_for_the_database(DATABASE_PATIENCE);
            execute(&c, &job, run, &a, &stop, &s)
        });
    match spawned {
        Ok(handle) => Some(InFlight {
            job: id,
            run,
            repo,
            krate,
            started: Instant::now(),
            dirs,
            abandoned,
            cancel,
            scope,
            _uid: uid,
            handle,
        }),
        Err(e) => {
            tracing::error!(job = %id, error = %e, "could not start a job thread");
            finish(
                ctx,
                id,
                run,
                Err(anyhow::anyhow!("could not start a thread: {e}")),
                "failed",
            );
            None
        }
    }
}

/// The job thread's body.
fn execute(
    ctx: &RunnerCtx,
    job: &JobRecord,
    run: RunId,
    abandoned: &Mutex<bool>,
    cancel: &Arc<AtomicBool>,
    scope: &JobScope,
) {
    let t = Instant::now();
    if let Some(nap) = ctx.bench_sleep {
        std::thread::sleep(nap);
        let store = ctx.sched.store();
        if let Err(e) = store.finish_run(run, RunStatus::Succeeded, None, None) {
            tracing::error!(job = %job.id, error = %e, "could not finish the run");
        }
        ctx.live.finish(run);
        if let Err(e) = ctx
            .sched
            .finish(job.id, JobOutcome::Succeeded { run: Some(run) })
        {
            tracing::error!(job = %job.id, error = %e, "could not finish the job");
        }
        return;
    }
    // Every policy the job makes on this thread puts its commands in the job's cgroup.
    let _entered = scope.enter();
    let dirs = job::job_dirs(&ctx.env, job, run);
    let watch = {
        let (scope, cancel, dirs) = (scope.clone(), cancel.clone(), dirs.clone());
        DiskWatch::start(dirs.clone(), ctx.disk_limits, DISK_CHECK, move || {
            cancel.store(true, Ordering::SeqCst);
            kill_job(&scope, &dirs);
        })
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        job::run(
            &ctx.env,
            ctx.sched.store(),
            &ctx.live,
            job,
            run,
            abandoned,
            cancel,
        )
    }))
    .unwrap_or_else(|p| Err(anyhow::anyhow!("the job panicked: {}", panic_text(&p))));
    let over_disk = watch.finish();
    // Whatever of the job still runs now escaped its sandbox's kill (a `setsid` and a double
    // fork, where there is no job cgroup; a command its thread never waited for): it could
    // write into the crate's build dirs while the next job uses them. Killed here, counted and
    // reported with the run.
    let survivors = kill_job(scope, &dirs);
    // Those its commands' own cgroups killed when each command ended count too: they would
    // have outlived the job as well.
    let survivors = survivors + scope.escaped();
    let oom_kills = scope.oom_kills();
    let result = match over_disk {
        Some(reason) => {
            // The next job must not start on millions of files, and gc must not walk them.
            let deleted = remove_crate_dirs(&dirs);
            Err(anyhow::anyhow!(
                "stopped: {reason}; its processes were killed{deleted}"
            ))
        }
        None => result,
    };
    let result = match result {
        Err(e) if oom_kills > 0 => Err(e.context(format!(
            "the kernel killed {oom_kills} process(es) of the job for going over              jobs.max_memory"
        ))),
        r => r,
    };
    if survivors > 0 {
        tracing::warn!(job = %job.id, run = %run, survivors,
            "killed processes of the job that outlived it");
    }
    let result = result.map(|done| {
        done.map(|mut d| {
            d.summary.survivors = Some(survivors as u64);
            d
        })
    });
    let result = match result {
        Err(e) if survivors > 0 => Err(e.context(format!(
            "{survivors} process(es) of the job outlived it and were killed"
        ))),
        r => r,
    };
    // Hold the lock across the final writes, so a checkpoint sees either nothing or all of them.
    let guard = abandoned.lock().unwrap_or_else(|e| e.into_inner());
    if *guard {
        return;
    }
    match result {
        Ok(None) => {}
        Ok(Some(done)) => {
            // A re-run after a crash stored nothing new (the store is idempotent per job).
            if done.outcome.reason != frugal_storage::BestReason::AlreadyStored {
                ctx.metrics.suite_stored(done.outcome.replaced_best);
            }
            tracing::info!(job = %job.id, run = %run, suite = %done.outcome.suite,
                best = done.outcome.replaced_best, reason = %done.outcome.reason,
                secs = t.elapsed().as_secs_f64(), "job succeeded");
            finish(
                ctx,
                job.id,
                run,
                Ok((done.summary, done.outcome.suite)),
                "succeeded",
            );
        }
        Err(e) => {
            tracing::error!(job = %job.id, run = %run, error = %format!("{e:#}"), "job failed");
            finish(ctx, job.id, run, Err(e), "failed");
        }
    }
    drop(guard);
}

/// Deletes a job's dirs (its crate's work dir, kept builds included, and its run's output dir)
/// after it went over its disk bounds; says so for the run's error.
fn remove_crate_dirs(dirs: &[PathBuf]) -> String {
    let mut failed = Vec::new();
    for d in dirs {
        if let Err(e) = std::fs::remove_dir_all(d)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::error!(dir = %d.display(), error = %e, "could not delete a job's dir");
            failed.push(format!("{}: {e}", d.display()));
        }
    }
    if failed.is_empty() {
        " and its crate's work dir and run dir deleted".into()
    } else {
        format!("; deleting its dirs failed ({})", failed.join("; "))
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string())
}

type Result2 = anyhow::Result<(frugal_api::summary::RunSummary, frugal_storage::SuiteId)>;

/// Records how a job ended in the run and the queue; `label` is the metrics outcome.
fn finish(ctx: &RunnerCtx, job: JobId, run: RunId, result: Result2, label: &str) {
    let store = ctx.sched.store();
    let (status, summary, suite, outcome) = match result {
        Ok((summary, suite)) => (
            RunStatus::Succeeded,
            serde_json::to_value(&summary)
                .inspect_err(|e| tracing::warn!(run = %run, error = %e, "storing the run without its summary"))
                .ok(),
            Some(suite),
            JobOutcome::Succeeded { run: Some(run) },
        ),
        Err(e) => {
            let error = format!("{e:#}");
            (
                RunStatus::Failed {
                    error: error.clone(),
                },
                None,
                None,
                JobOutcome::Failed {
                    error,
                    run: Some(run),
                },
            )
        }
    };
    if let Err(e) = store.finish_run(run, status, summary, suite) {
        tracing::error!(run = %run, error = %e, "could not record the end of the run");
    }
    if let Err(e) = ctx.sched.finish(job, outcome) {
        tracing::error!(job = %job, error = %e, "could not record the end of the job");
    }
    ctx.live.finish(run);
    ctx.metrics.job_finished(label);
}

/// Waits for jobs in flight up to `grace`, then checkpoints what is left.
fn drain(ctx: &RunnerCtx, mut flights: Vec<InFlight>, grace: Duration) -> usize {
    let deadline = Instant::now() + grace;
    while !flights.is_empty() && Instant::now() < deadline {
        reap(&mut flights);
        renew(ctx, &flights);
        std::thread::sleep(Duration::from_millis(100));
    }
    reap(&mut flights);
    let n = flights.len();
    for f in flights {
        checkpoint(ctx, &f);
    }
    if let Err(e) = ctx.sched.store().flush() {
        tracing::error!(error = %e, "could not flush the store at shutdown");
    }
    n
}

/// Gives up on a job in flight: its thread will store nothing, its run is marked interrupted,
/// and its job stays `running` so the next start requeues it.
fn checkpoint(ctx: &RunnerCtx, f: &InFlight) {
    let mut abandoned = f.abandoned.lock().unwrap_or_else(|e| e.into_inner());
    *abandoned = true;
    let note = "interrupted by a daemon shutdown; the job runs again at the next start";
    if let Err(e) = ctx.sched.store().finish_run(
        f.run,
        RunStatus::Failed {
            error: note.to_string(),
        },
        None,
        None,
    ) {
        tracing::error!(run = %f.run, error = %e, "could not checkpoint the run");
    }
    ctx.live.finish(f.run);
    ctx.metrics.job_finished("interrupted");
    tracing::warn!(job = %f.job, run = %f.run, "{note}");
}

/// At startup: runs the store still marks running belonged to a process that is gone (crash,
/// `kill -9`, power loss); say so on each. Their jobs are requeued by `Scheduler::recover`. On
/// a shared store only this node's runs are: those of jobs it holds, and those whose job no
/// node runs any more.
pub fn mark_interrupted_runs(sched: &Scheduler) -> anyhow::Result<Vec<RunId>> {
    let store = sched.store();
    let node = sched.options().node.as_str();
    let others: Vec<JobId> = store
        .active_jobs()?
        .into_iter()
        .filter(|j| {
            store.is_shared() && j.state == JobState::Running && j.node.as_deref() != Some(node)
        })
        .map(|j| j.id)
        .collect();
    let note =
        "interrupted: the daemon stopped while it ran (crash or kill); its job was queued again";
    mark_runs(store, |r| r.job.is_none_or(|j| !others.contains(&j)), note)
}

/// Marks failed, with `note`, every running run that `pick` accepts.
fn mark_runs(
    store: &Store,
    pick: impl Fn(&frugal_storage::RunRecord) -> bool,
    note: &str,
) -> anyhow::Result<Vec<RunId>> {
    let mut repos: Vec<_> = store.repos()?.into_iter().map(|r| r.id).collect();
    repos.extend(store.jobs()?.into_iter().map(|j| j.repo));
    repos.sort();
    repos.dedup();
    let mut marked = Vec::new();
    for repo in repos {
        for r in store.runs(repo, None)? {
            if r.status == RunStatus::Running && pick(&r) {
                store.finish_run(
                    r.id,
                    RunStatus::Failed {
                        error: note.to_string(),
                    },
                    None,
                    None,
                )?;
                marked.push(r.id);
            }
        }
    }
    Ok(marked)
}

/// Jobs by state, for status and metrics.
pub fn job_counts(store: &Store) -> frugal_storage::Result<BTreeMap<&'static str, usize>> {
    let mut m = BTreeMap::new();
    for j in store.active_jobs()? {
        let k = match j.state {
            frugal_storage::JobState::Queued => "queued",
            frugal_storage::JobState::Running => "running",
            _ => continue,
        };
        *m.entry(k).or_default() += 1;
    }
    Ok(m)
}
