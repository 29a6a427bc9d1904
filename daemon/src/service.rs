//! `frugald`'s life: load and check the configuration, open the store, recover from the last
//! run, serve the API on loopback (and optionally a unix socket), run jobs, tell systemd (READY,
//! WATCHDOG, STATUS, STOPPING), and shut down in order on SIGTERM or SIGINT.
//!
//! Connections are served by hyper directly (not `axum::serve`), for the limits a shared host
//! needs: at most `http.max_connections` at once (more wait in the listen backlog), at most
//! `http.max_connections_per_client` of one client (more are answered 503 and closed), headers
//! within `http.header_timeout` (idle keep-alive connections included), no read or write stalled
//! longer than `http.idle_timeout`; the router adds the per-request timeout.
//!
//! Shutdown order: stop accepting connections and drain the open ones (briefly), stop claiming
//! jobs, give jobs in flight what is left of the timeout, checkpoint the rest (see `runner`),
//! flush the store, exit. Each step is bounded, so the whole stays within the timeout systemd
//! allows (`TimeoutStopSec`).

use std::net::SocketAddr;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use frugal_config::{Config, HttpConfig, LogFormat, StoreBackend};
use frugal_scheduler::{CronSchedule, Scheduler, SchedulerOptions};
use frugal_search::AlgorithmKind;
use frugal_storage::Store;
use tokio::sync::watch;

use crate::api::{self, AppState};
use crate::auth::Peer;
use crate::auth::{Auth, Hosts};
use crate::gc::Gc;
use crate::job::JobEnv;
use crate::live::Live;
use crate::metrics::Metrics;
use crate::replacement::Replacer;
use crate::runner::{self, Heartbeat, RunnerCtx};
use crate::token;

/// Options of one daemon process beyond the config file.
#[derive(Clone, Debug)]
pub struct DaemonOptions {
    /// Whole shutdown budget, from the signal to exit.
    pub shutdown_timeout: Duration,
    /// Force JSON logs whatever `daemon.log_format` says.
    pub log_json: bool,
    /// Repetitions per test when profiling a new suite.
    pub profile_repeat: u32,
}

/// Loads the configuration as both binaries do ([`Config::discover`]).
pub fn load_config(explicit: Option<&Path>) -> anyhow::Result<Config> {
    Config::discover(explicit).map_err(|e| anyhow::anyhow!("failed to load the configuration: {e}"))
}

/// Sets up tracing: text or JSON lines on stderr (journald keeps them), `RUST_LOG` filters.
pub fn init_logging(format: LogFormat, force_json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = if force_json || format == LogFormat::Json {
        builder.json().with_current_span(false).try_init()
    } else {
        builder.with_ansi(false).try_init()
    };
}

fn job_env(
    cfg: &Config,
    profile_repeat: u32,
    sandbox_missing: Option<String>,
) -> anyhow::Result<JobEnv> {
    let algorithm = AlgorithmKind::from_str(&cfg.search.algorithm).map_err(|e| {
        anyhow::anyhow!(
            "{}: key `search.algorithm`: `{}` is valid but this build's search does not implement it ({e})",
            cfg.origin("search.algorithm"),
            cfg.search.algorithm
        )
    })?;
    Ok(JobEnv {
        state_dir: cfg.daemon.state_dir.clone(),
        algorithm,
        seed: cfg.search.seed,
        population: cfg.search.population,
        tournament: cfg.search.tournament_size,
        goal_selection: cfg
            .search
            .goal_selection
            .parse()
            .map_err(|e: String| anyhow::anyhow!("{}: {e}", cfg.origin("search.goal_selection")))?,
        criteria: criteria_of(&cfg.search.mutants),
        own_survivors: cfg
            .mutation
            .survivors
            .then(|| Duration::from_secs(cfg.mutation.survivors_max_seconds)),
        testability: cfg.search.testability,
        budget: cfg.search.budget,
        repo_budgets: cfg
            .repos
            .iter()
            .filter_map(|r| Some((r.path.to_string_lossy().into_owned(), r.budget?)))
            .collect(),
        exec_timeout: cfg.executor.timeout,
        exec_workers: cfg.executor.workers,
        profile_repeat,
        sandbox_required: cfg.sandbox.require,
        sandbox_missing,
        regressions: cfg.regressions.clone(),
        stall_generations: cfg.search.stall_generations,
        keep_builds: cfg.jobs.keep_builds,
        ci_cost: cfg.jobs.ci_cost,
        git_hosts: cfg.jobs.git_hosts.clone(),
        mirrors: mirrors(cfg),
    })
}

