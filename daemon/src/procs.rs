//! Finding and killing the processes of one job where it has no cgroup of its own (with one,
//! the runner kills the job's cgroup whole, and this finds nothing left).
//!
//! Only frugald's own descendants are ever signalled: every process a job starts is one, and
//! so is every orphan it leaves (frugald is a subreaper, so they are adopted by it, not by
//! init). A process someone else started (an operator's shell in a job's work dir, a `tail` of
//! a job's log, another tenant's process naming the dir) is never a candidate, whatever its
//! working directory or arguments say, and neither is its session or group.
//!
//! Several jobs may run at once, so among the descendants a job's are told apart by where they
//! work: every process a job starts (git on its snapshot, cargo, rustc, build scripts, the
//! harness, tests) has its working directory or an open file under the job's directories. Each
//! such process takes its session (sandboxed trees lead their own) or process group (git,
//! plain cargo lead theirs) and its descendants along; frugald's own session and group are
//! never signalled as a whole. A descendant's session or group holds only descendants: a
//! session is made by the process that leads it, and a group joined only within its session.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// One entry of `/proc`.
#[derive(Clone, Debug)]
struct Proc {
    pid: i32,
    ppid: i32,
    pgrp: i32,
    sid: i32,
}

/// `ppid`, `pgrp` and `session` from `/proc/<pid>/stat` (the command name may hold spaces and
/// parentheses, so fields are counted from the last `)`); `None` for a zombie, which holds
/// nothing any more and only waits for its parent.
fn stat(pid: i32) -> Option<Proc> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = text.get(text.rfind(')')? + 2..)?;
    if rest.starts_with('Z') {
        return None;
    }
    let mut f = rest.split(' ').skip(1).map(|v| v.parse::<i32>().ok());
    Some(Proc {
        pid,
        ppid: f.next()??,
        pgrp: f.next()??,
        sid: f.next()??,
    })
}

/// Whether `pid` is frugald's own descendant (a job's process, or an orphan of one that
/// frugald adopted as a subreaper); `None` when it, or a process between it and frugald, is
/// gone or a zombie, so its line cannot be told.
pub fn descends_from_frugald(pid: i32) -> Option<bool> {
    let me = std::process::id() as i32;
    let mut at = pid;
    // A parent's pid is never larger than the pids a chain may hold; the bound only guards
    // against a loop of recycled pids.
    for _ in 0..4096 {
        if at == me {
            return Some(true);
        }
        if at <= 1 {
            return Some(false);
        }
        at = stat(at)?.ppid;
    }
    None
}

fn all_procs() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .collect()
}

/// Whether the process works under one of `dirs`: its working directory, or a file it holds
/// open (a survivor that moved its working directory away may still write through one). Never
/// its arguments: anyone can name a dir in them.
fn works_under(pid: i32, dirs: &[PathBuf]) -> bool {
    let under = |p: &Path| dirs.iter().any(|d| p.starts_with(d));
    if std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| under(&cwd)) {
        return true;
    }
    std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
        fds.flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|p| under(&p)))
    })
}

/// The processes of one job: their pids, and the process groups they lead or belong to.
struct JobProcs {
    pids: HashSet<i32>,
    groups: HashSet<i32>,
}

/// The pids of every process working under `dirs`, with their sessions, groups and
/// descendants; frugald itself, its session and its group excluded.
fn job_pids(dirs: &[PathBuf]) -> JobProcs {
    let me = std::process::id() as i32;
    let procs = all_procs();
    let own = procs.iter().find(|p| p.pid == me).cloned();
    let (own_sid, own_pgrp) = own.map_or((-1, -1), |p| (p.sid, p.pgrp));
    let ours = descendants(&procs, me);
    let procs: Vec<Proc> = procs
        .into_iter()
        .filter(|p| ours.contains(&p.pid))
        .collect();
    let mut marked: HashSet<i32> = procs
        .iter()
        .filter(|p| works_under(p.pid, dirs))
        .map(|p| p.pid)
        .collect();
    let sids: HashSet<i32> = procs
        .iter()
        .filter(|p| marked.contains(&p.pid) && p.sid != own_sid && p.sid > 1)
        .map(|p| p.sid)
        .collect();
    let pgrps: HashSet<i32> = procs
        .iter()
        .filter(|p| marked.contains(&p.pid) && p.pgrp != own_pgrp && p.pgrp > 1)
        .map(|p| p.pgrp)
        .collect();
    marked.extend(
        procs
            .iter()
            .filter(|p| sids.contains(&p.sid) || pgrps.contains(&p.pgrp))
            .map(|p| p.pid),
    );
    loop {
        let more: Vec<i32> = procs
            .iter()
            .filter(|p| !marked.contains(&p.pid) && marked.contains(&p.ppid))
            .map(|p| p.pid)
            .collect();
        if more.is_empty() {
            break;
        }
        marked.extend(more);
    }
    marked.remove(&me);
    let groups = procs
        .iter()
        .filter(|p| marked.contains(&p.pid) && p.pgrp != own_pgrp && p.pgrp > 1)
        .map(|p| p.pgrp)
        .collect();
    JobProcs {
        pids: marked,
        groups,
    }
}

