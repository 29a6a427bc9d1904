//! The hostile-tenant corpus of issue 35: what a committer to a registered repository can do
//! to frugald (and to `frugal run`) without any of the crate's code running. Each attack first
//! shows it works on this host's git (a control, run with plain git in a temp dir), then that
//! frugal's own path stops it.
//!
//! - C1: a `Cargo.toml` linked to a file outside the tree (a secret, the daemon's token): the
//!   file's text appears in no output, run record or log; the error names the manifest.
//! - C2: a repository whose own config names a smudge filter, hooks, an fsmonitor and a
//!   textconv driver, each writing a marker file: no marker after a frugald job, after the
//!   snapshot, or after the git module's commands.
//! - A forged `goals.json`: the crate's code rewrites the goal list the pipeline dumps in its
//!   work dir; the best-suite rule never sees it.
//!
//! Every attack writes only marker files in its own temp dir (the forger: in its job's work
//! dir, from inside the sandbox).
//!
//! `FRUGAL_TENANTS_DAEMON=unprivileged` runs every frugald of the corpus as the shipped unit
//! runs it (`common::daemon_user`): a uid of its own, no capabilities, no new privileges, in a
//! throwaway mount namespace that only opens the toolchain under `$HOME` to it. Each test then
//! also checks that frugald's capability report names what it lacks there.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use frugal_testkit::{Daemon, binaries, daemon_config, git, run, wait_for};
use serde_json::Value;

const JOB_LIMIT: Duration = Duration::from_secs(300);

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    write(path, text);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// A secret no frugal output may ever show: random, so it cannot be there by chance; one word
/// (a token's shape), which is not TOML.
fn secret_text() -> String {
    let nanos = std::time::UNIX_EPOCH.elapsed().unwrap().as_nanos();
    format!("FRUGAL-TENANT-SECRET-{nanos:x}")
}

/// A small library crate at `dir`, whose manifest is a link to `target`.
fn crate_with_linked_manifest(dir: &Path, target: &Path) {
    write(&dir.join("src/lib.rs"), "pub fn f(x: u8) -> u8 { x }\n");
    std::os::unix::fs::symlink(target, dir.join("Cargo.toml")).unwrap();
}

#[test]
fn c1_frugal_run_never_shows_a_file_a_linked_manifest_points_to() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.txt");
    let text = secret_text();
    write(&secret, &format!("{text}\n"));
    let krate = tmp.path().join("tree/victim");
    crate_with_linked_manifest(&krate, &secret);
    let out = Command::new(&binaries().frugal)
        .arg("run")
        .arg(&krate)
        .args(["--budget", "100"])
        .arg("--out")
        .arg(tmp.path().join("out"))
        .arg("--work-dir")
        .arg(tmp.path().join("work"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the run went on: {stderr}");
    for stream in [&out.stdout, &out.stderr] {
        assert!(
            !contains(stream, &text),
            "the secret is in the output:\n{stderr}"
        );
    }
    assert!(
        stderr.contains("Cargo.toml"),
        "the error names no manifest:\n{stderr}"
    );
    assert!(
        stderr.contains("outside"),
        "the error says not why:\n{stderr}"
    );
}

/// `git init` at `repo`, and a first commit of everything there.
fn first_commit(repo: &Path, message: &str) {
    run(git(repo).args(["init", "-q", "-b", "main"])).unwrap();
    run(git(repo).args(["add", "-A"])).unwrap();
    run(git(repo).args(["commit", "-q", "-m", message])).unwrap();
}

/// A daemon config for jobs on tiny crates: a small budget, two workers.
fn small_jobs_config(dir: &Path) -> PathBuf {
    daemon_config(
        dir,
        "[search]\nbudget = \"300\"\n\n[executor]\nworkers = 2\n",
    )
}

/// frugald for jobs on tiny crates (`small_jobs_config`) in `dir`, its state in `dir/state`,
/// with `repo` registered as the one crate `krate`: the daemon, its state dir and the
/// repository's id.
fn small_jobs_daemon(dir: &Path, repo: &Path, krate: &str) -> (Daemon, PathBuf, u64) {
    let cfg = small_jobs_config(dir);
    let state = dir.join("state");
    let d = common::start_daemon(dir, &cfg, &state, true, &[]);
    let id = common::register(&d, repo, krate);
    (d, state, id)
}

/// Asserts that `second`, the run of an honest commit after a hostile one, succeeded and that
/// its suite tests `mark()` as the honest code has it, never code the hostile job planted
/// (`"poisoned"`); `planted` says what the hostile job did, for the message.
fn assert_tested_honest(d: &Daemon, second: &Value, planted: &str) {
    assert_eq!(second["status"], "succeeded", "{second}\n{}", d.log_text());
    let suite = second["suite"]
        .as_u64()
        .unwrap_or_else(|| panic!("{second}"));
    let source = d.get(&format!("/v1/suites/{suite}/source")).unwrap().body;
    assert!(
        !source.contains("poisoned"),
        "job 2 tested code planted by job 1{planted}:\n{source}"
    );
    assert!(source.contains("\"honest\""), "mark() untested:\n{source}");
}

/// Triggers the repository (one crate) and returns its job's run (`GET /v1/runs/{id}`) once it
/// ended.
fn triggered_run(d: &Daemon, repo: u64) -> Value {
    let r = d
        .post(&format!("/v1/repos/{repo}/trigger"), Some(&d.token), "{}")
        .unwrap();
    assert!(r.status == 200 || r.status == 202, "{}", r.body);
    let job = r.json()["jobs"][0]["job"].as_u64();
    let job = job.unwrap_or_else(|| panic!("no job queued: {}", r.body));
    let id = common::ended_run(d, JOB_LIMIT, repo, job)["id"].clone();
    d.get(&format!("/v1/runs/{id}")).unwrap().json()
}

#[test]
fn c1_a_manifest_linked_to_the_token_fails_the_job_without_showing_it() {
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let cfg = daemon_config(tmp.path(), "");
    let state = tmp.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    // The token file frugald writes at its first start, made beforehand so the link exists
    // when the commit is made: a line that is not TOML, as a generated token is not.
    let token = secret_text();
    write(&state.join("token"), &format!("{token}\n"));
    let repo = tmp.path().join("victim");
    crate_with_linked_manifest(&repo, &state.join("token"));
    first_commit(&repo, "link");

    let d = common::start_daemon(tmp.path(), &cfg, &state, true, &[]);
    let id = common::register(&d, &repo, "victim");
    let record = triggered_run(&d, id);
    assert_eq!(record["status"], "failed", "{record}");
    let error = record["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("Cargo.toml"),
        "the error names no manifest: {error}"
    );
    assert!(error.contains("outside"), "the error says not why: {error}");
    let body = d.get(&format!("/v1/runs/{}", record["id"])).unwrap().body;
    assert!(
        !contains(body.as_bytes(), &token),
        "the token is served: {body}"
    );
    let runs = d.get(&format!("/v1/runs?repo={id}")).unwrap().body;
    assert!(
        !contains(runs.as_bytes(), &token),
        "the token is listed: {runs}"
    );
    assert!(
        !contains(d.log_text().as_bytes(), &token),
        "the token is logged"
    );
}

/// A repository whose own config makes git run a command that leaves `markers/<kind>`: a
/// smudge filter (selected by `.gitattributes` and by `.git/info/attributes`), hooks
/// (pre-commit, post-checkout, reference-transaction), an fsmonitor and a textconv driver.
/// Two commits, the second changing `src/lib.rs`, so diffs have something to convert.
struct Booby {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    markers: PathBuf,
}

impl Booby {
    fn new(name: &str) -> Booby {
        let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
        let repo = tmp.path().join(name);
        let markers = tmp.path().join("markers");
        std::fs::create_dir_all(&markers).unwrap();
        // Hooks and filters would run as frugald's user: they must be able to leave a marker.
        common::give_to_daemon(&markers);
        write(
            &repo.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                 [lib]\npath = \"src/missing.rs\"\n"
            ),
        );
        write(&repo.join("src/lib.rs"), "pub fn f(x: u8) -> u8 { x }\n");
        write(
            &repo.join(".gitattributes"),
            "*.rs filter=evil diff=evil\n*.toml filter=evil\n",
        );
        run(git(&repo).args(["init", "-q", "-b", "main"])).unwrap();
        run(git(&repo).args(["add", "-A"])).unwrap();
        run(git(&repo).args(["commit", "-q", "-m", "one"])).unwrap();
        write(
            &repo.join("src/lib.rs"),
            "pub fn f(x: u8) -> u8 { x + 0 }\n",
        );
        run(git(&repo).args(["commit", "-q", "-am", "two"])).unwrap();

        let tools = tmp.path().join("tools");
        let mark = |kind: &str| format!("touch '{}/{kind}'", markers.display());
        // Upper-cases what it converts, so a snapshot shows whether it ran even where the
        // sandbox stops its marker.
        executable(
            &tools.join("smudge"),
            &format!("#!/bin/sh\n{}\ntr a-z A-Z\n", mark("smudge")),
        );
        executable(
            &tools.join("textconv"),
            &format!("#!/bin/sh\n{}\ncat \"$1\"\n", mark("textconv")),
        );
        executable(
            &tools.join("fsmonitor"),
            &format!("#!/bin/sh\n{}\nexit 1\n", mark("fsmonitor")),
        );
        let hooks = tmp.path().join("hooks");
        for hook in ["pre-commit", "post-checkout", "reference-transaction"] {
            executable(
                &hooks.join(hook),
                &format!("#!/bin/sh\n{}\nexit 0\n", mark(hook)),
            );
            executable(
                &repo.join(".git/hooks").join(hook),
                &format!("#!/bin/sh\n{}\nexit 0\n", mark(hook)),
            );
        }
        write(
            &repo.join(".git/info/attributes"),
            "* filter=evil diff=evil\n",
        );
        let config = format!(
            "[filter \"evil\"]\n\tsmudge = {}\n\tclean = cat\n\trequired = true\n\
             [diff \"evil\"]\n\ttextconv = {}\n\
             [core]\n\tfsmonitor = {}\n\thooksPath = {}\n",
            tools.join("smudge").display(),
            tools.join("textconv").display(),
            tools.join("fsmonitor").display(),
            hooks.display(),
        );
        let git_config = repo.join(".git/config");
        let mut text = std::fs::read_to_string(&git_config).unwrap();
        text.push_str(&config);
        std::fs::write(&git_config, text).unwrap();
        Booby {
            _tmp: tmp,
            repo,
            markers,
        }
    }

    /// The markers left, sorted; emptied for the next step.
    fn take_markers(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.markers)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for n in &names {
            std::fs::remove_file(self.markers.join(n)).unwrap();
        }
        names
    }

    /// Plain git, as the daemon ran it before (trusting the repository), with an identity.
    fn plain_git(&self) -> Command {
        let mut c = git(&self.repo);
        c.arg("-c")
            .arg(format!("safe.directory={}", self.repo.display()));
        c
    }

    /// Shows each attack works on this host's git: every marker appears.
    fn control(&self) {
        let dest = self.repo.parent().unwrap().join("control.tar");
        run(self
            .plain_git()
            .args(["archive", "-o"])
            .arg(&dest)
            .arg("HEAD"))
        .unwrap();
        run(self.plain_git().args(["diff", "-p", "HEAD~1", "HEAD"])).unwrap();
        run(self.plain_git().args(["status", "--short"])).unwrap();
        run(self
            .plain_git()
            .args(["commit", "-q", "--allow-empty", "-m", "control"]))
        .unwrap();
        run(self.plain_git().args(["reset", "-q", "--soft", "HEAD~1"])).unwrap();
        let left = self.take_markers();
        for kind in ["fsmonitor", "pre-commit", "smudge", "textconv"] {
            assert!(
                left.iter().any(|m| m == kind),
                "the control attack `{kind}` did not run on this host's git: {left:?}"
            );
        }
    }
}

