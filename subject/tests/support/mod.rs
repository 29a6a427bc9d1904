//! What several of the subject's end-to-end tests share.

use std::path::{Path, PathBuf};
use std::time::Duration;

use frugal_search::{Budget, SearchParams};
use frugal_subject::executor::ExecConfig;
use frugal_subject::pipeline::RunOptions;

/// A run of the crate at `dir` with seed 1, `executions` executions on `workers` workers (each
/// test execution limited to `timeout`), in the work dir `work`, writing to `out`. A fixed seed
/// and an execution budget make the run repeatable; callers set the rest by struct update.
pub fn seeded_run(
    dir: PathBuf,
    executions: u64,
    workers: usize,
    timeout: Duration,
    work: &Path,
    out: &Path,
) -> RunOptions {
    RunOptions {
        search: SearchParams {
            seed: 1,
            budget: Budget::Executions(executions),
            ..SearchParams::default()
        },
        exec: ExecConfig {
            workers,
            timeout,
            ..ExecConfig::default()
        },
        work_dir: Some(work.to_path_buf()),
        ..RunOptions::new(dir, out)
    }
}
