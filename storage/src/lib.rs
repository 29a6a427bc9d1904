//! frugal-storage: the store behind `frugald`, on sled (one node) or on PostgreSQL (a fleet of
//! nodes sharing it), and the disk side of retention (`disk`: what directories take, the
//! eviction rule). `kv.rs` is the ordered key-value layer both backends implement, `pg.rs` the
//! PostgreSQL side, `jobs.rs` the queue's records and transactions, `nodes.rs` the fleet.
//!
//! Owns the on-disk state of a CI host: registered repositories, regeneration runs, stored suites
//! with per-test cost and goal sets, the best-suite pointer per repository and crate, the job
//! queue's records, and the schema version with its migrations. Must not know HTTP, the search,
//! the profiler or what a job means: records are storage's own serde types (`records`), the
//! daemon converts at the boundary, and the scheduler interprets job records.
//!
//! Decision: records are JSON (serde_json), not a binary encoding. JSON is self-describing, so a
//! field added with `#[serde(default)]` reads old records without a migration; the export format
//! (JSON lines) is the stored bytes; and `sled` dumps are readable when something goes wrong.
//! The cost (a few times the bytes of bincode, a little CPU) is noise next to a test generation
//! run. Writes a caller is told succeeded are flushed to disk first (`sled::Db::flush`; on
//! PostgreSQL, committed), so a `kill -9` loses nothing acknowledged; writes that belong
//! together (a suite, its tests and the best pointer) are one transaction.
//!
//! Decision: the store is behind the default `store` feature and `disk` is not, so `frugal gc`
//! evicts the CLI's cache by the daemon's rule without linking sled (the CLI keeps no store).

pub mod disk;

#[cfg(feature = "store")]
mod best;
#[cfg(feature = "store")]
mod copy;
#[cfg(feature = "store")]
mod error;
#[cfg(feature = "store")]
mod export;
#[cfg(feature = "store")]
mod history;
#[cfg(feature = "store")]
mod index;
#[cfg(feature = "store")]
mod jobs;
#[cfg(feature = "store")]
mod kv;
#[cfg(feature = "store")]
mod migrate;
#[cfg(feature = "store")]
mod nodes;
#[cfg(feature = "store")]
mod pg;
#[cfg(feature = "store")]
mod pgconn;
#[cfg(feature = "store")]
mod records;
#[cfg(feature = "store")]
mod replacements;
#[cfg(feature = "store")]
mod reports;
#[cfg(feature = "store")]
mod retention;
#[cfg(feature = "store")]
mod tokens;

#[cfg(feature = "store")]
use std::path::{Path, PathBuf};
#[cfg(feature = "store")]
use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(feature = "store")]
use kv::{Db, Tree, TxError};
#[cfg(feature = "store")]
use serde::Serialize;
#[cfg(feature = "store")]
use serde::de::DeserializeOwned;

#[cfg(feature = "store")]
pub use best::{BestReason, judge};
#[cfg(feature = "store")]
pub use copy::CopiedTree;
#[cfg(feature = "store")]
pub use error::StoreError;
#[cfg(feature = "store")]
pub use export::ExportLine;
#[cfg(feature = "store")]
pub use history::GoalCount;
#[cfg(feature = "store")]
pub use index::{INDEX_VERSION, MAX_PAGE, SuiteSummary};
#[cfg(feature = "store")]
pub use jobs::JobsTx;
#[cfg(feature = "store")]
pub use migrate::{MIGRATIONS, Migration, SCHEMA_VERSION};
#[cfg(feature = "store")]
pub use nodes::{NodeRecord, SessionRecord};
#[cfg(feature = "store")]
pub use pg::{PgOptions, wait_for_the_database};
#[cfg(feature = "store")]
pub use records::{
    Cost, CrateEntry, GoalSet, JobId, JobRecord, JobState, MutationFigures, NewSuite, NewTest,
    RepoId, RepoRecord, RunId, RunProgress, RunRecord, RunStatus, SuiteId, SuiteRecord, TestRecord,
    TestRecordId,
};
#[cfg(feature = "store")]
pub use replacements::ReplacementRecord;
#[cfg(feature = "store")]
pub use reports::ReportRecord;
#[cfg(feature = "store")]
pub use retention::Pruned;
#[cfg(feature = "store")]
pub use tokens::TokenRecord;

