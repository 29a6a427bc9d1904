//! In-memory live progress of the runs in flight, shared by the job threads (writers) and the
//! HTTP handlers (readers).
//!
//! Decision: live progress lives in memory and only a coarse copy goes to storage
//! (`update_run_progress`, unflushed, at most once a second): the API shows every generation
//! without a disk write per generation, and a crash loses nothing anyone was promised.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use frugal_storage::RunId;

use frugal_api::v1;

/// One run's live state: the API's progress record, kept as the job updates it, and when the
/// run started, from which a view computes its elapsed time.
#[derive(Clone, Debug)]
pub struct LiveRun {
    /// When the run went live; the view's elapsed time counts from here.
    pub started: Instant,
    /// What the job reported last: phase, generation, executions and goals.
    pub progress: v1::Progress,
}

impl LiveRun {
    /// A run that has just started: `queued`, nothing searched yet.
    pub fn new() -> LiveRun {
        LiveRun {
            started: Instant::now(),
            progress: v1::Progress {
                phase: "queued".to_string(),
                live: true,
                ..v1::Progress::default()
            },
        }
    }

    /// The API view.
    pub fn view(&self) -> v1::Progress {
        v1::Progress {
            elapsed_s: self.started.elapsed().as_secs_f64(),
            ..self.progress.clone()
        }
    }
}

impl Default for LiveRun {
    fn default() -> Self {
        LiveRun::new()
    }
}

/// Live state of every run in flight. Cheap to clone.
#[derive(Clone, Default)]
pub struct Live(Arc<Mutex<HashMap<RunId, LiveRun>>>);

impl Live {
    fn lock(&self) -> MutexGuard<'_, HashMap<RunId, LiveRun>> {
        // A job thread that panicked mid-update leaves plain data behind: keep serving it.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes `run` live with a fresh state, replacing any it had.
    pub fn start(&self, run: RunId) {
        self.lock().insert(run, LiveRun::new());
    }

    /// Applies `f` to the run's state (no-op when the run is not live).
    pub fn update(&self, run: RunId, f: impl FnOnce(&mut LiveRun)) {
        if let Some(r) = self.lock().get_mut(&run) {
            f(r);
        }
    }

    /// A copy of the run's state; `None` when it is not live.
    pub fn get(&self, run: RunId) -> Option<LiveRun> {
        self.lock().get(&run).cloned()
    }

    /// Drops the run's state: it is no longer live, and readers fall back to what was stored.
    pub fn finish(&self, run: RunId) {
        self.lock().remove(&run);
    }

    /// Ids of the runs in flight.
    pub fn runs(&self) -> Vec<RunId> {
        let mut v: Vec<RunId> = self.lock().keys().copied().collect();
        v.sort();
        v
    }
}
