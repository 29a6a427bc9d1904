//! Values that come from where a run happens rather than from the test: the harness's `HOME`,
//! `TMPDIR`, working directory and binary all lie in the work dir, so a result whose `Debug`
//! form names it was read from the environment (`$HOME/.config/..`, `std::env::args_os()`).
//! An assertion on such a value holds only in this run, and a call handed one acts, in a suite
//! the user runs, on the user's files. [`Watch`] keeps the search from calling what produces
//! them; [`forget`] keeps the emitted suite from asserting on them or passing them on.

use std::collections::BTreeSet;
use std::path::Path;

use frugal_search::{ExecResult, Executor, OpKind, Schema, TestCase};

use crate::emit::minimise::Kept;

/// Why a test that passes on a value of the run's environment is not offered to verification.
pub const PASSES_ON_ENVIRONMENT: &str = "uses a value read from the environment (HOME, TMPDIR, \
    the working directory or the program's path) as an input: run elsewhere, it would act on \
    the user's files";

/// The work dir's spellings that betray a value read from the environment.
#[derive(Debug, Clone)]
pub struct RunEnvironment {
    needles: Vec<String>,
    /// What only the sandbox's view of the host shows: a read it refused (`PermissionDenied`
    /// from glob's `glob("/*")`; run by the user, the call reads their files). A value showing
    /// one is not asserted on or passed on, but the call that made it stays: with other
    /// arguments it reads nothing outside the test. Also the scratch dirs named whole
    /// (`"frugal-scratch"`, `"frugal-scratch/file"`): a listing shows them only once a test
    /// made them.
    artifacts: Vec<String>,
    /// Paths that exist only in frugal's copies, each the opening of a quoted path: the work
    /// dir's entries seen from the harness's working directory (`"../crate` from
    /// `glob("../*")`), and the crate copy's own entries (`".github`, `"src/frugal_generated.rs`
    /// from `glob("**")`). Listed, they depend on the checkout: the user's holds `target` and
    /// `.git`, and in-crate placement adds a file to `src`. A path only matches as a whole
    /// name, followed by `"` or `/`.
    listed: Vec<String>,
}

/// The crate copy's scratch dir, where path parameters point: a listing shows it only once
/// some test made it, so it is an artifact as a whole name but not as the parent of a path a
/// test built (`"frugal-scratch/file/a"`).
const SCRATCH: &str = "frugal-scratch";
/// The scratch dirs path parameters make their files and dirs in
/// (`harness::std_values::SCRATCH_FILE`, `SCRATCH_DIR`): listed by name (glob's `fill_todo`
/// over `frugal-scratch/*`), they exist or not depending on which tests ran before.
const SCRATCH_FILES: &str = "frugal-scratch/file";
const SCRATCH_DIRS: &str = "frugal-scratch/dir";

impl RunEnvironment {
    /// The spellings of `work` (as given, and canonical when that differs), its entries as a
    /// path relative to one of them spells them, and the entries of the crate copies in it
    /// (the harness's working directories).
    pub fn new(work: &Path) -> Self {
        let mut needles = vec![work.display().to_string()];
        if let Ok(real) = work.canonicalize() {
            needles.push(real.display().to_string());
        }
        needles.retain(|n| n.len() > 1);
        needles.dedup();
        let mut listed = Vec::new();
        for entry in entry_names(work) {
            if work.join(&entry).join("Cargo.toml").is_file() {
                listed.extend(
                    entry_names(&work.join(&entry))
                        .filter(|e| e != SCRATCH)
                        .flat_map(|e| [format!("\"{e}"), format!("\"./{e}")]),
                );
            }
            listed.push(format!("\"../{entry}"));
        }
        listed.sort();
        listed.dedup();
        let mut artifacts = vec!["PermissionDenied".to_string()];
        artifacts.extend([SCRATCH, SCRATCH_FILES, SCRATCH_DIRS].map(|a| format!("\"{a}\"")));
        RunEnvironment {
            needles,
            artifacts,
            listed,
        }
    }

    /// Whether `summary` names the work dir.
    pub fn named_in(&self, summary: &str) -> bool {
        self.needles.iter().any(|n| summary.contains(n.as_str()))
    }

    /// Whether `summary` shows the sandbox's view of the host (see `artifacts`).
    fn shows_the_sandbox(&self, summary: &str) -> bool {
        self.artifacts.iter().any(|n| summary.contains(n.as_str()))
            || self.listed.iter().any(|n| names_whole(summary, n))
    }

    /// Statements of `test` whose value came from the environment: their summary names the
    /// work dir. Sources are those none of whose arguments did (`settings_path()`, not the
    /// `unwrap()` after it).
    fn derived_and_sources(&self, test: &TestCase, result: &ExecResult) -> (Vec<u32>, Vec<u32>) {
        let (mut derived, mut sources) = (Vec::new(), Vec::new());
        for (i, summary) in result.summaries.iter().enumerate() {
            let Some(summary) = summary.as_deref() else {
                continue;
            };
            let names_work = self.named_in(summary);
            if !names_work && !self.shows_the_sandbox(summary) {
                continue;
            }
            let args = test.stmts.get(i).map_or(&[][..], |s| &s.args[..]);
            if names_work && !args.iter().any(|a| derived.contains(a)) {
                sources.push(i as u32);
            }
            derived.push(i as u32);
        }
        (derived, sources)
    }
}