#[cfg(feature = "store")]
/// Result of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

#[cfg(feature = "store")]
/// What [`Store::store_suite`] did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoreOutcome {
    /// The id the new suite was stored under.
    pub suite: SuiteId,
    /// The ids of its tests, in the suite's order.
    pub tests: Vec<TestRecordId>,
    /// Whether the new suite is now the best one of its repository and crate.
    pub replaced_best: bool,
    /// The best suite before this one was stored.
    pub previous_best: Option<SuiteId>,
    /// Why the suite did or did not become the best one.
    pub reason: BestReason,
}

#[cfg(feature = "store")]
/// Unix time in milliseconds (0 if the clock is before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(feature = "store")]
/// The store: typed trees over sled or PostgreSQL (`kv.rs`). Cheap to clone (handles are
/// shared).
#[derive(Clone)]
pub struct Store {
    path: PathBuf,
    db: Db,
    repos: Tree,
    runs: Tree,
    suites: Tree,
    tests: Tree,
    best: Tree,
    /// Job records on sled (PostgreSQL keeps them in a table of their own: `jobs.rs`).
    jobs: Tree,
    /// Ids of queued and running jobs (empty values): what the queue reads on every claim, so
    /// finished jobs are never decoded there. Kept in step with `jobs` by [`Store::put_job`].
    jobs_active: Tree,
    goals: Tree,
    meta: Tree,
    replacements: Tree,
    /// Job id -> id of the suite the job stored ([`Store::store_suite_for_job`]).
    job_suites: Tree,
    /// Regression reports by repository, commit and crate (`reports.rs`).
    reports: Tree,
    /// Indexes (`index.rs`): runs and suites by repository, suites by crate.
    runs_by_repo: Tree,
    suites_by_repo: Tree,
    suites_by_crate: Tree,
    /// API tokens by hash (`tokens.rs`).
    tokens: Tree,
    /// frugald nodes sharing the store, by id (`nodes.rs`).
    nodes: Tree,
    /// Web sessions of a fleet's pages, by the hash of their id (`nodes.rs`).
    sessions: Tree,
    /// Serialises queue transactions on sled ([`Store::jobs_tx`]).
    queue_lock: std::sync::Arc<std::sync::Mutex<()>>,
}

#[cfg(feature = "store")]
const SCHEMA_KEY: &[u8] = b"schema_version";

#[cfg(feature = "store")]
fn key(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

#[cfg(feature = "store")]
fn best_key(repo: RepoId, krate: &str) -> Vec<u8> {
    let mut k = key(repo.0).to_vec();
    k.extend_from_slice(krate.as_bytes());
    k
}

#[cfg(feature = "store")]
fn goal_prefix(repo: RepoId, krate: &str) -> Vec<u8> {
    let mut k = best_key(repo, krate);
    k.push(0);
    k
}

#[cfg(feature = "store")]
fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).expect("storage records always serialize")
}

#[cfg(feature = "store")]
fn decode<T: DeserializeOwned>(tree: &'static str, key: &[u8], bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|source| StoreError::Corrupt {
        tree,
        key: describe_key(key),
        source,
    })
}

#[cfg(feature = "store")]
/// A big-endian `u64` stored as a value (or a key prefix, see `split_krate`): exactly 8 bytes,
/// anything else is [`StoreError::BadValue`].
pub(crate) fn be_u64(tree: &'static str, key: &[u8], bytes: &[u8]) -> Result<u64> {
    let b: [u8; 8] = bytes
        .try_into()
        .map_err(|_| bad_value(tree, key, 8, bytes.len()))?;
    Ok(u64::from_be_bytes(b))
}

