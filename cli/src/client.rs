//! The blocking HTTP client of the `/v1` API that the `frugal` CLI (and its git hooks) use.
//!
//! Finds the daemon the way a user expects: `--url`, else `$FRUGAL_URL`, else the address the
//! running daemon wrote to its state dir (`frugald.addr`, right even when the configured port is
//! 0), else `daemon.listen` from the configuration. The token comes from `$FRUGAL_TOKEN`, else
//! `daemon.token_file`: writes fail without one; reads send it when there is one (a daemon with
//! `daemon.auth_reads` needs it) and go without otherwise. Which scope a command needs is the
//! daemon's call (`frugal trigger` works with a trigger token, `repo add` needs admin).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use frugal_config::Config;
use serde::Serialize;
use serde::de::DeserializeOwned;

use frugal_api::token::{self, TOKEN_ENV};
use frugal_api::{addr, v1};

/// Largest page the daemon serves (`frugal_storage::MAX_PAGE`).
const MAX_PAGE: usize = 500;

/// Where the daemon is; shared by every API subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Conn {
    /// Configuration file (default: $FRUGAL_CONFIG, else /etc/frugal/frugal.toml if present).
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    /// Base URL of frugald (default: $FRUGAL_URL, else the running daemon's address).
    #[arg(long, global = true)]
    pub url: Option<String>,
}

impl Conn {
    pub fn client(&self, timeout: Duration) -> anyhow::Result<Client> {
        let cfg = load_config(self.config.as_deref())?;
        Ok(Client::new(&cfg, self.url.as_deref(), timeout))
    }
}

/// Loads the configuration as frugald does ([`Config::discover`]).
pub fn load_config(explicit: Option<&std::path::Path>) -> anyhow::Result<Config> {
    Config::discover(explicit).map_err(|e| anyhow::anyhow!("failed to load the configuration: {e}"))
}

pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A client of one daemon.
pub struct Client {
    base: String,
    token_file: PathBuf,
    agent: ureq::Agent,
}

/// Resolves the daemon's base URL (`http://host:port`).
pub fn base_url(cfg: &Config, explicit: Option<&str>) -> String {
    if let Some(u) = explicit
        .map(str::to_string)
        .or_else(|| std::env::var("FRUGAL_URL").ok())
        .filter(|u| !u.trim().is_empty())
    {
        return u.trim().trim_end_matches('/').to_string();
    }
    let mut addr = addr::read(&cfg.daemon.state_dir).unwrap_or(cfg.daemon.listen);
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    format!("http://{addr}")
}