/// The git module's commands on the booby-trapped repository: polling, resolving, diffing,
/// ancestors, and a snapshot, whose files must be the committed bytes (no smudge ran).
#[test]
fn c2_the_git_module_runs_nothing_the_repository_config_names() {
    let b = Booby::new("booby");
    b.control();
    let head = frugal_scheduler::poll_head(&b.repo, None).unwrap().commit;
    let resolved = frugal_scheduler::resolve_commit(&b.repo, "HEAD~1").unwrap();
    let changed = frugal_scheduler::changed_files(&b.repo, &resolved, &head).unwrap();
    assert_eq!(changed, ["src/lib.rs"]);
    assert_eq!(
        frugal_scheduler::ancestors(&b.repo, &head, 5).unwrap(),
        [resolved]
    );
    let dest = b.repo.parent().unwrap().join("snapshot");
    std::fs::create_dir_all(&dest).unwrap();
    frugal_scheduler::export_commit(&b.repo, &head, &dest).unwrap();
    assert_eq!(
        std::fs::read_to_string(dest.join("src/lib.rs")).unwrap(),
        "pub fn f(x: u8) -> u8 { x + 0 }\n",
        "a filter changed the snapshot"
    );
    assert_eq!(b.take_markers(), Vec::<String>::new());

    // Commands that would run hooks, the fsmonitor and textconv, made by `git_command`: the
    // settings it passes switch the first two off, run as the daemon runs git (confined).
    let mut status = frugal_scheduler::git_command(&b.repo);
    status.args(["status", "--short"]);
    let out = frugal_scheduler::git_output(&b.repo, &mut status, None).unwrap();
    assert!(out.status.success(), "{out:?}");
    // Unconfined too: the settings alone, not the sandbox, stop hooks and the fsmonitor.
    let mut commit = frugal_scheduler::git_command(&b.repo);
    commit
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .args(["commit", "-q", "--allow-empty", "-m", "attack"]);
    let out = commit.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut status = frugal_scheduler::git_command(&b.repo);
    let out = status.args(["status", "--short"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(b.take_markers(), Vec::<String>::new());
}

/// A textconv driver is named per repository, so `git_command` cannot switch it off; the
/// module's diffs pass `--no-textconv`, and any other diff runs confined, where the driver
/// cannot write. Only where the sandbox holds files.
#[test]
fn c2_a_textconv_in_a_diff_cannot_write() {
    if !frugal_sandbox::Capabilities::probe().fs_confined() {
        eprintln!("SKIPPED: this host cannot confine files (no Landlock)");
        return;
    }
    let b = Booby::new("textconv");
    b.control();
    let mut diff = frugal_scheduler::git_command(&b.repo);
    diff.args(["diff", "-p", "HEAD~1", "HEAD"]);
    let _ = frugal_scheduler::git_output(&b.repo, &mut diff, None).unwrap();
    assert_eq!(b.take_markers(), Vec::<String>::new());
}

/// The whole daemon: registration, trigger and job on the booby-trapped repository run none of
/// its commands; the job gets as far as analysis (the crate names a missing library file), so
/// its snapshot was made.
#[test]
fn c2_a_frugald_job_runs_nothing_the_repository_config_names() {
    let b = Booby::new("booby");
    b.control();
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let cfg = daemon_config(tmp.path(), "");
    let state = tmp.path().join("state");
    let d = common::start_daemon(tmp.path(), &cfg, &state, true, &[]);
    let id = common::register(&d, &b.repo, "booby");
    let record = triggered_run(&d, id);
    assert_eq!(b.take_markers(), Vec::<String>::new(), "{record}");
    assert_eq!(record["status"], "failed", "{record}");
    // The manifest as committed (a smudge filter upper-cases it), and analysis reached.
    let error = record["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("missing.rs"),
        "the job stopped before analysis: {error}\n{}",
        d.log_text()
    );
}

/// `stamp::touch`, which every call of the crate under test makes. With `forge`, it rewrites
/// every `goals.json` in a directory holding the running program (the harness and the
/// verification's test binary live in the pipeline's work dir), giving each goal a new label:
/// keyed by those, the suite would cover goals no earlier suite had, and win.
fn stamp_source(forge: bool) -> String {
    format!(
        r#"const FORGE: bool = {forge};

pub fn touch() {{
    if FORGE {{
        forge();
    }}
}}

fn forge() {{
    let mut dirs = Vec::new();
    for start in [std::env::current_exe().ok(), std::env::current_dir().ok()] {{
        dirs.extend(start.iter().flat_map(|p| p.ancestors().map(|a| a.to_path_buf())));
    }}
    // The dump may sit beside the dir the code runs in rather than above it (a harness built
    // in a target dir next to the work dir): each ancestor and its children are tried.
    let mut paths = Vec::new();
    for dir in dirs {{
        paths.push(dir.join("goals.json"));
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {{
            paths.push(e.path().join("goals.json"));
        }}
    }}
    for path in paths {{
        let Ok(text) = std::fs::read_to_string(&path) else {{ continue }};
        if !text.contains("FORGED") {{
            let _ = std::fs::write(&path, text.replace("\"label\": \"", "\"label\": \"FORGED "));
        }}
    }}
}}
"#
    )
}

/// Every goal id the suite's tests cover.
fn suite_goals(d: &Daemon, suite: &Value) -> std::collections::BTreeSet<u64> {
    let s = d.get(&format!("/v1/suites/{suite}")).unwrap().json();
    s["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["goals"].as_array().cloned().unwrap_or_default())
        .filter_map(|g| g.as_u64())
        .collect()
}

/// Every file named `name` under `dir`.
fn find_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                stack.push(e.path());
            } else if e.file_name() == name {
                found.push(e.path());
            }
        }
    }
    found
}

/// Two commits of one crate with the same code and so the same goals; in the second, a path
/// dependency (not instrumented, so it adds no goal) forges the run's `goals.json`. The forger
/// gets to write it (the control), but the second suite covers no goal the first did not, and
/// does not become the best by "covering goals the old best missed".
#[test]
fn l_a_forged_goals_json_does_not_decide_the_best_suite() {
    if !common::sandbox_holds("l_a_forged_goals_json_does_not_decide_the_best_suite") {
        return;
    }
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let repo = tmp.path().join("forger");
    write(
        &repo.join("Cargo.toml"),
        "[package]\nname = \"forger\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nstamp = { path = \"stamp\" }\n",
    );
    write(
        &repo.join("src/lib.rs"),
        "pub fn shift(x: u8) -> u8 {\n    stamp::touch();\n    if x > 10 { x - 10 } else { x }\n}\n",
    );
    write(
        &repo.join("stamp/Cargo.toml"),
        "[package]\nname = \"stamp\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&repo.join("stamp/src/lib.rs"), &stamp_source(false));
    first_commit(&repo, "honest");

    let (d, state, id) = small_jobs_daemon(tmp.path(), &repo, "forger");
    let honest = triggered_run(&d, id);
    assert_eq!(honest["status"], "succeeded", "{honest}\n{}", d.log_text());
    let honest_goals = suite_goals(&d, &honest["suite"]);
    assert!(!honest_goals.is_empty(), "{honest}");

    write(&repo.join("stamp/src/lib.rs"), &stamp_source(true));
    run(git(&repo).args(["commit", "-q", "-am", "forge"])).unwrap();
    let forged = triggered_run(&d, id);
    assert_eq!(forged["status"], "succeeded", "{forged}\n{}", d.log_text());
    // Whether the forger got to rewrite the dump depends on the host: where the sandbox
    // confines writes to the harness's scratch dirs it cannot, and on some runs the dump is
    // written after the forger's last run. Either way the daemon must not be moved by it.
    let dumps = find_named(&state.join("work"), "goals.json");
    let forged_dump = dumps.iter().any(|p| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .contains("FORGED")
    });
    eprintln!("the forger rewrote goals.json: {forged_dump} ({dumps:?})");
    let forged_goals = suite_goals(&d, &forged["suite"]);
    let new: Vec<_> = forged_goals.difference(&honest_goals).collect();
    assert!(
        new.is_empty(),
        "the forged run covers goals {new:?} the honest one did not: {}",
        forged["summary"]["best"]
    );
    let reason = forged["summary"]["best"]["reason"].as_str().unwrap_or("");
    assert!(
        !reason.contains("old best missed"),
        "the forged suite won on goals: {reason}"
    );
}

/// A new trigger-scoped token named `name`: its secret and id.
fn trigger_token(d: &Daemon, name: &str) -> (String, u64) {
    let body = serde_json::json!({"name": name, "scope": "trigger"});
    let created = d
        .post("/v1/tokens", Some(&d.token), &body.to_string())
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    let json = created.json();
    (
        json["token"].as_str().unwrap().to_string(),
        json["id"].as_u64().unwrap(),
    )
}

/// The status code of an answer [`http`] returned.
fn status_of(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {answer}"))
}

/// The value of `name="<field>" value="..."` in a page.
fn field_value(page: &str, field: &str) -> Option<String> {
    let at = page.find(&format!("name=\"{field}\" value=\""))?;
    let rest = &page[at + field.len() + 15..];
    Some(rest[..rest.find('"')?].to_string())
}