#[cfg(feature = "store")]
/// A big-endian `u32` stored as a value: exactly 4 bytes.
pub(crate) fn be_u32(tree: &'static str, key: &[u8], bytes: &[u8]) -> Result<u32> {
    let b: [u8; 4] = bytes
        .try_into()
        .map_err(|_| bad_value(tree, key, 4, bytes.len()))?;
    Ok(u32::from_be_bytes(b))
}

#[cfg(feature = "store")]
pub(crate) fn bad_value(
    tree: &'static str,
    key: &[u8],
    expected: usize,
    found: usize,
) -> StoreError {
    StoreError::BadValue {
        tree,
        key: describe_key(key),
        expected,
        found,
    }
}

#[cfg(feature = "store")]
fn describe_key(key: &[u8]) -> String {
    if key.len() == 8 {
        u64::from_be_bytes(key.try_into().expect("8 bytes")).to_string()
    } else {
        String::from_utf8_lossy(key).into_owned()
    }
}

#[cfg(feature = "store")]
impl Store {
    /// Opens (or creates) the store in `dir`, migrating an older schema with [`MIGRATIONS`] and
    /// refusing a newer one.
    pub fn open(dir: impl AsRef<Path>) -> Result<Store> {
        Self::open_with_migrations(dir, SCHEMA_VERSION, MIGRATIONS)
    }

    /// [`Store::open`] with an explicit target version and migration table (for tests and tools).
    pub fn open_with_migrations(
        dir: impl AsRef<Path>,
        target: u32,
        migrations: &[Migration],
    ) -> Result<Store> {
        let path = dir.as_ref().to_path_buf();
        let db = open_db(&path).map_err(|source| StoreError::Open {
            path: path.clone(),
            source,
        })?;
        let store = Store::on(Db::Sled(db), path)?;
        migrate::run(&store, target, migrations)?;
        store.ensure_indexes()?;
        Ok(store)
    }

    /// Opens the store in PostgreSQL, shared by every frugald given the same URL: brings the SQL
    /// schema up to date, then migrates records as [`Store::open`] does, under an advisory lock
    /// so nodes starting at once migrate once.
    pub fn open_postgres(opts: &PgOptions) -> Result<Store> {
        let kv = std::sync::Arc::new(pg::PgKv::connect(opts)?);
        let store = Store::on(Db::Pg(kv.clone()), PathBuf::from(&kv.shown))?;
        kv.with_lock(pg::RECORD_MIGRATION_LOCK, || {
            migrate::run(&store, SCHEMA_VERSION, MIGRATIONS)?;
            store.ensure_indexes()
        })?;
        Ok(store)
    }

    fn on(db: Db, path: PathBuf) -> Result<Store> {
        Ok(Store {
            repos: db.open_tree("repos")?,
            runs: db.open_tree("runs")?,
            suites: db.open_tree("suites")?,
            tests: db.open_tree("tests")?,
            best: db.open_tree("best")?,
            jobs: db.open_tree("jobs")?,
            jobs_active: db.open_tree("jobs_active")?,
            goals: db.open_tree("goals")?,
            meta: db.open_tree("meta")?,
            replacements: db.open_tree("replacements")?,
            job_suites: db.open_tree("job_suites")?,
            reports: db.open_tree("reports")?,
            runs_by_repo: db.open_tree("runs_by_repo")?,
            suites_by_repo: db.open_tree("suites_by_repo")?,
            suites_by_crate: db.open_tree("suites_by_crate")?,
            tokens: db.open_tree("tokens")?,
            nodes: db.open_tree("nodes")?,
            sessions: db.open_tree("sessions")?,
            queue_lock: Default::default(),
            path,
            db,
        })
    }

