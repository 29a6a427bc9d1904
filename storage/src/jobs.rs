//! Job records and the queue's transactions, on both backends.
//!
//! On sled the records are the `jobs` tree with its index of active jobs (`jobs_active`), and a
//! queue transaction ([`Store::jobs_tx`]) is a mutex shared by every clone of the store: sled is
//! one process. On PostgreSQL the records are the `frugal_jobs` table, whose columns are what
//! the queue selects on, and a queue transaction is a SQL transaction in which the queue's reads
//! lock the rows they return: claims skip rows another node is claiming (`FOR UPDATE SKIP
//! LOCKED`), and the unique indexes `frugal_jobs_one_running` and `frugal_jobs_one_queued` keep
//! one running and one queued job per repository and crate across the fleet. A transaction that
//! loses a race on them runs again. Storage keeps and selects records; what a claim or a requeue
//! means is the scheduler's.

use postgres::IsolationLevel;

use crate::kv::Db;
use crate::pg::{PgKv, PgTx};
use crate::pgconn::Exec;
use crate::{JobId, JobRecord, JobState, Result, Store, StoreError, decode, encode, key};

/// Selecting columns and the record, in this order everywhere.
const COLUMNS: &str = "id, state, repo, krate, priority, enqueued_at, node, lease_until, by_token, \
                       record";

fn state_name(s: JobState) -> &'static str {
    match s {
        JobState::Queued => "queued",
        JobState::Running => "running",
        JobState::Succeeded => "succeeded",
        JobState::Failed => "failed",
        JobState::Cancelled => "cancelled",
    }
}

fn from_row(row: &postgres::Row) -> Result<JobRecord> {
    let id: i64 = row.get(0);
    let record: Vec<u8> = row.get(9);
    decode("frugal_jobs", &key(id as u64), &record)
}

fn upsert(c: &mut impl Exec, kv: &PgKv, rec: &JobRecord) -> Result<()> {
    let id = rec.id.0 as i64;
    let repo = rec.repo.0 as i64;
    let priority = i32::from(rec.priority);
    let enqueued = rec.enqueued_at as i64;
    let lease = rec.lease_until.map(|t| t as i64);
    c.exec(
        "INSERT INTO frugal_jobs (id, state, repo, krate, priority, enqueued_at, node,
                                  lease_until, by_token, record)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, repo = EXCLUDED.repo,
             krate = EXCLUDED.krate, priority = EXCLUDED.priority,
             enqueued_at = EXCLUDED.enqueued_at, node = EXCLUDED.node,
             lease_until = EXCLUDED.lease_until, by_token = EXCLUDED.by_token,
             record = EXCLUDED.record",
        &[
            &id,
            &state_name(rec.state),
            &repo,
            &rec.krate,
            &priority,
            &enqueued,
            &rec.node,
            &lease,
            &rec.by,
            &encode(rec),
        ],
    )
    .map_err(|e| kv.err("write a job", e))?;
    Ok(())
}

fn select(
    c: &mut impl Exec,
    kv: &PgKv,
    tail: &str,
    params: &[&(dyn postgres::types::ToSql + Sync)],
) -> Result<Vec<JobRecord>> {
    let sql = format!("SELECT {COLUMNS} FROM frugal_jobs j {tail}");
    c.rows(&sql, params)
        .map_err(|e| kv.err("read jobs", e))?
        .iter()
        .map(from_row)
        .collect()
}

impl Store {
    fn pg(&self) -> Option<&PgKv> {
        match &self.db {
            Db::Pg(kv) => Some(kv),
            Db::Sled(_) => None,
        }
    }

    /// Inserts or replaces a job record and its entry in the index of active jobs, in one
    /// transaction (flushed).
    pub fn put_job(&self, rec: &JobRecord) -> Result<()> {
        self.put_job_unflushed(rec)?;
        self.flush()
    }

