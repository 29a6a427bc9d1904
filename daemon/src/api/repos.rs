//! `/v1/repos` and `/v1/repos/{id}`: registering a repository (its crates found by cargo,
//! checked to stay inside it), listing, showing and removing one.

use std::path::{Path, PathBuf};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use frugal_api::v1;
use frugal_cargo::{Cargo, Metadata};
use frugal_scheduler::Scheduler;
use frugal_storage::{CrateEntry, RepoId, RepoRecord};

use super::extract::{Page, page_limit, paged};
use super::{ApiError, ApiResult, Shared, blocking, parse_body, query, repo_of, wire};

pub(crate) async fn list_repos(
    State(s): State<Shared>,
    q: Result<Query<Page>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let limit = page_limit(q.limit)?;
    let repos =
        blocking(move || Ok(s.sched.store().repos_page(q.after.map(RepoId), limit)?)).await?;
    let last = repos.last().map(|r| r.id.0);
    Ok(paged(repos.iter().map(wire::repo).collect(), limit, last))
}

pub(crate) async fn show_repo(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<v1::RepoDetail>> {
    blocking(move || {
        let repo = repo_of(&s, &id)?;
        let store = s.sched.store();
        let mut best = Vec::new();
        for c in &repo.crates {
            let suite = store
                .best(repo.id, &c.name)?
                .map(|b| wire::suite(&b, true, None));
            best.push(v1::CrateBest {
                krate: c.name.clone(),
                suite,
            });
        }
        let jobs = store
            .active_jobs()?
            .iter()
            .filter(|j| j.repo == repo.id)
            .map(wire::job)
            .collect();
        Ok(Json(v1::RepoDetail {
            repo: wire::repo(&repo),
            best,
            jobs,
        }))
    })
    .await
}

pub(crate) async fn add_repo(State(s): State<Shared>, body: Bytes) -> ApiResult<Response> {
    let req: v1::AddRepo = parse_body(&body)?;
    let sched = s.sched.clone();
    let rec = blocking(move || register(&sched, req)).await?;
    tracing::info!(repo = %rec.id, path = %rec.path, crates = rec.crates.len(), "repository registered");
    Ok((StatusCode::CREATED, Json(wire::repo(&rec))).into_response())
}

/// Validates and stores a registration (blocking: runs git and cargo).
pub fn register(sched: &Scheduler, req: v1::AddRepo) -> ApiResult<RepoRecord> {
    if frugal_scheduler::is_url(req.path.trim()) {
        return register_url(sched, req);
    }
    let path = PathBuf::from(req.path.trim());
    if !path.is_absolute() {
        return Err(ApiError::bad_request(format!(
            "path `{}` must be absolute (the daemon's working directory is not yours)",
            req.path
        )));
    }
    let path = path
        .canonicalize()
        .map_err(|e| ApiError::bad_request(format!("repository path {}: {e}", path.display())))?;
    git_check(&path)?;
    let crates = if req.crates.is_empty() {
        discover_crates(&path)?
    } else {
        named_crates(&req)
    };
    store_registration(sched, &req, &path, &path.to_string_lossy(), crates)
}

/// The crates a registration names, their directories normalised.
fn named_crates(req: &v1::AddRepo) -> Vec<CrateEntry> {
    req.crates
        .iter()
        .map(|c| CrateEntry {
            name: c.name.trim().to_string(),
            dir: c
                .dir
                .trim()
                .trim_start_matches("./")
                .trim_end_matches('/')
                .to_string(),
        })
        .collect()
}

/// A repository registered by URL (`https://`, `ssh://`, `file://`): checked against
/// `jobs.git_hosts` and `jobs.repo_roots`, mirrored on this node (every other node mirrors it
/// when it first needs it), its crates found in a snapshot of its `HEAD`.
fn register_url(sched: &Scheduler, req: v1::AddRepo) -> ApiResult<RepoRecord> {
    let url = req.path.trim().to_string();
    let mirrors = &sched.options().mirrors;
    mirrors
        .check(&url)
        .map_err(|e| ApiError::bad_request(format!("repository URL {url}: {e}")))?;
    if let Some(r) = sched.store().repo_by_path(&url)? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            format!(
                "register repository {url}: already registered as repo {}",
                r.id
            ),
        ));
    }
    let git_dir = mirrors
        .git_dir(&url)
        .map_err(|e| ApiError::bad_request(format!("fetch {url}: {e}")))?;
    let head = frugal_scheduler::poll_head(&git_dir, None)
        .map_err(|e| ApiError::bad_request(format!("read HEAD of {url}: {e}")))?;
    let scratch = tempfile::Builder::new()
        .prefix("register-")
        .tempdir_in(&mirrors.dir)
        .map_err(ApiError::internal)?;
    let tree = scratch.path().join("head");
    frugal_scheduler::snapshot(&git_dir, &head.commit, &tree).map_err(ApiError::from)?;
    crate::deps::check_snapshot(&tree, &mirrors.hosts).map_err(ApiError::bad_request)?;
    let crates = if req.crates.is_empty() {
        discover_crates(&tree)?
    } else {
        named_crates(&req)
    };
    store_registration(sched, &req, &tree, &url, crates)
}

