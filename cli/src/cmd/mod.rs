//! One module per subcommand. `run`, `check --suite`, `profile` and `replace` work alone;
//! `repo`, `trigger`, `status`, `suite`, `check`, `accept`, `token`, `hooks` and `gc` talk to `frugald`
//! through
//! [`crate::client`], and print a short human answer (or JSON with `--json`).

pub mod accept;
pub mod check;
pub mod gc;
pub mod hooks;
pub mod measure;
pub mod profile;
pub mod replace;
pub mod repo;
pub mod run;
pub mod status;
pub mod store;
pub mod suite;
pub mod token;
pub mod trigger;

use frugal_api::v1;

/// The crate features a command builds and analyses with.
#[derive(Debug, Clone, clap::Args)]
pub struct Features {
    /// Features to enable, comma separated.
    #[arg(long, value_delimiter = ',')]
    pub features: Vec<String>,
    /// Enable every feature.
    #[arg(long)]
    pub all_features: bool,
}

impl Features {
    /// Analysis options with these features enabled.
    pub fn analyze_options(&self) -> frugal_subject::analyze::AnalyzeOptions {
        frugal_subject::analyze::AnalyzeOptions {
            features: self.features.iter().cloned().collect(),
            all_features: self.all_features,
            ..Default::default()
        }
    }

    /// The same features as cargo arguments (`--all-features`, or `--features a,b`).
    pub fn cargo_args(&self) -> Vec<String> {
        self.analyze_options().cargo_args()
    }
}

/// Refuses before any of the crate's code runs (its build scripts, proc macros and tests) where
/// this host cannot confine its files, unless `--no-sandbox` asked to run it unconfined: a
/// warning after the run came after the code had already had this user's files.
pub(crate) fn require_confinement(no_sandbox: bool) -> anyhow::Result<()> {
    if no_sandbox {
        return Ok(());
    }
    if let Some(missing) = frugal_sandbox::Capabilities::probe().fs_missing() {
        anyhow::bail!(
            "refused: this host cannot confine the crate's files ({missing}); frugal runs a \
             crate's code only where the filesystem is confined (pass --no-sandbox to run it \
             unconfined, with your rights, on code you trust)"
        );
    }
    Ok(())
}

pub(crate) fn print_json<T: serde::Serialize>(v: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

/// The first ten characters of a commit (whole characters, whatever the string holds), or `-`.
pub(crate) fn short_commit(commit: Option<&str>) -> &str {
    match commit {
        Some(c) => c.char_indices().nth(10).map_or(c, |(end, _)| &c[..end]),
        None => "-",
    }
}

pub(crate) fn cost_text(s: &v1::Suite) -> String {
    match &s.total_cost {
        Some(c) => format!(", cost {:.0} {}", c.value, c.basis),
        None => ", cost not measured".to_string(),
    }
}

/// The cgroup of this invocation, for the commands that run a crate's code: every confined
/// command they start lands in it, bounded as a whole by `jobs.max_memory` and
/// `jobs.max_processes` (their defaults, or `FRUGAL_JOBS_MAX_MEMORY`,
/// `FRUGAL_JOBS_MAX_PROCESSES`), and whatever of it is left when the command ends is killed.
/// Where no cgroup may be created (a user's shell), it holds nothing and each confined command
/// is killed by its own session, as before.
pub(crate) fn invocation_scope() -> anyhow::Result<frugal_sandbox::JobScope> {
    let env = std::env::vars().filter(|(k, _)| k.starts_with("FRUGAL_JOBS_"));
    let jobs = frugal_config::Config::from_env(env)?.jobs;
    Ok(frugal_sandbox::JobScope::new(frugal_sandbox::JobLimits {
        memory_max: jobs.max_memory,
        pids_max: jobs.max_processes,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_commits_cut_at_character_boundaries() {
        let full = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(short_commit(Some(full)), "0123456789");
        assert_eq!(short_commit(Some("abc")), "abc");
        assert_eq!(short_commit(Some("")), "");
        assert_eq!(short_commit(None), "-");
        assert_eq!(short_commit(Some("abcdefghié-and-more")), "abcdefghié");
        assert_eq!(
            short_commit(Some("😀😀😀😀😀😀😀😀😀😀😀😀")),
            "😀😀😀😀😀😀😀😀😀😀"
        );
    }
}
