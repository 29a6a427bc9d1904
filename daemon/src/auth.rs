//! Who may do what: token scopes, the token check every request passes ([`Auth::authorize`]),
//! the scoped tokens' lifecycle (`frugal token create|list|revoke`, routes `/v1/tokens`), and the
//! `Host` header check that defeats DNS rebinding.
//!
//! Scopes nest: `read` (GET routes, when `daemon.auth_reads` asks for tokens on reads) <
//! `trigger` (queue jobs, start a replacement: what git hooks and CI get) < `admin` (register
//! and remove repositories, accept behaviour changes, manage tokens). The token file
//! (`daemon.token_file`) holds an admin token, so installs from before scopes keep working.
//!
//! Decision: tokens are 32 random bytes and stored as their SHA-256, not a slow password hash:
//! a secret with 256 bits of entropy cannot be guessed offline, and a fast hash keeps the check
//! a memory lookup on every request (the p99 target is 10 ms). The hashes live in sled and in a
//! map in memory that creation and revocation update, so no request reads the store to check a
//! token. A lookup by hash leaks nothing about the secret, so only the token file's comparison
//! needs constant time.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, StatusCode, header};
use frugal_storage::{Store, TokenRecord};
use sha2::{Digest, Sha256};

use crate::token;

/// Who sent a request, set per connection by the listener: its IP address, or `Local` for the
/// unix socket. What the login rate limit and the per-client connection limit count by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    /// A TCP client, by its address (the port is left out: one client, many connections).
    Ip(std::net::IpAddr),
    /// A client of the unix socket.
    Local,
}

/// What a token may do; each scope includes the ones before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Reads (`GET`, `HEAD`, `OPTIONS`), except of tokens.
    Read,
    /// Also queues work: a trigger or a replacement computation.
    Trigger,
    /// Everything: registration, removal, accepting, tokens and the rest.
    Admin,
}

impl Scope {
    /// The scope's name as the API and the token records spell it: `read`, `trigger`, `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Trigger => "trigger",
            Scope::Admin => "admin",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Scope {
    type Err = String;

    fn from_str(s: &str) -> Result<Scope, String> {
        match s.trim() {
            "read" => Ok(Scope::Read),
            "trigger" => Ok(Scope::Trigger),
            "admin" => Ok(Scope::Admin),
            other => Err(format!(
                "`{other}` is not a scope: use read, trigger or admin"
            )),
        }
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// No token was presented where one is needed.
    Missing {
        /// The scope the request needs.
        needed: Scope,
    },
    /// The token is not one the daemon knows (or was revoked).
    Unknown,
    /// The token is valid but its scope is too small.
    TooNarrow {
        /// The scope of the token presented.
        has: Scope,
        /// The scope the request needs.
        needed: Scope,
    },
    /// The client failed too many token checks lately; no token is checked until the window
    /// ends, in this many seconds.
    Throttled {
        /// Seconds until the window ends, at least 1.
        retry_after: u64,
    },
}

impl Denied {
    /// The HTTP status of the refusal: 401 without a known token, 403 when its scope is too
    /// small, 429 when throttled.
    pub fn status(&self) -> StatusCode {
        match self {
            Denied::Missing { .. } | Denied::Unknown => StatusCode::UNAUTHORIZED,
            Denied::TooNarrow { .. } => StatusCode::FORBIDDEN,
            Denied::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
        }
    }
}

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Denied::Missing { needed } => write!(
                f,
                "this request needs `Authorization: Bearer <token>` with scope {needed} or wider \
                 (the admin token is in daemon.token_file; `frugal token create` makes others)"
            ),
            Denied::Unknown => write!(f, "the bearer token is wrong or was revoked"),
            Denied::TooNarrow { has, needed } => write!(
                f,
                "the token's scope is {has}; this request needs {needed} or wider"
            ),
            Denied::Throttled { retry_after } => write!(
                f,
                "too many wrong tokens from this client ({MAX_GUESSES} in {} s): no token is \
                 checked for it for {retry_after} s",
                GUESS_WINDOW.as_secs()
            ),
        }
    }
}

