//! The PostgreSQL backend of the key-value layer (`kv.rs`) and of the job table (`jobs.rs`): a
//! connection pool (r2d2 over the `postgres` client, each connection with its prepared
//! statements: `pgconn.rs`), the schema's versioned migrations, and the SQL of every tree
//! operation.
//!
//! Decision: the synchronous `postgres` client, not an async one. The store's API is synchronous
//! and frugald already calls it on blocking threads (the HTTP API through `spawn_blocking`, jobs
//! on threads of their own), as with sled; an async client would need a runtime handle threaded
//! through every caller for no gain.
//!
//! Schema changes are SQL steps in [`SQL_MIGRATIONS`], applied at start under a session advisory
//! lock, so nodes that start at once apply each step once and the later ones wait for it.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use postgres::IsolationLevel;
use postgres::error::SqlState;
use postgres::types::ToSql;
use sled::IVec;

use crate::kv::{Entry, PgPages};
use crate::pgconn::{Cached, Exec, Manager, prepared};
use crate::{Result, StoreError};

thread_local! {
    /// How long store calls on this thread wait for an unreachable database (`None`: they fail
    /// at once with [`StoreError::Unavailable`]).
    static PATIENCE: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Makes store calls on the calling thread wait up to `patience` for an unreachable PostgreSQL
/// instead of failing at once: for threads whose work must not be lost to a short outage (the
/// runner, jobs), while the HTTP API stays impatient and answers 503. No effect on sled.
pub fn wait_for_the_database(patience: Duration) {
    PATIENCE.with(|p| p.set(Some(patience)));
}

/// A pooled connection.
pub(crate) type Conn = r2d2::PooledConnection<Manager>;

/// Rows read per page of a scan, at most.
const PAGE: i64 = 512;
/// Rows of a scan's first page: an API page wants a few dozen; later pages grow to [`PAGE`].
const FIRST_PAGE: i64 = 64;

/// Advisory lock key of schema migrations (any fixed number; "frugal" in ASCII).
const MIGRATION_LOCK: i64 = 0x66_72_75_67_61_6c;

/// Advisory lock key of the store's record migrations (`migrate.rs`) and index builds.
pub(crate) const RECORD_MIGRATION_LOCK: i64 = MIGRATION_LOCK + 1;

/// Times a transaction is retried after a serialization failure, deadlock or unique violation.
const RETRIES: usize = 50;

/// One versioned step of the SQL schema.
pub(crate) struct SqlMigration {
    pub(crate) version: i32,
    pub(crate) description: &'static str,
    pub(crate) sql: &'static str,
}

/// The schema, step by step; a step is never edited once released, only followed by another.
pub(crate) const SQL_MIGRATIONS: &[SqlMigration] = &[
    SqlMigration {
        version: 1,
        description: "trees of keys and values, and the id sequence",
        sql: "CREATE TABLE frugal_kv (
                  tree text NOT NULL,
                  k bytea NOT NULL,
                  v bytea NOT NULL,
                  PRIMARY KEY (tree, k)
              );
              CREATE SEQUENCE frugal_ids START WITH 1 MINVALUE 1;",
    },
    SqlMigration {
        version: 2,
        description: "the job queue, with one running and one queued job per repository and crate",
        sql: "CREATE TABLE frugal_jobs (
                  id bigint PRIMARY KEY,
                  state text NOT NULL,
                  repo bigint NOT NULL,
                  krate text NOT NULL,
                  priority integer NOT NULL,
                  enqueued_at bigint NOT NULL,
                  node text,
                  lease_until bigint,
                  by_token text,
                  record bytea NOT NULL
              );
              CREATE UNIQUE INDEX frugal_jobs_one_running ON frugal_jobs (repo, krate)
                  WHERE state = 'running';
              CREATE UNIQUE INDEX frugal_jobs_one_queued ON frugal_jobs (repo, krate)
                  WHERE state = 'queued';
              CREATE INDEX frugal_jobs_claim_order ON frugal_jobs (priority DESC, enqueued_at, id)
                  WHERE state = 'queued';
              CREATE INDEX frugal_jobs_active ON frugal_jobs (state)
                  WHERE state IN ('queued', 'running');",
    },
];