/// The uids jobs run as, one of its own each (`jobs.uid_range`): only where frugald can set
/// uids (root) and no cgroup holds its jobs; and the capability report's line on it, when the
/// range is set or would be needed.
fn job_uids(
    cfg: &Config,
    caps: &frugal_sandbox::Capabilities,
) -> (Option<(u32, u32)>, Option<String>) {
    let Some((first, last)) = cfg.jobs.uid_range else {
        return (None, None);
    };
    let range = format!("jobs.uid_range ({first}-{last})");
    if caps.cgroup {
        (
            None,
            Some(format!(
                "{range} not used: each job's cgroup holds it, and its processes run as \
                 frugald's uid"
            )),
        )
    } else if !caps.root {
        (
            None,
            Some(format!(
                "{range} not used: frugald cannot set uids (it is not root); without a job \
                 cgroup, confined code runs as frugald's uid"
            )),
        )
    } else {
        (
            Some((first, last)),
            Some(format!(
                "uid per job: no writable cgroup, so each job runs as a uid of its own from \
                 {range}, and cannot signal frugald or another job"
            )),
        )
    }
}

/// Probes what the host can confine and logs it, one line per layer; makes frugald a subreaper
/// so processes a job leaves behind (a double fork on a host without cgroups) are adopted here
/// rather than by init, and reaped by a thread.
fn sandbox_startup(cfg: &Config) -> frugal_sandbox::Capabilities {
    // Landlock does not govern connect(): confined code must not find the API's socket at all,
    // wherever it lies (the job's own paths under its dir stay).
    if let Some(dir) = cfg.daemon.unix_socket.as_ref().and_then(|s| s.parent()) {
        frugal_sandbox::hide_from_confined(dir);
    }
    let caps = frugal_sandbox::Capabilities::probe();
    for line in caps.report() {
        tracing::info!(sandbox = %line, "sandbox");
    }
    if !caps.fs_confined() {
        if cfg.sandbox.require {
            tracing::error!(
                "the filesystem cannot be confined here: every job will be refused \
                 (sandbox.require = false runs them unconfined)"
            );
        } else {
            tracing::warn!(
                "the filesystem cannot be confined here; sandbox.require = false: jobs run unconfined"
            );
        }
    }
    match frugal_sandbox::become_subreaper() {
        Ok(()) => {
            let spawned = std::thread::Builder::new()
                .name("frugald-reaper".into())
                .spawn(|| {
                    loop {
                        std::thread::sleep(Duration::from_secs(5));
                        let n = frugal_sandbox::reap_orphans(spawned_here);
                        if n > 0 {
                            tracing::info!(reaped = n, "reaped orphaned job processes");
                        }
                    }
                });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "no orphan reaper thread");
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot become a subreaper; orphans go to init"),
    }
    caps
}

