//! The ordered key-value layer the store is written against: named trees of byte keys and
//! values with prefix and range scans, compare-and-swap, ids that only grow, and transactions
//! over several trees. Two backends: sled (one process, the default) and PostgreSQL (`pg.rs`,
//! shared by a fleet of frugald nodes).
//!
//! Decision: the store keeps its records as JSON values under byte keys on both backends, so
//! every record type, index and migration is written once; PostgreSQL holds them in one table
//! keyed by (tree, key), whose `bytea` order is sled's byte order. The job queue is the one
//! exception: on PostgreSQL it is a table of its own with typed columns, because claims must lock
//! rows (`FOR UPDATE SKIP LOCKED`) and the fleet's invariants are unique indexes (`jobs.rs`).

use std::collections::VecDeque;
use std::sync::Arc;

use sled::IVec;
use sled::transaction::{
    ConflictableTransactionError, TransactionError, TransactionalTree, UnabortableTransactionError,
};

use crate::pg::{PgKv, PgTx};
use crate::{Result, StoreError};

/// A key and its value.
pub(crate) type Entry = (IVec, IVec);

/// The database: sled, or a PostgreSQL pool.
#[derive(Clone)]
pub(crate) enum Db {
    Sled(sled::Db),
    Pg(Arc<PgKv>),
}

/// One named tree of a [`Db`].
#[derive(Clone)]
pub(crate) enum Tree {
    Sled(sled::Tree),
    Pg { kv: Arc<PgKv>, name: &'static str },
}

impl Db {
    pub(crate) fn open_tree(&self, name: &'static str) -> Result<Tree> {
        Ok(match self {
            Db::Sled(db) => Tree::Sled(db.open_tree(name)?),
            Db::Pg(kv) => Tree::Pg {
                kv: kv.clone(),
                name,
            },
        })
    }

    /// A fresh id, larger than every id handed out before (0 first on a new store).
    pub(crate) fn generate_id(&self) -> Result<u64> {
        match self {
            Db::Sled(db) => Ok(db.generate_id()?),
            Db::Pg(kv) => kv.generate_id(),
        }
    }

    /// Makes ids handed out from now on larger than `max` (after an import).
    pub(crate) fn ids_above(&self, max: u64) -> Result<()> {
        match self {
            Db::Sled(db) => {
                while db.generate_id()? < max {}
                Ok(())
            }
            Db::Pg(kv) => kv.ids_above(max),
        }
    }

    /// Makes every write so far durable (PostgreSQL commits are already).
    pub(crate) fn flush(&self) -> Result<()> {
        if let Db::Sled(db) = self {
            db.flush()?;
        }
        Ok(())
    }

    /// Runs `f` as one transaction over `trees` (all of this database): all its writes or none.
    /// `f` may run more than once (a conflict with another writer retries it), so it must not
    /// have effects outside the transaction.
    pub(crate) fn transaction<T>(
        &self,
        trees: &[&Tree],
        f: impl Fn(&Tx<'_, '_>) -> Result<T, TxError>,
    ) -> Result<T> {
        match self {
            Db::Sled(_) => {
                let sled_trees: Vec<sled::Tree> = trees
                    .iter()
                    .map(|t| match t {
                        Tree::Sled(t) => Ok(t.clone()),
                        Tree::Pg { .. } => Err(StoreError::Invalid(
                            "a transaction mixes sled and PostgreSQL trees".to_string(),
                        )),
                    })
                    .collect::<Result<_>>()?;
                let r = sled::Transactional::transaction(
                    sled_trees.as_slice(),
                    |tts: &Vec<TransactionalTree>| {
                        f(&Tx::Sled(tts)).map_err(|e| match e {
                            TxError::Abort(e) => ConflictableTransactionError::Abort(e),
                            TxError::Sled(u) => u.into(),
                        })
                    },
                );
                match r {
                    Ok(v) => Ok(v),
                    Err(TransactionError::Abort(e)) => Err(e),
                    Err(TransactionError::Storage(e)) => Err(StoreError::Sled(e)),
                }
            }
            Db::Pg(kv) => {
                let names: Vec<&'static str> = trees
                    .iter()
                    .map(|t| match t {
                        Tree::Pg { name, .. } => Ok(*name),
                        Tree::Sled(_) => Err(StoreError::Invalid(
                            "a transaction mixes sled and PostgreSQL trees".to_string(),
                        )),
                    })
                    .collect::<Result<_>>()?;
                kv.transaction(|tx| {
                    f(&Tx::Pg { tx, names: &names }).map_err(|e| match e {
                        TxError::Abort(e) => e,
                        TxError::Sled(u) => StoreError::Invalid(format!(
                            "a sled error in a PostgreSQL transaction: {u}"
                        )),
                    })
                })
            }
        }
    }
}

/// What a transaction's body can fail with.
pub(crate) enum TxError {
    /// The body gave up: nothing is written and the error goes to the caller.
    Abort(StoreError),
    /// sled's conflict or storage error (sled retries conflicts).
    Sled(UnabortableTransactionError),
}

impl From<StoreError> for TxError {
    fn from(e: StoreError) -> Self {
        TxError::Abort(e)
    }
}

impl From<UnabortableTransactionError> for TxError {
    fn from(e: UnabortableTransactionError) -> Self {
        TxError::Sled(e)
    }
}

/// The trees of a running transaction, by their position in [`Db::transaction`]'s list.
pub(crate) enum Tx<'a, 't> {
    Sled(&'a [TransactionalTree]),
    Pg {
        tx: &'a PgTx<'t>,
        names: &'a [&'static str],
    },
}

impl Tx<'_, '_> {
    pub(crate) fn get(&self, tree: usize, k: &[u8]) -> Result<Option<IVec>, TxError> {
        match self {
            Tx::Sled(t) => Ok(t[tree].get(k)?),
            Tx::Pg { tx, names } => Ok(tx.get(names[tree], k)?),
        }
    }