/// The pool and what it connects to.
pub(crate) struct PgKv {
    pool: r2d2::Pool<Manager>,
    /// The URL without its password, for messages.
    pub(crate) shown: String,
}

/// How to reach PostgreSQL.
#[derive(Clone, Debug)]
pub struct PgOptions {
    /// A libpq-style URL or key=value string (`postgres://user@host:5432/db`,
    /// `host=/run/postgresql dbname=frugal`).
    pub url: String,
    /// Connections kept at most.
    pub pool_size: u32,
    /// How long a caller waits for a connection before the store reports the database
    /// unavailable.
    pub connect_timeout: Duration,
}

impl PgOptions {
    /// `url` with a pool of `pool_size` and a 2-second wait for a connection (an API request
    /// during an outage answers 503 after it).
    pub fn new(url: impl Into<String>, pool_size: u32) -> PgOptions {
        PgOptions {
            url: url.into(),
            pool_size,
            connect_timeout: Duration::from_secs(2),
        }
    }
}

/// `url` with any password replaced by `***`.
pub(crate) fn redact(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://")
        && let Some((userinfo, host)) = rest.split_once('@')
    {
        let user = userinfo.split(':').next().unwrap_or("");
        let masked = if userinfo.contains(':') {
            format!("{user}:***")
        } else {
            user.to_string()
        };
        return format!("{scheme}://{masked}@{host}");
    }
    url.split_whitespace()
        .map(|kv| {
            if kv.starts_with("password=") {
                "password=***"
            } else {
                kv
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a PostgreSQL error means "run the transaction again": a serialization failure, a
/// deadlock, or a unique index that a concurrent writer filled first.
pub(crate) fn retriable(e: &postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(&SqlState::T_R_SERIALIZATION_FAILURE)
            | Some(&SqlState::T_R_DEADLOCK_DETECTED)
            | Some(&SqlState::UNIQUE_VIOLATION)
    )
}

/// A PostgreSQL error as one line: the server's message with the constraint or detail it
/// names, or the client's own text.
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut s = db.message().to_string();
            if let Some(c) = db.constraint() {
                s.push_str(&format!(" (constraint {c})"));
            }
            if let Some(d) = db.detail() {
                s.push_str(&format!(": {d}"));
            }
            s
        }
        None => e.to_string(),
    }
}

fn bytes(v: Vec<u8>) -> IVec {
    IVec::from(v)
}

impl PgKv {
    /// Connects (waiting up to the options' timeout for the first connection) and brings the
    /// schema to [`SQL_MIGRATIONS`]' last step.
    pub(crate) fn connect(opts: &PgOptions) -> Result<PgKv> {
        let shown = redact(&opts.url);
        let config: postgres::Config = opts.url.parse().map_err(|e| StoreError::Postgres {
            doing: format!("read the PostgreSQL URL {shown}"),
            message: describe(&e),
            source: e,
        })?;
        let manager = Manager { config };
        let pool = r2d2::Pool::builder()
            .max_size(opts.pool_size.max(1))
            .min_idle(Some(0))
            .connection_timeout(opts.connect_timeout)
            .build(manager)
            .map_err(|e| StoreError::Unavailable {
                url: shown.clone(),
                message: e.to_string(),
            })?;
        let kv = PgKv { pool, shown };
        kv.migrate_schema()?;
        Ok(kv)
    }

    /// A connection from the pool, or [`StoreError::Unavailable`] once the pool's wait ran out;
    /// on a patient thread ([`wait_for_the_database`]) it keeps trying until its patience ends.
    pub(crate) fn conn(&self) -> Result<Conn> {
        let deadline = PATIENCE.with(Cell::get).map(|p| Instant::now() + p);
        loop {
            match self.pool.get() {
                Ok(c) => return Ok(c),
                Err(e) if deadline.is_some_and(|d| Instant::now() < d) => {
                    tracing::debug!(error = %e, "PostgreSQL unreachable; waiting for it");
                    std::thread::sleep(Duration::from_millis(500));
                }
                Err(e) => {
                    return Err(StoreError::Unavailable {
                        url: self.shown.clone(),
                        message: e.to_string(),
                    });
                }
            }
        }
    }

