//! The uids of `jobs.uid_range`, where a uid per job is in force (frugald root, no job cgroup):
//! every job and every replacement computation in flight holds one of its own ([`UidLease`]), so
//! none can signal frugald or another. A lease ends when it is dropped: with the job's
//! `InFlight` (after its processes are torn down) or when the computation ends.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The range and the uids held. Cheap to clone: clones share the held set.
#[derive(Clone, Debug, Default)]
pub struct JobUids {
    range: Option<(u32, u32)>,
    held: Arc<Mutex<BTreeSet<u32>>>,
}

/// One uid, held until dropped.
#[derive(Debug)]
pub struct UidLease {
    uid: u32,
    held: Arc<Mutex<BTreeSet<u32>>>,
}

/// Every uid of the range is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllHeld;

impl JobUids {
    /// `range`: the first and last uid, or `None` where no uid per job is in force.
    pub fn new(range: Option<(u32, u32)>) -> JobUids {
        JobUids {
            range,
            held: Arc::default(),
        }
    }

    /// The lowest uid of the range nobody holds: `Ok(None)` without a range.
    pub fn lease(&self) -> Result<Option<UidLease>, AllHeld> {
        let Some((first, last)) = self.range else {
            return Ok(None);
        };
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let uid = (first..=last).find(|u| !held.contains(u)).ok_or(AllHeld)?;
        held.insert(uid);
        Ok(Some(UidLease {
            uid,
            held: self.held.clone(),
        }))
    }

    /// [`JobUids::lease`], waiting up to `patience` for a uid to come free.
    pub fn lease_within(&self, patience: Duration) -> Result<Option<UidLease>, AllHeld> {
        let began = Instant::now();
        loop {
            match self.lease() {
                Err(AllHeld) if began.elapsed() < patience => {
                    std::thread::sleep(Duration::from_millis(250));
                }
                got => return got,
            }
        }
    }
}

impl UidLease {
    /// The uid (and gid: the same number) to run as.
    pub fn uid(&self) -> u32 {
        self.uid
    }
}

impl Drop for UidLease {
    fn drop(&mut self) {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.uid);
    }
}

impl std::fmt::Display for AllHeld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("every uid of jobs.uid_range is held by a job or a replacement in flight")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_holder_gets_a_uid_no_other_has_until_it_lets_go() {
        assert!(JobUids::new(None).lease().unwrap().is_none());
        let uids = JobUids::new(Some((200_000, 200_002)));
        let a = uids.lease().unwrap().unwrap();
        let b = uids.clone().lease().unwrap().unwrap();
        let c = uids.lease().unwrap().unwrap();
        assert_eq!([a.uid(), b.uid(), c.uid()], [200_000, 200_001, 200_002]);
        assert_eq!(uids.lease().unwrap_err(), AllHeld);
        drop(b);
        let b = uids.lease().unwrap().unwrap();
        assert_eq!(b.uid(), 200_001);
        let waited = uids.lease_within(Duration::from_millis(300));
        assert_eq!(waited.unwrap_err(), AllHeld);
    }
}