    /// Whether other processes share this store (PostgreSQL): the queue then holds other
    /// nodes' jobs, and a job marked running at start may be another node's.
    pub fn is_shared(&self) -> bool {
        matches!(self.db, Db::Pg(_))
    }

    /// Directory of the store (for PostgreSQL, its URL without the password).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Schema version recorded in the store.
    pub fn schema_version(&self) -> Result<Option<u32>> {
        self.meta
            .get(SCHEMA_KEY)?
            .map(|v| be_u32("meta", SCHEMA_KEY, &v))
            .transpose()
    }

    fn set_schema_version(&self, v: u32) -> Result<()> {
        self.meta.insert(SCHEMA_KEY, v.to_be_bytes())?;
        self.flush()
    }

    fn is_empty(&self) -> Result<bool> {
        for t in [
            &self.repos,
            &self.runs,
            &self.suites,
            &self.tests,
            &self.best,
            &self.goals,
            &self.reports,
        ] {
            if !t.is_empty()? {
                return Ok(false);
            }
        }
        Ok(self.job_count()? == 0)
    }

    /// Makes every write so far durable. Every mutating method calls it before returning, except
    /// [`Store::update_run_progress`] (progress is not acknowledged state).
    pub fn flush(&self) -> Result<()> {
        self.db.flush()
    }

    fn next_id(&self) -> Result<u64> {
        // sled ids are unique and increase across restarts; 0 is avoided so ids read naturally.
        Ok(self.db.generate_id()? + 1)
    }

    fn get<T: DeserializeOwned>(
        &self,
        tree: &Tree,
        name: &'static str,
        k: &[u8],
    ) -> Result<Option<T>> {
        match tree.get(k)? {
            Some(v) => decode(name, k, &v).map(Some),
            None => Ok(None),
        }
    }

    fn all<T: DeserializeOwned>(&self, tree: &Tree, name: &'static str) -> Result<Vec<T>> {
        tree.iter()
            .map(|kv| {
                let (k, v) = kv?;
                decode(name, &k, &v)
            })
            .collect()
    }

    /// The records of `ids` in `tree`, in their order (`None` where one is gone): one query on
    /// PostgreSQL.
    fn many<T: DeserializeOwned>(
        &self,
        tree: &Tree,
        name: &'static str,
        ids: &[u64],
    ) -> Result<Vec<Option<T>>> {
        let keys: Vec<Vec<u8>> = ids.iter().map(|id| key(*id).to_vec()).collect();
        tree.get_many(&keys)?
            .into_iter()
            .zip(&keys)
            .map(|(v, k)| v.map(|v| decode(name, k, &v)).transpose())
            .collect()
    }

    /// Records whose keys start with `prefix`, in key order.
    fn scan<T: DeserializeOwned>(
        &self,
        tree: &Tree,
        name: &'static str,
        prefix: &[u8],
    ) -> Result<Vec<T>> {
        tree.scan_prefix(prefix)
            .map(|kv| {
                let (k, v) = kv?;
                decode(name, &k, &v)
            })
            .collect()
    }

    fn put<T: Serialize>(&self, tree: &Tree, k: &[u8], v: &T) -> Result<()> {
        tree.insert(k, encode(v))?;
        self.flush()
    }

    // ---- repos ----------------------------------------------------------------------------

    /// Registers a repository; refuses a path that is already registered.
    pub fn add_repo(
        &self,
        path: &str,
        crates: Vec<CrateEntry>,
        schedule: Option<String>,
    ) -> Result<RepoRecord> {
        if let Some(r) = self.repo_by_path(path)? {
            return Err(StoreError::Invalid(format!(
                "register repository {path}: already registered as repo {}",
                r.id
            )));
        }
        let rec = RepoRecord {
            id: RepoId(self.next_id()?),
            path: path.to_string(),
            crates,
            schedule,
            hooks_installed: false,
            added_at: now_ms(),
            last_seen_commit: None,
        };
        self.put_repo(&rec)?;
        Ok(rec)
    }

