//! PostgreSQL connections with their prepared statements, pooled by r2d2.
//!
//! Decision: a connection manager of our own rather than `r2d2_postgres`, for one thing it
//! lacks: each connection keeps the statements it prepared, so a query costs one round trip
//! (bind and execute) instead of two (prepare, then execute). The store's SQL is a fixed set
//! of strings, so the cache stays small. Measured by `bench/fleet.py`'s read load.

use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};

/// A connection and the statements it prepared, by their SQL.
pub(crate) struct Cached {
    pub(crate) client: Client,
    pub(crate) stmts: HashMap<String, Statement>,
}

/// Something that runs the store's SQL with prepared statements: a pooled connection, or a
/// transaction on one ([`crate::pg::PgTx`]).
pub(crate) trait Exec {
    /// The rows of `sql` with `params`.
    fn rows(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, postgres::Error>;

    /// The number of rows `sql` wrote.
    fn exec(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, postgres::Error>;

    /// The one row of `sql`, if any.
    fn row(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, postgres::Error> {
        Ok(self.rows(sql, params)?.into_iter().next())
    }
}

/// The prepared statement of `sql` in `stmts`, prepared by `prepare` the first time.
pub(crate) fn prepared(
    stmts: &mut HashMap<String, Statement>,
    sql: &str,
    prepare: impl FnOnce(&str) -> Result<Statement, postgres::Error>,
) -> Result<Statement, postgres::Error> {
    if let Some(s) = stmts.get(sql) {
        return Ok(s.clone());
    }
    let s = prepare(sql)?;
    stmts.insert(sql.to_string(), s.clone());
    Ok(s)
}

impl Exec for Cached {
    fn rows(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, postgres::Error> {
        let st = prepared(&mut self.stmts, sql, |q| self.client.prepare(q))?;
        self.client.query(&st, params)
    }

    fn exec(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, postgres::Error> {
        let st = prepared(&mut self.stmts, sql, |q| self.client.prepare(q))?;
        self.client.execute(&st, params)
    }
}

/// Makes and checks [`Cached`] connections for r2d2.
pub(crate) struct Manager {
    pub(crate) config: postgres::Config,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Cached;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Cached, postgres::Error> {
        Ok(Cached {
            client: self.config.connect(NoTls)?,
            stmts: HashMap::new(),
        })
    }

    fn is_valid(&self, conn: &mut Cached) -> Result<(), postgres::Error> {
        conn.client.simple_query("").map(drop)
    }

    fn has_broken(&self, conn: &mut Cached) -> bool {
        conn.client.is_closed()
    }
}