/// A trigger token logs in to the pages, then an admin revokes it: the browser's session must
/// end with it (reads, with `auth_reads`, and actions), not keep the token's scopes for its
/// 12 hours.
#[test]
fn m4_a_revoked_tokens_web_session_ends_with_it() {
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let cfg = daemon_config(tmp.path(), "auth_reads = true\n");
    let d = common::start_daemon(tmp.path(), &cfg, &tmp.path().join("state"), true, &[]);
    let (token, token_id) = trigger_token(&d, "ci");

    let login = common::ui_login(&d, &token);
    assert_eq!(status_of(&login), 303, "{login}");
    let cookie = common::session_cookie(&login);
    // The session works: it reads, and its trigger on a repository that does not exist gets
    // past the session check to the repository's absence.
    let page = common::http(&d, "GET", "/ui", Some(&cookie), None);
    assert_eq!(status_of(&page), 200, "{page}");
    let csrf = field_value(&page, "csrf").unwrap_or_else(|| panic!("no CSRF field: {page}"));
    let trigger = |cookie: &str| {
        common::http(
            &d,
            "POST",
            "/ui/repos/999/trigger",
            Some(cookie),
            Some(&format!("csrf={csrf}")),
        )
    };
    let before = trigger(&cookie);
    assert_eq!(status_of(&before), 404, "{before}");

    let revoked = d
        .delete(&format!("/v1/tokens/{token_id}"), Some(&d.token))
        .unwrap();
    assert_eq!(revoked.status, 204, "{}", revoked.body);
    let page = common::http(&d, "GET", "/ui", Some(&cookie), None);
    assert_eq!(
        status_of(&page),
        401,
        "the revoked session still reads:\n{page}"
    );
    let after = trigger(&cookie);
    assert_eq!(
        status_of(&after),
        401,
        "the revoked session still acts:\n{after}"
    );
    // Nor does logging in again with the revoked token open one.
    let again = common::ui_login(&d, &token);
    assert_eq!(status_of(&again), 401, "{again}");
}

/// A library crate `name` at `dir` (one function with a branch) whose build script is
/// `build_rs`.
fn crate_with_build_script(dir: &Path, name: &str, build_rs: &str) {
    write(
        &dir.join("Cargo.toml"),
        &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    );
    write(&dir.join("build.rs"), build_rs);
    write(
        &dir.join("src/lib.rs"),
        "pub fn shift(x: u8) -> u8 {\n    if x > 10 { x - 10 } else { x }\n}\n",
    );
}

/// A library crate at `dir` whose build script creates `marker`: whether the crate's code ran
/// (where the sandbox confines files, the marker is out of its reach all the same).
fn crate_with_build_marker(dir: &Path, name: &str, marker: &Path) {
    let build_rs = format!(
        "fn main() {{\n    let _ = std::fs::write({:?}, \"ran\");\n}}\n",
        marker.display().to_string()
    );
    crate_with_build_script(dir, name, &build_rs);
}

/// Asserts a refusal names what the host lacks (Landlock) and says how to go on anyway.
fn assert_refused_for_landlock(what: &str, text: &str, how: &str) {
    assert!(text.contains("refused"), "{what} was not refused: {text}");
    assert!(
        text.contains("Landlock"),
        "{what}: names no missing layer: {text}"
    );
    assert!(text.contains(how), "{what}: does not say `{how}`: {text}");
}

/// On a host without Landlock, `frugal run` and `frugal check` refuse before the crate's build
/// script runs (it would run with the user's rights), naming what is missing; `--no-sandbox`
/// is how to run it anyway. A seccomp filter on the test's thread hides Landlock from frugal.
#[test]
fn m1_frugal_run_and_check_refuse_before_the_crates_code_where_files_cannot_be_confined() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("build-script-ran");
    let krate = tmp.path().join("marked");
    crate_with_build_marker(&krate, "marked", &marker);
    write(
        &tmp.path().join("suite.rs"),
        "#[test]\nfn t() { assert_eq!(marked::shift(3), 3); }\n",
    );
    let (run, check) = common::without_landlock(|| {
        let run = Command::new(&binaries().frugal)
            .arg("run")
            .arg(&krate)
            .args(["--budget", "100", "--no-measure", "--out"])
            .arg(tmp.path().join("out"))
            .arg("--work-dir")
            .arg(tmp.path().join("work"))
            .output()
            .unwrap();
        let check = Command::new(&binaries().frugal)
            .arg("check")
            .arg(&krate)
            .arg("--suite")
            .arg(tmp.path().join("suite.rs"))
            .arg("--work-dir")
            .arg(tmp.path().join("check-work"))
            .output()
            .unwrap();
        (run, check)
    });
    for (what, out) in [("frugal run", &run), ("frugal check", &check)] {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{what} went on: {stderr}");
        assert_refused_for_landlock(what, &stderr, "--no-sandbox");
    }
    assert!(!marker.exists(), "the crate's build script ran");
}

/// frugald with `sandbox.require` (the default) on a host without Landlock: a job is refused
/// before its snapshot, and so is a replacement of a suite stored while the host could confine
/// (the same state dir, started earlier with Landlock), before anything is queued.
#[test]
fn m1_frugald_refuses_jobs_and_replacements_where_files_cannot_be_confined() {
    if !common::sandbox_holds("m1_frugald_refuses_jobs_and_replacements") {
        return;
    }
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    // Where the build script, run as frugald's user, could write if it were not confined.
    let markers = tmp.path().join("markers");
    std::fs::create_dir_all(&markers).unwrap();
    common::give_to_daemon(&markers);
    let marker = markers.join("build-script-ran");
    let repo = tmp.path().join("marked");
    crate_with_build_marker(&repo, "marked", &marker);
    first_commit(&repo, "one");
    let cfg = small_jobs_config(tmp.path());
    let state = tmp.path().join("state");
    let mut d = common::start_daemon(tmp.path(), &cfg, &state, true, &[]);
    let id = common::register(&d, &repo, "marked");
    let first = triggered_run(&d, id);
    assert_eq!(first["status"], "succeeded", "{first}\n{}", d.log_text());
    d.terminate(Duration::from_secs(60)).unwrap();
    assert!(!marker.exists(), "the confined build script wrote outside");

    let d = common::without_landlock(|| common::start_daemon(tmp.path(), &cfg, &state, true, &[]));
    let replacement = d
        .post(
            &format!("/v1/repos/{id}/replacement?metric=cpu"),
            Some(&d.token),
            "",
        )
        .unwrap();
    assert_eq!(replacement.status, 503, "{}", replacement.body);
    assert_refused_for_landlock("a replacement", &replacement.body, "sandbox.require");
    let job = triggered_run(&d, id);
    assert_eq!(job["status"], "failed", "{job}");
    assert_refused_for_landlock(
        "a job",
        job["error"].as_str().unwrap_or(""),
        "sandbox.require",
    );
    std::thread::sleep(Duration::from_secs(2));
    assert!(!marker.exists(), "the crate's build script ran unconfined");
}

/// An administrator wrote a guessable admin token into the token file: frugald does not start
/// with it (before, `letmein` was the admin token of a shared host), and says why without
/// quoting it.
#[test]
fn l_a_weak_token_file_stops_the_daemon_at_start() {
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let cfg = daemon_config(tmp.path(), "");
    let state = tmp.path().join("state");
    write(&state.join("token"), "letmein\n");
    let started = Daemon::start(&common::frugald(tmp.path(), true), &cfg, &state);
    let Err(e) = started else {
        let d = started.unwrap();
        let r = d.get_with("/v1/tokens", "letmein").unwrap();
        panic!(
            "frugald started with the token `letmein` (GET /v1/tokens: {})",
            r.status
        );
    };
    let e = format!("{e:#}");
    assert!(e.contains("weak token"), "{e}");
    assert!(e.contains("at least 32"), "{e}");
    assert!(!e.contains("letmein"), "the error quotes the token: {e}");
}

/// A client guessing tokens: after 10 wrong ones in a minute, no token it presents is checked,
/// the right one included, on the API and on the login page alike (before, guesses were
/// unlimited).
#[test]
fn l_token_guesses_are_rate_limited_per_client() {
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let cfg = daemon_config(tmp.path(), "");
    let d = common::start_daemon(tmp.path(), &cfg, &tmp.path().join("state"), true, &[]);
    assert_eq!(d.get_with("/v1/tokens", &d.token).unwrap().status, 200);
    for n in 0..10 {
        let guess = format!("{n:064x}");
        let r = d.get_with("/v1/tokens", &guess).unwrap();
        assert_eq!(r.status, 401, "guess {n}: {}", r.body);
    }
    let r = d.get_with("/v1/tokens", &d.token).unwrap();
    assert_eq!(r.status, 429, "the 11th try was checked: {}", r.body);
    assert!(r.body.contains("too many wrong tokens"), "{}", r.body);
    let login = common::ui_login(&d, &d.token);
    assert_eq!(status_of(&login), 429, "{login}");
}

/// An operator follows a job's log from inside its work dir (`tail -f`, in a session of its
/// own, not started by frugald) while the job hangs (`examples/hostile-hang`: a build script
/// that never ends) and is stopped at `jobs.max_seconds`: the job's processes are killed, the
/// operator's is not (before, everything whose working directory or arguments named the job's
/// dirs was killed, with its session).
#[test]
fn l_the_time_cap_kills_the_jobs_processes_not_an_operators_in_its_dir() {
    let Some(tmp) = common::hostile_scratch("time_cap_operator").map(common::daemon_dir) else {
        return;
    };
    let cfg = daemon_config(
        tmp.path(),
        "[jobs]\nmax_seconds = 3\n\n[regressions]\ncheck = false\n",
    );
    let state = tmp.path().join("state");
    let repo = tmp.path().join("hang");
    frugal_testkit::example_repo("hostile-hang", &repo).unwrap();
    let d = common::start_daemon(tmp.path(), &cfg, &state, true, &[]);
    let id = common::register(&d, &repo, "hostile-hang");
    let work = state.join(format!("work/repo-{id}/hostile-hang"));
    write(&work.join("job.log"), "");
    common::give_to_daemon(&state.join("work"));
    let mut operator = Command::new("setsid")
        .args(["tail", "-f", "job.log"])
        .current_dir(&work)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stopped = triggered_run(&d, id);
    let error = stopped["error"].as_str().unwrap_or("");
    assert!(error.contains("jobs.max_seconds (3 s)"), "{stopped}");
    std::thread::sleep(Duration::from_millis(500));
    let gone = operator.try_wait().unwrap();
    let _ = operator.kill();
    let _ = operator.wait();
    assert!(gone.is_none(), "the operator's tail was killed: {gone:?}");
}