    /// Inserts or replaces a repository record.
    pub fn put_repo(&self, rec: &RepoRecord) -> Result<()> {
        self.put(&self.repos, &key(rec.id.0), rec)
    }

    /// The repository with this id, if registered.
    pub fn repo(&self, id: RepoId) -> Result<Option<RepoRecord>> {
        self.get(&self.repos, "repos", &key(id.0))
    }

    /// The repository registered at this work-tree path, if any (a linear scan).
    pub fn repo_by_path(&self, path: &str) -> Result<Option<RepoRecord>> {
        Ok(self.repos()?.into_iter().find(|r| r.path == path))
    }

    /// Every registered repository, in id order.
    pub fn repos(&self) -> Result<Vec<RepoRecord>> {
        self.all(&self.repos, "repos")
    }

    /// Removes a repository record (its runs and suites stay, for history).
    pub fn remove_repo(&self, id: RepoId) -> Result<bool> {
        let existed = self.repos.remove(key(id.0))?.is_some();
        self.flush()?;
        Ok(existed)
    }

    // ---- runs -----------------------------------------------------------------------------

    /// Records the start of a run.
    pub fn create_run(
        &self,
        repo: RepoId,
        krate: &str,
        commit: Option<&str>,
        job: Option<JobId>,
    ) -> Result<RunRecord> {
        let rec = RunRecord {
            id: RunId(self.next_id()?),
            repo,
            krate: krate.to_string(),
            commit: commit.map(str::to_string),
            status: RunStatus::Running,
            started: now_ms(),
            finished: None,
            progress: RunProgress::default(),
            summary_json: None,
            job,
            suite: None,
        };
        self.index_run(&rec)?;
        self.put_run(&rec)?;
        Ok(rec)
    }

    /// Inserts or replaces a run record (flushed).
    pub fn put_run(&self, rec: &RunRecord) -> Result<()> {
        self.put(&self.runs, &key(rec.id.0), rec)
    }

    /// Updates a run's progress without flushing: progress may be lost by a crash, which is fine.
    /// A run that finished keeps its status: the update is a compare-and-swap, so a job thread's
    /// progress written just as the daemon marks the run interrupted cannot bring back a
    /// `running` record (the next start would then report a crash).
    pub fn update_run_progress(&self, id: RunId, progress: RunProgress) -> Result<RunRecord> {
        let k = key(id.0);
        loop {
            let old = self.runs.get(k)?.ok_or_else(|| StoreError::NotFound {
                what: "run",
                id: id.to_string(),
            })?;
            let mut rec: RunRecord = decode("runs", &k, &old)?;
            if rec.status != RunStatus::Running {
                return Ok(rec);
            }
            rec.progress = progress.clone();
            if self
                .runs
                .compare_and_swap(&k, Some(&old), Some(&encode(&rec)))?
            {
                return Ok(rec);
            }
        }
    }

    /// Marks a run finished with its status and summary.
    pub fn finish_run(
        &self,
        id: RunId,
        status: RunStatus,
        summary_json: Option<serde_json::Value>,
        suite: Option<SuiteId>,
    ) -> Result<RunRecord> {
        let mut rec = self.run(id)?.ok_or_else(|| StoreError::NotFound {
            what: "run",
            id: id.to_string(),
        })?;
        rec.status = status;
        rec.finished = Some(now_ms());
        rec.summary_json = summary_json;
        rec.suite = suite.or(rec.suite);
        self.put_run(&rec)?;
        Ok(rec)
    }

    /// The run with this id, if stored.
    pub fn run(&self, id: RunId) -> Result<Option<RunRecord>> {
        self.get(&self.runs, "runs", &key(id.0))
    }

    /// Runs of a repository (optionally of one crate), oldest first.
    pub fn runs(&self, repo: RepoId, krate: Option<&str>) -> Result<Vec<RunRecord>> {
        let mut v: Vec<RunRecord> = self.all(&self.runs, "runs")?;
        v.retain(|r| r.repo == repo && krate.is_none_or(|k| r.krate == k));
        Ok(v)
    }