/// Every process below `root` in the parent tree (`root` itself not included).
fn descendants(procs: &[Proc], root: i32) -> HashSet<i32> {
    let mut found: HashSet<i32> = HashSet::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for p in procs.iter().filter(|p| p.ppid == parent && p.pid != root) {
            if found.insert(p.pid) {
                frontier.push(p.pid);
            }
        }
    }
    found
}

/// SIGKILLs every process of the job working under `dirs` (see the module doc); returns how
/// many were signalled. Processes that are already gone are not an error.
pub fn kill_under(dirs: &[PathBuf]) -> usize {
    let JobProcs { pids, groups } = job_pids(dirs);
    // A group dies at once; killed one by one, a parent could run between two kills and react
    // to its children's deaths (exit normally, or start another).
    for group in &groups {
        // SAFETY: kill(2) with a negated process group id read from /proc.
        unsafe { libc::kill(-*group, libc::SIGKILL) };
    }
    for pid in &pids {
        // SAFETY: kill(2) on a pid read from /proc; a pid that is gone yields ESRCH.
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    pids.len()
}

/// How many processes work under `dirs` (for tests and the soak's leak count).
pub fn count_under(dirs: &[PathBuf]) -> usize {
    job_pids(dirs).pids.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;
    use std::time::{Duration, Instant};

    #[test]
    fn a_grandchild_descends_from_us_and_init_and_the_gone_do_not() {
        // sh's child `sleep` is our grandchild.
        let mut sh = Command::new("sh")
            .args(["-c", "sleep 30 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(sh.stdout.as_mut().unwrap()),
            &mut line,
        )
        .unwrap();
        let grandchild: i32 = line.trim().parse().unwrap();
        assert_eq!(descends_from_frugald(grandchild), Some(true));
        assert_eq!(descends_from_frugald(1), Some(false));
        // SAFETY: kill(2) on the grandchild this test started.
        unsafe { libc::kill(grandchild, libc::SIGKILL) };
        sh.wait().unwrap();
        let gone = grandchild;
        assert_ne!(descends_from_frugald(gone), Some(true));
    }

    #[test]
    fn a_tree_working_under_the_dirs_is_killed_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("work");
        std::fs::create_dir_all(&job).unwrap();
        // A session of its own with a grandchild that works elsewhere, as a sandboxed tree.
        let mut inside = Command::new("sh");
        inside
            .args(["-c", "sleep 60 & cd / && sleep 60 & wait"])
            .current_dir(&job)
            .process_group(0);
        let mut inside = inside.spawn().unwrap();
        let mut outside = Command::new("sleep").arg("60").spawn().unwrap();
        let dirs = vec![job.clone()];
        let t = Instant::now();
        while count_under(&dirs) < 3 && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(kill_under(&dirs) >= 3);
        assert!(
            inside.wait().unwrap().code().is_none(),
            "killed by a signal"
        );
        let t = Instant::now();
        while count_under(&dirs) > 0 && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(count_under(&dirs), 0, "the whole group is gone");
        assert!(outside.try_wait().unwrap().is_none(), "others live on");
        outside.kill().unwrap();
        outside.wait().unwrap();
    }

    /// An operator's `tail -f` of a job's log in the job's work dir, in a session of its own, started by someone else (here: double-forked away from this process, so init or
    /// another reaper adopts it): the time cap's kill leaves it and its session alone.
    #[test]
    fn a_process_someone_else_started_under_the_dirs_lives_on() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("work");
        std::fs::create_dir_all(&job).unwrap();
        let log = job.join("job.log");
        std::fs::write(&log, "").unwrap();
        let pid_file = dir.path().join("operator.pid");
        // `tail -f` of the job's log, from inside the job's dir.
        let script = format!(
            "cd '{}' && (setsid sh -c 'echo $$ > {}; exec tail -f {}' &) ",
            job.display(),
            pid_file.display(),
            log.display()
        );
        let status = Command::new("sh").args(["-c", &script]).status().unwrap();
        assert!(status.success());
        let t = Instant::now();
        let pid = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
                .filter(|&p| stat(p).is_some_and(|s| s.ppid != std::process::id() as i32))
            {
                break pid;
            }
            assert!(t.elapsed() < Duration::from_secs(5), "no operator process");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(works_under(pid, std::slice::from_ref(&job)));
        assert_eq!(kill_under(std::slice::from_ref(&job)), 0);
        std::thread::sleep(Duration::from_millis(100));
        assert!(stat(pid).is_some(), "the operator's process was killed");
        // SAFETY: kill(2) on the pid the process wrote; it is this test's to clean up.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}
