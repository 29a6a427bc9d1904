//! Optional subreaper mode for the calling process.
//!
//! With job cgroups, every process of a job is found and killed wherever it was
//! re-parented, so this is not needed. Without cgroups, making the daemon a subreaper
//! keeps orphans of its jobs from drifting to init, at a price: the daemon becomes
//! their parent and must reap them, or they stay zombies.

/// Makes the calling process adopt orphaned descendants (`PR_SET_CHILD_SUBREAPER`).
/// The caller must then call [`reap_orphans`] regularly.
pub fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: prctl on the calling process's own attribute.
    let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Reaps zombie children of this process for which `spawned_by_caller(pid)` is false,
/// i.e. adopted orphans, and leaves the caller's own children to whoever waits for them
/// (a blind `waitpid(-1)` would steal their exit status from `std::process::Child`).
/// Returns how many were reaped.
pub fn reap_orphans(spawned_by_caller: impl Fn(u32) -> bool) -> usize {
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut reaped = 0;
    for pid in entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
    {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').and_then(|i| stat.get(i + 2..)) else {
            continue;
        };
        let mut fields = rest.split(' ');
        let zombie = fields.next() == Some("Z");
        let ppid: Option<i32> = fields.next().and_then(|p| p.parse().ok());
        if zombie && ppid == Some(me) && !spawned_by_caller(pid as u32) {
            let mut status = 0;
            // SAFETY: reaps one specific zombie child.
            if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
                reaped += 1;
            }
        }
    }
    reaped
}
