//! `frugal replace`: a cheaper replacement for a crate's own test suite (`frugal-replace`).
//!
//! Locally: generate a suite with `frugal run` (a child process of this binary, so the two
//! commands cannot drift apart) unless `--generated` names one or `--no-generate` asks for own
//! tests only, then hand everything to [`frugal_replace::replace`] and print before/after,
//! the nextest filter (\[nextest\]) and the generated tests needed. With `--repo`, ask frugald instead
//! (`POST /v1/repos/{id}/replacement`, which needs a trigger token, then `GET` while it computes).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::client::{Client, Conn};
use anyhow::{Context, bail};
use frugal_api::v1;
use frugal_replace::{CostMetric, CoverTarget, ReplaceConfig, Replacement, Stage};

/// Arguments of `frugal replace`.
#[derive(Debug, clap::Args)]
pub struct ReplaceArgs {
    /// Path to the crate whose own suite is replaced (not with `--repo`).
    #[arg(required_unless_present = "repo", conflicts_with = "repo")]
    pub krate: Option<PathBuf>,
    /// Ask frugald for the replacement of a registered repository's best suite (id or path).
    #[arg(long)]
    pub repo: Option<String>,
    /// With `--repo`: the crate (default: the repository's only or first crate).
    #[arg(long = "crate")]
    pub crate_name: Option<String>,
    /// Cost to minimise: cpu, instructions (hardware counter, else valgrind), wall or memory.
    #[arg(long, default_value = "cpu")]
    pub metric: CostMetric,
    /// Goals to keep: `own` (every goal the own suite covers) or `all` (also the generated
    /// tests' goals).
    #[arg(long, default_value = "own")]
    pub cover: CoverTarget,
    /// A generated test file to draw from (default: generate one with `frugal run`).
    #[arg(long, conflicts_with = "no_generate")]
    pub generated: Option<PathBuf>,
    /// Use the own tests only.
    #[arg(long)]
    pub no_generate: bool,
    /// Search budget of the generation (see `frugal run --budget`).
    #[arg(long, default_value = "30s")]
    pub budget: String,
    /// Seed of the generation.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Directory for frugal_replacement.rs, replacement.json, kept_tests.txt and filter.txt.
    #[arg(long, default_value = "frugal.replace")]
    pub out: PathBuf,
    /// Scratch directory (copies, builds, coverage dumps; default: under --out).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Profile runs per test; medians are over the passing ones.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Seconds after which a test is killed.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
    #[command(flatten)]
    pub features: super::Features,
    /// Print the replacement as JSON.
    #[arg(long)]
    pub json: bool,
    /// With `--repo`: seconds to wait for frugald to finish computing.
    #[arg(long, default_value_t = 1800)]
    pub wait: u64,
}

/// Runs `frugal replace`.
pub fn run(conn: &Conn, args: ReplaceArgs) -> anyhow::Result<()> {
    let replacement = match (&args.repo, &args.krate) {
        (Some(repo), _) => remote(conn, repo, &args)?,
        (None, Some(krate)) => local(krate, &args)?,
        (None, None) => bail!("name a crate directory or --repo"),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&replacement)?);
    } else {
        print!("{}", render(&replacement));
    }
    Ok(())
}

fn local(krate: &Path, args: &ReplaceArgs) -> anyhow::Result<Replacement> {
    if !krate.join("Cargo.toml").is_file() {
        bail!(
            "{} has no Cargo.toml: pass the directory of a Rust crate",
            krate.display()
        );
    }
    let work = args
        .work_dir
        .clone()
        .unwrap_or_else(|| args.out.join("work"));
    let generated = match (&args.generated, args.no_generate) {
        (Some(file), _) => Some(file.clone()),
        (None, true) => None,
        (None, false) => Some(generate(krate, args, &work)?),
    };
    let mut cfg = ReplaceConfig::new(krate, &work);
    cfg.out_dir = args.out.clone();
    cfg.generated = generated;
    cfg.metric = args.metric;
    cfg.cover = args.cover;
    cfg.repeat = args.repeat;
    cfg.timeout = Duration::from_secs(args.timeout);
    cfg.features = args.features.analyze_options();
    let quiet = args.json;
    frugal_replace::replace(&cfg, &mut |stage| show(stage, quiet))
        .with_context(|| format!("frugal replace {}", krate.display()))
}

