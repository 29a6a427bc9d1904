//! Replacement suites: the cheaper replacement of a crate's own suite, drawn from its best
//! stored suite, computed by `frugal-replace` on the suite's commit (routes: `api/replacement.rs`).
//!
//! Owns the pool of computations ([`Replacer`]) and their directories (one
//! fresh directory per computation under `<state_dir>/work/replace/`, removed when it ends;
//! outputs in `<state_dir>/replacements/`). The result (with per-test goal sets and costs of the
//! own and generated tests) is stored per suite, metric and cover target, so each is computed
//! once; a failure is stored too, with its reason, and answered as `failed` (a lost goal is
//! never a silent result) until a POST retries it.
//!
//! Decision: a GET only reads (the stored result, `computing` while one is in flight, else 404),
//! so no page a browser loads can make the daemon build and run code; `POST` with a trigger
//! token starts the computation. Computations run on `daemon.max_replacements` threads fed by a
//! bounded queue: they take minutes (two builds, every test profiled and run instrumented), far
//! too long for a request, and one user must not be able to start them without bound.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use frugal_replace::{CostMetric, CoverTarget, ReplaceConfig};
use frugal_storage::{ReplacementRecord, RepoRecord, Store, SuiteRecord};

use crate::layout;

/// Identifies a computation: (repo, crate, suite, metric, cover).
pub(crate) type Key = (u64, String, u64, String, String);

type Work = Box<dyn FnOnce() + Send>;

/// Computations waiting for a thread, beyond those running.
pub const QUEUE: usize = 16;

/// The pool that runs replacement computations: a fixed number of threads, a bounded queue,
/// and the keys in flight (queued or running), so one key is never computed twice at once.
#[derive(Clone)]
pub struct Replacer {
    tx: SyncSender<(Key, Work)>,
    in_flight: Arc<Mutex<HashSet<Key>>>,
}

/// The queue is full.
#[derive(Debug)]
pub struct Busy;

impl Replacer {
    /// Starts `workers` threads (at least one).
    pub fn start(workers: usize) -> anyhow::Result<Replacer> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(Key, Work)>(QUEUE);
        let rx = Arc::new(Mutex::new(rx));
        let in_flight: Arc<Mutex<HashSet<Key>>> = Arc::default();
        for i in 0..workers.max(1) {
            let (rx, in_flight) = (rx.clone(), in_flight.clone());
            std::thread::Builder::new()
                .name(format!("frugald-replace-{i}"))
                .spawn(move || work_loop(&rx, &in_flight))?;
        }
        Ok(Replacer { tx, in_flight })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<Key>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Computations queued or running.
    pub fn in_flight(&self) -> usize {
        self.lock().len()
    }

    pub(crate) fn is_in_flight(&self, key: &Key) -> bool {
        self.lock().contains(key)
    }

    /// Queues `work` under `key`: `Ok(true)` when queued, `Ok(false)` when the key is already
    /// in flight, `Err(Busy)` when the queue is full.
    pub fn submit(&self, key: Key, work: impl FnOnce() + Send + 'static) -> Result<bool, Busy> {
        let mut set = self.lock();
        if !set.insert(key.clone()) {
            return Ok(false);
        }
        match self.tx.try_send((key.clone(), Box::new(work))) {
            Ok(()) => Ok(true),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                set.remove(&key);
                Err(Busy)
            }
        }
    }
}

fn work_loop(rx: &Mutex<Receiver<(Key, Work)>>, in_flight: &Mutex<HashSet<Key>>) {
    loop {
        let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
        let Ok((key, work)) = next else { return };
        // A panicking computation must not take the thread (and a slot of the cap) with it.
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).is_err() {
            tracing::error!(repo = key.0, krate = %key.1, "a replacement computation panicked");
        }
        in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
    }
}

pub(crate) fn cover_name(c: CoverTarget) -> &'static str {
    if c == CoverTarget::All { "all" } else { "own" }
}

/// One background computation.
pub(crate) struct Computation {
    pub store: Store,
    pub repo: RepoRecord,
    pub krate: String,
    pub suite: SuiteRecord,
    pub metric: CostMetric,
    pub cover: CoverTarget,
    /// `sandbox.require`: the sandbox refuses to spawn where it cannot confine files.
    pub require_confinement: bool,
    /// The computation's cgroup: it runs the crate's tests, as a job does.
    pub limits: frugal_sandbox::JobLimits,
    /// `jobs.git_hosts`: the hosts the snapshot's git dependencies may name, as for a job.
    pub git_hosts: std::sync::Arc<[String]>,
    /// This node's mirrors of repositories registered by URL.
    pub mirrors: frugal_scheduler::Mirrors,
    /// `jobs.uid_range` where in force: the computation runs the crate's code as a uid of its
    /// own, as a job does.
    pub uids: crate::uids::JobUids,
}