    /// Runs `f` (one statement on a pooled connection) and, on a patient thread
    /// ([`wait_for_the_database`]), runs it again while it fails because the connection died
    /// under it (the server restarted): a connection taken before an outage fails at its next
    /// statement, and a job's write must not be lost to that. The statements run so are
    /// idempotent (reads, upserts, deletes), so a second run after a lost answer is harmless.
    pub(crate) fn patiently<T>(&self, mut f: impl FnMut() -> Result<T>) -> Result<T> {
        let deadline = PATIENCE.with(Cell::get).map(|p| Instant::now() + p);
        loop {
            match f() {
                Err(e) if e.is_unavailable() && deadline.is_some_and(|d| Instant::now() < d) => {
                    tracing::debug!(error = %e, "PostgreSQL went away under a statement; again");
                    std::thread::sleep(Duration::from_millis(500));
                }
                other => return other,
            }
        }
    }

    pub(crate) fn err(&self, doing: &str, e: postgres::Error) -> StoreError {
        if e.is_closed() || e.code().is_none() {
            return StoreError::Unavailable {
                url: self.shown.clone(),
                message: format!("{doing}: {e}"),
            };
        }
        StoreError::Postgres {
            doing: doing.to_string(),
            message: describe(&e),
            source: e,
        }
    }