/// Whether a zombie child of ours is one frugald spawned itself (and whose `Child` will reap
/// it), not an adopted orphan. frugald's own children lead their process group (plain cargo,
/// harnesses without a sandbox) or session (sandbox job roots), or stay in frugald's session
/// (git, tar); a job's orphan is in its job's session without leading it. An orphan that called
/// `setsid` itself looks like a job root and is left (a zombie, no process).
fn spawned_here(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return true;
    };
    let Some(rest) = stat.rfind(')').and_then(|i| stat.get(i + 2..)) else {
        return true;
    };
    // state ppid pgrp session
    let fields: Vec<&str> = rest.split(' ').take(4).collect();
    let (Some(pgrp), Some(session)) = (
        fields.get(2).and_then(|f| f.parse::<u32>().ok()),
        fields.get(3).and_then(|f| f.parse::<u32>().ok()),
    ) else {
        return true;
    };
    // SAFETY: getsid(0) only reads the calling process's session id.
    let own_session = unsafe { libc::getsid(0) } as u32;
    pgrp == pid || session == pid || session == own_session
}

/// Jobs hand paths to git, cargo and child processes: make the config's paths absolute once.
fn absolute_paths(cfg: &mut Config) -> anyhow::Result<()> {
    let d = &mut cfg.daemon;
    std::fs::create_dir_all(&d.state_dir)
        .with_context(|| format!("create the state directory {}", d.state_dir.display()))?;
    d.state_dir = d
        .state_dir
        .canonicalize()
        .with_context(|| format!("find the state directory {}", d.state_dir.display()))?;
    d.token_file = std::path::absolute(&d.token_file)
        .with_context(|| format!("find the token file {}", d.token_file.display()))?;
    Ok(())
}

/// The store `[store]` names: sled in the state directory, or PostgreSQL (waiting for it at
/// start, so a fleet and its database can boot in any order).
fn open_store(cfg: &Config) -> anyhow::Result<Store> {
    let state_dir = &cfg.daemon.state_dir;
    std::fs::create_dir_all(state_dir)
        .with_context(|| format!("create the state directory {}", state_dir.display()))?;
    if cfg.store.backend == StoreBackend::Postgres {
        let url = cfg.store.url.clone().unwrap_or_default();
        let opts = frugal_storage::PgOptions::new(url, cfg.store.pool_size);
        let started = Instant::now();
        loop {
            match Store::open_postgres(&opts) {
                Ok(s) => return Ok(s),
                Err(e) if e.is_unavailable() && started.elapsed() < PG_START_PATIENCE => {
                    tracing::warn!(error = %e, "PostgreSQL is not reachable yet; retrying");
                    std::thread::sleep(Duration::from_secs(2));
                }
                Err(e) => return Err(e).context("open the store in PostgreSQL (store.url)"),
            }
        }
    }
    if cfg.store.url.is_some() {
        tracing::warn!("store.url is set but store.backend is \"sled\": the URL is not used");
    }
    let db = crate::layout::store_dir(state_dir);
    Store::open(&db).with_context(|| {
        format!(
            "open the store {} (is another frugald using this state directory?)",
            db.display()
        )
    })
}

/// Registers the config file's `[[repo]]` tables that the store does not know yet.
fn register_config_repos(sched: &Scheduler, cfg: &Config) {
    for r in &cfg.repos {
        let path = r.path.to_string_lossy().into_owned();
        if matches!(sched.store().repo_by_path(&path), Ok(Some(_))) {
            continue;
        }
        let req = frugal_api::v1::AddRepo {
            path: path.clone(),
            crates: r
                .crates
                .iter()
                .map(|c| frugal_api::v1::CrateSpec {
                    name: c.name.clone(),
                    dir: c.dir.clone().unwrap_or_default(),
                })
                .collect(),
            schedule: r.schedule.as_ref().map(|s| s.source().to_string()),
            hooks_installed: false,
        };
        match api::repos::register(sched, req) {
            Ok(rec) => {
                tracing::info!(repo = %rec.id, path, "registered a repository from the config")
            }
            Err(e) => {
                tracing::error!(path, error = ?e, "could not register a repository from the config")
            }
        }
    }
}