/// Wraps the executor during the search: reports the calls whose results come from the
/// environment, which the search then stops inserting (as it does calls that crash every
/// time), and a test passing such a value on covers nothing. Without it the search keeps
/// using them, since they are the cheapest values it has (lsd's `Config::config_file_path()`
/// was its `PathBuf`, clap_lex's `RawArgs::default()` its arguments).
pub struct Watch<'a> {
    inner: &'a mut dyn Executor,
    seen: Seen<'a>,
}

/// What [`Watch`] keeps, apart from the executor it wraps.
struct Seen<'a> {
    env: &'a RunEnvironment,
    calls: Vec<bool>,
    found: BTreeSet<u32>,
    unreported: Vec<u32>,
}

impl<'a> Watch<'a> {
    /// Wraps `inner` for the search over `schema`, watching for values named in `env`.
    pub fn new(inner: &'a mut dyn Executor, env: &'a RunEnvironment, schema: &Schema) -> Self {
        Watch {
            inner,
            seen: Seen {
                env,
                calls: schema.ops.iter().map(|o| o.kind == OpKind::Call).collect(),
                found: BTreeSet::new(),
                unreported: Vec::new(),
            },
        }
    }

    /// Calls found reading the environment so far.
    pub fn found(&self) -> &BTreeSet<u32> {
        &self.seen.found
    }
}

impl Seen<'_> {
    fn inspect(&mut self, tests: &[TestCase], mut results: Vec<ExecResult>) -> Vec<ExecResult> {
        for (t, r) in tests.iter().zip(&mut results) {
            self.inspect_one(t, r);
        }
        results
    }

    /// Notes the calls that produced values of the environment, and takes every goal from a
    /// test that passes such a value on: it cannot be emitted, so the archive must not keep
    /// it in place of one that can.
    fn inspect_one(&mut self, t: &TestCase, r: &mut ExecResult) {
        let (derived, sources) = self.env.derived_and_sources(t, r);
        for i in sources {
            let op = t.stmts[i as usize].op;
            if self.calls.get(op as usize) == Some(&true) && self.found.insert(op) {
                self.unreported.push(op);
            }
        }
        if passes_on(t, &derived) {
            r.goals.clear();
        }
    }
}

impl Executor for Watch<'_> {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        let results = self.inner.execute(tests);
        self.seen.inspect(tests, results)
    }

    fn start(&mut self, tests: &[TestCase]) -> bool {
        self.inner.start(tests)
    }

    fn finish(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        let results = self.inner.finish(tests);
        self.seen.inspect(tests, results)
    }

    fn finish_each(&mut self, tests: &[TestCase], each: &mut dyn FnMut(usize, ExecResult)) {
        let seen = &mut self.seen;
        self.inner.finish_each(tests, &mut |i, mut r| {
            seen.inspect_one(&tests[i], &mut r);
            each(i, r);
        });
    }

    fn environment_ops(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.seen.unreported)
    }
}

/// Forgets the summaries of values from the environment, so no assertion is written on them
/// (verification's second run, under another `HOME`, would drop the test); returns the kept
/// tests that pass such a value on to another call, which are not emitted.
pub fn forget(env: &RunEnvironment, kept: &mut [Kept]) -> Vec<usize> {
    let mut passing_on = Vec::new();
    for (k, kept) in kept.iter_mut().enumerate() {
        let derived = env.derived_and_sources(&kept.test, &kept.result).0;
        for &i in &derived {
            kept.result.summaries[i as usize] = None;
        }
        // The state a call left in a value it borrowed mutably (`paths` after `paths.next()`
        // holds the rest of the listing) is asserted from what was observed.
        kept.result
            .observed
            .retain(|o| !env.named_in(&o.summary) && !env.shows_the_sandbox(&o.summary));
        if passes_on(&kept.test, &derived) {
            passing_on.push(k);
        }
    }
    passing_on
}

/// The names in `dir`, none if it cannot be read.
fn entry_names(dir: &Path) -> impl Iterator<Item = String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
}

/// Whether `summary` holds `path` (the opening of a quoted path) as a whole name: followed by
/// the closing quote or a separator, so `"../crate` does not match `"../crates.io"`.
fn names_whole(summary: &str, path: &str) -> bool {
    summary
        .match_indices(path)
        .any(|(at, _)| matches!(summary.as_bytes().get(at + path.len()), Some(b'"' | b'/')))
}

