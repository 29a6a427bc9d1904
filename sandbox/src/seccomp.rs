//! The seccomp filter: compiled in the parent, installed in the child.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The one socket family a confined process may create: cargo, rustc and test harnesses use
/// unix sockets locally. Every other is refused: inet, netlink and packet reach the network or
/// the kernel's configuration, and the rest (`AF_SMC`, which falls back to TCP, `AF_VSOCK`, which
/// reaches the hypervisor, `AF_BLUETOOTH`, `AF_CAN`, `AF_XDP`, `AF_ALG`, ...) nothing a build or
/// a test needs; an allow-list also covers families a newer kernel adds.
const ALLOWED_FAMILY: libc::c_int = libc::AF_UNIX;

/// `__X32_SYSCALL_BIT`: on x86_64, system call numbers with it set are the x32 ABI's. They pass
/// the architecture check (x32 shares `AUDIT_ARCH_X86_64`) under other numbers than the rules
/// name, so a rule on `socket` would not see x32's `socket`.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// A compiled filter in the kernel's own instruction layout, ready for `seccomp(2)`.
pub(crate) struct Program {
    filter: Vec<libc::sock_filter>,
}

impl Program {
    /// Refuses `socket()` and `socketpair()` for every family but `AF_UNIX` with `EACCES`,
    /// `io_uring_setup` with `EACCES` too, since io_uring can create sockets without the `socket`
    /// system call, and on x86_64 every x32 system call number with `EACCES`. Other
    /// architectures than the filter's are killed by the filter's own architecture check (so no
    /// 32-bit `socketcall` detour).
    pub(crate) fn deny_network() -> Result<Program, seccompiler::BackendError> {
        Program::deny_sockets_but(&[ALLOWED_FAMILY], &[ALLOWED_FAMILY])
    }

    /// [`Program::deny_network`], and `socket()` refused for `AF_UNIX` too: where no mount
    /// namespace hides the socket files of the host (M3), a unix socket of one's own is the
    /// only way to `connect()` to one, which Landlock does not govern. `socketpair()` still
    /// makes connected pairs, which reach nothing outside the process tree.
    pub(crate) fn deny_network_and_unix_sockets() -> Result<Program, seccompiler::BackendError> {
        Program::deny_sockets_but(&[], &[ALLOWED_FAMILY])
    }

    /// [`Program::deny_network`] with `AF_INET` and `AF_INET6` allowed as well: for `cargo
    /// fetch`, which needs the network and runs cargo's own code only.
    pub(crate) fn deny_sockets_but_inet() -> Result<Program, seccompiler::BackendError> {
        let families = [ALLOWED_FAMILY, libc::AF_INET, libc::AF_INET6];
        Program::deny_sockets_but(&families, &families)
    }

    /// Refuses `socket()` for every family not in `socket` and `socketpair()` for every family
    /// not in `pair` (per call one rule whose conditions all hold: the family is none of them;
    /// no rule at all where none is allowed), and the rest as [`Program::deny_network`].
    fn deny_sockets_but(
        socket: &[libc::c_int],
        pair: &[libc::c_int],
    ) -> Result<Program, seccompiler::BackendError> {
        let arch = TargetArch::try_from(std::env::consts::ARCH)?;
        let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        let other_family =
            |families: &[libc::c_int]| -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
                if families.is_empty() {
                    // An empty rule list matches the system call whatever its arguments.
                    return Ok(Vec::new());
                }
                let conds = families
                    .iter()
                    .map(|&f| {
                        let family = u64::try_from(f).unwrap_or_default();
                        SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(vec![SeccompRule::new(conds)?])
            };
        rules.insert(libc::SYS_socket, other_family(socket)?);
        rules.insert(libc::SYS_socketpair, other_family(pair)?);
        rules.insert(libc::SYS_io_uring_setup, Vec::new());
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EACCES as u32),
            arch,
        )?;
        let bpf: BpfProgram = filter.try_into()?;
        let mut filter: Vec<libc::sock_filter> = deny_x32();
        filter.extend(bpf.into_iter().map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        }));
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

/// Instructions put before the compiled filter (its jumps are relative, so they still land):
/// an x32 system call number gets `EACCES` before any rule is looked at.
#[cfg(target_arch = "x86_64")]
fn deny_x32() -> Vec<libc::sock_filter> {
    let stmt = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    vec![
        // A = seccomp_data.nr (offset 0).
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0),
        // nr >= the x32 bit: fall through to the refusal; else skip it.
        libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        stmt(
            libc::BPF_RET | libc::BPF_K,
            libc::SECCOMP_RET_ERRNO | libc::EACCES as u32,
        ),
    ]
}

#[cfg(not(target_arch = "x86_64"))]
fn deny_x32() -> Vec<libc::sock_filter> {
    Vec::new()
}

/// Whether this kernel has seccomp filters at all (`PR_GET_SECCOMP` answers).
pub(crate) fn available() -> bool {
    // SAFETY: PR_GET_SECCOMP only reads the calling thread's mode.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP) >= 0 }
}