/// Crate names are directory names under the state dir: `a.b` and `a_b` shared one work dir
/// (snapshot, builds, pipeline), so one crate's job could poison the other's. Registration
/// now takes only package names (and each once); nothing is registered otherwise.
#[test]
fn l_crate_names_that_would_share_a_work_dir_are_refused() {
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let repo = tmp.path().join("two");
    write(&repo.join("a/src/lib.rs"), "pub fn f() {}\n");
    write(&repo.join("b/src/lib.rs"), "pub fn g() {}\n");
    first_commit(&repo, "two crates");
    let cfg = daemon_config(tmp.path(), "");
    let d = common::start_daemon(tmp.path(), &cfg, &tmp.path().join("state"), true, &[]);
    for crates in [
        serde_json::json!([{"name": "a.b", "dir": "a"}, {"name": "a_b", "dir": "b"}]),
        serde_json::json!([{"name": "a_b", "dir": "a"}, {"name": "a_b", "dir": "b"}]),
        serde_json::json!([{"name": "", "dir": "a"}]),
    ] {
        let body = serde_json::json!({"path": repo, "crates": crates});
        let r = d
            .post("/v1/repos", Some(&d.token), &body.to_string())
            .unwrap();
        assert_eq!(r.status, 400, "{crates}: {}", r.body);
        assert!(r.body.contains("crate"), "{}", r.body);
    }
    let repos = d.get("/v1/repos").unwrap().json();
    assert_eq!(repos.as_array().map(Vec::len), Some(0), "{repos}");
}

/// A trigger token's holder asks for more jobs than its share of the queue
/// (`scheduler.max_queued_per_token`, 16 by default): the trigger is refused as a whole, 429,
/// and queues nothing; the admin's trigger of the same crates still queues them (before, a
/// token could queue every crate on the host ahead of everyone else).
#[test]
fn l_one_token_queues_at_most_its_share() {
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let repo = tmp.path().join("many");
    let names: Vec<String> = (1..=17).map(|n| format!("c{n}")).collect();
    for k in &names {
        write(&repo.join(k).join("src/lib.rs"), "pub fn f() {}\n");
    }
    first_commit(&repo, "seventeen crates");
    // No job may start while the test counts the queue.
    let cfg = daemon_config(tmp.path(), "");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        text.replace("[scheduler]\n", "[scheduler]\nmax_concurrent_jobs = 1\n"),
    )
    .unwrap();
    let d = common::start_daemon(tmp.path(), &cfg, &tmp.path().join("state"), true, &[]);
    let crates: Vec<Value> = names
        .iter()
        .map(|k| serde_json::json!({"name": k, "dir": k}))
        .collect();
    let body = serde_json::json!({"path": repo, "crates": crates});
    let r = d
        .post("/v1/repos", Some(&d.token), &body.to_string())
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_u64().unwrap();
    let (token, _) = trigger_token(&d, "committer");

    let trigger = format!("/v1/repos/{id}/trigger");
    let r = d.post(&trigger, Some(&token), "{}").unwrap();
    assert_eq!(r.status, 429, "the token queued 17 jobs: {}", r.body);
    assert!(r.body.contains("max_queued_per_token"), "{}", r.body);
    let jobs = d.get("/v1/jobs").unwrap().json();
    assert_eq!(jobs.as_array().map(Vec::len), Some(0), "{jobs}");
    let r = d.post(&trigger, Some(&d.token), "{}").unwrap();
    assert!(r.status == 200 || r.status == 202, "{}", r.body);
    assert_eq!(
        r.json()["jobs"].as_array().map(Vec::len),
        Some(17),
        "{}",
        r.body
    );
}

/// A TCP connection to `to` from the loopback address `from` (any 127.x.y.z is this host): a
/// second client, as the daemon tells clients apart.
fn connect_from(from: std::net::Ipv4Addr, to: std::net::SocketAddr) -> std::net::TcpStream {
    use std::os::fd::FromRawFd;
    let std::net::SocketAddr::V4(to) = to else {
        panic!("the daemon listens on IPv4 loopback");
    };
    let addr = |ip: std::net::Ipv4Addr, port: u16| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(ip).to_be(),
        },
        sin_zero: [0; 8],
    };
    let (local, remote) = (addr(from, 0), addr(*to.ip(), to.port()));
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: a fresh socket, bound and connected with addresses that live across the calls;
    // the descriptor is handed to TcpStream, which owns it from then on.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "{}", std::io::Error::last_os_error());
        let stream = std::net::TcpStream::from_raw_fd(fd);
        let bound = libc::bind(fd, (&raw const local).cast(), len);
        assert_eq!(bound, 0, "bind {from}: {}", std::io::Error::last_os_error());
        let connected = libc::connect(fd, (&raw const remote).cast(), len);
        assert_eq!(connected, 0, "connect: {}", std::io::Error::last_os_error());
        stream
    }
}

/// `GET /healthz` on `stream`; the whole answer.
fn healthz_on(mut stream: std::net::TcpStream, host: &str) -> String {
    use std::io::{Read, Write};
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let req = format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    let _ = stream.write_all(req.as_bytes());
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

/// One client holds its share of connections open and idle (64 by default,
/// `http.max_connections_per_client`): its next connection is answered 503 and closed, while
/// another client is served (before, one client could hold all 256 and everyone else waited).
#[test]
fn m5_one_client_holds_at_most_its_share_of_connections() {
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let cfg = daemon_config(tmp.path(), "");
    let d = common::start_daemon(tmp.path(), &cfg, &tmp.path().join("state"), true, &[]);
    let host = d.base.trim_start_matches("http://").to_string();
    let addr: std::net::SocketAddr = host.parse().unwrap();
    let first = std::net::Ipv4Addr::new(127, 0, 0, 1);
    let idle: Vec<_> = (0..64).map(|_| connect_from(first, addr)).collect();
    let over = healthz_on(connect_from(first, addr), &host);
    assert!(
        over.starts_with("HTTP/1.1 503"),
        "the client's 65th connection was served: {over}"
    );
    assert!(over.contains("max_connections_per_client"), "{over}");
    let other = healthz_on(
        connect_from(std::net::Ipv4Addr::new(127, 0, 0, 2), addr),
        &host,
    );
    assert!(other.starts_with("HTTP/1.1 200"), "{other}");
    drop(idle);
    // Its connections closed, the first client is served again.
    let again = wait_for(
        "the first client's slots to free",
        Duration::from_secs(5),
        Duration::from_millis(50),
        || {
            let a = healthz_on(connect_from(first, addr), &host);
            Ok(a.starts_with("HTTP/1.1 200").then_some(a))
        },
    );
    assert!(again.is_ok(), "{again:?}");
}

/// The live page's event stream of a session whose token is then revoked: the stream ends
/// within a tick or two (before, it went on for as long as the browser kept it open).
#[test]
fn m4_a_revoked_tokens_live_stream_ends_with_it() {
    use std::io::{Read, Write};
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let cfg = daemon_config(tmp.path(), "auth_reads = true\n");
    let d = common::start_daemon(tmp.path(), &cfg, &tmp.path().join("state"), true, &[]);
    let (token, token_id) = trigger_token(&d, "browser");
    let login = common::ui_login(&d, &token);
    let cookie = common::session_cookie(&login);
    let host = d.base.trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /ui/live/events HTTP/1.1\r\nHost: {host}\r\nCookie: frugal_session={cookie}\r\n\
         Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !contains(&seen, "event: runs") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "the stream ended before its first event");
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(
        contains(&seen, "200 OK"),
        "{}",
        String::from_utf8_lossy(&seen)
    );
    let revoked = d
        .delete(&format!("/v1/tokens/{token_id}"), Some(&d.token))
        .unwrap();
    assert_eq!(revoked.status, 204, "{}", revoked.body);
    let t = std::time::Instant::now();
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) => panic!(
                "the revoked session's stream still runs after {:?} ({e})",
                t.elapsed()
            ),
        }
    }
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

/// A crate's build script leaves a `setsid` double-fork survivor behind, working in the job's
/// build dir (where it could poison the next job's build), on a host without job cgroups: the
/// job's end kills it, and the run reports it (before, it lived on).
#[test]
fn h3_a_setsid_double_fork_survivor_is_killed_and_reported() {
    let Some(tmp) = common::hostile_scratch("survivor").map(common::daemon_dir) else {
        return;
    };
    let marker = format!("frugal-survivor-{}", secret_text());
    let repo = tmp.path().join("survivor");
    let build_rs = format!(
        "fn main() {{\n    let dir = std::env::var(\"OUT_DIR\").unwrap_or_default();\n    \
             let _ = std::process::Command::new(\"sh\").arg(\"-c\").arg(format!(\n        \
             \"cd '{{dir}}' && setsid sh -c 'while :; do sleep 1; done' {marker} \
             >/dev/null 2>&1 </dev/null &\"\n    )).status();\n}}\n"
    );
    crate_with_build_script(&repo, "survivor", &build_rs);
    first_commit(&repo, "survivor");
    let cfg = small_jobs_config(tmp.path());
    let state = tmp.path().join("state");
    let d = common::start_daemon(tmp.path(), &cfg, &state, false, &[]);
    assert!(
        d.log_text().contains("cgroup"),
        "no capability line on cgroups:\n{}",
        d.log_text()
    );
    let id = common::register(&d, &repo, "survivor");
    let record = triggered_run(&d, id);
    let alive = frugal_testkit::processes(|argv| argv.iter().any(|a| contains(a, &marker)));
    for pid in &alive {
        // SAFETY: kill(2) on the survivor this test's crate started; the test cleans up.
        unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
    }
    assert_eq!(
        alive,
        Vec::<u32>::new(),
        "the survivor outlived its job: {record}"
    );
    let survivors = record["summary"]["survivors"].as_u64().unwrap_or(0);
    let error = record["error"].as_str().unwrap_or("");
    assert!(
        survivors > 0 || error.contains("outlived"),
        "the run does not report the survivor: {record}"
    );
}

