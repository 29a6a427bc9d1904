//! Every key's built-in default, by section: the one place they live. `frugal.example.toml`
//! shows the same values (a test loads it and compares), so change both together.

pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub mod daemon {
    use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

    use crate::LogFormat;

    /// Loopback: exposing the API is a deliberate act.
    pub const LISTEN: SocketAddr =
        SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 1), 7878));
    /// systemd's `StateDirectory=frugal`.
    pub const STATE_DIR: &str = "/var/lib/frugal";
    /// `token_file` defaults to this name inside `state_dir`, wherever that is.
    pub const TOKEN_FILE_NAME: &str = "token";
    pub const WORKERS: usize = 2;
    pub const LOG_FORMAT: LogFormat = LogFormat::Text;
    /// Reads stay open on loopback, as before tokens had scopes.
    pub const AUTH_READS: bool = false;
    /// One replacement at a time: each builds the crate twice and runs every test.
    pub const MAX_REPLACEMENTS: usize = 1;
    // `unix_socket`: no socket unless asked for. `allowed_hosts`: none beyond loopback
    // names and the listen address.
}

pub mod http {
    use std::time::Duration;

    /// A client has 10 s to send a request's headers (slowloris gets nothing more).
    pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// Registration runs `git` and `cargo metadata`; everything else is far quicker.
    pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
    pub const MAX_CONNECTIONS: usize = 256;
    /// A quarter of the whole: one client cannot hold every slot.
    pub const MAX_CONNECTIONS_PER_CLIENT: usize = 64;
}

pub mod search {
    use std::time::Duration;

    use crate::Budget;

    pub const BUDGET: Budget = Budget::Time(Duration::from_secs(300));
    pub const ALGORITHM: &str = "adynamosa";
    pub const SEED: u64 = 1;
    /// EvoSuite's defaults.
    pub const POPULATION: usize = 50;
    pub const TOURNAMENT_SIZE: usize = 10;
    pub const GOAL_SELECTION: &str = "all";
    /// Off: strong-mutation goals cost a share of the executions (docs/run.md).
    pub const MUTANTS: &str = "off";
    /// Generations without a new goal before a seeded search stops (0 would be never). On
    /// humantime after an API change, 20 stopped 0.7 points of goals short of a from-scratch
    /// run; 50 matched it in under a second of search.
    pub const STALL_GENERATIONS: u32 = 50;
    pub const TESTABILITY: bool = true;
}

pub mod executor {
    use std::time::Duration;

    pub const TIMEOUT: Duration = Duration::from_millis(1000);
    /// 0 means one harness process per core, resolved when the config is loaded.
    pub const WORKERS: u64 = 0;
}

pub mod scheduler {
    use std::time::Duration;

    pub const MAX_CONCURRENT_JOBS: usize = 1;
    /// One token's share of the queue: a monorepo's crates, not the whole host's.
    pub const MAX_QUEUED_PER_TOKEN: usize = 16;
    pub const POLL_INTERVAL: Option<Duration> = Some(Duration::from_secs(60));
    /// Two minutes: a node renews its leases every few seconds, so a dead node's jobs wait at
    /// most this long before another node claims them.
    pub const LEASE: Duration = Duration::from_secs(120);
    // `default_schedule`: no scheduled regeneration unless asked for.
}

pub mod sandbox {
    /// A daemon runs untrusted code: without filesystem confinement it refuses jobs.
    pub const REQUIRE: bool = true;
}

pub mod regressions {
    use crate::RegressionPolicy;

    /// A regression service checks every commit against the previous suite.
    pub const CHECK: bool = true;
    /// Suites follow the code; the report says what changed.
    pub const POLICY: RegressionPolicy = RegressionPolicy::Record;
}

pub mod mutation {
    /// cargo-mutants on the own suite costs a build and a test run per mutant: opt-in.
    pub const SURVIVORS: bool = false;
    /// Half an hour: a crate of a few hundred mutants at a few seconds each.
    pub const SURVIVORS_MAX_SECONDS: u64 = 1800;
}

pub mod jobs {
    /// Two hours: a default 5-minute search plus builds, verification and profiling of a
    /// large crate fit many times over; a job still running then is stuck.
    pub const MAX_SECONDS: u64 = 7200;
    /// 8 GiB: cargo building a large crate with two jobs and a test harness fit; a third of
    /// a 24 GiB host, so two jobs at once leave the daemon its share.
    pub const MAX_MEMORY: u64 = 8 << 30;
    /// cargo, rustc's threads, build scripts, the harness's workers and the tests' own
    /// threads, with room; a fork bomb stops here.
    pub const MAX_PROCESSES: u64 = 2048;
    /// 16 GiB: a large crate's kept target dirs (build, instrumented copy, profile) fit.
    pub const MAX_DISK: u64 = 16 << 30;
    /// 500 000: a large crate's kept target dirs hold tens of thousands; millions of files
    /// would make every walk of the state dir slow.
    pub const MAX_FILES: u64 = 500_000;
    /// Each job builds from empty dirs: nothing one commit's code wrote is built or run
    /// by the next.
    pub const KEEP_BUILDS: bool = false;
    /// Off: measuring what CI pays builds the crate and its dependencies twice more from
    /// empty target dirs, for each of the generated and the own tests.
    pub const CI_COST: bool = false;
    // `git_hosts`: none. A git dependency makes frugald's unconfined `cargo fetch` contact the
    // host its URL names, so only hosts the admin lists are contacted.
}

pub mod store {
    /// A few connections per node: API reads, the runner, the heartbeat.
    pub const POOL_SIZE: u64 = 8;
}

pub mod retention {
    use std::time::Duration;

    /// Enough history to compare suites over weeks of commits.
    pub const SUITES_PER_CRATE: u64 = 20;
    pub const REPORTS: u64 = 1000;
    pub const RUNS: u64 = 1000;
    pub const JOBS: u64 = 1000;
    /// 20 GiB: a few dozen crates' target dirs.
    pub const DISK_BUDGET: u64 = 20 << 30;
    pub const GC_INTERVAL: Option<Duration> = Some(Duration::from_secs(3600));
}