/// `frugal run <crate> --json` as a child process; returns the generated file.
fn generate(krate: &Path, args: &ReplaceArgs, work: &Path) -> anyhow::Result<PathBuf> {
    let out = work.join("generated");
    let exe = std::env::current_exe().context("find the frugal binary")?;
    let mut cmd = Command::new(exe);
    cmd.arg("run")
        .arg(krate)
        .args(["--budget", &args.budget, "--seed", &args.seed.to_string()])
        .arg("--out")
        .arg(&out)
        .arg("--work-dir")
        .arg(work.join("pipeline"))
        .arg("--json")
        .args(args.features.cargo_args());
    if !args.json {
        eprintln!("generating tests (frugal run, budget {})...", args.budget);
    }
    let output = cmd.output().context("run `frugal run`")?;
    if !output.status.success() {
        bail!(
            "generating tests failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let file = out.join(format!("{}.rs", frugal_replace::GENERATED_TARGET));
    if !file.is_file() {
        bail!("`frugal run` wrote no {}", file.display());
    }
    Ok(file)
}

fn show(stage: Stage, quiet: bool) {
    if quiet {
        return;
    }
    match stage {
        Stage::Profile => eprintln!("profiling own and generated tests (uninstrumented)..."),
        Stage::Instrument => eprintln!("instrumenting and building the tests..."),
        Stage::Coverage { done, total } if done == total => {
            eprintln!("goal coverage of {total} test(s) collected")
        }
        Stage::Solve => eprintln!("choosing the cheapest covering set..."),
        Stage::Verify { done, total } if total > 0 && done == total => {
            eprintln!("verified {total} test(s) on the instrumented build")
        }
        _ => {}
    }
}

/// Asks frugald, polling while it answers `computing`.
fn remote(conn: &Conn, repo: &str, args: &ReplaceArgs) -> anyhow::Result<Replacement> {
    let cfg = crate::client::load_config(conn.config.as_deref())?;
    let client = Client::new(&cfg, conn.url.as_deref(), Duration::from_secs(30));
    let r = client.resolve_repo(Some(repo))?;
    let mut query = format!(
        "?metric={}&cover={}",
        args.metric.name(),
        match args.cover {
            CoverTarget::Own => "own",
            CoverTarget::All => "all",
        }
    );
    if let Some(c) = &args.crate_name {
        query.push_str(&format!("&crate={c}"));
    }
    let path = format!("/v1/repos/{}/replacement{query}", r.id);
    let deadline = Instant::now() + Duration::from_secs(args.wait);
    let mut told = false;
    // POST starts the computation (or answers a stored result); GETs then watch it.
    let mut answer: v1::ReplacementAnswer = client.post(&path, &serde_json::json!({}))?;
    loop {
        match answer.status.as_str() {
            "ready" => {
                let json = answer
                    .replacement
                    .context("frugald said ready but sent no replacement")?;
                return serde_json::from_value(json)
                    .context("read frugald's replacement (is the CLI older than frugald?)");
            }
            "failed" => bail!(
                "frugald could not compute the replacement: {}",
                answer.error.unwrap_or_default()
            ),
            _ if Instant::now() >= deadline => {
                bail!("frugald is still computing after {} s", args.wait)
            }
            _ => {
                if !told && !args.json {
                    eprintln!(
                        "frugald is computing the replacement of suite {}...",
                        answer.suite
                    );
                    told = true;
                }
                std::thread::sleep(Duration::from_secs(2));
                answer = client.get(&path)?;
            }
        }
    }
}

/// `12.3 ms`, `4.5 MiB`, `1.2e6`: a cost in its unit.
fn amount(value: f64, unit: &str) -> String {
    match unit {
        "ns" if value >= 1e9 => format!("{:.2} s", value / 1e9),
        "ns" => format!("{:.2} ms", value / 1e6),
        "bytes" => format!("{:.1} MiB", value / (1024.0 * 1024.0)),
        _ => format!("{value:.0}"),
    }
}

fn share(part: usize, total: usize) -> String {
    if total == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / total as f64)
    }
}

/// The human answer.
pub fn render(r: &Replacement) -> String {
    let mut s = String::new();
    let cover = match r.cover {
        CoverTarget::Own => "every goal the own suite covers",
        CoverTarget::All => "every goal the own suite or the generated tests cover",
    };
    s.push_str(&format!(
        "replacement for `{}`: must cover {cover} ({} goals); cost = {} ({})\n\n",
        r.krate,
        r.goals_required,
        r.metric.name(),
        r.basis
    ));
    s.push_str(&format!(
        "{:<16} {:>6} {:>14} {:>18}   {}\n",
        "", "tests", "cost", "goals", "lines"
    ));
    for (label, f) in [
        ("own suite", &r.before),
        ("replacement", &r.after),
        ("generated", &r.generated),
    ] {
        let lines = f.by_kind.get("line").copied().unwrap_or(0);
        let all_lines = r.totals_by_kind.get("line").copied().unwrap_or(0);
        s.push_str(&format!(
            "{:<16} {:>6} {:>14} {:>9}/{} {:>6}   {:>5}\n",
            label,
            f.tests,
            amount(f.cost, &r.unit),
            f.goals,
            r.goals_total,
            share(f.goals, r.goals_total),
            share(lines, all_lines)
        ));
    }
    s.push_str(&format!(
        "\ncost ratio {:.3} ({}); solver: {:?}, {} candidates ({} after reduction), gap to lower bound {:.1}%\n",
        r.cost_ratio,
        if r.cost_ratio <= 1.0 {
            format!("{:.1}% cheaper", 100.0 * (1.0 - r.cost_ratio))
        } else {
            format!("{:.1}% dearer, for the goals it adds", 100.0 * (r.cost_ratio - 1.0))
        },
        r.solver.method,
        r.solver.candidates,
        r.solver.reduced,
        100.0 * r.solver.gap
    ));
    s.push_str(&format!(
        "generated tests cover {} goal(s) the own suite misses; the replacement covers {} of them\n",
        r.generated_only_goals, r.added_goals
    ));
    s.push_str(&format!(
        "verified: {} test(s) re-run on the instrumented build reach all {} required goals\n",
        r.verification.tests_run, r.verification.goals_reached
    ));
    s.push_str(&format!(
        "\nkept own tests ({}):\n  cargo nextest run -E '{}'\n",
        r.kept_own.len(),
        r.filter
    ));
    for t in &r.kept_own {
        s.push_str(&format!("  {t}\n"));
    }
    match &r.generated_file {
        Some(file) => {
            s.push_str(&format!(
                "\ngenerated tests needed ({}): {}\n  copy it to tests/{}.rs and run everything with:\n  cargo nextest run -E '{}'\n",
                r.generated_needed.len(),
                file.display(),
                frugal_replace::REPLACEMENT_TARGET,
                r.filter_with_generated
            ));
        }
        None => s.push_str("\nno generated test is needed\n"),
    }
    s
}
