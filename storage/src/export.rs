//! Export and import of the whole store as JSON lines, one record per line, tagged by `kind`.
//! The first line carries the schema version; import refuses another version (open the store
//! with the frugal that wrote it, which migrates, and export again).

use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

use crate::{
    JobRecord, RepoId, RepoRecord, ReportRecord, Result, RunRecord, SCHEMA_VERSION, Store,
    StoreError, SuiteId, SuiteRecord, TestRecord, bad_value, be_u32, be_u64, best_key, encode,
    goal_prefix, key,
};

/// One line of an export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ExportLine {
    /// The first line: the schema of the store that was exported.
    Meta {
        /// The exporting store's [`SCHEMA_VERSION`].
        schema_version: u32,
    },
    /// A registered repository.
    Repo(RepoRecord),
    /// A run.
    Run(RunRecord),
    /// A stored suite.
    Suite(SuiteRecord),
    /// One test of a stored suite.
    Test(TestRecord),
    /// The best-suite pointer of one repository and crate.
    Best {
        /// The repository.
        repo: RepoId,
        /// The crate's package name.
        krate: String,
        /// The suite that is the best one.
        suite: SuiteId,
    },
    /// A job of the queue.
    Job(JobRecord),
    /// One interned goal id ([`Store::intern_goals`]).
    Goal {
        /// The repository the id belongs to.
        repo: RepoId,
        /// The crate the id belongs to.
        krate: String,
        /// The goal's stable key (such as `src/lib.rs:42:if-true`).
        key: String,
        /// The id the key was given.
        id: u32,
    },
    /// A regression report (with whether it was accepted: not derivable from the rest).
    Report(ReportRecord),
}

/// Splits a `best` or `goals` key: 8 bytes of repository id, the crate, then `\0` and the goal.
fn split_krate<'k>(tree: &'static str, k: &'k [u8]) -> Result<(RepoId, String, &'k [u8])> {
    let Some((id, rest)) = k.split_first_chunk::<8>() else {
        return Err(bad_value(tree, k, 8, k.len()));
    };
    let repo = RepoId(u64::from_be_bytes(*id));
    let end = rest.iter().position(|b| *b == 0).unwrap_or(rest.len());
    let krate = String::from_utf8_lossy(&rest[..end]).into_owned();
    Ok((repo, krate, rest.get(end + 1..).unwrap_or(&[])))
}

impl Store {
    /// Writes every record as JSON lines; returns the number of lines.
    pub fn export_jsonl(&self, mut w: impl Write) -> Result<usize> {
        let mut n = 0;
        let mut line = |l: &ExportLine| -> Result<()> {
            serde_json::to_writer(&mut w, l).map_err(std::io::Error::other)?;
            w.write_all(b"\n")?;
            n += 1;
            Ok(())
        };
        line(&ExportLine::Meta {
            schema_version: self.schema_version()?.unwrap_or(SCHEMA_VERSION),
        })?;
        for r in self.repos()? {
            line(&ExportLine::Repo(r))?;
        }
        for r in self.all::<RunRecord>(&self.runs, "runs")? {
            line(&ExportLine::Run(r))?;
        }
        for r in self.all::<SuiteRecord>(&self.suites, "suites")? {
            line(&ExportLine::Suite(r))?;
        }
        for r in self.all::<TestRecord>(&self.tests, "tests")? {
            line(&ExportLine::Test(r))?;
        }
        for kv in self.best.iter() {
            let (k, v) = kv?;
            let (repo, krate, _) = split_krate("best", &k)?;
            let suite = SuiteId(be_u64("best", &k, &v)?);
            line(&ExportLine::Best { repo, krate, suite })?;
        }
        for r in self.jobs()? {
            line(&ExportLine::Job(r))?;
        }
        for kv in self.goals.iter() {
            let (k, v) = kv?;
            // Goal keys are "<repo><krate>\0<goal>"; best_key has no \0, so split at the first.
            let (repo, krate, goal) = split_krate("goals", &k)?;
            let id = be_u32("goals", &k, &v)?;
            let key = String::from_utf8_lossy(goal).into_owned();
            line(&ExportLine::Goal {
                repo,
                krate,
                key,
                id,
            })?;
        }
        for r in self.all::<ReportRecord>(&self.reports, "reports")? {
            line(&ExportLine::Report(r))?;
        }
        w.flush()?;
        Ok(n)
    }

    /// Reads an export into this store, which must be empty. Flushed once at the end; returns
    /// the number of records read.
    pub fn import_jsonl(&self, r: impl BufRead) -> Result<usize> {
        if !self.is_empty()? {
            return Err(StoreError::Invalid(
                "import into the store: it already holds records; import into a new state_dir"
                    .to_string(),
            ));
        }
        let mut n = 0;
        let mut max_id = 0u64;
        for (i, text) in r.lines().enumerate() {
            let text = text?;
            if text.trim().is_empty() {
                continue;
            }
            let bad = |message: String| StoreError::Import {
                line: i + 1,
                message,
            };
            let l: ExportLine = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
            match l {
                // Exports of schema 1 have the same lines (2 added only an index).
                ExportLine::Meta { schema_version }
                    if !(1..=SCHEMA_VERSION).contains(&schema_version) =>
                {
                    return Err(bad(format!(
                        "export has schema version {schema_version}, this frugal writes \
                         {SCHEMA_VERSION}"
                    )));
                }
                ExportLine::Meta { .. } => {}
                ExportLine::Repo(rec) => {
                    max_id = max_id.max(rec.id.0);
                    self.repos.insert(key(rec.id.0), encode(&rec))?;
                }
                ExportLine::Run(rec) => {
                    max_id = max_id.max(rec.id.0);
                    self.index_run(&rec)?;
                    self.runs.insert(key(rec.id.0), encode(&rec))?;
                }
                ExportLine::Suite(rec) => {
                    max_id = max_id.max(rec.id.0);
                    self.index_suite(&rec)?;
                    self.suites.insert(key(rec.id.0), encode(&rec))?;
                }
                ExportLine::Test(rec) => {
                    max_id = max_id.max(rec.id.0);
                    self.tests.insert(key(rec.id.0), encode(&rec))?;
                }
                ExportLine::Best { repo, krate, suite } => {
                    self.best.insert(best_key(repo, &krate), key(suite.0))?;
                }
                ExportLine::Job(rec) => {
                    max_id = max_id.max(rec.id.0);
                    self.put_job_unflushed(&rec)?;
                }
                ExportLine::Goal {
                    repo,
                    krate,
                    key: goal,
                    id,
                } => {
                    // The next id to hand out must exist: u32::MAX is no goal id.
                    let after = id
                        .checked_add(1)
                        .ok_or_else(|| bad(format!("goal id {id} is out of range")))?;
                    let prefix = goal_prefix(repo, &krate);
                    let mut k = prefix.clone();
                    k.extend_from_slice(goal.as_bytes());
                    self.goals.insert(k, id.to_be_bytes())?;
                    let mut seq_key = b"goalseq/".to_vec();
                    seq_key.extend_from_slice(&prefix);
                    let next = match self.meta.get(&seq_key)? {
                        Some(v) => be_u32("meta", &seq_key, &v)?,
                        None => 0,
                    };
                    self.meta.insert(seq_key, next.max(after).to_be_bytes())?;
                }
                ExportLine::Report(rec) => self.put_report_unflushed(&rec)?,
            }
            n += 1;
        }
        // New ids must not collide with imported ones.
        self.db.ids_above(max_id)?;
        self.flush()?;
        Ok(n)
    }
}