    pub(crate) fn insert(&self, tree: usize, k: &[u8], v: &[u8]) -> Result<(), TxError> {
        match self {
            Tx::Sled(t) => {
                t[tree].insert(k, v)?;
                Ok(())
            }
            Tx::Pg { tx, names } => Ok(tx.insert(names[tree], k, v)?),
        }
    }

    pub(crate) fn remove(&self, tree: usize, k: &[u8]) -> Result<(), TxError> {
        match self {
            Tx::Sled(t) => {
                t[tree].remove(k)?;
                Ok(())
            }
            Tx::Pg { tx, names } => Ok(tx.remove(names[tree], k)?),
        }
    }
}

impl Tree {
    /// The value under `k`.
    pub(crate) fn get(&self, k: impl AsRef<[u8]>) -> Result<Option<IVec>> {
        match self {
            Tree::Sled(t) => Ok(t.get(k)?),
            Tree::Pg { kv, name } => kv.get(name, k.as_ref()),
        }
    }

    /// Sets `k` to `v`.
    pub(crate) fn insert(&self, k: impl AsRef<[u8]>, v: impl AsRef<[u8]>) -> Result<()> {
        match self {
            Tree::Sled(t) => {
                t.insert(k.as_ref(), v.as_ref())?;
                Ok(())
            }
            Tree::Pg { kv, name } => kv.insert(name, k.as_ref(), v.as_ref()),
        }
    }

    /// Removes `k`; the value it had.
    pub(crate) fn remove(&self, k: impl AsRef<[u8]>) -> Result<Option<IVec>> {
        match self {
            Tree::Sled(t) => Ok(t.remove(k)?),
            Tree::Pg { kv, name } => kv.remove(name, k.as_ref()),
        }
    }

    /// The values of `keys`, in their order: one query on PostgreSQL, where a page of records
    /// read one by one would cost a round trip each.
    pub(crate) fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<IVec>>> {
        match self {
            Tree::Sled(t) => keys.iter().map(|k| Ok(t.get(k)?)).collect(),
            Tree::Pg { kv, name } => kv.get_many(name, keys),
        }
    }

    /// Which of `keys` have a value (their values are not read).
    pub(crate) fn existing(&self, keys: &[Vec<u8>]) -> Result<Vec<bool>> {
        match self {
            Tree::Sled(t) => keys.iter().map(|k| Ok(t.contains_key(k)?)).collect(),
            Tree::Pg { kv, name } => kv.existing(name, keys),
        }
    }

    /// Whether `k` has a value.
    pub(crate) fn contains_key(&self, k: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.get(k)?.is_some())
    }

