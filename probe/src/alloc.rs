//! A counting global allocator for harness binaries: heap allocations per test feed the
//! object-instantiation proxy, and a per-test byte ceiling turns memory bombs into a clean
//! allocation failure instead of the machine's OOM killer.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static CEILING: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Off while the harness itself works (summaries, bookkeeping), so counts are the test's own.
static COUNTING: AtomicBool = AtomicBool::new(true);

/// Wraps the system allocator. Install it with `#[global_allocator]` in the harness binary.
pub struct CountingAlloc;

// SAFETY: every call is forwarded to `System` unchanged; the wrapper only counts, and refuses
// (returns null, which the caller must handle) above the ceiling.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && !admit(new_size - layout.size()) {
            return std::ptr::null_mut();
        }
        if new_size < layout.size() {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn admit(size: usize) -> bool {
    let live = LIVE.fetch_add(size, Relaxed) + size;
    if live > CEILING.load(Relaxed) {
        LIVE.fetch_sub(size, Relaxed);
        return false;
    }
    if COUNTING.load(Relaxed) {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(size as u64, Relaxed);
    }
    true
}

/// Stops counting allocations (the ceiling still applies) until [`resume`].
pub fn pause() {
    COUNTING.store(false, Relaxed);
}

/// Counts allocations again.
pub fn resume() {
    COUNTING.store(true, Relaxed);
}

/// Allocation counts since the last [`reset`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AllocStats {
    /// Allocations and growing reallocations admitted while counting was on.
    pub allocations: u64,
    /// Bytes those requested, in total (a growing reallocation counts its growth only).
    pub bytes: u64,
}

/// Starts counting for a new test.
pub fn reset() {
    ALLOCS.store(0, Relaxed);
    BYTES.store(0, Relaxed);
}

/// Counts since the last [`reset`].
pub fn stats() -> AllocStats {
    AllocStats {
        allocations: ALLOCS.load(Relaxed),
        bytes: BYTES.load(Relaxed),
    }
}

/// Live heap bytes above which allocations fail.
pub fn set_ceiling(bytes: usize) {
    CEILING.store(bytes, Relaxed);
}