/// `FRUGALD_BENCH_SLEEP_JOBS_MS`: for benchmarks of the queue, jobs that sleep this long
/// instead of running the pipeline (said loudly in the log: no suite is made).
fn bench_sleep() -> Option<Duration> {
    let ms: u64 = std::env::var("FRUGALD_BENCH_SLEEP_JOBS_MS")
        .ok()?
        .parse()
        .ok()?;
    tracing::warn!(
        ms,
        "FRUGALD_BENCH_SLEEP_JOBS_MS is set: jobs sleep instead of generating suites"
    );
    Some(Duration::from_millis(ms))
}

/// Where this node mirrors repositories registered by URL, and the URLs it accepts.
pub fn mirrors(cfg: &Config) -> frugal_scheduler::Mirrors {
    frugal_scheduler::Mirrors {
        dir: crate::layout::mirrors_dir(&cfg.daemon.state_dir),
        roots: cfg.jobs.repo_roots.clone(),
        hosts: cfg.jobs.git_hosts.clone(),
    }
}

/// How long frugald waits at start for PostgreSQL to accept connections.
const PG_START_PATIENCE: Duration = Duration::from_secs(60);

/// This node's id: `store.node_id`, else the host name and a hash of the state directory (two
/// nodes on one host differ, and a restart keeps its id, so it recovers its own jobs).
fn node_id(cfg: &Config) -> String {
    if let Some(id) = &cfg.store.node_id {
        return id.clone();
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "frugald".to_string());
    let mut h: u32 = 0x811c_9dc5;
    for b in cfg.daemon.state_dir.as_os_str().as_encoded_bytes() {
        h = (h ^ u32::from(*b)).wrapping_mul(0x0100_0193);
    }
    format!("{host}-{h:08x}")
}

/// Startup work on the store before any job runs.
fn recover(sched: &Scheduler) -> anyhow::Result<()> {
    let marked = runner::mark_interrupted_runs(sched)?;
    let rec = sched.recover().context("recover the job queue")?;
    if !marked.is_empty() || !rec.requeued.is_empty() || !rec.failed.is_empty() {
        tracing::warn!(runs = ?marked, requeued = ?rec.requeued, merged = ?rec.merged,
            failed = ?rec.failed, "recovered jobs interrupted by the last stop");
    }
    Ok(())
}