    // ---- goals ----------------------------------------------------------------------------

    /// Maps goal keys (stable names such as `src/lib.rs:42:if-true`) to ids that stay the same
    /// across commits of one repository and crate, so goal sets of suites from different commits
    /// compare. New keys get the next free id.
    pub fn intern_goals(&self, repo: RepoId, krate: &str, keys: &[&str]) -> Result<Vec<u32>> {
        let prefix = goal_prefix(repo, krate);
        let mut seq_key = b"goalseq/".to_vec();
        seq_key.extend_from_slice(&prefix);
        let ids = self.db.transaction(&[&self.goals, &self.meta], |tx| {
            let mut next = match tx.get(1, &seq_key)? {
                Some(v) => be_u32("meta", &seq_key, &v)?,
                None => 0,
            };
            let mut ids = Vec::with_capacity(keys.len());
            for g in keys {
                let mut k = prefix.clone();
                k.extend_from_slice(g.as_bytes());
                match tx.get(0, &k)? {
                    Some(v) => ids.push(be_u32("goals", &k, &v)?),
                    None => {
                        tx.insert(0, &k, &next.to_be_bytes())?;
                        ids.push(next);
                        next = next.checked_add(1).ok_or_else(|| {
                            StoreError::Invalid(format!(
                                "intern goals of {krate}: the goal id sequence is exhausted \
                                 (corrupt `meta` entry?)"
                            ))
                        })?;
                    }
                }
            }
            tx.insert(1, &seq_key, &next.to_be_bytes())?;
            Ok(ids)
        })?;
        self.flush()?;
        Ok(ids)
    }

    // ---- suites ---------------------------------------------------------------------------

    /// Stores a suite and its tests and applies the best-suite rule ([`judge`]), all in one
    /// transaction; flushed before it returns.
    pub fn store_suite(&self, new: NewSuite) -> Result<StoreOutcome> {
        self.store_suite_inner(new, false, None)
    }

    /// [`Store::store_suite`] for a job, idempotent: when the job already stored a suite of the
    /// same repository, crate and commit (it ran again after a crash between storing and
    /// finishing), nothing is written and the outcome names that suite with
    /// [`BestReason::AlreadyStored`]. The job -> suite index is written in the same transaction.
    pub fn store_suite_for_job(&self, job: JobId, new: NewSuite) -> Result<StoreOutcome> {
        self.store_suite_inner(new, false, Some(job))
    }

    /// The suite `job` stored, if any.
    pub fn suite_of_job(&self, job: JobId) -> Result<Option<SuiteId>> {
        let k = key(job.0);
        self.job_suites
            .get(k)?
            .map(|v| be_u64("job_suites", &k, &v).map(SuiteId))
            .transpose()
    }

    /// Stores a suite and makes it the best one whatever the rule says (e.g. the old best no
    /// longer builds at the new commit).
    pub fn store_suite_as_best(&self, new: NewSuite) -> Result<StoreOutcome> {
        self.store_suite_inner(new, true, None)
    }