    /// Sets `k` to `new` (or removes it) only if its value is `old` now; whether it did.
    pub(crate) fn compare_and_swap(
        &self,
        k: &[u8],
        old: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> Result<bool> {
        match self {
            Tree::Sled(t) => Ok(t.compare_and_swap(k, old, new)?.is_ok()),
            Tree::Pg { kv, name } => kv.compare_and_swap(name, k, old, new),
        }
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> Result<usize> {
        match self {
            Tree::Sled(t) => Ok(t.len()),
            Tree::Pg { kv, name } => kv.len(name),
        }
    }

    /// Whether the tree has no entry.
    pub(crate) fn is_empty(&self) -> Result<bool> {
        match self {
            Tree::Sled(t) => Ok(t.is_empty()),
            Tree::Pg { kv, name } => kv.is_empty(name),
        }
    }

    /// Removes every entry.
    pub(crate) fn clear(&self) -> Result<()> {
        match self {
            Tree::Sled(t) => Ok(t.clear()?),
            Tree::Pg { kv, name } => kv.clear(name),
        }
    }

    /// Every entry in key order.
    pub(crate) fn iter(&self) -> Iter {
        self.range(&[], None, false)
    }

    /// Entries whose keys start with `prefix`, in key order.
    pub(crate) fn scan_prefix(&self, prefix: &[u8]) -> Iter {
        self.range(prefix, successor(prefix).as_deref(), false)
    }

    /// The keys of [`Tree::range`], without reading values (on PostgreSQL; sled's scans are
    /// lazy anyway).
    pub(crate) fn range_keys(
        &self,
        lo: &[u8],
        hi: Option<&[u8]>,
        rev: bool,
    ) -> impl Iterator<Item = Result<IVec>> + use<> {
        let mut it = self.range(lo, hi, rev);
        if let Iter::Pg(p) = &mut it {
            p.keys_only = true;
        }
        it.keys()
    }

    /// Entries with `lo <= key < hi` (no upper bound when `hi` is `None`), in key order or
    /// reversed.
    pub(crate) fn range(&self, lo: &[u8], hi: Option<&[u8]>, rev: bool) -> Iter {
        match self {
            Tree::Sled(t) => {
                let it = match hi {
                    Some(hi) => t.range(lo.to_vec()..hi.to_vec()),
                    None => t.range(lo.to_vec()..),
                };
                if rev {
                    Iter::SledRev(it.rev())
                } else {
                    Iter::Sled(it)
                }
            }
            Tree::Pg { kv, name } => Iter::Pg(kv.range(name, lo, hi, rev)),
        }
    }
}

/// The smallest key greater than every key starting with `prefix` (`None`: no such key).
pub(crate) fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut s = prefix.to_vec();
    while let Some(last) = s.pop() {
        if last < 0xff {
            s.push(last + 1);
            return Some(s);
        }
    }
    None
}

/// Entries of a scan: sled's lazy iterator, or pages read from PostgreSQL as they are needed.
pub(crate) enum Iter {
    Sled(sled::Iter),
    SledRev(std::iter::Rev<sled::Iter>),
    Pg(PgPages),
}

impl Iter {
    /// The keys only.
    pub(crate) fn keys(self) -> impl Iterator<Item = Result<IVec>> {
        self.map(|r| r.map(|(k, _)| k))
    }
}

impl Iterator for Iter {
    type Item = Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Sled(it) => it.next().map(|r| r.map_err(StoreError::from)),
            Iter::SledRev(it) => it.next().map(|r| r.map_err(StoreError::from)),
            Iter::Pg(p) => p.next(),
        }
    }
}

/// A range scan over PostgreSQL, read a page at a time by key (keyset pagination), so a scan
/// that stops early (a page of the API) reads no more than it needs.
pub(crate) struct PgPages {
    pub(crate) kv: Arc<PgKv>,
    pub(crate) tree: &'static str,
    /// Lower bound, inclusive until the first page moves it past a key.
    pub(crate) lo: Vec<u8>,
    pub(crate) lo_inclusive: bool,
    pub(crate) hi: Option<Vec<u8>>,
    pub(crate) hi_inclusive: bool,
    pub(crate) rev: bool,
    /// Read keys only (values come back empty).
    pub(crate) keys_only: bool,
    /// Rows the next page reads.
    pub(crate) page: i64,
    pub(crate) buf: VecDeque<Entry>,
    pub(crate) done: bool,
}

impl Iterator for PgPages {
    type Item = Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.buf.is_empty() && !self.done {
            match self.kv.clone().page(self) {
                Ok(()) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        self.buf.pop_front().map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::successor;

    #[test]
    fn successor_is_the_first_key_past_the_prefix() {
        assert_eq!(successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(successor(&[1, 0xff]), Some(vec![2]));
        assert_eq!(successor(&[0xff, 0xff]), None);
        assert_eq!(successor(&[]), None);
    }
}
