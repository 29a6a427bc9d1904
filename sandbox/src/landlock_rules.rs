//! The Landlock ruleset: built in the parent, enforced in the child.
//!
//! We ask the kernel for exactly the access rights its ABI knows, with the crate's
//! hard-requirement mode, so the ruleset is either fully enforced or an error: there is
//! no silent best-effort downgrade left to detect.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};

use crate::Error;

/// The Landlock ABI of the running kernel, `None` when Landlock is absent or disabled.
pub(crate) fn kernel_abi() -> Option<i32> {
    // SAFETY: the version query takes no attribute pointer and returns an int.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    if v > 0 { i32::try_from(v).ok() } else { None }
}

/// Builds the ruleset for the given read-only and writable paths (and no TCP unless `tcp`) and
/// returns its
/// descriptor (close-on-exec, so it never reaches the confined program). `Ok(None)` when the
/// kernel has no Landlock. Paths that do not exist are skipped (a system without
/// `/lib64` is normal).
pub(crate) fn build(
    readable: &[PathBuf],
    writable: &[PathBuf],
    tcp: bool,
) -> Result<Option<OwnedFd>, Error> {
    let Some(abi_num) = kernel_abi() else {
        return Ok(None);
    };
    let abi = ABI::from(abi_num);

    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))?;
    if abi >= ABI::V4 && !tcp {
        // Handled with no rule: every TCP bind and connect is refused.
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    if abi >= ABI::V6 {
        // No signals to, and no abstract UNIX sockets of, processes outside the job.
        ruleset = ruleset.scope(Scope::from_all(abi))?;
    }
    let mut created = ruleset.create()?;
    for path in readable {
        created = add_path(created, path, AccessFs::from_read(abi), abi)?;
    }
    for path in writable {
        created = add_path(created, path, AccessFs::from_all(abi), abi)?;
    }
    let fd: Option<OwnedFd> = created.into();
    fd.map(move_high).transpose()
}

/// The lowest descriptor a ruleset may sit at in the parent, and so in the child until it
/// restricts itself. A caller's own `pre_exec` may place descriptors at small fixed numbers
/// (`dup2` to 3 and 4, as the executor does); a ruleset created while those were free would be
/// overwritten there, and `landlock_restrict_self` would fail with EBADFD.
const RULESET_FD_MIN: libc::c_int = 64;

fn move_high(fd: OwnedFd) -> Result<OwnedFd, Error> {
    use std::os::fd::{AsRawFd, FromRawFd};
    // SAFETY: duplicates a descriptor we own; the result is ours alone.
    let high = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, RULESET_FD_MIN) };
    if high < 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    // SAFETY: `high` is a fresh descriptor nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(high) })
}

fn add_path(
    created: landlock::RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
    abi: ABI,
) -> Result<landlock::RulesetCreated, Error> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(created);
    };
    // Directory-only rights on a file would be refused in hard-requirement mode.
    let access = if meta.is_dir() {
        access
    } else {
        access & AccessFs::from_file(abi)
    };
    let fd = PathFd::new(path).map_err(|source| Error::LandlockPath {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(created.add_rule(PathBeneath::new(fd, access))?)
}

/// Enforces the ruleset on the calling thread. Async-signal-safe: one system call.
/// `PR_SET_NO_NEW_PRIVS` must already be set.
pub(crate) fn restrict_self(fd: &OwnedFd) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: `fd` is a live Landlock ruleset descriptor; flags 0.
    let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;

    use super::*;

    #[test]
    fn the_ruleset_sits_above_the_descriptors_callers_place() {
        let Ok(Some(fd)) = build(&[PathBuf::from("/")], &[], false) else {
            return; // no Landlock on this kernel: nothing to place
        };
        assert!(fd.as_raw_fd() >= RULESET_FD_MIN, "{}", fd.as_raw_fd());
    }
}
