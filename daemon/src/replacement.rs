//! `GET /v1/repos/{id}/replacement`: the cheaper replacement of a crate's own suite, drawn from
//! its best stored suite, computed by `frugal-replace` on the suite's commit.
//!
//! Owns the request's answer, the background computation and its directories
//! (`<state_dir>/work/repo-<id>/<crate>/replace-*`, outputs in `<state_dir>/replacements/`).
//! The result (with per-test goal sets and costs of the own and generated tests) is stored per
//! suite, metric and cover target, so each is computed once; a failure is stored too, with its
//! reason, and answered as `failed` (a lost goal is never a silent result).
//!
//! Decision: the first GET starts the computation on a thread of its own and answers 202
//! `computing`; later GETs answer from the store. It takes minutes (two builds, every test
//! profiled and run instrumented), far too long for a request, and it is derived data.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use frugal_replace::{CostMetric, CoverTarget, ReplaceConfig};
use frugal_storage::{ReplacementRecord, RepoRecord, Store, SuiteRecord};
use serde::Deserialize;

use crate::server::AppState;
use crate::v1;

/// Query of the route.
#[derive(Debug, Deserialize)]
pub struct ReplacementQuery {
    #[serde(rename = "crate")]
    krate: Option<String>,
    metric: Option<String>,
    cover: Option<String>,
}

/// Computations in flight: (repo, crate, suite, metric, cover).
type Key = (u64, String, u64, String, String);
static RUNNING: LazyLock<Mutex<HashSet<Key>>> = LazyLock::new(Mutex::default);

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (
        status,
        Json(v1::ErrorBody {
            error: message.into(),
        }),
    )
        .into_response()
}

/// The handler.
pub async fn get_replacement(
    State(s): State<std::sync::Arc<AppState>>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<ReplacementQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let q = match q {
        Ok(Query(q)) => q,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("bad query string: {}", e.body_text()),
            );
        }
    };
    match answer(s.sched.store(), &id, &q) {
        Ok((status, body)) => (status, Json(body)).into_response(),
        Err((status, message)) => error(status, message),
    }
}

type Failure = (StatusCode, String);

fn internal(e: impl std::fmt::Display) -> Failure {
    (StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

/// Looks the replacement up, starting its computation when there is none.
fn answer(
    store: &Store,
    raw_id: &str,
    q: &ReplacementQuery,
) -> Result<(StatusCode, v1::ReplacementAnswer), Failure> {
    let metric: CostMetric = q
        .metric
        .as_deref()
        .unwrap_or("cpu")
        .parse()
        .map_err(|e| (StatusCode::BAD_REQUEST, e))?;
    let cover: CoverTarget = q
        .cover
        .as_deref()
        .unwrap_or("own")
        .parse()
        .map_err(|e| (StatusCode::BAD_REQUEST, e))?;
    let cover_name = if cover == CoverTarget::All {
        "all"
    } else {
        "own"
    };
    let id: u64 = raw_id.parse().map_err(|e| {
        (
            StatusCode::BAD_REQUEST,
            format!("bad repository id `{raw_id}`: {e}"),
        )
    })?;
    let repo = store
        .repo(frugal_storage::RepoId(id))
        .map_err(internal)?
        .ok_or((StatusCode::NOT_FOUND, format!("no repository {id}")))?;
    let krate = crate_of(&repo, q.krate.as_deref())?;
    let suite = store.best(repo.id, &krate).map_err(internal)?.ok_or((
        StatusCode::NOT_FOUND,
        format!(
            "repository {id} has no suite for crate `{krate}` yet: a replacement draws from it"
        ),
    ))?;
    let mut body = v1::ReplacementAnswer {
        status: "computing".into(),
        krate: krate.clone(),
        suite: suite.id.0,
        metric: metric.name().into(),
        cover: cover_name.into(),
        replacement: None,
        error: None,
    };
    let stored = store
        .replacement(repo.id, &krate, suite.id, metric.name(), cover_name)
        .map_err(internal)?;
    if let Some(rec) = stored {
        body.status = if rec.error.is_some() {
            "failed"
        } else {
            "ready"
        }
        .into();
        body.replacement = rec.replacement;
        body.error = rec.error;
        return Ok((StatusCode::OK, body));
    }
    let key: Key = (
        id,
        krate.clone(),
        suite.id.0,
        metric.name().into(),
        cover_name.into(),
    );
    let fresh = RUNNING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.clone());
    if fresh {
        let job = Computation {
            store: store.clone(),
            repo,
            krate,
            suite,
            metric,
            cover,
        };
        let spawned = std::thread::Builder::new()
            .name("frugald-replace".into())
            .spawn(move || {
                job.run();
                RUNNING
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&key);
            });
        if let Err(e) = spawned {
            return Err(internal(format!("start the computation: {e}")));
        }
    }
    Ok((StatusCode::ACCEPTED, body))
}