/// A build script reads `$CARGO_HOME/credentials.toml` (the registry tokens of whoever runs
/// frugald) and leaves what it got in its `OUT_DIR`: it gets nothing. frugald runs with a
/// `$CARGO_HOME` of the test's own (its tools and registry linked to the real ones), holding a
/// secret `credentials.toml`, and a `git` dir holding another tenant's checkout: with no
/// `jobs.git_hosts` (the default) the build script cannot list it either (before, it could).
#[test]
fn h1_a_build_script_cannot_read_cargo_credentials() {
    let Some(tmp) = common::hostile_scratch("credentials").map(common::daemon_dir) else {
        return;
    };
    let real_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .unwrap();
    let cargo_home = tmp.path().join("cargo-home");
    std::fs::create_dir_all(&cargo_home).unwrap();
    for part in ["bin", "registry"] {
        if real_home.join(part).exists() {
            std::os::unix::fs::symlink(real_home.join(part), cargo_home.join(part)).unwrap();
        }
    }
    let secret = secret_text();
    write(
        &cargo_home.join("credentials.toml"),
        &format!("[registry]\ntoken = \"{secret}\"\n"),
    );
    let checkout = "other-tenant-0123456789abcdef";
    write(
        &cargo_home.join(format!("git/checkouts/{checkout}/main/src/lib.rs")),
        &format!("pub const KEY: &str = \"{secret}\";\n"),
    );
    let repo = tmp.path().join("thief");
    crate_with_build_script(
        &repo,
        "thief",
        "fn main() {\n    let home = std::env::var(\"CARGO_HOME\").unwrap_or_default();\n    \
         let got = match std::fs::read_to_string(format!(\"{home}/credentials.toml\")) {\n        \
         Ok(text) => format!(\"read:{text}\"),\n        Err(e) => format!(\"denied:{e}\"),\n    };\n    \
         let git = match std::fs::read_dir(format!(\"{home}/git/checkouts\")) {\n        \
         Ok(dir) => format!(\"listed:{:?}\", dir.flatten().map(|e| e.file_name()).collect::<Vec<_>>()),\n        \
         Err(e) => format!(\"denied:{e}\"),\n    };\n    \
         let out = std::env::var(\"OUT_DIR\").unwrap_or_default();\n    \
         let _ = std::fs::write(format!(\"{out}/credentials-probe\"), got);\n    \
         let _ = std::fs::write(format!(\"{out}/git-probe\"), git);\n}\n",
    );
    first_commit(&repo, "thief");
    let cfg = small_jobs_config(tmp.path());
    let state = tmp.path().join("state");
    let home = cargo_home.to_string_lossy().into_owned();
    let d = common::start_daemon(tmp.path(), &cfg, &state, true, &[("CARGO_HOME", &home)]);
    let id = common::register(&d, &repo, "thief");
    let record = triggered_run(&d, id);
    // Builds still work with only the registry's and git's sources readable.
    assert_eq!(record["status"], "succeeded", "{record}\n{}", d.log_text());
    let probes = find_named(&state.join("work"), "credentials-probe");
    assert!(
        !probes.is_empty(),
        "the build script did not run: {record}\n{}",
        d.log_text()
    );
    for p in &probes {
        let got = std::fs::read_to_string(p).unwrap();
        assert!(
            !got.contains(&secret),
            "{} holds the credentials: {got}",
            p.display()
        );
        assert!(got.starts_with("denied:"), "{}: {got}", p.display());
    }
    let git_probes = find_named(&state.join("work"), "git-probe");
    assert_eq!(git_probes.len(), probes.len(), "{record}");
    for p in &git_probes {
        let got = std::fs::read_to_string(p).unwrap();
        assert!(
            !got.contains(checkout),
            "{} lists the checkout: {got}",
            p.display()
        );
        assert!(got.starts_with("denied:"), "{}: {got}", p.display());
    }
    let body = d.get(&format!("/v1/runs/{}", record["id"])).unwrap().body;
    assert!(!body.contains(&secret), "the run shows the credentials");
}

/// A crate depends on another user's repository on this host (`git = "file://..."`) and hands
/// out a constant of it: `cargo fetch` would clone it unconfined and the stored suite would
/// assert the constant's value for anyone to read. The job is refused before any cargo command,
/// naming the dependency; the secret is nowhere in what frugald serves (before, the suite
/// stored it).
#[test]
fn h1_a_file_git_dependency_on_another_repository_is_refused() {
    let Some(tmp) = common::hostile_scratch("file_git_dep").map(common::daemon_dir) else {
        return;
    };
    let secret = secret_text();
    let other = tmp.path().join("other");
    write(
        &other.join("Cargo.toml"),
        "[package]\nname = \"other\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &other.join("src/lib.rs"),
        &format!("pub const SECRET: &str = \"{secret}\";\n"),
    );
    first_commit(&other, "someone else's");
    let repo = tmp.path().join("borrower");
    write(
        &repo.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"borrower\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\nother = {{ git = \"file://{}\" }}\n",
            other.display()
        ),
    );
    write(
        &repo.join("src/lib.rs"),
        "pub fn leak(x: u8) -> &'static str {\n    if x > 0 { other::SECRET } else { \"\" }\n}\n",
    );
    first_commit(&repo, "borrow");
    let (d, _, id) = small_jobs_daemon(tmp.path(), &repo, "borrower");
    let record = triggered_run(&d, id);
    let served = [
        d.get(&format!("/v1/runs/{}", record["id"])).unwrap().body,
        d.get(&format!("/v1/repos/{id}/suites/best/source"))
            .unwrap()
            .body,
    ];
    for body in &served {
        assert!(
            !body.contains(&secret),
            "the other repository's secret is served: {body}"
        );
    }
    assert_eq!(record["status"], "failed", "{record}");
    let error = record["error"].as_str().unwrap_or("");
    assert!(
        error.contains("`other`") && error.contains("repository on this host"),
        "{error}"
    );
}