    fn store_suite_inner(
        &self,
        new: NewSuite,
        force: bool,
        job: Option<JobId>,
    ) -> Result<StoreOutcome> {
        let mut names = std::collections::HashSet::new();
        for t in &new.tests {
            if !names.insert(t.name.as_str()) {
                return Err(StoreError::Invalid(format!(
                    "store suite for {}: test name `{}` appears twice",
                    new.krate, t.name
                )));
            }
        }
        // Ids come from outside the transaction: a retried transaction must write the same keys.
        let suite_id = SuiteId(self.next_id()?);
        let test_ids = new
            .tests
            .iter()
            .map(|_| self.next_id().map(TestRecordId))
            .collect::<Result<Vec<_>>>()?;
        let tests: Vec<TestRecord> = new
            .tests
            .iter()
            .zip(&test_ids)
            .map(|(t, id)| TestRecord {
                id: *id,
                suite: suite_id,
                name: t.name.clone(),
                goals: t.goals.clone(),
                cost: t.cost.clone(),
                proxies: t.proxies.clone(),
            })
            .collect();
        let goals_covered = tests
            .iter()
            .fold(GoalSet::new(), |acc, t| acc.union(&t.goals));
        let suite = SuiteRecord {
            id: suite_id,
            repo: new.repo,
            krate: new.krate,
            commit: new.commit,
            created: now_ms(),
            source: new.source,
            goals_total: new.goals_total,
            goals_covered,
            total_cost: new.total_cost,
            proxy_cost: new.proxy_cost,
            tests: test_ids.clone(),
            run: new.run,
            model: new.model,
            mutation: new.mutation,
        };
        let hold = new.hold;
        self.index_suite(&suite)?;
        let bkey = best_key(suite.repo, &suite.krate);
        let suite_bytes = encode(&suite);
        let job_key = job.map(|j| key(j.0));
        // Trees of the transaction, by position.
        const SUITES: usize = 0;
        const TESTS: usize = 1;
        const BEST: usize = 2;
        const JOB_SUITES: usize = 3;
        let outcome = self.db.transaction(
            &[&self.suites, &self.tests, &self.best, &self.job_suites],
            |tx| {
                if let Some(jk) = &job_key
                    && let Some(v) = tx.get(JOB_SUITES, jk)?
                {
                    let k = key(be_u64("job_suites", jk, &v)?);
                    if let Some(bytes) = tx.get(SUITES, &k)? {
                        let old: SuiteRecord = decode("suites", &k, &bytes)?;
                        if old.repo == suite.repo
                            && old.krate == suite.krate
                            && old.commit == suite.commit
                        {
                            let best_now = match tx.get(BEST, &bkey)? {
                                Some(v) => Some(SuiteId(be_u64("best", &bkey, &v)?)),
                                None => None,
                            };
                            return Ok(StoreOutcome {
                                suite: old.id,
                                tests: old.tests,
                                replaced_best: false,
                                previous_best: best_now,
                                reason: BestReason::AlreadyStored,
                            });
                        }
                    }
                }
                for t in &tests {
                    tx.insert(TESTS, &key(t.id.0), &encode(t))?;
                }
                tx.insert(SUITES, &key(suite_id.0), &suite_bytes)?;
                let previous = match tx.get(BEST, &bkey)? {
                    Some(v) => Some(SuiteId(be_u64("best", &bkey, &v)?)),
                    None => None,
                };
                let reason = match previous {
                    _ if force => BestReason::Forced,
                    Some(_) if hold => BestReason::Held,
                    None => BestReason::First,
                    Some(old_id) => {
                        let k = key(old_id.0);
                        let old: SuiteRecord = match tx.get(SUITES, &k)? {
                            Some(bytes) => decode("suites", &k, &bytes)?,
                            None => {
                                return Err(TxError::Abort(StoreError::NotFound {
                                    what: "best suite",
                                    id: old_id.to_string(),
                                }));
                            }
                        };
                        judge(&old, &suite)
                    }
                };
                let replaced_best = reason.replaces();
                if replaced_best {
                    tx.insert(BEST, &bkey, &key(suite_id.0))?;
                }
                if let Some(jk) = &job_key {
                    tx.insert(JOB_SUITES, jk, &key(suite_id.0))?;
                }
                Ok(StoreOutcome {
                    suite: suite_id,
                    tests: test_ids.clone(),
                    replaced_best,
                    previous_best: previous,
                    reason,
                })
            },
        )?;
        self.flush()?;
        Ok(outcome)
    }

