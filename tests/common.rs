//! What the hostile-crate tests share.

#![allow(dead_code)] // Each test file uses a different subset.

/// Hostile crates run only where the sandbox can hold them (files and network confined): on
/// another host the test says why and stops, rather than run them with root's rights.
pub fn sandbox_holds(test: &str) -> bool {
    let caps = frugal_sandbox::Capabilities::probe();
    if caps.fs_confined() && caps.net_confined() {
        return true;
    }
    eprintln!(
        "{test}: SKIPPED: this host cannot confine hostile code: {}",
        caps.report().join("; ")
    );
    false
}

/// A scratch dir under cargo's target dir for the hostile-crate test `test`, or `None` (the
/// reason printed) where the sandbox cannot hold hostile code.
pub fn hostile_scratch(test: &str) -> Option<tempfile::TempDir> {
    if !sandbox_holds(test) {
        return None;
    }
    let dir = tempfile::Builder::new()
        .prefix(test)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a scratch dir in the target dir");
    Some(dir)
}

/// Registers `repo` with one crate `krate` at its root; returns the repository id.
pub fn register(d: &frugal_testkit::Daemon, repo: &std::path::Path, krate: &str) -> u64 {
    let body = serde_json::json!({"path": repo, "crates": [{"name": krate, "dir": ""}]});
    let r = d
        .post("/v1/repos", Some(&d.token), &body.to_string())
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_u64().unwrap()
}
