//! The seccomp filter: compiled in the parent, installed in the child.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Socket families a confined process may not create. AF_UNIX stays allowed: cargo,
/// rustc and test harnesses use it locally.
const DENIED_FAMILIES: [libc::c_int; 4] = [
    libc::AF_INET,
    libc::AF_INET6,
    libc::AF_NETLINK,
    libc::AF_PACKET,
];

/// A compiled filter in the kernel's own instruction layout, ready for `seccomp(2)`.
pub(crate) struct Program {
    filter: Vec<libc::sock_filter>,
}

impl Program {
    /// Refuses `socket()` for the network families with `EACCES`, and `io_uring_setup`
    /// with `EPERM`-like `EACCES` too, since io_uring can create sockets without the
    /// `socket` system call. Other architectures than the filter's are killed by the
    /// filter's own architecture check (so no 32-bit `socketcall` detour).
    pub(crate) fn deny_network() -> Result<Program, seccompiler::BackendError> {
        let arch = TargetArch::try_from(std::env::consts::ARCH)?;
        let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        let mut socket_rules = Vec::new();
        for family in DENIED_FAMILIES {
            let family = u64::try_from(family).unwrap_or_default();
            let cond = SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, family)?;
            socket_rules.push(SeccompRule::new(vec![cond])?);
        }
        rules.insert(libc::SYS_socket, socket_rules);
        // An empty rule list matches the system call whatever its arguments.
        rules.insert(libc::SYS_io_uring_setup, Vec::new());
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EACCES as u32),
            arch,
        )?;
        let bpf: BpfProgram = filter.try_into()?;
        let filter = bpf
            .into_iter()
            .map(|i| libc::sock_filter {
                code: i.code,
                jt: i.jt,
                jf: i.jf,
                k: i.k,
            })
            .collect();
        Ok(Program { filter })
    }

    /// Installs the filter on the calling thread. Async-signal-safe: no allocation,
    /// one system call. `PR_SET_NO_NEW_PRIVS` must already be set.
    pub(crate) fn install(&self) -> std::io::Result<()> {
        let prog = libc::sock_fprog {
            len: self.filter.len() as libc::c_ushort,
            filter: self.filter.as_ptr() as *mut libc::sock_filter,
        };
        // SAFETY: `prog` points to a live, well-formed BPF program for the whole call.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0,
                &prog as *const libc::sock_fprog,
            )
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

/// Whether this kernel has seccomp filters at all (`PR_GET_SECCOMP` answers).
pub(crate) fn available() -> bool {
    // SAFETY: PR_GET_SECCOMP only reads the calling thread's mode.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP) >= 0 }
}