    /// Applies the SQL steps this database lacks, one transaction each, holding the migration
    /// lock so concurrent starts apply each once.
    fn migrate_schema(&self) -> Result<()> {
        let mut c = self.conn()?;
        let e = |e| self.err("migrate the PostgreSQL schema", e);
        c.client
            .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
            .map_err(e)?;
        let r = (|| -> Result<()> {
            c.client
                .batch_execute(
                    "CREATE TABLE IF NOT EXISTS frugal_schema (
                     version integer PRIMARY KEY,
                     description text NOT NULL,
                     applied_at timestamptz NOT NULL DEFAULT now()
                 )",
                )
                .map_err(e)?;
            let row = c
                .client
                .query_one("SELECT coalesce(max(version), 0) FROM frugal_schema", &[])
                .map_err(e)?;
            let current: i32 = row.get(0);
            let newest = SQL_MIGRATIONS.last().map_or(0, |m| m.version);
            if current > newest {
                return Err(StoreError::Invalid(format!(
                    "open the store at {}: its SQL schema is version {current}, newer than the \
                     {newest} this frugal knows; run a newer frugal",
                    self.shown
                )));
            }
            for m in SQL_MIGRATIONS.iter().filter(|m| m.version > current) {
                let mut tx = c.client.transaction().map_err(e)?;
                tx.batch_execute(m.sql).map_err(e)?;
                tx.execute(
                    "INSERT INTO frugal_schema (version, description) VALUES ($1, $2)",
                    &[&m.version, &m.description],
                )
                .map_err(e)?;
                tx.commit().map_err(e)?;
                tracing::info!(
                    version = m.version,
                    step = m.description,
                    "PostgreSQL schema migrated"
                );
            }
            Ok(())
        })();
        let _ = c
            .client
            .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
        r
    }

    /// Runs `f` holding the session advisory lock `key` (waiting for it); for work one node of
    /// the fleet does at a time, such as the store's own record migrations.
    pub(crate) fn with_lock<T>(&self, key: i64, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let mut c = self.conn()?;
        c.client
            .execute("SELECT pg_advisory_lock($1)", &[&key])
            .map_err(|e| self.err("take an advisory lock", e))?;
        let r = f();
        let _ = c.client.execute("SELECT pg_advisory_unlock($1)", &[&key]);
        r
    }

    /// Runs `f` if the session advisory lock `key` is free, holding it meanwhile; `None` when
    /// another session holds it.
    pub(crate) fn try_with_lock<T>(
        &self,
        key: i64,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<Option<T>> {
        let mut c = self.conn()?;
        let got: bool = c
            .client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&key])
            .map_err(|e| self.err("try an advisory lock", e))?
            .get(0);
        if !got {
            return Ok(None);
        }
        let r = f();
        let _ = c.client.execute("SELECT pg_advisory_unlock($1)", &[&key]);
        r.map(Some)
    }

    pub(crate) fn generate_id(&self) -> Result<u64> {
        self.patiently(|| {
            let mut c = self.conn()?;
            let row = c
                .row("SELECT nextval('frugal_ids')", &[])
                .map_err(|e| self.err("take a fresh id", e))?
                .ok_or_else(|| StoreError::Invalid("nextval returned no row".to_string()))?;
            let id: i64 = row.get(0);
            Ok(id as u64 - 1)
        })
    }

    pub(crate) fn ids_above(&self, max: u64) -> Result<()> {
        self.patiently(|| {
            let mut c = self.conn()?;
            let next = (max as i64).saturating_add(1);
            c.client
                .execute(
                    "SELECT setval('frugal_ids', greatest($1, (SELECT last_value FROM frugal_ids)))",
                    &[&next],
                )
                .map_err(|e| self.err("move the id sequence past imported ids", e))?;
            Ok(())
        })
    }

    pub(crate) fn get(&self, tree: &str, k: &[u8]) -> Result<Option<IVec>> {
        self.patiently(|| {
            let mut c = self.conn()?;
            let row = c
                .row(
                    "SELECT v FROM frugal_kv WHERE tree = $1 AND k = $2",
                    &[&tree, &k],
                )
                .map_err(|e| self.err("read the store", e))?;
            Ok(row.map(|r| bytes(r.get(0))))
        })
    }

    pub(crate) fn get_many(&self, tree: &str, keys: &[Vec<u8>]) -> Result<Vec<Option<IVec>>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.patiently(|| {
            let mut c = self.conn()?;
            let rows = c
                .rows(
                    "SELECT k, v FROM frugal_kv WHERE tree = $1 AND k = ANY($2)",
                    &[&tree, &keys],
                )
                .map_err(|e| self.err("read the store", e))?;
            let mut found: std::collections::HashMap<Vec<u8>, Vec<u8>> =
                rows.into_iter().map(|r| (r.get(0), r.get(1))).collect();
            Ok(keys.iter().map(|k| found.remove(k).map(bytes)).collect())
        })
    }

    pub(crate) fn existing(&self, tree: &str, keys: &[Vec<u8>]) -> Result<Vec<bool>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.patiently(|| {
            let mut c = self.conn()?;
            let rows = c
                .rows(
                    "SELECT k FROM frugal_kv WHERE tree = $1 AND k = ANY($2)",
                    &[&tree, &keys],
                )
                .map_err(|e| self.err("read the store", e))?;
            let found: std::collections::HashSet<Vec<u8>> =
                rows.into_iter().map(|r| r.get(0)).collect();
            Ok(keys.iter().map(|k| found.contains(k)).collect())
        })
    }

    pub(crate) fn insert(&self, tree: &str, k: &[u8], v: &[u8]) -> Result<()> {
        self.patiently(|| {
            let mut c = self.conn()?;
            c.exec(
                "INSERT INTO frugal_kv (tree, k, v) VALUES ($1, $2, $3)
                 ON CONFLICT (tree, k) DO UPDATE SET v = EXCLUDED.v",
                &[&tree, &k, &v],
            )
            .map_err(|e| self.err("write the store", e))?;
            Ok(())
        })
    }

    pub(crate) fn remove(&self, tree: &str, k: &[u8]) -> Result<Option<IVec>> {
        self.patiently(|| {
            let mut c = self.conn()?;
            let row = c
                .row(
                    "DELETE FROM frugal_kv WHERE tree = $1 AND k = $2 RETURNING v",
                    &[&tree, &k],
                )
                .map_err(|e| self.err("delete from the store", e))?;
            Ok(row.map(|r| bytes(r.get(0))))
        })
    }

    pub(crate) fn compare_and_swap(
        &self,
        tree: &str,
        k: &[u8],
        old: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> Result<bool> {
        self.transaction(|tx| {
            if tx.get(tree, k)?.as_deref() != old {
                return Ok(false);
            }
            match new {
                Some(v) => tx.insert(tree, k, v)?,
                None => tx.remove(tree, k)?,
            }
            Ok(true)
        })
    }

    pub(crate) fn len(&self, tree: &str) -> Result<usize> {
        self.patiently(|| {
            let mut c = self.conn()?;
            let n: i64 = c
                .client
                .query_one("SELECT count(*) FROM frugal_kv WHERE tree = $1", &[&tree])
                .map_err(|e| self.err("count records", e))?
                .get(0);
            Ok(n as usize)
        })
    }

    pub(crate) fn is_empty(&self, tree: &str) -> Result<bool> {
        self.patiently(|| {
            let mut c = self.conn()?;
            let any: bool = c
                .client
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM frugal_kv WHERE tree = $1)",
                    &[&tree],
                )
                .map_err(|e| self.err("count records", e))?
                .get(0);
            Ok(!any)
        })
    }

    pub(crate) fn clear(&self, tree: &str) -> Result<()> {
        self.patiently(|| {
            let mut c = self.conn()?;
            c.client
                .execute("DELETE FROM frugal_kv WHERE tree = $1", &[&tree])
                .map_err(|e| self.err("clear a tree", e))?;
            Ok(())
        })
    }

    pub(crate) fn range(
        self: &Arc<Self>,
        tree: &'static str,
        lo: &[u8],
        hi: Option<&[u8]>,
        rev: bool,
    ) -> PgPages {
        PgPages {
            keys_only: false,
            page: FIRST_PAGE,
            kv: self.clone(),
            tree,
            lo: lo.to_vec(),
            lo_inclusive: true,
            hi: hi.map(<[u8]>::to_vec),
            hi_inclusive: false,
            rev,
            buf: VecDeque::new(),
            done: false,
        }
    }

    /// Reads the next page of `p` into its buffer, moving its bound past what it read.
    pub(crate) fn page(&self, p: &mut PgPages) -> Result<()> {
        let mut c = self.conn()?;
        let lo_op = if p.lo_inclusive { ">=" } else { ">" };
        let order = if p.rev { "DESC" } else { "ASC" };
        let value = if p.keys_only { "''::bytea" } else { "v" };
        let size = p.page;
        // Pages grow: a caller that wants a few entries (an API page) reads few.
        p.page = (p.page * 4).min(PAGE);
        // Each bound a plain comparison, so a prepared statement's generic plan still walks the
        // (tree, k) index between them.
        let rows = match &p.hi {
            Some(hi) => {
                let hi_op = if p.hi_inclusive { "<=" } else { "<" };
                let sql = format!(
                    "SELECT k, {value} FROM frugal_kv WHERE tree = $1 AND k {lo_op} $2 \
                     AND k {hi_op} $3 ORDER BY k {order} LIMIT $4"
                );
                c.rows(&sql, &[&p.tree, &p.lo, hi, &size])
            }
            None => {
                let sql = format!(
                    "SELECT k, {value} FROM frugal_kv WHERE tree = $1 AND k {lo_op} $2 \
                     ORDER BY k {order} LIMIT $3"
                );
                c.rows(&sql, &[&p.tree, &p.lo, &size])
            }
        }
        .map_err(|e| self.err("scan the store", e))?;
        if (rows.len() as i64) < size {
            p.done = true;
        }
        let entries: Vec<Entry> = rows
            .into_iter()
            .map(|r| (bytes(r.get(0)), bytes(r.get(1))))
            .collect();
        if let Some((last, _)) = entries.last() {
            if p.rev {
                p.hi = Some(last.to_vec());
                p.hi_inclusive = false;
            } else {
                p.lo = last.to_vec();
                p.lo_inclusive = false;
            }
        }
        p.buf.extend(entries);
        Ok(())
    }

    /// Runs `f` in a serializable transaction, again when PostgreSQL reports a conflict with a
    /// concurrent one.
    pub(crate) fn transaction<T>(&self, f: impl Fn(&PgTx<'_>) -> Result<T>) -> Result<T> {
        self.transaction_at(IsolationLevel::Serializable, f)
    }

    /// [`PgKv::transaction`] at `level`.
    pub(crate) fn transaction_at<T>(
        &self,
        level: IsolationLevel,
        f: impl Fn(&PgTx<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut attempt = 0;
        let deadline = PATIENCE.with(Cell::get).map(|p| Instant::now() + p);
        loop {
            attempt += 1;
            let mut c = self.conn()?;
            let Cached { client, stmts } = &mut *c;
            let tx = client
                .build_transaction()
                .isolation_level(level)
                .start()
                .map_err(|e| self.err("start a transaction", e))?;
            let ptx = PgTx {
                kv: self,
                tx: RefCell::new(tx),
                stmts: RefCell::new(stmts),
            };
            let r = f(&ptx);
            let tx = ptx.tx.into_inner();
            let outcome = match r {
                Ok(v) => tx.commit().map(|()| v).map_err(|e| self.err("commit", e)),
                Err(e) => {
                    let _ = tx.rollback();
                    Err(e)
                }
            };
            match outcome {
                Err(e) if e.is_conflict() && attempt < RETRIES => {
                    std::thread::sleep(Duration::from_millis(attempt as u64 % 8));
                }
                // The connection died under the transaction (the server restarted): a patient
                // thread runs it again on a fresh one, which waits for the server.
                Err(e) if e.is_unavailable() && deadline.is_some_and(|d| Instant::now() < d) => {
                    std::thread::sleep(Duration::from_millis(500));
                }
                other => return other,
            }
        }
    }
}

/// A running PostgreSQL transaction, with its connection's prepared statements.
pub(crate) struct PgTx<'a> {
    pub(crate) kv: &'a PgKv,
    pub(crate) tx: RefCell<postgres::Transaction<'a>>,
    stmts: RefCell<&'a mut std::collections::HashMap<String, postgres::Statement>>,
}