/// Wrong tokens a client may present within [`GUESS_WINDOW`]; after that, no token it presents
/// is checked until the window ends.
pub const MAX_GUESSES: u32 = 10;
/// The window of [`MAX_GUESSES`], counted from a client's first wrong token in it.
pub const GUESS_WINDOW: Duration = Duration::from_secs(60);
/// Clients tracked at most: beyond, those whose window ended are forgotten, then the oldest.
const MAX_TRACKED: usize = 65_536;

/// Wrong tokens by client: the login rate limit of the API and the pages.
///
/// Decision: by client address, which on a shared host puts every local user behind one
/// address (loopback, the unix socket): one of them guessing locks the others' token checks
/// out for the rest of the window. Guessing a 256-bit token is hopeless anyway; the limit
/// bounds what a weak or leaked-in-part token costs, and stops a flood of checks.
#[derive(Default)]
pub struct Guesses(Mutex<HashMap<Peer, (u32, Instant)>>);

impl Guesses {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Peer, (u32, Instant)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refuses a client that presented [`MAX_GUESSES`] wrong tokens in its current window.
    pub fn check(&self, peer: Peer) -> Result<(), Denied> {
        match self.lock().get(&peer) {
            Some(&(n, since)) if n >= MAX_GUESSES && since.elapsed() < GUESS_WINDOW => {
                let left = GUESS_WINDOW.saturating_sub(since.elapsed());
                Err(Denied::Throttled {
                    retry_after: left.as_secs().max(1),
                })
            }
            _ => Ok(()),
        }
    }

    /// Counts a wrong token from `peer`.
    pub fn failed(&self, peer: Peer) {
        let mut map = self.lock();
        if map.len() >= MAX_TRACKED && !map.contains_key(&peer) {
            map.retain(|_, (_, since)| since.elapsed() < GUESS_WINDOW);
            if map.len() >= MAX_TRACKED
                && let Some(oldest) = map.iter().min_by_key(|(_, (_, t))| *t).map(|(k, _)| *k)
            {
                map.remove(&oldest);
            }
        }
        let entry = map.entry(peer).or_insert((0, Instant::now()));
        if entry.1.elapsed() >= GUESS_WINDOW {
            *entry = (0, Instant::now());
        }
        entry.0 = entry.0.saturating_add(1);
    }
}

/// A stored token as the daemon keeps it in memory.
#[derive(Clone, Debug)]
struct Known {
    scope: Scope,
    id: u64,
}

/// The token check and the scoped tokens. Cheap to share (`Arc` inside).
#[derive(Clone)]
pub struct Auth {
    admin: Arc<String>,
    by_hash: Arc<RwLock<HashMap<[u8; 32], Known>>>,
    auth_reads: bool,
    guesses: Arc<Guesses>,
}

/// Who holds a token, without its secret: what a web session remembers of the token it logged
/// in with, so each of its requests is checked against the tokens as they are now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The token file's admin token.
    TokenFile,
    /// A stored token, by the SHA-256 of its secret.
    Stored([u8; 32]),
}

