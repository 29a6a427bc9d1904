//! `frugal run` on a deliberately hostile crate (`examples/hostile-fs`) whose functions delete a
//! directory outside the run, connect to a port on the host and leave `sleep 1000` running: the
//! sandbox must stop all three, and the run must still succeed with a passing suite.
//!
//! Develop and rerun this test inside a throwaway mount namespace (`/` read-only, `/tmp` a
//! tmpfs, the target dir bound writable): should confinement ever break, the crate only reaches
//! its two canary directories.

mod common;

use common::hostile_scratch;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use frugal_testkit::{binaries, copy_example, processes, work_dir, workspace};

/// The fallback path hard-coded in the crate (`hostile_fs::CANARY`).
const FALLBACK_CANARY: &str = "/tmp/frugal-hostile-canary";
/// The literal of `hostile_fs::PORT`, which each run replaces with its listener's port.
const PORT: &str = "47_211";

/// Counts connections to a port on 127.0.0.1 until dropped.
struct Listener {
    port: u16,
    stop: Arc<AtomicBool>,
    seen: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    /// Listens on a port the kernel picks: a fixed port may be any other process's
    /// ephemeral port at the moment the test runs.
    fn start() -> Listener {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("the listener's address")
            .port();
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
            port,
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

/// A copy of `examples/<example>` in `dir` whose `file` names `port` where the original has
/// the literal `literal`: the crate then aims at this run's listener.
fn hostile_copy(example: &str, dir: &Path, file: &str, literal: &str, port: u16) -> PathBuf {
    let dest = dir.join(example);
    copy_example(example, &dest).unwrap();
    let path = dest.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(literal),
        "{} lost `{literal}`",
        path.display()
    );
    std::fs::write(&path, text.replace(literal, &port.to_string())).unwrap();
    dest
}

/// Pids of processes running `sleep 1000`.
fn sleepers() -> Vec<u32> {
    processes(|argv| argv.len() >= 2 && argv[0] == b"sleep" && argv[1] == b"1000")
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
    let Some(tmp) = hostile_scratch(
        "a_hostile_crate_can_neither_delete_nor_connect_nor_leave_processes_behind",
    ) else {
        return;
    };
    let bins = binaries();
    let canary = tmp.path().join("canary");
    make_canary(&canary);
    make_canary(Path::new(FALLBACK_CANARY));
    let before = sleepers();
    let listener = Listener::start();
    let port = listener.port;
    let krate = hostile_copy("hostile-fs", tmp.path(), "src/lib.rs", PORT, port);
    let work = work_dir("sandbox-hostile-fs");
    let out = tmp.path().join("out");
    let result = Command::new(&bins.frugal)
        .arg("run")
        .arg(&krate)
        .args(["--budget", "2000", "--json"])
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
    assert_eq!(connections, 0, "the crate's code reached 127.0.0.1:{port}");
    let left: Vec<u32> = sleepers()
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

/// `hostile_io::OUTSIDE_DIR`: the directory outside the run the crate writes into.
const OUTSIDE_DIR: &str = "/tmp/frugal-hostile-outside";
/// The directory of `hostile_io::SECRET_FILE`.
const SECRET_DIR: &str = "/tmp/frugal-hostile-secret";
/// The literal of `BUILD_PORT` in `examples/hostile-io/build.rs`, replaced like [`PORT`].
const BUILD_PORT: &str = "47_212";
/// `HOME_MARK` of `examples/hostile-io/build.rs`.
const HOME_MARK: &str = "hostile-build-was-here";

/// Path, size and mtime of every file and directory under `dir`, sorted.
fn manifest(dir: &Path) -> Vec<(std::path::PathBuf, u64, Option<std::time::SystemTime>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(e.path());
            }
            out.push((e.path(), meta.len(), meta.modified().ok()));
        }
    }
    out.sort();
    out
}

/// Every regular file under `dir`.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    manifest(dir)
        .into_iter()
        .map(|(p, _, _)| p)
        .filter(|p| p.is_file())
        .collect()
}