/// A loopback port that counts the connections made to it: a thread polls the listener
/// (non-blocking) and closes each connection at once, so a client fails at once instead of
/// waiting for an answer that never comes.
struct CountingListener {
    port: u16,
    seen: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl CountingListener {
    fn start() -> CountingListener {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, halt) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            loop {
                // Drain what is queued before looking at `halt`: a connection made just before
                // the job ended still counts.
                match listener.accept() {
                    Ok((conn, _)) => {
                        s.fetch_add(1, Ordering::SeqCst);
                        drop(conn);
                    }
                    Err(_) if halt.load(Ordering::SeqCst) => break,
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        CountingListener {
            port,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    /// Connections made so far, the queued ones included.
    fn connections(mut self) -> usize {
        use std::sync::atomic::Ordering;
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        self.seen.load(Ordering::SeqCst)
    }
}

impl Drop for CountingListener {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A crate at `dir` depending on the git repository `url`, committed.
fn crate_with_git_dependency(dir: &Path, url: &str) {
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"fetcher\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\ninternal = {{ git = \"{url}\" }}\n"
        ),
    );
    write(&dir.join("src/lib.rs"), "pub fn f(x: u8) -> u8 { x }\n");
    first_commit(dir, "an internal git dependency");
}

/// H1 (network sources): a committed manifest names a git dependency on an internal http host
/// (here a port the test listens on). frugald's unconfined `cargo fetch` would connect to it
/// from the daemon's host; the job is refused before any cargo command, naming the dependency
/// and `jobs.git_hosts`, and nothing connects (before the fix, the listener saw cargo's
/// connections). The control: where the admin lists the host, the same commit's job reaches
/// the listener, so the listener would have seen the attack.
#[test]
fn h1_a_git_dependency_on_an_internal_host_is_refused() {
    let Some(tmp) = common::hostile_scratch("git_internal").map(common::daemon_dir) else {
        return;
    };
    let listener = CountingListener::start();
    let url = format!("http://127.0.0.1:{}/x.git", listener.port);
    let repo = tmp.path().join("fetcher");
    crate_with_git_dependency(&repo, &url);
    let (d, _, id) = small_jobs_daemon(tmp.path(), &repo, "fetcher");
    let record = triggered_run(&d, id);
    drop(d);
    let connections = listener.connections();
    assert_eq!(connections, 0, "the internal host was contacted: {record}");
    assert_eq!(record["status"], "failed", "{record}");
    let error = record["error"].as_str().unwrap_or("");
    assert!(
        error.contains("Cargo.toml")
            && error.contains("`internal`")
            && error.contains("127.0.0.1")
            && error.contains("jobs.git_hosts"),
        "{error}"
    );

    let listener = CountingListener::start();
    let url = format!("http://127.0.0.1:{}/x.git", listener.port);
    let repo = tmp.path().join("allowed");
    crate_with_git_dependency(&repo, &url);
    let d = daemon_fetching_from_loopback(&tmp.path().join("allowed-daemon"), &[]);
    let id = common::register(&d, &repo, "fetcher");
    let record = triggered_run(&d, id);
    drop(d);
    assert!(
        listener.connections() > 0,
        "the control reached no one: {record}"
    );
    let error = record["error"].as_str().unwrap_or("");
    assert!(!error.contains("jobs.git_hosts"), "{error}");
}

/// A frugald in `dir` that lists `127.0.0.1` in `jobs.git_hosts`, with a `$CARGO_HOME` of its
/// own the fetch may write its git database to (the real one is not the unprivileged daemon's,
/// and is left as it was), its tools linked to the real ones; `env` goes to frugald.
fn daemon_fetching_from_loopback(dir: &Path, env: &[(&str, &str)]) -> Daemon {
    std::fs::create_dir_all(dir.join("state")).unwrap();
    common::give_to_daemon(&dir.join("state"));
    let cargo_home = dir.join("cargo-home");
    std::fs::create_dir_all(&cargo_home).unwrap();
    common::give_to_daemon(&cargo_home);
    let real_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .unwrap();
    if real_home.join("bin").exists() {
        std::os::unix::fs::symlink(real_home.join("bin"), cargo_home.join("bin")).unwrap();
    }
    let cfg = daemon_config(
        dir,
        "[search]\nbudget = \"300\"\n\n[jobs]\ngit_hosts = [\"127.0.0.1\"]\n",
    );
    let home = cargo_home.to_string_lossy().into_owned();
    let mut env = env.to_vec();
    env.push(("CARGO_HOME", &home));
    common::start_daemon(dir, &cfg, &dir.join("state"), true, &env)
}

/// A loopback HTTP server that answers every request `401 Unauthorized` asking for a password,
/// as a private repository on an allowed git host does; it counts the requests.
fn start_password_asking_server() -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = seen.clone();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let _ = conn.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"private\"\r\n\
                  Content-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    (port, seen)
}

/// H1 (credentials): the admin listed a git host, and frugald's own `HOME` has a git credential
/// helper for it (as a service that fetches its own private dependencies does). A tenant's
/// manifest names a private repository on that host, which asks for a password. frugald's
/// unconfined `cargo fetch` ran the helper, as the daemon, and would have fetched the
/// repository with the service's credentials for that tenant; the confined fetch
/// (`Policy::for_fetch`) has the job's own `HOME`, so no helper runs, while the host is still
/// asked (the fetch did run).
#[test]
fn h1_the_dependency_fetch_never_runs_the_services_credential_helper() {
    let Some(tmp) = common::hostile_scratch("fetch_credentials").map(common::daemon_dir) else {
        return;
    };
    let (port, requests) = start_password_asking_server();
    let repo = tmp.path().join("tenant");
    crate_with_git_dependency(&repo, &format!("http://127.0.0.1:{port}/private.git"));
    let service_home = tmp.path().join("service-home");
    let marker = tmp.path().join("helper-ran");
    std::fs::create_dir_all(&service_home).unwrap();
    write(
        &service_home.join(".gitconfig"),
        &format!(
            "[credential]\n\thelper = \"!f() {{ touch {}; echo username=svc; echo password=secret; }}; f\"\n",
            marker.display()
        ),
    );
    common::give_to_daemon(tmp.path());
    let home = service_home.to_string_lossy().into_owned();
    let d = daemon_fetching_from_loopback(&tmp.path().join("daemon"), &[("HOME", &home)]);
    let id = common::register(&d, &repo, "fetcher");
    let record = triggered_run(&d, id);
    drop(d);
    assert!(
        requests.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "the fetch never asked the host: {record}"
    );
    assert!(
        !marker.exists(),
        "the service's credential helper ran for a tenant's dependency: {record}"
    );
    assert_eq!(record["status"], "failed", "{record}");
}

/// Whether frugald's startup report says a job's memory is bounded by its cgroup; the tests
/// that need a job cgroup say SKIPPED where it is not.
fn job_cgroup_here(d: &Daemon, test: &str) -> bool {
    let here = d.log_text().contains("a job's memory bounded as a whole");
    if !here {
        eprintln!("SKIPPED {test}: no job cgroup with a memory limit on this host");
    }
    here
}

/// H3/M6: a build script first writes down the cgroups it runs in, then takes 1 GiB in a job
/// allowed 384 MiB as a whole. It ran in the job's cgroup (`frugal-job-...`), the kernel killed
/// it, the job fails naming `jobs.max_memory`, and frugald lives on (before, no job cgroup
/// existed: the only bound was the 16 GiB address space per process).
#[test]
fn h3_a_jobs_code_runs_in_its_cgroup_and_its_memory_is_bounded_as_a_whole() {
    let Some(tmp) = common::hostile_scratch("job_memory").map(common::daemon_dir) else {
        return;
    };
    let repo = tmp.path().join("hog");
    let build_rs = "fn main() {\n    \
        let dir = std::env::var(\"OUT_DIR\").unwrap_or_default();\n    \
        let seen = std::fs::read_to_string(\"/proc/self/cgroup\").unwrap_or_default();\n    \
        let _ = std::fs::write(format!(\"{dir}/cgroup-seen\"), seen);\n    \
        let hog = vec![1u8; 1 << 30];\n    \
        println!(\"cargo:warning=held {}\", hog.iter().map(|b| *b as u64).sum::<u64>());\n}\n";
    crate_with_build_script(&repo, "hog", build_rs);
    first_commit(&repo, "hog");
    let cfg = daemon_config(
        tmp.path(),
        "[search]\nbudget = \"300\"\n\n[executor]\nworkers = 2\n\n[jobs]\nmax_memory = \"384M\"\n",
    );
    let state = tmp.path().join("state");
    let d = common::start_daemon(tmp.path(), &cfg, &state, true, &[]);
    if !job_cgroup_here(&d, "job_memory") {
        return;
    }
    let id = common::register(&d, &repo, "hog");
    let record = triggered_run(&d, id);
    let seen: Vec<String> = find_named(&state, "cgroup-seen")
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    assert!(!seen.is_empty(), "the build script never ran: {record}");
    assert!(
        seen.iter().all(|s| s.contains("frugal-job-")),
        "the build script ran outside the job's cgroup: {seen:?}"
    );
    assert_eq!(record["status"], "failed", "{record}");
    let error = record["error"].as_str().unwrap_or("");
    assert!(error.contains("jobs.max_memory"), "{record}");
    assert_eq!(d.get("/healthz").unwrap().status, 200);
}

/// H3/M6 where no cgroup can bound a job's memory (frugald in a mount namespace without
/// `/sys/fs/cgroup`; unprivileged, as the unit runs it without a delegated memory controller):
/// a build script takes 1 GiB in a job allowed 900 MiB. Each of the job's processes is held to
/// the job's bound (`RLIMIT_AS`), so the allocation fails, the build script never holds it, the
/// job fails and frugald serves on; the report says the bound is per process only (before, each
/// process could take 16 GiB, and the build script held its 1 GiB).
#[test]
fn h3_without_a_memory_cgroup_each_process_of_a_job_is_held_to_the_jobs_bound() {
    let Some(tmp) = common::hostile_scratch("process_memory").map(common::daemon_dir) else {
        return;
    };
    let repo = tmp.path().join("hog");
    let build_rs = "fn main() {\n    \
        let dir = std::env::var(\"OUT_DIR\").unwrap_or_default();\n    \
        let _ = std::fs::write(format!(\"{dir}/hog-started\"), \"\");\n    \
        let hog = vec![1u8; 1 << 30];\n    \
        let sum: u64 = hog.iter().map(|b| *b as u64).sum();\n    \
        let _ = std::fs::write(format!(\"{dir}/hog-held\"), sum.to_string());\n}\n";
    crate_with_build_script(&repo, "hog", build_rs);
    first_commit(&repo, "hog");
    // rustc itself needs some 500 MiB of address space for a build script.
    let cfg = daemon_config(
        tmp.path(),
        "[search]\nbudget = \"300\"\n\n[executor]\nworkers = 2\n\n[jobs]\nmax_memory = \"900M\"\n",
    );
    let state = tmp.path().join("state");
    let d = common::start_daemon(tmp.path(), &cfg, &state, false, &[]);
    let log = d.log_text();
    assert!(
        log.contains("no memory cgroup: a job's memory bounded only per process, by RLIMIT_AS"),
        "the report does not say how a job's memory is bounded:\n{log}"
    );
    let id = common::register(&d, &repo, "hog");
    let record = triggered_run(&d, id);
    assert!(
        !find_named(&state, "hog-started").is_empty(),
        "the build script never ran: {record}"
    );
    assert_eq!(
        find_named(&state, "hog-held"),
        Vec::<PathBuf>::new(),
        "a process of the job held 1 GiB in a job allowed 900 MiB: {record}"
    );
    assert_eq!(record["status"], "failed", "{record}");
    assert_eq!(d.get("/healthz").unwrap().status, 200);
}

/// M6: a build script creates up to 1 million empty files in its `OUT_DIR` (the crate's kept
/// build dir). The job's dirs are checked while it runs: the job is stopped once they hold more
/// than `jobs.max_files` (50 000 here), fails saying so, and the files are deleted; requests
/// answer while the flood goes on (the walk is on a watcher thread of the job, never the
/// runner's or the server's). Before, nothing counted a job's files.
#[test]
fn m6_a_million_empty_files_stop_the_job_and_are_deleted() {
    let Some(tmp) = common::hostile_scratch("million_files").map(common::daemon_dir) else {
        return;
    };
    let repo = tmp.path().join("flood");
    let build_rs = "fn main() {\n    \
        let dir = std::path::PathBuf::from(std::env::var(\"OUT_DIR\").unwrap_or_default());\n    \
        for d in 0..100 {\n        \
            let sub = dir.join(format!(\"flood-{d}\"));\n        \
            let _ = std::fs::create_dir_all(&sub);\n        \
            for f in 0..10_000 {\n            \
                let _ = std::fs::File::create(sub.join(f.to_string()));\n        \
            }\n    \
        }\n}\n";
    crate_with_build_script(&repo, "flood", build_rs);
    first_commit(&repo, "flood");
    let cfg = daemon_config(
        tmp.path(),
        "[search]\nbudget = \"300\"\n\n[executor]\nworkers = 2\n\n[jobs]\nmax_files = 50000\n",
    );
    let state = tmp.path().join("state");
    let d = common::start_daemon(tmp.path(), &cfg, &state, true, &[]);
    let id = common::register(&d, &repo, "flood");
    let r = d
        .post(&format!("/v1/repos/{id}/trigger"), Some(&d.token), "{}")
        .unwrap();
    assert!(r.status == 200 || r.status == 202, "{}", r.body);
    let job = r.json()["jobs"][0]["job"].clone();
    // Requests while the job runs: each must answer, and quickly.
    let started = std::time::Instant::now();
    let mut slowest = Duration::ZERO;
    let mut asked = 0;
    let run = loop {
        assert!(started.elapsed() < JOB_LIMIT, "the job did not end");
        let t = std::time::Instant::now();
        let runs = d.get(&format!("/v1/runs?repo={id}")).unwrap();
        slowest = slowest.max(t.elapsed());
        asked += 1;
        assert_eq!(runs.status, 200, "{}", runs.body);
        let ended = runs.json().as_array().into_iter().flatten().find_map(|r| {
            let done = matches!(r["status"].as_str(), Some("succeeded" | "failed"));
            (done && r["job"] == job).then(|| r["id"].clone())
        });
        if let Some(run) = ended {
            break d.get(&format!("/v1/runs/{run}")).unwrap().json();
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    eprintln!("{asked} requests during the job, the slowest {slowest:?}");
    assert!(
        slowest < Duration::from_secs(5),
        "a request took {slowest:?}"
    );
    assert_eq!(run["status"], "failed", "{run}");
    let error = run["error"].as_str().unwrap_or("");
    assert!(error.contains("jobs.max_files"), "{run}");
    let left = entries_under(&state.join("work"));
    assert!(left < 1000, "{left} entries left under the work dir");
    assert_eq!(d.get("/healthz").unwrap().status, 200);
}

/// How many files and dirs are under `dir`.
fn entries_under(dir: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            n += 1;
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            }
        }
    }
    n
}

const REGICIDE: &str = r#"fn parent(pid: &str) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split(' ').nth(1).map(str::to_string)
}