/// SHA-256 of a presented secret.
fn hash(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

impl Auth {
    /// The check for a daemon whose token file holds `admin`, with the stored tokens of
    /// `store` (read once here; later changes go through [`Auth::create`] and [`Auth::revoke`]).
    pub fn load(admin: String, store: &Store, auth_reads: bool) -> anyhow::Result<Auth> {
        Ok(Auth {
            admin: Arc::new(admin),
            by_hash: Arc::new(RwLock::new(stored_tokens(store)?)),
            auth_reads,
            guesses: Arc::default(),
        })
    }

    /// Reloads the stored tokens: on a store the fleet shares, another node may have created or
    /// revoked one (the runner calls this every tick there).
    pub fn refresh(&self, store: &Store) -> anyhow::Result<()> {
        let fresh = stored_tokens(store)?;
        *self.by_hash.write().unwrap_or_else(|e| e.into_inner()) = fresh;
        Ok(())
    }

    /// Whether reads need a token (`daemon.auth_reads`).
    pub fn reads_need_token(&self) -> bool {
        self.auth_reads
    }

    /// Authorises a request needing `needed`, given the token it presented (`None`: none).
    /// Returns the token's scope. This is the one check every route goes through; other front
    /// ends (a cookie holding a token) call it with the token they hold.
    pub fn authorize(&self, presented: Option<&str>, needed: Scope) -> Result<Scope, Denied> {
        let Some(given) = presented.map(str::trim).filter(|t| !t.is_empty()) else {
            return Err(Denied::Missing { needed });
        };
        let (_, has) = self.identify(given).ok_or(Denied::Unknown)?;
        if has >= needed {
            Ok(has)
        } else {
            Err(Denied::TooNarrow { has, needed })
        }
    }

    /// [`Auth::authorize`] for a request from `peer` (`None`: driven in-process, not over a
    /// connection): refused while the client is throttled, and a wrong token counts against it.
    pub fn authorize_from(
        &self,
        peer: Option<Peer>,
        presented: Option<&str>,
        needed: Scope,
    ) -> Result<Scope, Denied> {
        if let Some(p) = peer {
            self.guesses.check(p)?;
        }
        let r = self.authorize(presented, needed);
        if let (Some(p), Err(Denied::Unknown)) = (peer, &r) {
            self.guesses.failed(p);
        }
        r
    }

    /// [`Auth::identify`] for a login from `peer`, under the same limit as
    /// [`Auth::authorize_from`].
    pub fn identify_from(
        &self,
        peer: Option<Peer>,
        given: &str,
    ) -> Result<Option<(Holder, Scope)>, Denied> {
        if let Some(p) = peer {
            self.guesses.check(p)?;
        }
        let r = self.identify(given);
        if let (Some(p), None) = (peer, &r) {
            self.guesses.failed(p);
        }
        Ok(r)
    }

    /// Who holds `given` and its scope; `None` when it is no token the daemon knows.
    pub fn identify(&self, given: &str) -> Option<(Holder, Scope)> {
        let given = given.trim();
        if given.is_empty() {
            return None;
        }
        if token::matches(&self.admin, given) {
            return Some((Holder::TokenFile, Scope::Admin));
        }
        let h = hash(given);
        let scope = self.scope_now(&Holder::Stored(h))?;
        Some((Holder::Stored(h), scope))
    }

    /// The scope `holder`'s token has now: `None` once it was revoked. A memory lookup (the map
    /// mirrors the store, and revocation updates both), so every request can afford it.
    pub fn scope_now(&self, holder: &Holder) -> Option<Scope> {
        match holder {
            Holder::TokenFile => Some(Scope::Admin),
            Holder::Stored(h) => {
                let known = self.by_hash.read().unwrap_or_else(|e| e.into_inner());
                known.get(h).map(|k| k.scope)
            }
        }
    }

    /// Whose share of the queue a trigger by `holder` takes (`token <id>`); `None` for the
    /// token file's admin, whose triggers are not limited.
    pub fn queue_owner(&self, holder: &Holder) -> Option<String> {
        match holder {
            Holder::TokenFile => None,
            Holder::Stored(h) => {
                let known = self.by_hash.read().unwrap_or_else(|e| e.into_inner());
                known.get(h).map(|k| format!("token {}", k.id))
            }
        }
    }

    /// Makes a token (blocking: writes the store): its record and its secret, which the store
    /// keeps only as a hash.
    pub fn create(&self, store: &Store, name: &str, scope: Scope) -> anyhow::Result<Created> {
        let secret = token::fresh()?;
        let rec = TokenRecord {
            id: store.next_token_id()?,
            name: name.to_string(),
            scope: scope.as_str().to_string(),
            hash: hash(&secret).to_vec(),
            created: frugal_storage::now_ms(),
        };
        store.put_token(&rec)?;
        self.by_hash
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(hash(&secret), Known { scope, id: rec.id });
        Ok(Created {
            info: rec,
            token: secret,
        })
    }

    /// Revokes a token by id (blocking: writes the store); whether it existed.
    pub fn revoke(&self, store: &Store, id: u64) -> anyhow::Result<bool> {
        let Some(rec) = store.tokens()?.into_iter().find(|t| t.id == id) else {
            return Ok(false);
        };
        store.remove_token(id)?;
        if let Ok(h) = <[u8; 32]>::try_from(rec.hash.as_slice()) {
            self.by_hash
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&h);
        }
        Ok(true)
    }
}

