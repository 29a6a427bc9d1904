//! The `frugal` subcommands that talk to `frugald`: `repo`, `trigger`, `status`, `suite` and
//! `hooks`. Each parses its arguments, makes one or two API calls through
//! `frugal_daemon::client`, and prints a short human answer (or JSON with `--json`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use frugal_daemon::client::Client;
use frugal_daemon::hooks::{self, HookSpec};
use frugal_daemon::{daemon, v1};

/// Where the daemon is; shared by every API subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Conn {
    /// Configuration file (default: $FRUGAL_CONFIG, else /etc/frugal/frugal.toml if present).
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    /// Base URL of frugald (default: $FRUGAL_URL, else the running daemon's address).
    #[arg(long, global = true)]
    pub url: Option<String>,
}

impl Conn {
    fn client(&self, timeout: Duration) -> anyhow::Result<Client> {
        let cfg = daemon::load_config(self.config.as_deref())?;
        Ok(Client::new(&cfg, self.url.as_deref(), timeout))
    }
}

const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, clap::Subcommand)]
pub enum RepoCmd {
    /// Register a repository with frugald and install its git hooks.
    Add(RepoAdd),
    /// List the registered repositories.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show a repository: crates, best suites, active jobs.
    Show {
        /// Id or path (default: the repository of the current directory).
        repo: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Unregister a repository (its suites stay in the history).
    Remove {
        /// Id or path.
        repo: String,
    },
}

#[derive(Debug, clap::Args)]
pub struct RepoAdd {
    /// Path of the repository (work tree or bare).
    pub path: PathBuf,
    /// A crate to generate suites for: `name` (at the root) or `name=dir`; repeatable.
    /// Default: every library crate of the workspace.
    #[arg(long = "crate", value_name = "NAME[=DIR]")]
    pub crates: Vec<String>,
    /// Cron schedule regenerating even without new commits (e.g. "0 3 * * *").
    #[arg(long)]
    pub schedule: Option<String>,
    /// Do not install git hooks (rely on polling and schedules).
    #[arg(long)]
    pub no_hooks: bool,
}

#[derive(Debug, clap::Args)]
pub struct TriggerArgs {
    /// Id or path of the repository (default: the repository of the current directory).
    pub repo: Option<String>,
    /// Commit to build (default: HEAD).
    #[arg(long)]
    pub commit: Option<String>,
    /// Called from a git hook: regenerate only what the commit changed, print nothing.
    #[arg(long)]
    pub hook: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// A run id: show that run (default: the daemon, its queue and the runs in flight).
    pub run: Option<u64>,
    /// Wait until the run ends; exit 1 if it failed.
    #[arg(long, requires = "run")]
    pub wait: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum SuiteCmd {
    /// Download the best suite of a crate.
    Best(SuiteBest),
    /// List the stored suites of a repository, newest first.
    History {
        /// Id or path (default: the repository of the current directory).
        #[arg(long)]
        repo: Option<String>,
        #[arg(long = "crate")]
        krate: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, clap::Args)]
pub struct SuiteBest {
    /// Id or path (default: the repository of the current directory).
    #[arg(long)]
    pub repo: Option<String>,
    /// Crate (needed when the repository has several).
    #[arg(long = "crate")]
    pub krate: Option<String>,
    /// Write the Rust file here (e.g. tests/frugal_generated.rs); default: stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the suite's figures as JSON instead of its source.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum HooksCmd {
    /// Write post-commit, post-merge and post-receive hooks that call `frugal trigger`.
    Install {
        /// Path of the repository.
        repo: PathBuf,
    },
}

fn print_json<T: serde::Serialize>(v: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

fn parse_crate(s: &str) -> v1::CrateSpec {
    match s.split_once('=') {
        Some((n, d)) => v1::CrateSpec {
            name: n.trim().to_string(),
            dir: d.trim().to_string(),
        },
        None => v1::CrateSpec {
            name: s.trim().to_string(),
            dir: String::new(),
        },
    }
}

fn hook_spec(conn: &Conn, repo: &Path) -> anyhow::Result<HookSpec> {
    let frugal = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("find the path of this frugal binary for the hooks")?;
    let config = match &conn.config {
        Some(c) => Some(
            c.canonicalize()
                .with_context(|| format!("find {}", c.display()))?,
        ),
        None => std::env::var_os("FRUGAL_CONFIG").map(PathBuf::from),
    };
    Ok(HookSpec {
        frugal,
        repo: repo.to_path_buf(),
        config,
        url: conn.url.clone(),
    })
}

fn install_hooks(conn: &Conn, repo: &Path) -> anyhow::Result<()> {
    let written = hooks::install(&hook_spec(conn, repo)?)?;
    for p in written {
        println!("installed {}", p.display());
    }
    Ok(())
}

pub fn repo(conn: &Conn, cmd: RepoCmd) -> anyhow::Result<()> {
    let client = conn.client(TIMEOUT)?;
    match cmd {
        RepoCmd::Add(a) => {
            let path = a
                .path
                .canonicalize()
                .with_context(|| format!("find the repository {}", a.path.display()))?;
            if !a.no_hooks {
                install_hooks(conn, &path)?;
            }
            let req = v1::AddRepo {
                path: path.to_string_lossy().into_owned(),
                crates: a.crates.iter().map(|c| parse_crate(c)).collect(),
                schedule: a.schedule,
                hooks_installed: !a.no_hooks,
            };
            let r: v1::Repo = client.post("/v1/repos", &req)?;
            let names: Vec<&str> = r.crates.iter().map(|c| c.name.as_str()).collect();
            println!(
                "registered repository {} ({}) with crates: {}",
                r.id,
                r.path,
                names.join(", ")
            );
        }
        RepoCmd::List { json } => {
            let repos = client.repos()?;
            if json {
                return print_json(&repos);
            }
            for r in repos {
                let names: Vec<&str> = r.crates.iter().map(|c| c.name.as_str()).collect();
                println!("{:>4}  {}  [{}]", r.id, r.path, names.join(", "));
            }
        }
        RepoCmd::Show { repo, json } => {
            let r = client.resolve_repo(repo.as_deref())?;
            let d: v1::RepoDetail = client.get(&format!("/v1/repos/{}", r.id))?;
            if json {
                return print_json(&d);
            }
            println!("repository {}: {}", d.repo.id, d.repo.path);
            println!("  hooks installed: {}", d.repo.hooks_installed);
            println!(
                "  last commit seen: {}",
                d.repo.last_seen_commit.as_deref().unwrap_or("-")
            );
            for b in &d.best {
                match &b.suite {
                    Some(s) => println!(
                        "  {}: best suite {} ({} tests, {}/{} goals{})",
                        b.krate,
                        s.id,
                        s.test_count,
                        s.goals_covered,
                        s.goals_total,
                        cost_text(s)
                    ),
                    None => println!("  {}: no suite yet", b.krate),
                }
            }
            for j in &d.jobs {
                println!("  job {} {} ({}, {})", j.id, j.state, j.krate, j.reason);
            }
        }
        RepoCmd::Remove { repo } => {
            let r = client.resolve_repo(Some(&repo))?;
            client.delete(&format!("/v1/repos/{}", r.id))?;
            println!("removed repository {} ({})", r.id, r.path);
        }
    }
    Ok(())
}

fn cost_text(s: &v1::Suite) -> String {
    match &s.total_cost {
        Some(c) => format!(", cost {:.0} {}", c.value, c.basis),
        None => ", cost not measured".to_string(),
    }
}

pub fn trigger(conn: &Conn, a: TriggerArgs) -> anyhow::Result<()> {
    // A hook must give up quickly: git already finished, nobody waits for the answer.
    let client = conn.client(if a.hook {
        Duration::from_secs(5)
    } else {
        TIMEOUT
    })?;
    let r = client.resolve_repo(a.repo.as_deref())?;
    let req = v1::Trigger {
        commit: a.commit,
        reason: Some(if a.hook { "hook" } else { "api" }.to_string()),
    };
    let t: v1::Triggered = client.post(&format!("/v1/repos/{}/trigger", r.id), &req)?;
    if a.hook {
        return Ok(());
    }
    if a.json {
        return print_json(&t);
    }
    let commit = t.commit.as_deref().unwrap_or("HEAD");
    if t.jobs.is_empty() {
        println!("nothing to do at {commit}: no crate changed");
    }
    for j in &t.jobs {
        let how = if j.deduped {
            "merged into queued job"
        } else {
            "queued job"
        };
        println!("{}: {how} {} at {commit}", j.krate, j.job);
    }
    Ok(())
}

fn run_line(r: &v1::Run) -> String {
    let p = &r.progress;
    let mut s = format!(
        "run {} {} {} @ {}: {}",
        r.id,
        r.krate,
        r.status,
        r.commit
            .as_deref()
            .map(|c| &c[..c.len().min(10)])
            .unwrap_or("-"),
        p.phase
    );
    if p.goals > 0 {
        s.push_str(&format!(
            ", {}/{} goals, {} executions",
            p.covered, p.goals, p.executions
        ));
    }
    if p.live {
        s.push_str(&format!(", {:.0}s", p.elapsed_s));
    }
    if let Some(e) = &r.error {
        s.push_str(&format!(": {e}"));
    }
    s
}

pub fn status(conn: &Conn, a: StatusArgs) -> anyhow::Result<()> {
    let client = conn.client(TIMEOUT)?;
    let Some(id) = a.run else {
        let s: v1::Status = client.get("/v1/status")?;
        if a.json {
            return print_json(&s);
        }
        println!(
            "frugald {} at {}: up {:.0}s, {} repositories, {} jobs queued, {} running{}",
            s.version,
            client.base(),
            s.uptime_s,
            s.repos,
            s.jobs_queued,
            s.jobs_running,
            if s.stopping { " (stopping)" } else { "" }
        );
        for r in &s.running {
            println!("  {}", run_line(r));
        }
        return Ok(());
    };
    loop {
        let r: v1::Run = client.get(&format!("/v1/runs/{id}"))?;
        if !a.wait || r.status != "running" {
            if a.json {
                print_json(&r)?;
            } else {
                println!("{}", run_line(&r));
            }
            if a.wait && r.status != "succeeded" {
                std::process::exit(1);
            }
            return Ok(());
        }
        eprintln!("{}", run_line(&r));
        std::thread::sleep(Duration::from_secs(2));
    }
}

fn crate_query(krate: &Option<String>) -> String {
    match krate {
        Some(k) => format!("?crate={k}"),
        None => String::new(),
    }
}

pub fn suite(conn: &Conn, cmd: SuiteCmd) -> anyhow::Result<()> {
    let client = conn.client(TIMEOUT)?;
    match cmd {
        SuiteCmd::Best(b) => {
            let r = client.resolve_repo(b.repo.as_deref())?;
            let q = crate_query(&b.krate);
            if b.json {
                let s: v1::Suite = client.get(&format!("/v1/repos/{}/suites/best{q}", r.id))?;
                return print_json(&s);
            }
            let source = client.get_text(&format!("/v1/repos/{}/suites/best/source{q}", r.id))?;
            write_out(b.out.as_deref(), &source)
        }
        SuiteCmd::History { repo, krate, json } => {
            let r = client.resolve_repo(repo.as_deref())?;
            let suites: Vec<v1::Suite> =
                client.get(&format!("/v1/repos/{}/suites{}", r.id, crate_query(&krate)))?;
            if json {
                return print_json(&suites);
            }
            for s in suites {
                println!(
                    "{} suite {:>5}  {}  {}  {} tests, {}/{} goals{}",
                    if s.is_best { "*" } else { " " },
                    s.id,
                    s.krate,
                    s.commit
                        .as_deref()
                        .map(|c| &c[..c.len().min(10)])
                        .unwrap_or("-"),
                    s.test_count,
                    s.goals_covered,
                    s.goals_total,
                    cost_text(&s)
                );
            }
            Ok(())
        }
    }
}

/// Writes to a file, or to stdout where a closed pipe (`| head`) ends quietly.
fn write_out(out: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match out {
        Some(p) => {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("create {}", dir.display()))?;
            }
            std::fs::write(p, text).with_context(|| format!("write {}", p.display()))?;
            eprintln!("wrote {}", p.display());
            Ok(())
        }
        None => match std::io::stdout().lock().write_all(text.as_bytes()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.context("write to stdout"),
        },
    }
}

pub fn hooks_cmd(conn: &Conn, cmd: HooksCmd) -> anyhow::Result<()> {
    match cmd {
        HooksCmd::Install { repo } => {
            let path = repo
                .canonicalize()
                .with_context(|| format!("find the repository {}", repo.display()))?;
            if !path.is_dir() {
                bail!("{} is not a directory", path.display());
            }
            install_hooks(conn, &path)
        }
    }
}