fn main() {
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid = status.lines().find(|l| l.starts_with("Uid:")).unwrap_or("").to_string();
    let _ = std::fs::write(format!("{out}/regicide-uid"), uid);
    // A replacement's dirs are deleted when it ends: linger, so its uid can be read in /proc.
    if out.contains("replace-work") {
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    let mut pid = parent("self").unwrap_or_default();
    let mut log = String::new();
    while !pid.is_empty() && pid != "0" && pid != "1" {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() == "frugald" {
            for sig in ["-TERM", "-KILL"] {
                let ok = std::process::Command::new("kill").args([sig, &pid]).status()
                    .map(|s| s.success()).unwrap_or(false);
                log.push_str(&format!("{pid} {sig} {ok}\n"));
            }
            break;
        }
        pid = parent(&pid).unwrap_or_default();
    }
    let _ = std::fs::write(format!("{out}/regicide"), log);
}
"#;

/// H2: a build script walks up its parents to frugald (by `/proc/<pid>/comm`) and sends it
/// SIGTERM, then SIGKILL. Both are refused; frugald serves on and the job goes on. The build
/// script writes down the pid it found and what `kill` said, so the test knows the attack was
/// made at frugald (before Landlock's signal scope, the same uid made it succeed).
#[test]
fn h2_a_build_script_cannot_kill_frugald() {
    let Some(tmp) = common::hostile_scratch("kill_daemon").map(common::daemon_dir) else {
        return;
    };
    let repo = tmp.path().join("regicide");
    crate_with_build_script(&repo, "regicide", REGICIDE);
    first_commit(&repo, "regicide");
    let (mut d, state, id) = small_jobs_daemon(tmp.path(), &repo, "regicide");
    let record = triggered_run(&d, id);
    assert_regicide_failed(&mut d, &state, &record);
}

/// The H2 attack's end, written down by `REGICIDE` in its `OUT_DIR`s under `state`: it found
/// frugald's pid, both kills failed, frugald serves on and the job succeeded.
fn assert_regicide_failed(d: &mut Daemon, state: &Path, record: &Value) {
    let logs: Vec<String> = find_named(state, "regicide")
        .iter()
        .filter(|p| p.is_file())
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    let daemon_pid = d.child.id().to_string();
    assert!(
        logs.iter()
            .any(|l| l.starts_with(&format!("{daemon_pid} -TERM"))),
        "the build script did not find frugald ({daemon_pid}): {logs:?}\n{record}"
    );
    assert!(
        logs.iter().all(|l| !l.contains(" true")),
        "a signal reached frugald: {logs:?}"
    );
    assert_eq!(d.child.try_wait().unwrap(), None, "frugald died");
    assert_eq!(d.get("/healthz").unwrap().status, 200);
    assert_eq!(record["status"], "succeeded", "{record}\n{}", d.log_text());
}

/// H3 (poisoning): commit 1's build script leaves a `setsid` double-fork survivor that keeps
/// rewriting every `gen.rs` that build scripts generate under the crate's kept build dirs, so
/// `mark()` says "poisoned". Commit 2 is honest (its build script writes `gen.rs` only); its job
/// must build and test its own code: the survivor died with job 1 (whose run reports it), and
/// job 2's suite records
/// `mark()` as "honest" (before, where no job cgroup existed, the survivor lived on and wrote
/// into the next job's build).
#[test]
fn h3_a_job_cannot_poison_the_next_jobs_build() {
    let Some(tmp) = common::hostile_scratch("poison").map(common::daemon_dir) else {
        return;
    };
    let marker = format!("frugal-poison-{}", secret_text());
    let repo = tmp.path().join("poison");
    let gen_honest = "    let dir = std::env::var(\"OUT_DIR\").unwrap_or_default();\n    \
        let _ = std::fs::write(format!(\"{dir}/gen.rs\"), \
        \"const MARK: &str = \\\"honest\\\";\\n\");\n";
    let honest = format!("fn main() {{\n{gen_honest}}}\n");
    let hostile = format!(
        "fn main() {{\n{gen_honest}    \
         let _ = std::fs::write(format!(\"{{dir}}/survivor-started\"), \"yes\");\n    \
         let script = concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/poison.sh\");\n    \
         let _ = std::process::Command::new(\"sh\").arg(\"-c\")\n        \
         .arg(\"setsid sh \\\"$0\\\" \\\"$1\\\" {marker} >/dev/null 2>&1 </dev/null &\")\n        \
         .arg(script).arg(&dir).status();\n}}\n"
    );
    crate_with_build_script(&repo, "poison", &hostile);
    // From OUT_DIR (`<work>/target/debug/build/poison-*/out`) up to the work dir, then for ever.
    write(
        &repo.join("poison.sh"),
        "cd \"$1/../../../../..\" || exit 0\nwhile :; do\n  \
         for f in $(find . -name gen.rs); do\n    \
         printf 'const MARK: &str = \"poisoned\";\\n' > \"$f\"\n  done\n  sleep 0.05\ndone\n",
    );
    write(
        &repo.join("src/lib.rs"),
        "include!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\n\
         pub fn mark() -> &'static str {\n    MARK\n}\n\
         pub fn shift(x: u8) -> u8 {\n    if x > 10 { x - 10 } else { x }\n}\n",
    );
    first_commit(&repo, "hostile");
    let (d, state, id) = small_jobs_daemon(tmp.path(), &repo, "poison");
    let first = triggered_run(&d, id);
    assert!(
        !find_named(&state, "survivor-started").is_empty(),
        "the hostile build script never ran: {first}"
    );
    let alive = frugal_testkit::processes(|argv| argv.iter().any(|a| contains(a, &marker)));
    let reported = first["summary"]["survivors"].as_u64().unwrap_or(0) > 0
        || first["error"].as_str().unwrap_or("").contains("outlived");
    write(&repo.join("build.rs"), &honest);
    run(git(&repo).args(["commit", "-q", "-am", "honest"])).unwrap();
    let second = triggered_run(&d, id);
    let late = frugal_testkit::processes(|argv| argv.iter().any(|a| contains(a, &marker)));
    for pid in alive.iter().chain(&late) {
        // SAFETY: kill(2) on the survivor this test's crate started; the test cleans up.
        unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
    }
    assert_eq!(alive, Vec::<u32>::new(), "the survivor outlived job 1");
    assert!(reported, "job 1 does not report its survivor: {first}");
    assert_tested_honest(&d, &second, "");
}

/// M3: frugald listens on a unix socket in its state dir; a build script that knows the path
/// connects to it and asks for the repositories. Landlock does not govern `connect()`; the
/// socket's dir is covered in the build's mount namespace, so the connection is refused and the
/// build script gets no answer (the test itself, unconfined, gets one: the control). Without a
/// mount namespace (frugald unprivileged, as the unit runs it) seccomp refuses the build script
/// a unix socket (before, it connected and frugald, which answers a process of its own jobs
/// 403, had served it the repository list).
#[test]
fn m3_a_build_script_cannot_reach_frugalds_unix_socket() {
    let Some(tmp) = common::hostile_scratch("daemon_socket").map(common::daemon_dir) else {
        return;
    };
    let state = tmp.path().join("state");
    let socket = state.join("frugald.sock");
    let repo = tmp.path().join("dialer");
    let build_rs = format!(
        "use std::io::{{Read, Write}};\n\
         fn main() {{\n    \
         let out = std::env::var(\"OUT_DIR\").unwrap_or_default();\n    \
         let said = match std::os::unix::net::UnixStream::connect({:?}) {{\n        \
         Ok(mut s) => {{\n            \
         let _ = s.write_all(b\"GET /v1/repos HTTP/1.0\\r\\n\\r\\n\");\n            \
         let mut answer = String::new();\n            \
         let _ = s.read_to_string(&mut answer);\n            \
         format!(\"connected: {{answer}}\")\n        }}\n        \
         Err(e) => format!(\"refused: {{e}}\"),\n    }};\n    \
         let _ = std::fs::write(format!(\"{{out}}/dialed\"), said);\n}}\n",
        socket.display().to_string()
    );
    crate_with_build_script(&repo, "dialer", &build_rs);
    first_commit(&repo, "dialer");
    // daemon.unix_socket, in the daemon section the test config starts with.
    let cfg = small_jobs_config(tmp.path());
    let line = format!(
        "[daemon]\nunix_socket = {:?}\n",
        socket.display().to_string()
    );
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replacen("[daemon]\n", &line, 1);
    std::fs::write(&cfg, text).unwrap();
    let d = common::start_daemon(tmp.path(), &cfg, &state, true, &[]);
    let mut control = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    std::io::Write::write_all(&mut control, b"GET /healthz HTTP/1.0\r\n\r\n").unwrap();
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut control, &mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1."), "{answer}");
    let id = common::register(&d, &repo, "dialer");
    let record = triggered_run(&d, id);
    let dialed: Vec<String> = find_named(&state, "dialed")
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    assert!(!dialed.is_empty(), "the build script never ran: {record}");
    for said in &dialed {
        assert!(
            said.starts_with("refused") && !said.contains("dialer"),
            "the build script reached frugald's socket: {dialed:?}"
        );
    }
}

/// H3 (planting): commit 1's build script, confined, dates every file of the crate's kept
/// build dirs (artifacts, fingerprints, generated `OUT_DIR` files, of every build of the job)
/// in the year 2100 and exits: nothing outlives the job. Cargo takes a unit whose fingerprint is
/// newer than its sources for fresh, so on commit 2 (honest, `mark()` says "honest") cargo
/// would reuse commit 1's compiled crate and test binaries: the job would build and test code
/// commit 1 planted. Commit 2's suite must record `mark()` as "honest", never "poisoned".
#[test]
fn h3_a_build_script_cannot_plant_in_the_kept_build_dirs() {
    let Some(tmp) = common::hostile_scratch("plant").map(common::daemon_dir) else {
        return;
    };
    let repo = tmp.path().join("plant");
    let hostile = r#"use std::path::{Path, PathBuf};

fn walk(dir: &Path, skip: &Path, when: std::time::SystemTime, n: &mut usize) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = e.path();
        if path == skip {
            continue;
        }
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(&path, skip, when, n),
            Ok(t) if t.is_file() => {
                let file = std::fs::File::options().write(true).open(&path);
                if file.and_then(|f| f.set_modified(when)).is_ok() {
                    *n += 1;
                }
            }
            _ => {}
        }
    }
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    // The crate's work dir: the first ancestor holding the snapshot (`src`) and the pipeline's
    // dir (which only its own build can list).
    let Some(base) = out
        .ancestors()
        .find(|a| a.join("src").is_dir() && a.join("pipeline").is_dir())
    else {
        return;
    };
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(4_102_444_800);
    // Each build may write its own dirs: over the job's builds, every one is reached.
    let mut n = 0;
    for dir in ["pipeline", "check", "profile-target"] {
        walk(&base.join(dir), &base.join("src"), when, &mut n);
    }
    let _ = std::fs::write(out.join("planted"), n.to_string());
}
"#;
    crate_with_build_script(&repo, "plant", hostile);
    let lib = |mark: &str| {
        format!(
            "pub fn mark() -> &'static str {{\n    \"{mark}\"\n}}\n\
             pub fn shift(x: u8) -> u8 {{\n    if x > 10 {{ x - 10 }} else {{ x }}\n}}\n"
        )
    };
    write(&repo.join("src/lib.rs"), &lib("poisoned"));
    first_commit(&repo, "hostile");
    let (d, state, id) = small_jobs_daemon(tmp.path(), &repo, "plant");
    let first = triggered_run(&d, id);
    let planted: usize = find_named(&state, "planted")
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok()?.trim().parse().ok())
        .max()
        .unwrap_or(0);
    assert!(planted > 0, "the build script planted nothing: {first}");
    write(&repo.join("build.rs"), "fn main() {}\n");
    write(&repo.join("src/lib.rs"), &lib("honest"));
    run(git(&repo).args(["commit", "-q", "-am", "honest"])).unwrap();
    let second = triggered_run(&d, id);
    assert_tested_honest(&d, &second, &format!(" ({planted} files dated 2100)"));
}

