//! What the child does between `fork` and `exec`.
//!
//! Everything here runs in a forked copy of a possibly multi-threaded parent, so it
//! must be async-signal-safe: plain system calls on data prepared by the parent, no
//! allocation, no locks.

use std::ffi::CString;
use std::io;
use std::os::fd::OwnedFd;

use crate::hide::HidePlan;
use crate::landlock_rules;
use crate::seccomp::Program;

/// Everything the child needs, prepared in the parent.
pub(crate) struct Plan {
    pub cgroup_procs: Vec<CString>,
    pub rlimits: Vec<(libc::__rlimit_resource_t, libc::rlimit)>,
    pub new_netns: bool,
    /// A private mount namespace hiding socket dirs, where the parent found one possible.
    pub hide: Option<HidePlan>,
    pub drop_caps_upto: Option<libc::c_ulong>,
    /// The job's own uid and gid, taken once capabilities are dropped (the job's scope's).
    pub run_as: Option<(libc::uid_t, libc::gid_t)>,
    pub landlock: Option<OwnedFd>,
    pub seccomp: Option<Program>,
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

impl Plan {
    /// Enters the confinement. Order matters: joining cgroups, a network namespace and the
    /// mounts that hide socket dirs still need privileges, dropping capabilities must come after both, and
    /// Landlock and seccomp need `no_new_privs` first.
    pub(crate) fn enter(&self) -> io::Result<()> {
        self.join_cgroups()?;
        // SAFETY (all blocks below): plain system calls on parent-prepared data.
        check(unsafe { libc::setsid() })?;
        if self.new_netns {
            // Best effort: without it the seccomp and Landlock layers still refuse
            // inet sockets; Capabilities reports whether it works here.
            unsafe { libc::unshare(libc::CLONE_NEWNET) };
        }
        if let Some(hide) = &self.hide {
            // The parent probed that it works here: failing now is an error, not a fallback.
            check(unsafe { libc::unshare(libc::CLONE_NEWNS) })?;
            hide.apply()?;
        }
        for (resource, limit) in &self.rlimits {
            check(unsafe { libc::setrlimit(*resource, limit) })?;
        }
        self.drop_capabilities()?;
        if let Some((uid, gid)) = self.run_as {
            // Groups first: once the uid is not 0, no capability is left to change them.
            check(unsafe { libc::setgroups(0, std::ptr::null()) })?;
            check(unsafe { libc::setresgid(gid, gid, gid) })?;
            check(unsafe { libc::setresuid(uid, uid, uid) })?;
        }
        check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
        if let Some(fd) = &self.landlock {
            landlock_rules::restrict_self(fd)?;
        }
        if let Some(program) = &self.seccomp {
            program.install()?;
        }
        Ok(())
    }

    fn join_cgroups(&self) -> io::Result<()> {
        for path in &self.cgroup_procs {
            // SAFETY: `path` is a NUL-terminated string owned by the plan.
            let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
            check(fd)?;
            // "0" means the writing process itself.
            let n = unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) };
            let err = io::Error::last_os_error();
            unsafe { libc::close(fd) };
            if n != 1 {
                return Err(err);
            }
        }
        Ok(())
    }

    /// Running as root, the child keeps uid 0 (it must own the job's files; unless the job has
    /// a uid of its own, taken right after this) but loses every capability: no bounding set,
    /// no ambient set, so nothing comes back at exec.
    fn drop_capabilities(&self) -> io::Result<()> {
        let Some(last) = self.drop_caps_upto else {
            return Ok(());
        };
        for cap in 0..=last {
            // SAFETY: prctl on the calling thread's own capability sets.
            check(unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) })?;
        }
        check(unsafe {
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            )
        })?;
        Ok(())
    }
}
