//! Property fuzzing with proptest, bounded by cases or by time: the same targets run as a
//! short smoke in `cargo test` (`FRUGAL_FUZZ_CASES`, default 256 cases) and for as long as
//! asked by hand (`FRUGAL_FUZZ_SECS=600 cargo test --release -p frugal-config --test fuzz --
//! --nocapture`), each round with a fresh random seed, until a case fails (the shrunk input is
//! in the panic) or the time is up.

use std::time::{Duration, Instant};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

/// Cases per round when running for a time.
const ROUND: u32 = 2000;

fn env_u64(var: &str) -> Option<u64> {
    std::env::var(var).ok()?.trim().parse().ok()
}

/// Runs `test` on values of `strategy`: `FRUGAL_FUZZ_CASES` cases (default 256), or rounds
/// of fresh seeds for `FRUGAL_FUZZ_SECS` seconds. Panics with the shrunk failing value.
pub fn fuzz<S>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: std::fmt::Debug,
{
    let secs = env_u64("FRUGAL_FUZZ_SECS").unwrap_or(0);
    let cases = env_u64("FRUGAL_FUZZ_CASES").unwrap_or(256) as u32;
    let started = Instant::now();
    let mut total: u64 = 0;
    let mut round: u64 = 0;
    loop {
        let per_round = if secs > 0 { ROUND } else { cases };
        let config = Config {
            cases: per_round,
            failure_persistence: None,
            ..Config::default()
        };
        let seed = started.elapsed().as_nanos() as u64 ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
        let mut runner = TestRunner::new_with_rng(config, rng);
        match runner.run(&strategy, &test) {
            Ok(()) => {}
            Err(TestError::Fail(why, value)) => {
                panic!("fuzz {name}: case failed after {total} cases: {why}\ninput: {value:?}")
            }
            Err(TestError::Abort(why)) => panic!("fuzz {name}: aborted: {why}"),
        }
        total += u64::from(per_round);
        round += 1;
        if started.elapsed() >= Duration::from_secs(secs) {
            break;
        }
    }
    eprintln!(
        "fuzz {name}: {total} cases in {:.0} s, no failure",
        started.elapsed().as_secs_f64()
    );
}