/// Runs the daemon until a signal stops it.
pub fn run(mut cfg: Config, opts: DaemonOptions) -> anyhow::Result<()> {
    absolute_paths(&mut cfg)?;
    let caps = sandbox_startup(&cfg);
    let (job_uids, uid_line) = job_uids(&cfg, &caps);
    let job_uids = crate::uids::JobUids::new(job_uids);
    if let Some(line) = &uid_line {
        tracing::info!(sandbox = %line, "sandbox");
    }
    let report: Vec<String> = caps.report().into_iter().chain(uid_line).collect();
    let env = job_env(&cfg, opts.profile_repeat, caps.fs_missing())?;
    let refusal = env.refusal();
    let default_schedule = match &cfg.scheduler.default_schedule {
        Some(c) => Some(CronSchedule::parse(c.source()).context("scheduler.default_schedule")?),
        None => None,
    };
    let store = open_store(&cfg)?;
    let node = node_id(&cfg);
    tracing::info!(node = %node, shared = store.is_shared(), store = %store.path().display(), "store open");
    let token = token::load_or_create(&cfg.daemon.token_file)?;
    let sched = Arc::new(Scheduler::new(
        store,
        SchedulerOptions {
            max_concurrent: cfg.scheduler.max_concurrent_jobs,
            max_queued_per_token: cfg.scheduler.max_queued_per_token,
            lease: cfg.scheduler.lease,
            max_attempts: 3,
            node: node.clone(),
            mirrors: mirrors(&cfg),
        },
    ));
    recover(&sched)?;
    register_config_repos(&sched, &cfg);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cfg.daemon.workers.max(1))
        // Handlers' store reads run here; connections are capped, so this is plenty.
        .max_blocking_threads(64)
        .thread_name("frugald-http")
        .enable_all()
        .build()
        .context("start the async runtime")?;
    let stopping = Arc::new(AtomicBool::new(false));
    let live = Live::default();
    let metrics = Arc::new(Metrics::default());
    let (wake_tx, wake_rx) = std::sync::mpsc::sync_channel(16);
    let heartbeat = Heartbeat::default();
    let gc = Arc::new(Gc::new(cfg.retention.clone(), cfg.daemon.state_dir.clone()));
    let auth =
        Auth::load(token, sched.store(), cfg.daemon.auth_reads).context("load the API tokens")?;
    let node_addr: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let ctx = Arc::new(RunnerCtx {
        sched: sched.clone(),
        env,
        live: live.clone(),
        metrics: metrics.clone(),
        poll_interval: cfg.scheduler.poll_interval,
        default_schedule,
        stopping: stopping.clone(),
        max_job_time: cfg.jobs.max_time,
        job_limits: frugal_sandbox::JobLimits {
            memory_max: cfg.jobs.max_memory,
            pids_max: cfg.jobs.max_processes,
        },
        disk_limits: crate::quota::DiskLimits {
            max_bytes: cfg.jobs.max_disk,
            max_files: cfg.jobs.max_files,
        },
        heartbeat: heartbeat.clone(),
        gc: gc.clone(),
        job_uids: job_uids.clone(),
        node: runner::NodeInfo {
            started: frugal_storage::now_ms(),
            addr: node_addr.clone(),
            auth: auth.clone(),
        },
        bench_sleep: bench_sleep(),
    });
    let state = Arc::new(AppState {
        auth,
        hosts: Hosts::new(cfg.daemon.listen, &cfg.daemon.allowed_hosts),
        replacer: Replacer::start(cfg.daemon.max_replacements)
            .context("start the replacement threads")?,
        request_timeout: cfg.http.request_timeout,
        sched: sched.clone(),
        live,
        metrics,
        wake: wake_tx.clone(),
        stopping: stopping.clone(),
        sandbox: report,
        sandbox_required: cfg.sandbox.require,
        job_limits: frugal_sandbox::JobLimits {
            memory_max: cfg.jobs.max_memory,
            pids_max: cfg.jobs.max_processes,
        },
        git_hosts: cfg.jobs.git_hosts.clone().into(),
        job_uids,
        refusal,
        gc,
    });
    let started_stop: Arc<std::sync::Mutex<Option<Instant>>> = Arc::default();
    let stop_at = started_stop.clone();
    let budget = opts.shutdown_timeout;
    let runner = std::thread::Builder::new()
        .name("frugald-runner".into())
        .spawn(move || {
            runner::run(ctx, wake_rx, || {
                // What is left of the shutdown budget, minus a margin for the final flush.
                let since = stop_at
                    .lock()
                    .ok()
                    .and_then(|g| *g)
                    .map(|t| t.elapsed())
                    .unwrap_or_default();
                budget
                    .saturating_sub(since)
                    .saturating_sub(Duration::from_millis(500))
            })
        })
        .context("start the runner thread")?;

    rt.block_on(serve(
        &cfg,
        state,
        stopping.clone(),
        started_stop.clone(),
        heartbeat,
        node_addr,
    ))?;
    // The runner sleeps between ticks: wake it to see `stopping` now.
    let _ = wake_tx.try_send(());
    let checkpointed = runner
        .join()
        .map_err(|_| anyhow::anyhow!("the runner thread panicked"))?;
    let _ = std::fs::remove_file(frugal_api::addr::path(&cfg.daemon.state_dir));
    if let Some(sock) = &cfg.daemon.unix_socket {
        let _ = std::fs::remove_file(sock);
    }
    tracing::info!(checkpointed, "frugald stopped");
    Ok(())
}