impl Client {
    pub fn new(cfg: &Config, url: Option<&str>, timeout: Duration) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .build()
            .into();
        Client {
            base: base_url(cfg, url),
            token_file: cfg.daemon.token_file.clone(),
            agent,
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn token(&self) -> anyhow::Result<String> {
        if let Ok(t) = std::env::var(TOKEN_ENV)
            && !t.trim().is_empty()
        {
            return Ok(t.trim().to_string());
        }
        token::read(&self.token_file).with_context(|| {
            format!("find the API token: set {TOKEN_ENV}, or make the token file readable")
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn unreachable(&self, e: ureq::Error) -> anyhow::Error {
        anyhow::anyhow!(
            "cannot reach frugald at {} (is it running?): {e}",
            self.base
        )
    }

    /// Reads the answer: the body on 2xx, else the API's error message with the status.
    fn answer(
        &self,
        what: &str,
        mut resp: ureq::http::Response<ureq::Body>,
    ) -> anyhow::Result<String> {
        let status = resp.status();
        let text = resp
            .body_mut()
            .read_to_string()
            .with_context(|| format!("read frugald's answer to {what}"))?;
        if status.is_success() {
            return Ok(text);
        }
        let msg = serde_json::from_str::<v1::ErrorBody>(&text)
            .map(|b| b.error)
            .unwrap_or(text);
        bail!("{what}: frugald answered {status}: {msg}")
    }

    /// A GET with the token when one is at hand.
    fn get_raw(&self, path: &str) -> anyhow::Result<ureq::http::Response<ureq::Body>> {
        let mut req = self.agent.get(self.url(path));
        if let Ok(token) = self.token() {
            req = req.header("Authorization", format!("Bearer {token}"));
        }
        req.call().map_err(|e| self.unreachable(e))
    }

    /// GET, returning the raw body.
    pub fn get_text(&self, path: &str) -> anyhow::Result<String> {
        let resp = self.get_raw(path)?;
        self.answer(&format!("GET {path}"), resp)
    }

    /// GET every page of a list (`?limit=&after=`, following `x-frugal-next-after`).
    pub fn get_all<T: DeserializeOwned>(&self, path: &str) -> anyhow::Result<Vec<T>> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut out = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page_path = match &after {
                Some(a) => format!("{path}{sep}limit={MAX_PAGE}&after={a}"),
                None => format!("{path}{sep}limit={MAX_PAGE}"),
            };
            let resp = self.get_raw(&page_path)?;
            let next = resp
                .headers()
                .get(v1::NEXT_AFTER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let text = self.answer(&format!("GET {page_path}"), resp)?;
            let page: Vec<T> = serde_json::from_str(&text)
                .with_context(|| format!("parse frugald's answer to GET {page_path}"))?;
            out.extend(page);
            match next {
                Some(n) => after = Some(n),
                None => return Ok(out),
            }
        }
    }

    /// GET, parsing JSON; `None` when frugald answers 404 (nothing there yet).
    pub fn get_opt<T: DeserializeOwned>(&self, path: &str) -> anyhow::Result<Option<T>> {
        let resp = self.get_raw(path)?;
        if resp.status() == ureq::http::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        let text = self.answer(&format!("GET {path}"), resp)?;
        serde_json::from_str(&text)
            .map(Some)
            .with_context(|| format!("parse frugald's answer to GET {path}"))
    }

    /// GET, parsing JSON.
    pub fn get<T: DeserializeOwned>(&self, path: &str) -> anyhow::Result<T> {
        let text = self.get_text(path)?;
        serde_json::from_str(&text).with_context(|| format!("parse frugald's answer to GET {path}"))
    }

    /// POST a JSON body with the token, parsing the JSON answer.
    pub fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> anyhow::Result<T> {
        let token = self.token()?;
        let json = serde_json::to_string(body).context("encode the request")?;
        let resp = self
            .agent
            .post(self.url(path))
            .header("Authorization", format!("Bearer {token}"))
            .header("Content-Type", "application/json")
            .send(json)
            .map_err(|e| self.unreachable(e))?;
        let text = self.answer(&format!("POST {path}"), resp)?;
        serde_json::from_str(&text)
            .with_context(|| format!("parse frugald's answer to POST {path}"))
    }

    /// DELETE with the token.
    pub fn delete(&self, path: &str) -> anyhow::Result<()> {
        let token = self.token()?;
        let resp = self
            .agent
            .delete(self.url(path))
            .header("Authorization", format!("Bearer {token}"))
            .call()
            .map_err(|e| self.unreachable(e))?;
        self.answer(&format!("DELETE {path}"), resp).map(|_| ())
    }

    /// The repositories (every page).
    pub fn repos(&self) -> anyhow::Result<Vec<v1::Repo>> {
        self.get_all("/v1/repos")
    }

    /// Resolves a repository given by id or by path (of it or of a directory inside it).
    pub fn resolve_repo(&self, spec: Option<&str>) -> anyhow::Result<v1::Repo> {
        let repos = self.repos()?;
        if let Some(s) = spec
            && let Ok(id) = s.parse::<u64>()
            && let Some(r) = repos.iter().find(|r| r.id == id)
        {
            return Ok(r.clone());
        }
        let wanted = match spec {
            Some(s) => Some(PathBuf::from(s)),
            None => std::env::current_dir().ok(),
        };
        if let Some(p) = wanted.and_then(|p| p.canonicalize().ok())
            && let Some(r) = repos
                .iter()
                .filter(|r| p.starts_with(&r.path))
                .max_by_key(|r| r.path.len())
        {
            return Ok(r.clone());
        }
        match (spec, repos.as_slice()) {
            (None, [only]) => Ok(only.clone()),
            (Some(s), _) => bail!(
                "no registered repository is `{s}` (give an id or a path; `frugal repo list` shows them)"
            ),
            (None, _) => bail!(
                "the current directory is in no registered repository: name one (`frugal repo list` shows {})",
                repos.len()
            ),
        }
    }
}
