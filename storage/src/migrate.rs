//! Schema version and migrations, run by [`crate::Store::open`].
//!
//! The version lives in the `meta` tree. A fresh store gets [`SCHEMA_VERSION`]; a store with data
//! but no version is version 0; an older store runs the migrations of [`MIGRATIONS`] one step at
//! a time (each step recorded and flushed, so a crash mid-way resumes at the step it was in); a
//! newer store is refused, never read. To change a stored format: bump [`SCHEMA_VERSION`], add a
//! step here, and trace every reader and writer of the record (nextest's checklist, \[nextest\]).

use crate::{Result, Store, StoreError};

/// The schema this build reads and writes.
pub const SCHEMA_VERSION: u32 = 2;

/// One migration step from `from` to `to` (`to == from + 1`).
#[derive(Clone, Copy)]
pub struct Migration {
    /// The schema version the step starts from.
    pub from: u32,
    /// The schema version it leads to.
    pub to: u32,
    /// What the step does, for people (it appears in errors and logs).
    pub description: &'static str,
    /// Rewrites records in place. Must be idempotent: a crash may run it twice.
    pub apply: fn(&Store) -> Result<()>,
}

/// The migrations of this build.
pub const MIGRATIONS: &[Migration] = &[Migration {
    from: 1,
    to: 2,
    description: "index of queued and running jobs (`jobs_active`)",
    apply: index_active_jobs,
}];

/// 1 -> 2: fills the `jobs_active` index from the job records (idempotent: rewriting a job
/// rewrites its index entry).
fn index_active_jobs(store: &Store) -> Result<()> {
    for job in store.jobs()? {
        store.put_job_unflushed(&job)?;
    }
    Ok(())
}

pub(crate) fn run(store: &Store, target: u32, migrations: &[Migration]) -> Result<()> {
    let mut version = match store.schema_version()? {
        Some(v) => v,
        None if store.is_empty()? => return store.set_schema_version(target),
        None => 0,
    };
    if version > target {
        return Err(StoreError::NewerSchema {
            path: store.path().to_path_buf(),
            found: version,
            supported: target,
        });
    }
    while version < target {
        let Some(m) = migrations.iter().find(|m| m.from == version) else {
            return Err(StoreError::NoMigration {
                path: store.path().to_path_buf(),
                found: version,
                target,
            });
        };
        (m.apply)(store).map_err(|e| StoreError::Migration {
            from: m.from,
            to: m.to,
            description: m.description,
            message: e.to_string(),
        })?;
        store.set_schema_version(m.to)?;
        version = m.to;
    }
    Ok(())
}