/// The checks every registration shares (crate names and dirs against the tree at `tree`, the
/// schedule), then the record, stored under `path` (a work tree's path or a URL).
fn store_registration(
    sched: &Scheduler,
    req: &v1::AddRepo,
    tree: &Path,
    path: &str,
    crates: Vec<CrateEntry>,
) -> ApiResult<RepoRecord> {
    let mut names = std::collections::HashSet::new();
    for c in &crates {
        crate::layout::check_crate_name(&c.name).map_err(ApiError::bad_request)?;
        if !names.insert(c.name.as_str()) {
            return Err(ApiError::bad_request(format!(
                "crate `{}` is named twice: each crate has its own work dir, named after it",
                c.name
            )));
        }
        crate_dir_inside(tree, &c.name, &c.dir)?;
    }
    if let Some(s) = &req.schedule
        && !frugal_scheduler::schedule_is_off(s)
    {
        frugal_scheduler::CronSchedule::parse(s).map_err(|e| {
            ApiError::bad_request(format!(
                "schedule `{s}`: {e} (or `off`: no scheduled regeneration)"
            ))
        })?;
    }
    let mut rec = sched.store().add_repo(path, crates, req.schedule.clone())?;
    if req.hooks_installed {
        rec.hooks_installed = true;
        sched.store().put_repo(&rec)?;
    }
    Ok(rec)
}

/// A crate dir must stay inside the repository: relative, no `..`, and (when the work tree has
/// it) not a symlink leading out. Jobs check the snapshot of each commit again.
pub(crate) fn crate_dir_inside(repo: &Path, name: &str, dir: &str) -> ApiResult<()> {
    crate::job::check_crate_dir(dir)
        .map_err(|e| ApiError::bad_request(format!("crate `{name}`: {e}")))?;
    if let Ok(real) = repo.join(dir).canonicalize()
        && !real.starts_with(repo)
    {
        return Err(ApiError::bad_request(format!(
            "crate `{name}`: crate dir `{dir}` resolves to {} outside the repository",
            real.display()
        )));
    }
    Ok(())
}

pub(crate) fn git_check(path: &Path) -> ApiResult<()> {
    let out = frugal_scheduler::git_output(
        path,
        frugal_scheduler::git_command(path).args(["rev-parse", "--git-dir"]),
        None,
    )
    .map_err(ApiError::internal)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "{} is not a git repository: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// Library crates of the workspace at `path`, with their directories relative to it.
pub(crate) fn discover_crates(path: &Path) -> ApiResult<Vec<CrateEntry>> {
    let manifest = path.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(ApiError::bad_request(format!(
            "{} has no Cargo.toml at its root: name the crates and their directories",
            path.display()
        )));
    }
    let meta = Metadata::read(&Cargo::new(), &manifest)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let (crates, outside) = library_crates(&meta, path);
    if !outside.is_empty() {
        // Path dependencies outside the repository are not its crates: its history does not
        // hold them, so a job could not check them out.
        tracing::info!(path = %path.display(), ?outside, "skipped library crates outside the repository");
    }
    if crates.is_empty() {
        return Err(ApiError::bad_request(format!(
            "{} has no library crate to generate tests for",
            path.display()
        )));
    }
    Ok(crates)
}

/// The library crates under `root` with their directories relative to it, and the names of
/// those outside it (a workspace member `../x` is not part of the repository's history).
pub(crate) fn library_crates(meta: &Metadata, root: &Path) -> (Vec<CrateEntry>, Vec<String>) {
    let mut inside = Vec::new();
    let mut outside = Vec::new();
    for p in meta.packages.iter().filter(|p| p.is_lib()) {
        match p.dir().strip_prefix(root) {
            Ok(d) => inside.push(CrateEntry {
                name: p.name.clone(),
                dir: d.to_string_lossy().into_owned(),
            }),
            Err(_) => outside.push(p.name.clone()),
        }
    }
    (inside, outside)
}

pub(crate) async fn remove_repo(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<StatusCode> {
    blocking(move || {
        let repo = repo_of(&s, &id)?;
        // Queued jobs of a removed repository would fail anyway; running ones end on their own.
        for j in s.sched.store().active_jobs()? {
            if j.repo == repo.id {
                let _ = s.sched.cancel(j.id);
            }
        }
        // Its runs, suites, reports, jobs and directories go with it (`gc::remove_repo`).
        let freed = crate::gc::remove_repo(&s.gc, s.sched.store(), repo.id)
            .map_err(|e| ApiError::internal(format!("{e:#}")))?;
        tracing::info!(repo = %repo.id, path = %repo.path, records = freed.record_count(),
            bytes = freed.bytes_freed, "repository removed with its data");
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_crates_are_found_with_dirs_relative_to_the_root_and_outsiders_left_out() {
        let meta = serde_json::json!({"packages": [
            {"name": "a", "id": "a", "manifest_path": "/r/Cargo.toml", "targets": [{"name": "a", "kind": ["lib"]}]},
            {"name": "b", "id": "b", "manifest_path": "/r/crates/b/Cargo.toml", "targets": [{"name": "b", "kind": ["rlib", "lib"]}]},
            {"name": "tool", "id": "tool", "manifest_path": "/r/tool/Cargo.toml", "targets": [{"name": "tool", "kind": ["bin"]}]},
            {"name": "dep", "id": "dep", "manifest_path": "/elsewhere/dep/Cargo.toml", "targets": [{"name": "dep", "kind": ["lib"]}]},
        ]});
        let (c, outside) = library_crates(&Metadata::from_json(&meta), Path::new("/r"));
        // A path dependency outside the repository is not one of its crates (it used to be
        // registered with the repository root as its directory).
        assert_eq!(outside, ["dep"]);
        assert_eq!(
            c,
            vec![
                CrateEntry {
                    name: "a".into(),
                    dir: "".into()
                },
                CrateEntry {
                    name: "b".into(),
                    dir: "crates/b".into()
                },
            ]
        );
    }
}