/// Whether a statement of `test` takes one of the `derived` values as an argument.
fn passes_on(test: &TestCase, derived: &[u32]) -> bool {
    !derived.is_empty()
        && test
            .stmts
            .iter()
            .any(|s| s.args.iter().any(|a| derived.contains(a)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_search::{Counters, Status, Stmt};

    /// `settings_path()`, its `unwrap()`, `label(&path)`; the first two name the work dir.
    fn kept(work: &str, pass_on: bool) -> Kept {
        let mut stmts = vec![Stmt::call(0, &[]), Stmt::call(1, &[0])];
        let mut summaries = vec![
            Some(format!("Some(\"{work}/home/.config/app\")")),
            Some(format!("\"{work}/home/.config/app\"")),
        ];
        if pass_on {
            stmts.push(Stmt::call(2, &[1]));
            summaries.push(Some("\"APP\"".into()));
        }
        Kept {
            test: TestCase { stmts },
            result: ExecResult {
                status: Status::Completed,
                completed: summaries.len(),
                goals: Vec::new(),
                summaries,
                observed: Vec::new(),
                counters: Counters::default(),
                seen: Vec::new(),
            },
            goals: Default::default(),
            kills: Default::default(),
        }
    }

    #[test]
    fn the_first_value_naming_the_work_dir_is_the_source_and_what_it_feeds_is_derived() {
        let env = RunEnvironment::new(Path::new("/srv/frugal/work-1"));
        let k = kept("/srv/frugal/work-1", true);
        assert_eq!(
            env.derived_and_sources(&k.test, &k.result),
            (vec![0, 1], vec![0])
        );
        let elsewhere = RunEnvironment::new(Path::new("/srv/frugal/work-2"));
        assert_eq!(
            elsewhere.derived_and_sources(&k.test, &k.result).0,
            Vec::<u32>::new()
        );
    }

    #[test]
    fn what_only_the_sandbox_shows_is_derived_but_its_call_is_no_source() {
        let work = tempfile::tempdir().unwrap();
        std::fs::create_dir(work.path().join("crate")).unwrap();
        let env = RunEnvironment::new(work.path());
        let mut k = kept("/elsewhere", true);
        k.result.summaries[0] = Some(
            "Some(Err(GlobError { path: \"/\", error: Os { code: 13, kind: PermissionDenied } }))"
                .into(),
        );
        k.result.summaries[1] = Some("Some(Ok(\"../crate\"))".into());
        assert_eq!(
            env.derived_and_sources(&k.test, &k.result),
            (vec![0, 1], vec![])
        );
        // A relative path of the crate's own making is no artifact, nor a longer name.
        for path in ["\"../docs\"", "\"../crates.io\"", "\"srcs\""] {
            k.result.summaries = vec![Some(path.into()); 3];
            assert_eq!(
                env.derived_and_sources(&k.test, &k.result).0,
                Vec::<u32>::new(),
                "{path}"
            );
        }
    }

    #[test]
    fn a_listing_of_the_crate_copy_is_an_artifact_but_a_path_a_test_built_is_not() {
        let work = tempfile::tempdir().unwrap();
        let copy = work.path().join("crate");
        std::fs::create_dir_all(copy.join("src")).unwrap();
        std::fs::create_dir_all(copy.join(".github")).unwrap();
        std::fs::create_dir_all(copy.join(SCRATCH).join("file")).unwrap();
        std::fs::write(copy.join("Cargo.toml"), "").unwrap();
        let env = RunEnvironment::new(work.path());
        // glob's `glob("**")`, `glob("src/*")`, and the scratch dir listed by name.
        for listing in [
            "Some(Ok(\".github\"))",
            "Some(Ok(\"src/frugal_generated.rs\"))",
            "Some(Ok(\"./src\"))",
            "Some(Ok(\"frugal-scratch\"))",
            "[Ok((PathWrapper { path: \"frugal-scratch/file\", is_directory: true }, 1))]",
        ] {
            assert!(env.shows_the_sandbox(listing), "{listing}");
        }
        for built in [
            "\"frugal-scratch/file/a\"",
            "PathWrapper { path: \"frugal-scratch/\", is_directory: true }",
            "\"source\"",
        ] {
            assert!(!env.shows_the_sandbox(built), "{built}");
        }
    }

    #[test]
    fn forgetting_drops_the_summaries_and_refuses_tests_passing_the_value_on() {
        let env = RunEnvironment::new(Path::new("/srv/frugal/work-1"));
        let mut kept = vec![
            kept("/srv/frugal/work-1", true),
            kept("/srv/frugal/work-1", false),
        ];
        // The second test's `unwrap()` takes the first statement's value: it passes it on.
        assert_eq!(forget(&env, &mut kept), vec![0, 1]);
        assert_eq!(
            kept[0].result.summaries,
            vec![None, None, Some("\"APP\"".into())]
        );
        let mut alone = vec![kept[1].clone()];
        alone[0].test.stmts.truncate(1);
        alone[0].result.summaries.truncate(1);
        alone[0].result.summaries[0] = Some("Some(\"/srv/frugal/work-1/home\")".into());
        assert_eq!(forget(&env, &mut alone), Vec::<usize>::new());
        assert_eq!(alone[0].result.summaries, vec![None]);
    }
}