    pub(crate) fn put_job_unflushed(&self, rec: &JobRecord) -> Result<()> {
        if let Some(kv) = self.pg() {
            return kv.patiently(|| upsert(&mut *kv.conn()?, kv, rec));
        }
        let k = key(rec.id.0);
        let bytes = encode(rec);
        let active = rec.state.is_active();
        self.db.transaction(&[&self.jobs, &self.jobs_active], |tx| {
            tx.insert(0, &k, &bytes)?;
            if active {
                tx.insert(1, &k, &[])?;
            } else {
                tx.remove(1, &k)?;
            }
            Ok(())
        })
    }

    /// The job with this id, if stored.
    pub fn job(&self, id: JobId) -> Result<Option<JobRecord>> {
        if let Some(kv) = self.pg() {
            let mut v =
                kv.patiently(|| select(&mut *kv.conn()?, kv, "WHERE id = $1", &[&(id.0 as i64)]))?;
            return Ok(v.pop());
        }
        self.get(&self.jobs, "jobs", &key(id.0))
    }

    /// All job records, oldest id first.
    pub fn jobs(&self) -> Result<Vec<JobRecord>> {
        if let Some(kv) = self.pg() {
            return kv.patiently(|| select(&mut *kv.conn()?, kv, "ORDER BY id", &[]));
        }
        self.all(&self.jobs, "jobs")
    }

    /// Number of job records.
    pub(crate) fn job_count(&self) -> Result<usize> {
        if let Some(kv) = self.pg() {
            let n: i64 = kv.patiently(|| {
                Ok(kv
                    .conn()?
                    .client
                    .query_one("SELECT count(*) FROM frugal_jobs", &[])
                    .map_err(|e| kv.err("count jobs", e))?
                    .get(0))
            })?;
            return Ok(n as usize);
        }
        self.jobs.len()
    }

    /// Queued and running jobs, oldest id first, read through the index: finished jobs, however
    /// many, are not decoded.
    pub fn active_jobs(&self) -> Result<Vec<JobRecord>> {
        if let Some(kv) = self.pg() {
            return kv.patiently(|| {
                select(
                    &mut *kv.conn()?,
                    kv,
                    "WHERE state IN ('queued', 'running') ORDER BY id",
                    &[],
                )
            });
        }
        let mut v = Vec::new();
        for k in self.jobs_active.iter().keys() {
            let k = k?;
            match self.get::<JobRecord>(&self.jobs, "jobs", &k)? {
                Some(j) if j.state.is_active() => v.push(j),
                _ => {}
            }
        }
        Ok(v)
    }

    /// Jobs newest first, below `before`, at most `limit`.
    pub(crate) fn newest_jobs(&self, before: Option<u64>, limit: usize) -> Result<Vec<JobRecord>> {
        if let Some(kv) = self.pg() {
            let before = before.map_or(i64::MAX, |b| b as i64);
            return kv.patiently(|| {
                select(
                    &mut *kv.conn()?,
                    kv,
                    "WHERE id < $1 ORDER BY id DESC LIMIT $2",
                    &[&before, &(limit as i64)],
                )
            });
        }
        let hi = before.map(key);
        self.jobs
            .range(&[], hi.as_ref().map(|k| &k[..]), true)
            .take(limit)
            .map(|kv| {
                let (k, v) = kv?;
                decode("jobs", &k, &v)
            })
            .collect()
    }

    /// Deletes a job record, its index entry and the job -> suite entry (a deleted job never
    /// runs again, so nothing needs that entry any more).
    pub fn remove_job(&self, id: JobId) -> Result<bool> {
        let existed = self.remove_job_unflushed(id)?;
        self.flush()?;
        Ok(existed)
    }

    pub(crate) fn remove_job_unflushed(&self, id: JobId) -> Result<bool> {
        let k = key(id.0);
        self.job_suites.remove(k)?;
        if let Some(kv) = self.pg() {
            let n = kv.patiently(|| {
                kv.conn()?
                    .exec("DELETE FROM frugal_jobs WHERE id = $1", &[&(id.0 as i64)])
                    .map_err(|e| kv.err("delete a job", e))
            })?;
            return Ok(n > 0);
        }
        self.jobs_active.remove(k)?;
        Ok(self.jobs.remove(k)?.is_some())
    }

