//! `frugal run` on a deliberately hostile crate (`examples/hostile-fs`) whose functions delete a
//! directory outside the run, connect to a port on the host and leave `sleep 1000` running: the
//! sandbox must stop all three, and the run must still succeed with a passing suite.
//!
//! Develop and rerun this test inside a throwaway mount namespace (`/` read-only, `/tmp` a
//! tmpfs, the target dir bound writable): should confinement ever break, the crate only reaches
//! its two canary directories.

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use frugal_testkit::{binaries, work_dir, workspace};

/// The fallback path hard-coded in the crate (`hostile_fs::CANARY`).
const FALLBACK_CANARY: &str = "/tmp/frugal-hostile-canary";
/// `hostile_fs::PORT`.
const PORT: u16 = 47_211;

/// Counts connections to 127.0.0.1:`PORT` until dropped.
struct Listener {
    stop: Arc<AtomicBool>,
    seen: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    fn start() -> Listener {
        let listener = TcpListener::bind(("127.0.0.1", PORT))
            .unwrap_or_else(|e| panic!("bind 127.0.0.1:{PORT}: {e}"));
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(AtomicUsize::new(0));
        let (s, n) = (Arc::clone(&stop), Arc::clone(&seen));
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok(_) => {
                        n.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Listener {
            stop,
            seen,
            thread: Some(thread),
        }
    }

    fn connections(mut self) -> usize {
        // One last poll round after the run, then stop.
        std::thread::sleep(Duration::from_millis(50));
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.seen.load(Ordering::SeqCst)
    }
}

/// Pids of processes running `sleep 1000`.
fn sleepers() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| c.split(|b| *b == 0).take(2).eq([&b"sleep"[..], b"1000"]))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

fn make_canary(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("keep.txt"), "frugal must not delete this").unwrap();
}

fn assert_canary(dir: &Path) {
    assert!(
        dir.join("keep.txt").is_file(),
        "{} was deleted by the crate's code",
        dir.display()
    );
}

#[test]
fn a_hostile_crate_can_neither_delete_nor_connect_nor_leave_processes_behind() {
    let bins = binaries();
    let tmp = tempfile::Builder::new()
        .prefix("frugal-sandbox-e2e")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let canary = tmp.path().join("canary");
    make_canary(&canary);
    make_canary(Path::new(FALLBACK_CANARY));
    let before = sleepers();
    let listener = Listener::start();
    let work = work_dir("sandbox-hostile-fs");
    let out = tmp.path().join("out");
    let result = Command::new(&bins.frugal)
        .current_dir(workspace())
        .args(["run", "examples/hostile-fs", "--budget", "2000", "--json"])
        .args(["--workers", "2"])
        .arg("--out")
        .arg(&out)
        .arg("--work-dir")
        .arg(&work.path)
        // Not on the sandbox's allow-list: the crate must fall back to the hard-coded path.
        .env("HOSTILE_CANARY", &canary)
        .output()
        .unwrap();
    let connections = listener.connections();
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");

    assert_canary(&canary);
    assert_canary(Path::new(FALLBACK_CANARY));
    assert_eq!(connections, 0, "the crate's code reached 127.0.0.1:{PORT}");
    let left: Vec<String> = sleepers()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(
        left.is_empty(),
        "`sleep 1000` survived the run: pids {left:?}"
    );

    let json: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{stdout}"));
    assert!(json["tests_emitted"].as_u64().unwrap() > 0, "{json}");
    let sandbox = json["sandbox"].as_array().expect("summary.sandbox");
    assert!(!sandbox.is_empty(), "{json}");
    // The emitted suite passes when run again (confined, as verification ran it).
    let suite = std::fs::read_to_string(out.join("frugal_generated.rs")).unwrap();
    for f in ["wipe_canary", "phone_home", "spawn_sleeper"] {
        assert!(suite.contains(f), "the search never called {f}:\n{suite}");
    }
    let _ = std::fs::remove_dir_all(FALLBACK_CANARY);
}