fn crate_of(repo: &RepoRecord, asked: Option<&str>) -> Result<String, Failure> {
    match asked {
        Some(k) if repo.crates.iter().any(|c| c.name == k) => Ok(k.to_string()),
        Some(k) => Err((
            StatusCode::NOT_FOUND,
            format!("repository {} has no crate `{k}`", repo.id),
        )),
        None => repo.crates.first().map(|c| c.name.clone()).ok_or((
            StatusCode::NOT_FOUND,
            format!("repository {} has no crate", repo.id),
        )),
    }
}

/// One background computation.
struct Computation {
    store: Store,
    repo: RepoRecord,
    krate: String,
    suite: SuiteRecord,
    metric: CostMetric,
    cover: CoverTarget,
}

impl Computation {
    fn run(self) {
        let result = self.compute();
        let (replacement, error) = match result {
            Ok(v) => (Some(v), None),
            Err(e) => {
                tracing::warn!(repo = %self.repo.id, krate = %self.krate, error = %format!("{e:#}"), "replacement failed");
                (None, Some(format!("{e:#}")))
            }
        };
        let rec = ReplacementRecord {
            repo: self.repo.id,
            krate: self.krate.clone(),
            suite: self.suite.id,
            metric: self.metric.name().into(),
            cover: if self.cover == CoverTarget::All {
                "all"
            } else {
                "own"
            }
            .into(),
            created: frugal_storage::now_ms(),
            replacement,
            error,
        };
        if let Err(e) = self.store.put_replacement(&rec) {
            tracing::error!(error = %e, "could not store the replacement");
        }
    }

    fn compute(&self) -> anyhow::Result<serde_json::Value> {
        use anyhow::Context;
        let commit = self
            .suite
            .commit
            .clone()
            .context("the suite has no commit to check out")?;
        let entry = self
            .repo
            .crates
            .iter()
            .find(|c| c.name == self.krate)
            .context("the crate is no longer registered")?;
        let base = self.base_dir()?;
        let src = base.join("replace-src");
        crate::job::snapshot(Path::new(&self.repo.path), &commit, &src)?;
        let generated = base.join("replace-generated.rs");
        std::fs::write(&generated, &self.suite.source)
            .with_context(|| format!("write {}", generated.display()))?;
        let mut cfg = ReplaceConfig::new(src.join(&entry.dir), base.join("replace-work"));
        cfg.out_dir = self.out_dir()?;
        cfg.generated = Some(generated);
        cfg.metric = self.metric;
        cfg.cover = self.cover;
        cfg.timeout = Duration::from_secs(60);
        tracing::info!(repo = %self.repo.id, krate = %self.krate, suite = %self.suite.id, "computing a replacement");
        let r = frugal_replace::replace(&cfg, &mut |_| {})?;
        tracing::info!(repo = %self.repo.id, krate = %self.krate, ratio = r.cost_ratio, "replacement ready");
        Ok(serde_json::to_value(&r)?)
    }

    /// The state directory is the store's parent (`<state_dir>/store`).
    fn state_dir(&self) -> anyhow::Result<PathBuf> {
        use anyhow::Context;
        Ok(self
            .store
            .path()
            .parent()
            .context("the store has no parent directory")?
            .to_path_buf())
    }

    fn base_dir(&self) -> anyhow::Result<PathBuf> {
        Ok(self
            .state_dir()?
            .join("work")
            .join(format!("repo-{}", self.repo.id))
            .join(crate::job::safe_name(&self.krate)))
    }

    fn out_dir(&self) -> anyhow::Result<PathBuf> {
        Ok(self.state_dir()?.join("replacements").join(format!(
            "{}-{}-{}-{}",
            crate::job::safe_name(&self.krate),
            self.suite.id,
            self.metric.name(),
            if self.cover == CoverTarget::All {
                "all"
            } else {
                "own"
            }
        )))
    }
}
