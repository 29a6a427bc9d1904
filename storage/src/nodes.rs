//! The frugald nodes sharing a store, and work one node of the fleet does at a time.
//!
//! Each node writes its record at start and on every heartbeat; a node whose heartbeat is old
//! is dead or cut off, and its jobs are claimed again once their leases end (the scheduler's
//! `requeue_expired`). On sled there is one node.

use serde::{Deserialize, Serialize};

use crate::kv::Db;
use crate::{JobId, Result, Store};

/// One frugald of the fleet, as it last reported itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeRecord {
    /// The node's id (`[node] id`, or the host name and state directory by default).
    pub id: String,
    /// Where its HTTP API listens, when known.
    pub addr: Option<String>,
    /// frugald's version.
    pub version: String,
    /// When it started, Unix time in milliseconds.
    pub started: u64,
    /// Its last heartbeat, Unix time in milliseconds.
    pub heartbeat: u64,
    /// The jobs it is running.
    pub jobs: Vec<JobId>,
    /// Their runs, in the same order.
    #[serde(default)]
    pub runs: Vec<crate::RunId>,
}

/// A web session of the pages, shared by the fleet's nodes (stored by the SHA-256 of its id, so
/// the store never holds the cookie's secret).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// Who logged in: `token-file`, or the hex SHA-256 of a stored token's secret.
    pub holder: String,
    /// The session's CSRF token.
    pub csrf: String,
    /// When it was opened, Unix time in milliseconds.
    pub created: u64,
}

/// Advisory lock keys of fleet-wide work, by name (stable across releases: nodes of two
/// versions may share a database while a fleet upgrades).
fn lock_key(name: &str) -> i64 {
    // FNV-1a: a fixed, dependency-free hash; collisions between the few names are checked below.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}

impl Store {
    /// Writes a node's record (its heartbeat).
    pub fn put_node(&self, rec: &NodeRecord) -> Result<()> {
        self.nodes.insert(rec.id.as_bytes(), crate::encode(rec))
    }

    /// Every node that ever reported, by id.
    pub fn nodes(&self) -> Result<Vec<NodeRecord>> {
        self.all(&self.nodes, "nodes")
    }

    /// Stores a web session under the hash of its id.
    pub fn put_session(&self, id_hash: &[u8], rec: &SessionRecord) -> Result<()> {
        self.sessions.insert(id_hash, crate::encode(rec))
    }

    /// The web session with this id hash.
    pub fn session(&self, id_hash: &[u8]) -> Result<Option<SessionRecord>> {
        self.get(&self.sessions, "sessions", id_hash)
    }

    /// Ends a web session.
    pub fn remove_session(&self, id_hash: &[u8]) -> Result<()> {
        self.sessions.remove(id_hash).map(drop)
    }

    /// Deletes sessions opened before `before` (Unix ms); how many.
    pub fn prune_sessions(&self, before: u64) -> Result<usize> {
        let mut n = 0;
        for kv in self.sessions.iter() {
            let (k, v) = kv?;
            let rec: SessionRecord = crate::decode("sessions", &k, &v)?;
            if rec.created < before {
                self.sessions.remove(&k)?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// Takes the next window of cron time, `(from, now]`, for this node to fire schedules in:
    /// the store keeps where the last window ended, and a compare-and-swap hands each window to
    /// exactly one node of the fleet. `None` when there is nothing to fire (the first call, or
    /// another node took the window). A window never reaches back more than `catch_up` (a
    /// fleet that was down long does not fire everything it missed).
    pub fn take_cron_window(&self, now: u64, catch_up: u64) -> Result<Option<u64>> {
        const KEY: &[u8] = b"cron_fired_until";
        let old = self.meta.get(KEY)?;
        let new = now.to_be_bytes();
        let Some(old) = old else {
            self.meta.compare_and_swap(KEY, None, Some(&new))?;
            return Ok(None);
        };
        let from = crate::be_u64("meta", KEY, &old)?;
        if from >= now || !self.meta.compare_and_swap(KEY, Some(&old), Some(&new))? {
            return Ok(None);
        }
        Ok(Some(from.max(now.saturating_sub(catch_up))))
    }

    /// Runs `f` unless another node of the fleet is running work of the same `name` (on
    /// PostgreSQL a session advisory lock; on sled the one process decides): `None` when it is.
    pub fn exclusively<T>(&self, name: &str, f: impl FnOnce() -> Result<T>) -> Result<Option<T>> {
        match &self.db {
            Db::Sled(_) => f().map(Some),
            Db::Pg(kv) => kv.try_with_lock(lock_key(name), f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::lock_key;

    #[test]
    fn fleet_lock_names_do_not_collide() {
        let names = ["gc", "retention", "schedules", "polls"];
        let mut keys: Vec<i64> = names.iter().map(|n| lock_key(n)).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), names.len());
    }
}