    /// Runs one operation of the queue as a transaction: `f` reads and writes jobs through
    /// [`JobsTx`], and its writes land together or not at all. On PostgreSQL, `f` runs again
    /// when a concurrent node won a race (so it must have no other effects); an `Err` from `f`
    /// (the inner result) rolls back and is returned as is.
    pub fn jobs_tx<T, E>(
        &self,
        f: impl Fn(&JobsTx<'_, '_>) -> Result<Result<T, E>>,
    ) -> Result<Result<T, E>> {
        match &self.db {
            Db::Sled(_) => {
                let _g = self.queue_lock.lock().unwrap_or_else(|e| e.into_inner());
                let r = f(&JobsTx(TxOn::Sled(self)))?;
                self.flush()?;
                Ok(r)
            }
            Db::Pg(kv) => {
                // The inner error must roll back too: carry it out as an abort, then unwrap it.
                let mut inner_err: std::cell::RefCell<Option<E>> = std::cell::RefCell::new(None);
                let r = kv.transaction_at(IsolationLevel::ReadCommitted, |tx| {
                    match f(&JobsTx(TxOn::Pg(tx)))? {
                        Ok(v) => Ok(Some(v)),
                        Err(e) => {
                            *inner_err.borrow_mut() = Some(e);
                            Err(crate::StoreError::Invalid("rolled back".to_string()))
                        }
                    }
                });
                match (r, inner_err.get_mut().take()) {
                    (_, Some(e)) => Ok(Err(e)),
                    (Ok(Some(v)), None) => Ok(Ok(v)),
                    (Ok(None), None) => Err(StoreError::Invalid(
                        "a queue transaction committed without a value".to_string(),
                    )),
                    (Err(e), None) => Err(e),
                }
            }
        }
    }
}

/// The job records inside one queue transaction ([`Store::jobs_tx`]).
pub struct JobsTx<'a, 't>(TxOn<'a, 't>);