async fn serve(
    cfg: &Config,
    state: Arc<AppState>,
    stopping: Arc<AtomicBool>,
    started_stop: Arc<std::sync::Mutex<Option<Instant>>>,
    heartbeat: Heartbeat,
    node_addr: Arc<std::sync::Mutex<Option<String>>>,
) -> anyhow::Result<()> {
    let app = crate::http::router(state);
    let tcp = tokio::net::TcpListener::bind(cfg.daemon.listen)
        .await
        .with_context(|| format!("listen on {} (daemon.listen)", cfg.daemon.listen))?;
    let addr: SocketAddr = tcp.local_addr().context("read the bound address")?;
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut servers = tokio::task::JoinSet::new();
    servers.spawn(serve_listener(
        tcp,
        |addr: &SocketAddr| Peer::Ip(addr.ip()),
        app.clone(),
        cfg.http.clone(),
        stop_rx.clone(),
    ));
    if let Some(sock) = &cfg.daemon.unix_socket {
        let _ = std::fs::remove_file(sock);
        let uds = tokio::net::UnixListener::bind(sock).with_context(|| {
            format!(
                "listen on the unix socket {} (daemon.unix_socket)",
                sock.display()
            )
        })?;
        let app = app.layer(axum::Extension(api::middleware::UnixPeer));
        servers.spawn(serve_listener(
            NoJobsOnTheSocket(uds),
            |_: &tokio::net::unix::SocketAddr| Peer::Local,
            app,
            cfg.http.clone(),
            stop_rx.clone(),
        ));
    }
    // Announced once every listener is bound: a client that reads the address file (the CLI,
    // the tests) may go to the unix socket next.
    write_addr_file(&cfg.daemon.state_dir, addr)?;
    if let Ok(mut a) = node_addr.lock() {
        *a = Some(addr.to_string());
    }
    tracing::info!(%addr, unix_socket = ?cfg.daemon.unix_socket, state_dir = %cfg.daemon.state_dir.display(),
        "frugald listening");
    let _ = sd_notify::notify(&[
        sd_notify::NotifyState::Ready,
        sd_notify::NotifyState::Status(&format!("serving on {addr}")),
    ]);
    // Detached: the runtime's workers keep pinging while the runner drains after `serve` returns.
    let _watchdog = tokio::spawn(watchdog(heartbeat));
    shutdown_signal().await;
    if let Ok(mut g) = started_stop.lock() {
        *g = Some(Instant::now());
    }
    tracing::info!("stopping: no new connections or jobs; checkpointing the job in flight");
    let _ = sd_notify::notify(&[
        sd_notify::NotifyState::Stopping,
        sd_notify::NotifyState::Status("stopping"),
    ]);
    stopping.store(true, Ordering::SeqCst);
    let _ = stop_tx.send(true);
    // Open connections get a moment; a client that keeps one open does not hold up the exit.
    let drained = tokio::time::timeout(Duration::from_secs(2), async {
        while servers.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        servers.abort_all();
    }
    Ok(())
}

/// The unix socket's listener, which serves no process of frugald's own jobs. Landlock does
/// not govern `connect()` to a socket file, and where there is no mount namespace to hide it
/// (the shipped unit has no `CAP_SYS_ADMIN`) a job's code could name the socket and use the API
/// with the access of a local client. The kernel says which process connected (`SO_PEERCRED`):
/// one of frugald's uid that descends from frugald (every process of a job, and every orphan of
/// one, which frugald adopts as a subreaper), or that is gone before it could be told, gets 403
/// and the connection is closed.
struct NoJobsOnTheSocket(tokio::net::UnixListener);

impl axum::serve::Listener for NoJobsOnTheSocket {
    type Io = tokio::net::UnixStream;
    type Addr = tokio::net::unix::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (io, addr) = axum::serve::Listener::accept(&mut self.0).await;
            let cred = io.peer_cred().ok();
            let pid = cred.and_then(|c| c.pid());
            // SAFETY: geteuid cannot fail.
            let our_uid = cred.is_some_and(|c| c.uid() == unsafe { libc::geteuid() });
            // Jobs run as frugald's uid: another user's process is a client (whose /proc entry
            // may be hidden from frugald, as `ProtectProc=invisible` does under the unit).
            let job = our_uid
                && match pid {
                    Some(pid) => crate::procs::descends_from_frugald(pid) != Some(false),
                    None => true,
                };
            if !job {
                return (io, addr);
            }
            tracing::warn!(pid = ?pid, "refused a connection to the unix socket from a job's process");
            tokio::spawn(answer_and_close(
                io,
                "403 Forbidden",
                "frugald does not serve its own jobs' processes on its unix socket",
            ));
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// Accepts connections while fewer than `http.max_connections` are open, and serves each with
/// the header and idle timeouts until `stop` turns true; then waits for the open ones to finish
/// their request in flight.
async fn serve_listener<L: axum::serve::Listener>(
    mut listener: L,
    peer_of: fn(&L::Addr) -> Peer,
    app: axum::Router,
    http: HttpConfig,
    stop: watch::Receiver<bool>,
) {
    let slots = Arc::new(tokio::sync::Semaphore::new(http.max_connections));
    let per_client = PerClient::new(http.max_connections_per_client);
    let mut conns = tokio::task::JoinSet::new();
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => p,
            () = wait_stop(stop.clone()) => break,
        };
        let Ok(permit) = permit else { break };
        let (io, peer) = tokio::select! {
            (io, addr) = listener.accept() => (io, peer_of(&addr)),
            () = wait_stop(stop.clone()) => break,
        };
        // Reap finished connections so the set does not grow with every one ever served.
        while conns.try_join_next().is_some() {}
        let Some(held) = per_client.take(peer) else {
            // Told why, and closed at once: its slot goes back to everyone else.
            conns.spawn(refuse_connection(io, permit));
            continue;
        };
        conns.spawn(serve_connection(
            io,
            peer,
            app.clone(),
            http.clone(),
            stop.clone(),
            (permit, held),
        ));
    }
    while conns.join_next().await.is_some() {}
}