    /// Points the best suite of `repo`/`krate` at `suite` (which must exist and match).
    pub fn set_best(&self, repo: RepoId, krate: &str, suite: SuiteId) -> Result<()> {
        let rec = self.suite(suite)?.ok_or_else(|| StoreError::NotFound {
            what: "suite",
            id: suite.to_string(),
        })?;
        if rec.repo != repo || rec.krate != krate {
            return Err(StoreError::Invalid(format!(
                "set best suite of repo {repo} crate {krate}: suite {suite} belongs to repo {} crate {}",
                rec.repo, rec.krate
            )));
        }
        self.best.insert(best_key(repo, krate), key(suite.0))?;
        self.flush()
    }

    /// The suite with this id, if stored.
    pub fn suite(&self, id: SuiteId) -> Result<Option<SuiteRecord>> {
        self.get(&self.suites, "suites", &key(id.0))
    }

    /// The test with this id, if stored.
    pub fn test(&self, id: TestRecordId) -> Result<Option<TestRecord>> {
        self.get(&self.tests, "tests", &key(id.0))
    }

    /// The tests of a suite, in the suite's order.
    pub fn suite_tests(&self, suite: &SuiteRecord) -> Result<Vec<TestRecord>> {
        let ids: Vec<u64> = suite.tests.iter().map(|t| t.0).collect();
        self.many::<TestRecord>(&self.tests, "tests", &ids)?
            .into_iter()
            .zip(&suite.tests)
            .map(|(t, id)| {
                t.ok_or_else(|| StoreError::NotFound {
                    what: "test",
                    id: id.to_string(),
                })
            })
            .collect()
    }

    /// Suites of a repository (optionally of one crate), oldest first.
    pub fn suites(&self, repo: RepoId, krate: Option<&str>) -> Result<Vec<SuiteRecord>> {
        let mut v: Vec<SuiteRecord> = self.all(&self.suites, "suites")?;
        v.retain(|s| s.repo == repo && krate.is_none_or(|k| s.krate == k));
        Ok(v)
    }

    /// Id of the best suite of a repository and crate.
    pub fn best_id(&self, repo: RepoId, krate: &str) -> Result<Option<SuiteId>> {
        let k = best_key(repo, krate);
        self.best
            .get(&k)?
            .map(|v| be_u64("best", &k, &v).map(SuiteId))
            .transpose()
    }

    /// The best suite of a repository and crate.
    pub fn best(&self, repo: RepoId, krate: &str) -> Result<Option<SuiteRecord>> {
        match self.best_id(repo, krate)? {
            Some(id) => self.suite(id),
            None => Ok(None),
        }
    }

    // ---- jobs -----------------------------------------------------------------------------

    /// A fresh job id.
    pub fn next_job_id(&self) -> Result<JobId> {
        self.next_id().map(JobId)
    }
}

#[cfg(feature = "store")]
#[cfg(test)]
mod tests;

#[cfg(feature = "store")]
/// The raw sled database of a store directory, once no `Store` holds it (waiting for the lock
/// of one just dropped, as [`Store::open`] does): for tools and tests that read or poke the
/// trees as bytes.
pub fn open_raw(dir: impl AsRef<Path>) -> sled::Result<sled::Db> {
    open_db(dir.as_ref())
}

#[cfg(feature = "store")]
/// How long to wait for the directory lock of a store that was just closed.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

#[cfg(feature = "store")]
/// Opens sled, waiting briefly when the directory lock is held: sled releases it from its
/// background threads after the last handle drops, so a store reopened right after closing
/// (a restart, a test) can find it still held for a moment. A lock held longer is another
/// process, and that error goes to the caller.
fn open_db(path: &Path) -> sled::Result<sled::Db> {
    let started = std::time::Instant::now();
    loop {
        match sled::Config::new().path(path).open() {
            // sled reports the lock as `ErrorKind::Other` with this text.
            Err(sled::Error::Io(e))
                if e.to_string().contains("could not acquire lock")
                    && started.elapsed() < LOCK_WAIT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}