/// A token just made: its record and its secret, which nothing keeps but the answer.
#[derive(Debug)]
pub struct Created {
    /// The stored record: id, name, scope; the secret's hash, never the secret.
    pub info: TokenRecord,
    /// The secret itself, shown once.
    pub token: String,
}

/// The bearer token of a request, if any.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

/// The `Host` header check: which names a request may be addressed to.
#[derive(Clone, Debug)]
pub struct Hosts {
    /// Lower-case names and addresses, without port; empty with `any`.
    allowed: Vec<String>,
    any: bool,
}

impl Hosts {
    /// Loopback names, the listen address and `extra` (`daemon.allowed_hosts`; `*` allows any).
    pub fn new(listen: std::net::SocketAddr, extra: &[String]) -> Hosts {
        let mut allowed: Vec<String> = ["localhost", "127.0.0.1", "::1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if !listen.ip().is_unspecified() {
            allowed.push(listen.ip().to_string());
        }
        allowed.extend(extra.iter().cloned());
        Hosts {
            any: extra.iter().any(|h| h == "*"),
            allowed,
        }
    }

    /// Checks a request's `Host` header (`None`: absent).
    pub fn check(&self, host: Option<&str>) -> Result<(), String> {
        if self.any {
            return Ok(());
        }
        let Some(host) = host else {
            return Err("the request has no Host header".to_string());
        };
        let name = host_name(host).to_ascii_lowercase();
        if self.allowed.contains(&name) {
            Ok(())
        } else {
            Err(format!(
                "Host `{host}` is not one this daemon answers to ({}); add it to \
                 daemon.allowed_hosts if clients reach the API by that name",
                self.allowed.join(", ")
            ))
        }
    }
}