/// What building every job from empty dirs costs (`jobs.keep_builds = false`, the fix of the
/// planting above): `examples/numeric`, a first commit's job, then a second commit changing one
/// line, whose job is timed (`finished_ms - started_ms` of its run), with the build dirs kept
/// and without, alternated, three times each. A measurement, printed; run with
/// `cargo test -p frugal-e2e --test tenants -- --ignored --nocapture second_commit_job_time`.
#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn h3_second_commit_job_time_with_and_without_kept_builds() {
    let mut times: Vec<(bool, u64)> = Vec::new();
    for keep in [true, false, true, false, true, false] {
        let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
        let repo = tmp.path().join("numeric");
        frugal_testkit::example_repo("numeric", &repo).unwrap();
        let cfg = daemon_config(
            tmp.path(),
            &format!(
                "[search]\nbudget = \"2000\"\n\n[executor]\nworkers = 2\n\n\
                 [jobs]\nkeep_builds = {keep}\n"
            ),
        );
        let state = tmp.path().join("state");
        let d = common::start_daemon(tmp.path(), &cfg, &state, true, &[]);
        let id = common::register(&d, &repo, "numeric");
        let first = triggered_run(&d, id);
        assert_eq!(first["status"], "succeeded", "{first}");
        let lib = repo.join("src/lib.rs");
        let text = std::fs::read_to_string(&lib).unwrap();
        write(
            &lib,
            &format!("{text}\n/// The second commit.\npub fn second() -> u8 {{ 2 }}\n"),
        );
        run(git(&repo).args(["commit", "-q", "-am", "second"])).unwrap();
        let second = triggered_run(&d, id);
        assert_eq!(second["status"], "succeeded", "{second}");
        let ms = second["finished_ms"].as_u64().unwrap() - second["started_ms"].as_u64().unwrap();
        eprintln!("keep_builds = {keep}: second commit's job {ms} ms");
        times.push((keep, ms));
    }
    print_medians("keep_builds =", &times);
}

/// H2 where no cgroup holds a job (issue 35's fallback): frugald as root in a mount namespace
/// without `/sys/fs/cgroup`, with `jobs.uid_range`. Its report says each job runs as a uid of
/// its own; the build script of the H2 attack runs as a uid of the range (its
/// `/proc/self/status` says so, before: 0, frugald's), both its kills of frugald fail, frugald
/// serves on and the job succeeds. A replacement of the suite the job stored runs the build
/// script as a uid of the range too (before, as frugald's). Where frugald cannot set uids
/// (unprivileged), the report says the range is not used, and the kills fail all the same
/// (Landlock's signal scope).
#[test]
fn h2_without_a_job_cgroup_each_job_runs_as_a_uid_of_its_own() {
    let Some(tmp) = common::hostile_scratch("job_uid").map(common::daemon_dir) else {
        return;
    };
    // The job's uid reads the repository and reaches the state dir, as other users' repositories
    // and frugald's state dir are open to it on a shared host.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = tmp.path().join("regicide");
    crate_with_build_script(&repo, "regicide", REGICIDE);
    first_commit(&repo, "regicide");
    let cfg = daemon_config(
        tmp.path(),
        "[search]\nbudget = \"300\"\n\n[executor]\nworkers = 2\n\n\
         [jobs]\nuid_range = \"200000-200009\"\n",
    );
    let state = tmp.path().join("state");
    let mut d = common::start_daemon(tmp.path(), &cfg, &state, false, &[]);
    let log = d.log_text();
    let in_force = common::daemon_user() == common::DaemonUser::Invoker;
    if in_force {
        assert!(
            log.contains("uid per job: no writable cgroup"),
            "the report does not say jobs run as uids of their own:\n{log}"
        );
    } else {
        assert!(
            log.contains("not used: frugald cannot set uids"),
            "the report does not say why the range is not used:\n{log}"
        );
    }
    let id = common::register(&d, &repo, "regicide");
    let record = triggered_run(&d, id);
    let uids: Vec<String> = find_named(&state, "regicide-uid")
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    assert!(!uids.is_empty(), "the build script never ran: {record}");
    if in_force {
        for uid in &uids {
            let real: u32 = uid
                .split_whitespace()
                .nth(1)
                .and_then(|u| u.parse().ok())
                .unwrap_or_else(|| panic!("no uid in {uid:?}"));
            assert!(
                (200_000..=200_009).contains(&real),
                "the build script ran as uid {real}, not one of the range: {uids:?}"
            );
        }
    }
    assert_regicide_failed(&mut d, &state, &record);
    if in_force {
        let uids = replacement_build_script_uids(&d, id);
        assert!(
            uids.iter().all(|u| (200_000..=200_009).contains(u)),
            "the replacement's build script ran as {uids:?}, not as a uid of the range"
        );
    }
}

/// Asks for a replacement of repository `id`'s suite and, until it is ready, reads the uid of
/// every build script of a replacement (`OUT_DIR` under `replace-work`) in `/proc`.
fn replacement_build_script_uids(d: &Daemon, id: u64) -> std::collections::BTreeSet<u32> {
    let route = format!("/v1/repos/{id}/replacement?metric=cpu");
    let posted = d.post(&route, Some(&d.token), "").unwrap();
    assert_eq!(posted.status, 202, "{}", posted.body);
    let mut uids = std::collections::BTreeSet::new();
    let ready = wait_for(
        "the replacement",
        Duration::from_secs(240),
        Duration::from_millis(100),
        || {
            uids.extend(replacement_build_scripts());
            let a = d.get(&route)?;
            Ok((a.status == 200).then(|| a.json()))
        },
    )
    .unwrap();
    assert!(
        !uids.is_empty(),
        "no build script of the replacement was seen: {ready}\n{}",
        d.log_text()
    );
    uids
}

/// The real uids of the build scripts running for a replacement now.
fn replacement_build_scripts() -> Vec<u32> {
    let procs = std::fs::read_dir("/proc").into_iter().flatten().flatten();
    procs
        .filter_map(|e| {
            let dir = e.path();
            let comm = std::fs::read_to_string(dir.join("comm")).ok()?;
            let environ = std::fs::read(dir.join("environ")).ok()?;
            let ours = comm.trim() == "build-script-bu"
                && String::from_utf8_lossy(&environ)
                    .split('\0')
                    .any(|v| v.starts_with("OUT_DIR=") && v.contains("replace-work"));
            let status = std::fs::read_to_string(dir.join("status")).ok()?;
            let uid = status.lines().find(|l| l.starts_with("Uid:"))?;
            ours.then(|| uid.split_whitespace().nth(1)?.parse().ok())?
        })
        .collect()
}

/// What a uid per job costs (its writable dirs handed to it before each spawn): a job on
/// `examples/numeric` by frugald as root without cgroups, with `jobs.uid_range` and without,
/// alternated, three of each, timed by its run. A measurement, printed; run with
/// `cargo test -p frugal-e2e --test tenants -- --ignored --nocapture uid_per_job_time`.
#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn h2_uid_per_job_time() {
    let mut times: Vec<(bool, u64)> = Vec::new();
    for uids in [true, false, true, false, true, false] {
        let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
        let repo = tmp.path().join("numeric");
        frugal_testkit::example_repo("numeric", &repo).unwrap();
        let range = if uids {
            "uid_range = \"200000-200009\"\n"
        } else {
            ""
        };
        let cfg = daemon_config(
            tmp.path(),
            &format!("[search]\nbudget = \"2000\"\n\n[executor]\nworkers = 2\n\n[jobs]\n{range}"),
        );
        let state = tmp.path().join("state");
        let d = common::start_daemon(tmp.path(), &cfg, &state, false, &[]);
        let id = common::register(&d, &repo, "numeric");
        let run = triggered_run(&d, id);
        assert_eq!(run["status"], "succeeded", "{run}\n{}", d.log_text());
        let ms = run["finished_ms"].as_u64().unwrap() - run["started_ms"].as_u64().unwrap();
        eprintln!("uid per job {uids}: job {ms} ms");
        times.push((uids, ms));
    }
    print_medians("uid per job", &times);
}

/// Prints the times of a measurement by side (`true`, then `false`), sorted, with the median.
fn print_medians(label: &str, times: &[(bool, u64)]) {
    for side in [true, false] {
        let mut t: Vec<u64> = times
            .iter()
            .filter(|(s, _)| *s == side)
            .map(|(_, t)| *t)
            .collect();
        t.sort_unstable();
        eprintln!("{label} {side}: {t:?} ms, median {} ms", t[t.len() / 2]);
    }
}

/// A crate whose committed `.cargo/config.toml` names a `rustc-wrapper` that appends to
/// `marker` (a file anyone may write, outside the repository and the job's dirs) and then runs
/// rustc.
fn crate_with_rustc_wrapper(dir: &Path, marker: &Path) {
    write(
        &dir.join("Cargo.toml"),
        "[package]\nname = \"wrapped\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&dir.join("src/lib.rs"), "pub fn f(x: u8) -> u8 { x }\n");
    let wrapper = dir.join("wrap.sh");
    executable(
        &wrapper,
        &format!(
            "#!/bin/sh\necho \"$(id -u) $PWD\" >> {} 2>/dev/null\nexec \"$@\"\n",
            marker.display()
        ),
    );
    write(
        &dir.join(".cargo/config.toml"),
        "[build]\nrustc-wrapper = \"./wrap.sh\"\n",
    );
    first_commit(dir, "a rustc wrapper in the crate's cargo config");
}

/// The repository's cargo config is the crate's code too: a `rustc-wrapper` it names is met
/// only inside the job's sandbox, never in the cargo commands frugald runs unconfined
/// (`cargo metadata --no-deps` in the snapshot, `cargo fetch` from `/`). The wrapper appends to
/// a world-writable marker outside the job's dirs: unconfined, it would; confined, the build
/// meets it and is refused its execution (`Permission denied` on the copy of `wrap.sh`), and
/// the job fails naming it.
/// The control: a full `cargo metadata` on the same crate, which asks rustc for the target's
/// `cfg` through the wrapper, writes the marker, so the wrapper is found and runs.
#[test]
fn c2_a_rustc_wrapper_in_the_repository_cargo_config_runs_only_confined() {
    let Some(tmp) = common::hostile_scratch("rustc_wrapper").map(common::daemon_dir) else {
        return;
    };
    let open = tmp.path().join("open");
    std::fs::create_dir_all(&open).unwrap();
    std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let marker = open.join("wrapper-ran");
    let repo = tmp.path().join("wrapped");
    crate_with_rustc_wrapper(&repo, &marker);
    let (d, _, id) = small_jobs_daemon(tmp.path(), &repo, "wrapped");
    let record = triggered_run(&d, id);
    drop(d);
    let ran = std::fs::read_to_string(&marker).unwrap_or_default();
    assert_eq!(ran, "", "the wrapper ran outside the sandbox: {record}");
    // The job went through the unconfined commands to the confined build, which met the
    // wrapper and was refused its execution.
    let error = record["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("instrumented crate does not build") && error.contains("wrap.sh"),
        "{record}"
    );

    let control = Command::new("cargo")
        .args(["metadata", "--format-version", "1"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(
        control.status.success(),
        "{}",
        String::from_utf8_lossy(&control.stderr)
    );
    let ran = std::fs::read_to_string(&marker).unwrap_or_default();
    assert!(!ran.is_empty(), "the control's wrapper did not run");
}
