//! A job's disk use, bounded in bytes and in files while it runs (`jobs.max_disk`,
//! `jobs.max_files`).
//!
//! A watcher thread per job (never the runner's: a walk of millions of files must not stall
//! the loop the watchdog reads) walks the job's dirs once a second and stops a pass as soon as
//! either bound is crossed, so one pass visits at most `max_files` entries whatever the job
//! created. Over a bound, it calls the job's stop (kill its cgroup, tell its thread) on every
//! pass until the job ends; the runner then fails the job with the reason and deletes the
//! crate's work dir. What the job writes between two passes goes over the bound: the bound is
//! enforced within a second of being crossed, not at the byte.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Bounds of one job's disk use; `None` leaves one unbounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskLimits {
    /// `jobs.max_disk`: allocated bytes (blocks on disk, not file lengths).
    pub max_bytes: Option<u64>,
    /// `jobs.max_files`: entries of every kind (files, dirs, links).
    pub max_files: Option<u64>,
}

/// What one pass found: entries (files, dirs, links) and allocated bytes, counted up to the
/// first bound crossed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Entries counted: files, dirs and links.
    pub files: u64,
    /// Allocated bytes of those entries (512-byte blocks).
    pub bytes: u64,
    /// Which bound was crossed, in words for the run's error.
    pub over: Option<String>,
}

/// Walks `dirs` (links counted, never followed), stopping as soon as a bound of `limits` is
/// crossed.
pub fn measure(dirs: &[PathBuf], limits: &DiskLimits) -> Usage {
    let mut usage = Usage::default();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            usage.files += 1;
            if let Ok(meta) = entry.metadata() {
                usage.bytes += meta.blocks() * 512;
                if meta.is_dir() {
                    stack.push(entry.path());
                }
            }
            if let Some(max) = limits.max_files.filter(|m| usage.files > *m) {
                usage.over = Some(format!(
                    "the job's dirs held more than {max} files (jobs.max_files)"
                ));
                return usage;
            }
            if let Some(max) = limits.max_bytes.filter(|m| usage.bytes > *m) {
                usage.over = Some(format!(
                    "the job's dirs held more than {max} bytes on disk (jobs.max_disk)"
                ));
                return usage;
            }
        }
    }
    usage
}

/// The watcher of one running job. Stop it with [`DiskWatch::finish`].
pub struct DiskWatch {
    done: Arc<AtomicBool>,
    over: Arc<Mutex<Option<String>>>,
    handle: Option<JoinHandle<()>>,
}

impl DiskWatch {
    /// Starts watching `dirs` every `every`; `stop` is called on each pass that finds a bound
    /// crossed. No thread when both bounds are off.
    pub fn start(
        dirs: Vec<PathBuf>,
        limits: DiskLimits,
        every: Duration,
        stop: impl Fn() + Send + 'static,
    ) -> DiskWatch {
        let done = Arc::new(AtomicBool::new(false));
        let over = Arc::new(Mutex::new(None));
        let handle = if limits.max_bytes.is_none() && limits.max_files.is_none() {
            None
        } else {
            let (d, o) = (done.clone(), over.clone());
            let spawned = std::thread::Builder::new()
                .name("job-disk-watch".into())
                .spawn(move || {
                    while !d.load(Ordering::SeqCst) {
                        if let Some(reason) = measure(&dirs, &limits).over {
                            let mut slot = o.lock().unwrap_or_else(|e| e.into_inner());
                            slot.get_or_insert(reason);
                            drop(slot);
                            stop();
                        }
                        sleep_unless(&d, every);
                    }
                });
            match spawned {
                Ok(h) => Some(h),
                Err(e) => {
                    tracing::error!(error = %e, "no disk watcher for a job: its disk use is unbounded");
                    None
                }
            }
        };
        DiskWatch { done, over, handle }
    }

    /// Whether a bound was crossed so far, and which.
    pub fn over(&self) -> Option<String> {
        self.over.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Stops the watcher (waiting for a pass under way) and says whether a bound was crossed.
    pub fn finish(mut self) -> Option<String> {
        self.done.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        self.over()
    }
}

impl Drop for DiskWatch {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Sleeps `total` in short steps, returning early once `done` is set.
fn sleep_unless(done: &AtomicBool, total: Duration) {
    let step = Duration::from_millis(50);
    let mut left = total;
    while !done.load(Ordering::SeqCst) && !left.is_zero() {
        let d = left.min(step);
        std::thread::sleep(d);
        left -= d;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_stops_at_the_first_bound_crossed() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        for i in 0..50 {
            std::fs::write(sub.join(i.to_string()), "").unwrap();
        }
        let dirs = vec![dir.path().to_path_buf()];
        let all = measure(&dirs, &DiskLimits::default());
        assert_eq!((all.files, all.over), (52, None));
        let few = DiskLimits {
            max_files: Some(10),
            max_bytes: None,
        };
        let u = measure(&dirs, &few);
        assert_eq!(u.files, 11, "the pass stops at the 11th entry");
        assert!(u.over.unwrap().contains("jobs.max_files"));
        std::fs::write(dir.path().join("big"), vec![1u8; 1 << 20]).unwrap();
        let small = DiskLimits {
            max_files: None,
            max_bytes: Some(1 << 19),
        };
        assert!(
            measure(&dirs, &small)
                .over
                .unwrap()
                .contains("jobs.max_disk")
        );
    }

    #[test]
    fn the_watcher_calls_stop_once_a_bound_is_crossed() {
        let dir = tempfile::tempdir().unwrap();
        let stops = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let s = stops.clone();
        let watch = DiskWatch::start(
            vec![dir.path().to_path_buf()],
            DiskLimits {
                max_files: Some(5),
                max_bytes: None,
            },
            Duration::from_millis(20),
            move || {
                s.fetch_add(1, Ordering::SeqCst);
            },
        );
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(stops.load(Ordering::SeqCst), 0);
        assert_eq!(watch.over(), None);
        for i in 0..6 {
            std::fs::write(dir.path().join(i.to_string()), "").unwrap();
        }
        let t = std::time::Instant::now();
        while stops.load(Ordering::SeqCst) == 0 && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(stops.load(Ordering::SeqCst) > 0);
        assert!(watch.finish().unwrap().contains("more than 5 files"));
    }
}