/// The name part of a `Host` value: `[::1]:7878` -> `::1`, `a.b:80` -> `a.b`.
pub fn host_name(host: &str) -> &str {
    let host = host.trim();
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

// ---- routes: /v1/tokens (admin) ----------------------------------------------------------

/// The stored tokens by hash; a record with a bad hash or scope is skipped with a warning.
fn stored_tokens(store: &Store) -> anyhow::Result<HashMap<[u8; 32], Known>> {
    let mut by_hash = HashMap::new();
    for t in store.tokens()? {
        let (Ok(h), Ok(scope)) = (<[u8; 32]>::try_from(t.hash.as_slice()), t.scope.parse()) else {
            tracing::warn!(
                token = t.id,
                "ignoring a stored token with a bad hash or scope"
            );
            continue;
        };
        by_hash.insert(h, Known { scope, id: t.id });
    }
    Ok(by_hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth() -> (tempfile::TempDir, Store, Auth) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let a = Auth::load("admin-secret".into(), &store, false).unwrap();
        (dir, store, a)
    }

    #[test]
    fn scopes_nest_and_the_token_file_is_admin() {
        let (_d, store, a) = auth();
        assert_eq!(
            a.authorize(Some("admin-secret"), Scope::Admin),
            Ok(Scope::Admin)
        );
        let t = a.create(&store, "hooks", Scope::Trigger).unwrap();
        assert_eq!(a.authorize(Some(&t.token), Scope::Read), Ok(Scope::Trigger));
        assert_eq!(
            a.authorize(Some(&t.token), Scope::Trigger),
            Ok(Scope::Trigger)
        );
        assert_eq!(
            a.authorize(Some(&t.token), Scope::Admin),
            Err(Denied::TooNarrow {
                has: Scope::Trigger,
                needed: Scope::Admin
            })
        );
        assert_eq!(
            a.authorize(Some("guess"), Scope::Read),
            Err(Denied::Unknown)
        );
        assert_eq!(
            a.authorize(None, Scope::Read),
            Err(Denied::Missing {
                needed: Scope::Read
            })
        );
        // Stored hashed: the secret appears nowhere in the store, and a restart knows it.
        let stored = serde_json::to_string(&store.tokens().unwrap()).unwrap();
        assert!(!stored.contains(&t.token));
        let again = Auth::load("admin-secret".into(), &store, false).unwrap();
        assert_eq!(
            again.authorize(Some(&t.token), Scope::Trigger),
            Ok(Scope::Trigger)
        );
        assert!(a.revoke(&store, t.info.id).unwrap());
        assert_eq!(
            a.authorize(Some(&t.token), Scope::Read),
            Err(Denied::Unknown)
        );
        assert!(!a.revoke(&store, t.info.id).unwrap());
    }

    #[test]
    fn a_holder_loses_its_scope_when_its_token_is_revoked() {
        let (_d, store, a) = auth();
        let t = a.create(&store, "browser", Scope::Trigger).unwrap();
        let (holder, scope) = a.identify(&t.token).unwrap();
        assert_eq!(scope, Scope::Trigger);
        assert_eq!(a.scope_now(&holder), Some(Scope::Trigger));
        assert!(a.revoke(&store, t.info.id).unwrap());
        assert_eq!(a.scope_now(&holder), None);
        assert_eq!(a.identify(&t.token), None);
        assert_eq!(
            a.identify("admin-secret"),
            Some((Holder::TokenFile, Scope::Admin))
        );
        assert_eq!(a.identify("  "), None);
    }

    #[test]
    fn wrong_tokens_from_one_client_lock_it_out_for_the_window() {
        let (_d, store, a) = auth();
        let t = a.create(&store, "ci", Scope::Trigger).unwrap();
        let guesser = Peer::Ip("10.0.0.1".parse().unwrap());
        let other = Peer::Ip("10.0.0.2".parse().unwrap());
        for _ in 0..MAX_GUESSES {
            assert_eq!(
                a.authorize_from(Some(guesser), Some("guess"), Scope::Read),
                Err(Denied::Unknown)
            );
        }
        // Now even the right token is not checked for it; another client is not affected,
        // and neither is a request driven in-process.
        assert!(matches!(
            a.authorize_from(Some(guesser), Some(&t.token), Scope::Read),
            Err(Denied::Throttled { retry_after }) if retry_after <= GUESS_WINDOW.as_secs()
        ));
        assert!(matches!(
            a.identify_from(Some(guesser), &t.token),
            Err(Denied::Throttled { .. })
        ));
        assert_eq!(
            a.authorize_from(Some(other), Some(&t.token), Scope::Read),
            Ok(Scope::Trigger)
        );
        assert_eq!(
            a.authorize_from(None, Some(&t.token), Scope::Read),
            Ok(Scope::Trigger)
        );
        // A missing token and a too-narrow one are no guesses.
        assert_eq!(
            a.authorize_from(Some(other), None, Scope::Read),
            Err(Denied::Missing {
                needed: Scope::Read
            })
        );
    }

    #[test]
    fn hosts_allow_loopback_the_listen_address_and_configured_names() {
        let h = Hosts::new("10.1.2.3:7878".parse().unwrap(), &["ci.example.com".into()]);
        for ok in [
            "localhost:7878",
            "127.0.0.1",
            "[::1]:7878",
            "10.1.2.3:7878",
            "CI.example.com",
        ] {
            assert_eq!(h.check(Some(ok)), Ok(()), "{ok}");
        }
        for bad in [
            "evil.example:7878",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
        ] {
            assert!(h.check(Some(bad)).is_err(), "{bad}");
        }
        assert!(h.check(None).is_err());
        let any = Hosts::new("0.0.0.0:7878".parse().unwrap(), &["*".into()]);
        assert_eq!(any.check(Some("anything")), Ok(()));
    }
}