#[derive(Clone, Copy)]
enum TxOn<'a, 't> {
    /// sled: the store, its queue mutex held.
    Sled(&'a Store),
    /// PostgreSQL: the running transaction.
    Pg(&'a PgTx<'t>),
}

impl JobsTx<'_, '_> {
    fn pg_select(
        tx: &PgTx<'_>,
        tail: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<JobRecord>> {
        select(&mut { tx }, tx.kv, tail, params)
    }

    /// The job with this id (locked until the transaction ends).
    pub fn job(&self, id: JobId) -> Result<Option<JobRecord>> {
        match self.0 {
            TxOn::Sled(s) => s.job(id),
            TxOn::Pg(tx) => {
                Ok(Self::pg_select(tx, "WHERE id = $1 FOR UPDATE", &[&(id.0 as i64)])?.pop())
            }
        }
    }

    /// Writes a job record.
    pub fn put(&self, rec: &JobRecord) -> Result<()> {
        match self.0 {
            TxOn::Sled(s) => s.put_job_unflushed(rec),
            TxOn::Pg(tx) => upsert(&mut { tx }, tx.kv, rec),
        }
    }

    /// A fresh job id.
    pub fn next_id(&self) -> Result<JobId> {
        match self.0 {
            TxOn::Sled(s) => s.next_job_id(),
            TxOn::Pg(tx) => {
                let id: i64 = { tx }
                    .row("SELECT nextval('frugal_ids')", &[])
                    .map_err(|e| tx.kv.err("take a fresh id", e))?
                    .ok_or_else(|| StoreError::Invalid("nextval returned no row".into()))?
                    .get(0);
                Ok(JobId(id as u64))
            }
        }
    }

    /// Queued and running jobs, oldest id first (not locked).
    pub fn active(&self) -> Result<Vec<JobRecord>> {
        match self.0 {
            TxOn::Sled(s) => s.active_jobs(),
            TxOn::Pg(tx) => {
                Self::pg_select(tx, "WHERE state IN ('queued', 'running') ORDER BY id", &[])
            }
        }
    }

    /// Running jobs, oldest id first (not locked).
    pub fn running(&self) -> Result<Vec<JobRecord>> {
        match self.0 {
            TxOn::Sled(s) => Ok(only(s.active_jobs()?, JobState::Running)),
            TxOn::Pg(tx) => Self::pg_select(tx, "WHERE state = 'running' ORDER BY id", &[]),
        }
    }

    /// The queued job of a repository's crate (locked).
    pub fn queued_of(&self, repo: crate::RepoId, krate: &str) -> Result<Option<JobRecord>> {
        match self.0 {
            TxOn::Sled(s) => Ok(only(s.active_jobs()?, JobState::Queued)
                .into_iter()
                .find(|j| j.repo == repo && j.krate == krate)),
            TxOn::Pg(tx) => Ok(Self::pg_select(
                tx,
                "WHERE state = 'queued' AND repo = $1 AND krate = $2 FOR UPDATE",
                &[&(repo.0 as i64), &krate],
            )?
            .pop()),
        }
    }

    /// Number of queued jobs `by` queued.
    pub fn queued_by(&self, by: &str) -> Result<usize> {
        match self.0 {
            TxOn::Sled(s) => Ok(only(s.active_jobs()?, JobState::Queued)
                .iter()
                .filter(|j| j.by.as_deref() == Some(by))
                .count()),
            TxOn::Pg(tx) => {
                let n: i64 = { tx }
                    .row(
                        "SELECT count(*) FROM frugal_jobs WHERE state = 'queued' AND by_token = $1",
                        &[&by],
                    )
                    .map_err(|e| tx.kv.err("count queued jobs", e))?
                    .map_or(0, |r| r.get(0));
                Ok(n as usize)
            }
        }
    }

    /// Up to `limit` queued jobs whose crate has no running job, highest priority first, then
    /// oldest. On PostgreSQL they are locked, and rows another transaction holds are skipped.
    pub fn claimable(&self, limit: usize) -> Result<Vec<JobRecord>> {
        match self.0 {
            TxOn::Sled(s) => {
                let jobs = s.active_jobs()?;
                let running = only(jobs.clone(), JobState::Running);
                let mut v: Vec<JobRecord> = only(jobs, JobState::Queued)
                    .into_iter()
                    .filter(|j| {
                        !running
                            .iter()
                            .any(|r| r.repo == j.repo && r.krate == j.krate)
                    })
                    .collect();
                v.sort_by_key(|j| (std::cmp::Reverse(j.priority), j.enqueued_at, j.id));
                v.truncate(limit);
                Ok(v)
            }
            TxOn::Pg(tx) => Self::pg_select(
                tx,
                "WHERE state = 'queued' AND NOT EXISTS (
                     SELECT 1 FROM frugal_jobs r
                     WHERE r.state = 'running' AND r.repo = j.repo AND r.krate = j.krate)
                 ORDER BY priority DESC, enqueued_at, id LIMIT $1 FOR UPDATE SKIP LOCKED",
                &[&(limit as i64)],
            ),
        }
    }

    /// Running jobs whose lease ended before `now` (locked; on PostgreSQL rows another node is
    /// requeueing are skipped).
    pub fn expired(&self, now: u64) -> Result<Vec<JobRecord>> {
        match self.0 {
            TxOn::Sled(s) => Ok(only(s.active_jobs()?, JobState::Running)
                .into_iter()
                .filter(|j| j.lease_until.is_some_and(|t| t < now))
                .collect()),
            TxOn::Pg(tx) => Self::pg_select(
                tx,
                "WHERE state = 'running' AND lease_until < $1 ORDER BY id FOR UPDATE SKIP LOCKED",
                &[&(now as i64)],
            ),
        }
    }
}

fn only(jobs: Vec<JobRecord>, state: JobState) -> Vec<JobRecord> {
    jobs.into_iter().filter(|j| j.state == state).collect()
}