impl Exec for &PgTx<'_> {
    fn rows(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> std::result::Result<Vec<postgres::Row>, postgres::Error> {
        let mut tx = self.tx.borrow_mut();
        let st = prepared(&mut self.stmts.borrow_mut(), sql, |q| tx.prepare(q))?;
        tx.query(&st, params)
    }

    fn exec(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> std::result::Result<u64, postgres::Error> {
        let mut tx = self.tx.borrow_mut();
        let st = prepared(&mut self.stmts.borrow_mut(), sql, |q| tx.prepare(q))?;
        tx.execute(&st, params)
    }
}

impl PgTx<'_> {
    pub(crate) fn get(&self, tree: &str, k: &[u8]) -> Result<Option<IVec>> {
        let row = { self }
            .row(
                "SELECT v FROM frugal_kv WHERE tree = $1 AND k = $2",
                &[&tree, &k],
            )
            .map_err(|e| self.kv.err("read the store", e))?;
        Ok(row.map(|r| bytes(r.get(0))))
    }

    pub(crate) fn insert(&self, tree: &str, k: &[u8], v: &[u8]) -> Result<()> {
        { self }
            .exec(
                "INSERT INTO frugal_kv (tree, k, v) VALUES ($1, $2, $3)
                 ON CONFLICT (tree, k) DO UPDATE SET v = EXCLUDED.v",
                &[&tree, &k, &v],
            )
            .map_err(|e| self.kv.err("write the store", e))?;
        Ok(())
    }

    pub(crate) fn remove(&self, tree: &str, k: &[u8]) -> Result<()> {
        { self }
            .exec(
                "DELETE FROM frugal_kv WHERE tree = $1 AND k = $2",
                &[&tree, &k],
            )
            .map_err(|e| self.kv.err("delete from the store", e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(
            redact("postgres://frugal:s3cret@db:5432/frugal"),
            "postgres://frugal:***@db:5432/frugal"
        );
        assert_eq!(redact("postgres://frugal@db/x"), "postgres://frugal@db/x");
        assert_eq!(
            redact("host=/run/postgresql password=s3cret dbname=f"),
            "host=/run/postgresql password=*** dbname=f"
        );
    }
}
