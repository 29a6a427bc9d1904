//! API tokens beyond the token file (`frugal token create`): one record per token, keyed by the
//! hash of its secret, so the secret itself is never stored and a presented token is found with
//! one lookup. Storage does not know what a scope means or how the hash is made; the daemon's
//! `auth` module does.

use serde::{Deserialize, Serialize};

use crate::{Result, Store, decode};

/// A token as stored: its hash, never its secret.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    /// The token's id, from the store's id sequence ([`Store::next_token_id`]); tokens are
    /// listed and revoked by it.
    pub id: u64,
    /// Who or what holds it (`ci-hooks`), for `frugal token list`.
    pub name: String,
    /// What it may do (the daemon's scope names).
    pub scope: String,
    /// Hash of the secret (the key of the record), 32 bytes.
    pub hash: Vec<u8>,
    /// Unix time in milliseconds.
    pub created: u64,
}

impl Store {
    /// Stores a token under its hash (flushed).
    pub fn put_token(&self, rec: &TokenRecord) -> Result<()> {
        self.put(&self.tokens, &rec.hash, rec)
    }

    /// A fresh token id.
    pub fn next_token_id(&self) -> Result<u64> {
        self.next_id()
    }

    /// Every token, in hash order.
    pub fn tokens(&self) -> Result<Vec<TokenRecord>> {
        self.all(&self.tokens, "tokens")
    }

    /// Removes the token with this id; whether it existed.
    pub fn remove_token(&self, id: u64) -> Result<bool> {
        for kv in self.tokens.iter() {
            let (k, v) = kv?;
            let rec: TokenRecord = decode("tokens", &k, &v)?;
            if rec.id == id {
                self.tokens.remove(k)?;
                self.flush()?;
                return Ok(true);
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_stored_by_hash_and_revoked_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let rec = TokenRecord {
            id: store.next_token_id().unwrap(),
            name: "hooks".into(),
            scope: "trigger".into(),
            hash: vec![7; 32],
            created: 1,
        };
        store.put_token(&rec).unwrap();
        assert_eq!(store.tokens().unwrap(), std::slice::from_ref(&rec));
        assert!(!store.remove_token(rec.id + 1).unwrap());
        assert!(store.remove_token(rec.id).unwrap());
        assert!(store.tokens().unwrap().is_empty());
    }
}