/// How long a computation waits for a uid of `jobs.uid_range` while jobs hold them all.
const UID_PATIENCE: Duration = Duration::from_secs(600);

impl Computation {
    pub(crate) fn run(self) {
        // Every policy made on this thread puts its commands in the computation's cgroup,
        // bounded and killed whole like a job's.
        // As for a job: without an allowed git host, no checkout of `$CARGO_HOME/git` is read.
        let scope = frugal_sandbox::JobScope::new(self.limits)
            .cargo_git_readable(!self.git_hosts.is_empty());
        let (scope, result) = match self.uids.lease_within(UID_PATIENCE) {
            Ok(lease) => {
                let scope = match &lease {
                    Some(l) => scope.run_as(l.uid(), l.uid()),
                    None => scope,
                };
                let entered = scope.enter();
                let result = self.compute();
                drop(entered);
                (scope, result)
            }
            Err(e) => (scope, Err(anyhow::anyhow!("{e} (waited {UID_PATIENCE:?})"))),
        };
        let survivors = scope.kill();
        if survivors > 0 {
            tracing::warn!(repo = %self.repo.id, krate = %self.krate, survivors,
                "killed processes of a replacement computation that outlived it");
        }
        let (replacement, error) = match result {
            Ok(v) => (Some(v), None),
            Err(e) => {
                tracing::warn!(repo = %self.repo.id, krate = %self.krate, error = %format!("{e:#}"), "replacement failed");
                (None, Some(format!("{e:#}")))
            }
        };
        let rec = ReplacementRecord {
            repo: self.repo.id,
            krate: self.krate.clone(),
            suite: self.suite.id,
            metric: self.metric.name().into(),
            cover: cover_name(self.cover).into(),
            created: frugal_storage::now_ms(),
            replacement,
            error,
        };
        if let Err(e) = self.store.put_replacement(&rec) {
            tracing::error!(error = %e, "could not store the replacement");
        }
    }

    fn compute(&self) -> anyhow::Result<serde_json::Value> {
        use anyhow::Context;
        let commit = self
            .suite
            .commit
            .clone()
            .context("the suite has no commit to check out")?;
        let entry = self
            .repo
            .crates
            .iter()
            .find(|c| c.name == self.krate)
            .context("the crate is no longer registered")?;
        // A directory of its own: computations of one crate (other suites, metrics or cover
        // targets) never share files, and nothing is left behind when it ends.
        let work = layout::replace_work_dir(&self.state_dir()?);
        std::fs::create_dir_all(&work).with_context(|| format!("create {}", work.display()))?;
        let dir = tempfile::Builder::new()
            .prefix(&layout::replace_work_prefix(
                self.repo.id,
                &self.krate,
                self.suite.id,
            ))
            .tempdir_in(&work)
            .with_context(|| format!("create a work directory in {}", work.display()))?;
        let base = dir.path();
        let src = base.join("replace-src");
        let git_dir = self.mirrors.git_dir(&self.repo.path)?;
        frugal_scheduler::snapshot(&git_dir, &commit, &src)?;
        crate::deps::check_snapshot(&src, &self.git_hosts).map_err(anyhow::Error::msg)?;
        let generated = base.join("replace-generated.rs");
        std::fs::write(&generated, &self.suite.source)
            .with_context(|| format!("write {}", generated.display()))?;
        let mut cfg = ReplaceConfig::new(src.join(&entry.dir), base.join("replace-work"));
        cfg.out_dir = self.out_dir()?;
        cfg.generated = Some(generated);
        cfg.metric = self.metric;
        cfg.cover = self.cover;
        cfg.timeout = Duration::from_secs(60);
        cfg.require_confinement = self.require_confinement;
        tracing::info!(repo = %self.repo.id, krate = %self.krate, suite = %self.suite.id, "computing a replacement");
        let r = frugal_replace::replace(&cfg, &mut |_| {})?;
        tracing::info!(repo = %self.repo.id, krate = %self.krate, ratio = r.cost_ratio, "replacement ready");
        Ok(serde_json::to_value(&r)?)
    }

    /// The state directory is the store's parent (`<state_dir>/store`).
    fn state_dir(&self) -> anyhow::Result<PathBuf> {
        use anyhow::Context;
        Ok(self
            .store
            .path()
            .parent()
            .context("the store has no parent directory")?
            .to_path_buf())
    }

    fn out_dir(&self) -> anyhow::Result<PathBuf> {
        Ok(layout::replacement_dir(
            &self.state_dir()?,
            &self.krate,
            self.suite.id,
            self.metric.name(),
            cover_name(self.cover),
        ))
    }
}