/// A secret no file or output of the test run holds by chance.
fn secret(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{name}-{nanos:x}-{}", std::process::id())
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn a_hostile_crate_can_neither_write_outside_nor_fork_nor_flood_nor_read_secrets_nor_forge_results()
{
    let Some(tmp) = hostile_scratch(
        "a_hostile_crate_can_neither_write_outside_nor_fork_nor_flood_nor_read_secrets_nor_forge_results",
    ) else {
        return;
    };
    let bins = binaries();
    let outside = Path::new(OUTSIDE_DIR);
    make_canary(outside);
    let secret_file = Path::new(SECRET_DIR).join("secret.txt");
    make_canary(Path::new(SECRET_DIR));
    let file_secret = secret("file-secret");
    std::fs::write(&secret_file, &file_secret).unwrap();
    let (token, env_secret) = (secret("token"), secret("env-secret"));
    let home_mark = std::env::var_os("HOME").map(|h| Path::new(&h).join(HOME_MARK));
    if let Some(mark) = &home_mark {
        assert!(!mark.exists(), "{} exists before the run", mark.display());
    }
    let watched = || (manifest(outside), manifest(Path::new(SECRET_DIR)));
    let before = watched();
    let bomb = |argv: &[&[u8]]| argv.len() >= 2 && argv[0] == b"sleep" && argv[1] == b"1002";
    let bombs_before = processes(bomb);
    let listener = Listener::start();
    let port = listener.port;
    let io_crate = hostile_copy("hostile-io", tmp.path(), "build.rs", BUILD_PORT, port);
    let work = work_dir("sandbox-hostile-io");
    let out = tmp.path().join("out");
    let run = |krate: &Path, work: &Path, out: &Path| {
        let result = Command::new(&bins.frugal)
            .arg("run")
            .arg(krate)
            .args(["--budget", "2000", "--json"])
            .args(["--workers", "2"])
            .arg("--out")
            .arg(out)
            .arg("--work-dir")
            .arg(work)
            .env("FRUGAL_TOKEN", &token)
            .env("HOSTILE_SECRET", &env_secret)
            .output()
            .unwrap();
        // The floods' files are the run's own; do not leave gigabytes behind.
        for f in files_under(work) {
            if f.file_name().is_some_and(|n| n == "hostile-flood.bin") {
                let _ = std::fs::remove_file(f);
            }
        }
        result
    };
    let result = run(&io_crate, &work.path, &out);
    let connections = listener.connections();
    let flood_work = work_dir("sandbox-hostile-flood");
    let flood_out = tmp.path().join("flood-out");
    let flooded = run(
        &workspace().join("examples/hostile-flood"),
        &flood_work.path,
        &flood_out,
    );
    let after = watched();
    assert_eq!(
        flooded.status.code(),
        Some(0),
        "hostile-flood: stderr:\n{}",
        String::from_utf8_lossy(&flooded.stderr)
    );
    let flood_suite = std::fs::read_to_string(flood_out.join("frugal_generated.rs")).unwrap();
    assert!(flood_suite.contains("flood_outside"), "{flood_suite}");
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");

    assert_eq!(
        before, after,
        "the crate changed a directory outside the run"
    );
    assert_eq!(connections, 0, "the build script reached 127.0.0.1:{port}");
    if let Some(mark) = &home_mark {
        assert!(!mark.exists(), "the build script wrote {}", mark.display());
    }
    let left: Vec<u32> = processes(bomb)
        .into_iter()
        .filter(|p| !bombs_before.contains(p))
        .collect();
    assert!(
        left.is_empty(),
        "`sleep 1002` survived the run: pids {left:?}"
    );

    let mut outputs = vec![("stdout".to_string(), result.stdout.clone())];
    outputs.push(("stderr".to_string(), result.stderr.clone()));
    outputs.push(("flood stdout".to_string(), flooded.stdout.clone()));
    outputs.push(("flood stderr".to_string(), flooded.stderr.clone()));
    for f in files_under(&out).into_iter().chain(files_under(&flood_out)) {
        outputs.push((f.display().to_string(), std::fs::read(&f).unwrap()));
    }
    for (name, bytes) in &outputs {
        for s in [&token, &env_secret, &file_secret] {
            assert!(!contains(bytes, s), "a secret reached {name}");
        }
    }

    let json: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{stdout}"));
    assert!(json["tests_emitted"].as_u64().unwrap() > 0, "{json}");
    let suite = std::fs::read_to_string(out.join("frugal_generated.rs")).unwrap();
    // Tests verification dropped (a flood or the fork bomb in them) still record what each
    // call returned, and were searched for secrets above.
    let dropped = std::fs::read_to_string(out.join("dropped.rs")).unwrap_or_default();
    for f in [
        "plant_file",
        "read_token",
        "read_env_secret",
        "read_secret_file",
    ] {
        assert!(
            suite.contains(f) || dropped.contains(f),
            "the search never called {f}:\n{suite}\n{dropped}"
        );
    }
    assert!(
        suite.contains("forge_frames"),
        "no verified test of forge_frames:\n{suite}\n{dropped}"
    );
    // A forged frame taken for a result would show up as an assertion on 31337 (or, shifted
    // onto the next test, as assertions verification drops).
    assert!(
        !suite.contains("31337"),
        "a forged frame fooled the executor:\n{suite}"
    );
    let _ = std::fs::remove_dir_all(outside);
    let _ = std::fs::remove_dir_all(SECRET_DIR);
}

#[test]
fn a_build_script_that_hangs_fails_the_run_with_a_timeout_in_bounded_time() {
    let Some(tmp) =
        hostile_scratch("a_build_script_that_hangs_fails_the_run_with_a_timeout_in_bounded_time")
    else {
        return;
    };
    let bins = binaries();
    let work = work_dir("sandbox-hostile-hang");
    // Only this run's build script: another checkout may run the same test at the same time.
    let ours = work.path.to_string_lossy().into_owned();
    let script = |argv: &[&[u8]]| {
        argv.first().is_some_and(|a| {
            let a = String::from_utf8_lossy(a);
            a.starts_with(&ours) && a.contains("build-script-build")
        })
    };
    let started = std::time::Instant::now();
    let result = Command::new(&bins.frugal)
        .current_dir(workspace())
        .args(["run", "examples/hostile-hang", "--budget", "200"])
        .arg("--out")
        .arg(tmp.path().join("out"))
        .arg("--work-dir")
        .arg(&work.path)
        .env("FRUGAL_BUILD_TIMEOUT_SECS", "20")
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_ne!(
        result.status.code(),
        Some(0),
        "the hanging build succeeded?\n{stderr}"
    );
    assert!(
        stderr.contains("did not finish within 20 s"),
        "no clear timeout error:\n{stderr}"
    );
    // One timed-out build (plus the fetch and analysis), not the default 30 minutes.
    assert!(took < Duration::from_secs(120), "took {took:?}:\n{stderr}");
    let left = processes(script);
    assert!(left.is_empty(), "the build script survived: pids {left:?}");
}

#[test]
fn symlinks_in_the_crate_never_lead_frugal_to_write_outside_it() {
    let Some(tmp) = hostile_scratch("symlinks_in_the_crate_never_lead_frugal_to_write_outside_it")
    else {
        return;
    };
    let bins = binaries();
    let outside = tmp.path().join("outside");
    make_canary(&outside.join("generated"));
    make_canary(&outside.join("elsewhere"));
    let krate = tmp.path().join("linked");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"linked\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("src/lib.rs"),
        "pub fn clamp(x: i32) -> i32 {\n    if x > 10 { 10 } else { x }\n}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.join("generated"), krate.join("src/generated")).unwrap();
    std::os::unix::fs::symlink(outside.join("elsewhere"), krate.join("tests")).unwrap();
    let before = manifest(&outside);
    let work = work_dir("sandbox-hostile-links");
    let out = tmp.path().join("out");
    let result = Command::new(&bins.frugal)
        .args(["run", "--budget", "300", "--json"])
        .arg(&krate)
        .arg("--out")
        .arg(&out)
        .arg("--work-dir")
        .arg(&work.path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(
        manifest(&outside),
        before,
        "frugal wrote through a link:\n{stderr}"
    );
    assert_eq!(result.status.code(), Some(0), "stderr:\n{stderr}");
    assert!(out.join("frugal_generated.rs").is_file());
    // The crate itself is untouched too: its links are still links.
    for link in ["src/generated", "tests"] {
        assert!(
            std::fs::read_link(krate.join(link)).is_ok(),
            "{link} is no longer a link"
        );
    }
}