/// Open connections by client, for `http.max_connections_per_client`.
#[derive(Clone)]
struct PerClient {
    open: Arc<std::sync::Mutex<std::collections::HashMap<Peer, usize>>>,
    limit: usize,
}

/// One client's connection, counted while it lives.
struct ClientSlot {
    clients: PerClient,
    peer: Peer,
}

impl PerClient {
    fn new(limit: usize) -> PerClient {
        PerClient {
            open: Arc::default(),
            limit,
        }
    }

    /// A slot for one more connection of `peer`, or `None` when it has its limit open.
    fn take(&self, peer: Peer) -> Option<ClientSlot> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(peer).or_insert(0);
        if *n >= self.limit {
            return None;
        }
        *n += 1;
        Some(ClientSlot {
            clients: self.clone(),
            peer,
        })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut open = self.clients.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.peer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.peer);
            }
        }
    }
}

/// Answers a connection beyond its client's limit with a 503 (within a second) and closes it.
async fn refuse_connection<I>(io: I, _slot: tokio::sync::OwnedSemaphorePermit)
where
    I: tokio::io::AsyncWrite + Unpin,
{
    answer_and_close(
        io,
        "503 Service Unavailable",
        "too many connections from this client (http.max_connections_per_client): close some \
         and retry",
    )
    .await;
}

/// Answers `status` with `{"error": error}` (within a second) and closes the connection.
async fn answer_and_close<I>(mut io: I, status: &str, error: &str)
where
    I: tokio::io::AsyncWrite + Unpin,
{
    use tokio::io::AsyncWriteExt;
    let body = serde_json::json!({ "error": error }).to_string();
    let answer = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = io.write_all(answer.as_bytes()).await;
        let _ = io.shutdown().await;
    })
    .await;
}

async fn serve_connection<I>(
    io: I,
    peer: Peer,
    app: axum::Router,
    http: HttpConfig,
    stop: watch::Receiver<bool>,
    _slots: (tokio::sync::OwnedSemaphorePermit, ClientSlot),
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut io = tokio_io_timeout::TimeoutStream::new(io);
    io.set_read_timeout(Some(http.idle_timeout));
    io.set_write_timeout(Some(http.idle_timeout));
    let io = hyper_util::rt::TokioIo::new(Box::pin(io));
    // Every request of the connection carries its client, for the limits that count by it.
    let app = tower::ServiceExt::map_request(app, move |mut req: axum::extract::Request<_>| {
        req.extensions_mut().insert(peer);
        req
    });
    let service = hyper_util::service::TowerToHyperService::new(app);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(http.header_timeout);
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    tokio::select! {
        r = conn.as_mut() => {
            if let Err(e) = r {
                tracing::debug!(error = %e, "connection closed");
            }
        }
        () = wait_stop(stop) => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

async fn wait_stop(mut rx: watch::Receiver<bool>) {
    while !*rx.borrow() {
        if rx.changed().await.is_err() {
            return;
        }
    }
}

/// Pings systemd's watchdog at half its interval, when it asked for one, and only while the
/// runner's heartbeat is younger than the interval: a stuck runner (or a stuck async runtime,
/// where this task runs) stops the pings, and systemd restarts the daemon. The runner beats
/// every second and between the steps of its slower work (polls, garbage collection).
async fn watchdog(heartbeat: Heartbeat) {
    let Some(every) = sd_notify::watchdog_enabled() else {
        return;
    };
    let mut tick = tokio::time::interval(every / 2);
    let mut silent = false;
    loop {
        tick.tick().await;
        if heartbeat.age() < every {
            silent = false;
            let _ = sd_notify::notify(&[sd_notify::NotifyState::Watchdog]);
        } else if !silent {
            silent = true;
            tracing::error!(
                age_s = heartbeat.age().as_secs(),
                "the job runner has not gone round for a whole watchdog interval; no more \
                 watchdog pings until it does (systemd restarts a daemon that stays stuck)"
            );
        }
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::error!("cannot install signal handlers; stop frugald with SIGKILL");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => tracing::info!("SIGTERM"),
        _ = int.recv() => tracing::info!("SIGINT"),
    }
}

fn write_addr_file(state_dir: &Path, addr: SocketAddr) -> anyhow::Result<()> {
    let path = frugal_api::addr::path(state_dir);
    let tmp = state_dir.join(format!("{}.tmp", frugal_api::addr::ADDR_FILE));
    std::fs::write(&tmp, frugal_api::addr::format(addr))
        .and_then(|()| std::fs::rename(&tmp, &path))
        .with_context(|| format!("write {}", path.display()))
}

/// Checks that the config is usable by this build, for `frugald --check-config`.
pub fn check(cfg: &Config) -> anyhow::Result<()> {
    job_env(cfg, 1, None)?;
    if let Some(c) = &cfg.scheduler.default_schedule {
        CronSchedule::parse(c.source()).context("scheduler.default_schedule")?;
    }
    if cfg.daemon.listen.ip().is_unspecified() {
        tracing::warn!(
            "daemon.listen is a wildcard address: the API is reachable from other hosts"
        );
    }
    if cfg.executor.workers == 0 {
        bail!("executor.workers resolved to 0");
    }
    Ok(())
}

/// The criteria of every job: the default ones, with frugal's own mutants as goals when
/// `search.mutants` (already checked by the config) asks for them.
fn criteria_of(mutants: &str) -> frugal_subject::criteria::Criteria {
    let mut c = frugal_subject::criteria::Criteria::default();
    match mutants {
        "weak" => {
            c.0.insert(frugal_search::GoalKind::WeakMutation);
        }
        "strong" => {
            c.0.insert(frugal_search::GoalKind::StrongMutation);
        }
        _ => {}
    }
    c
}
