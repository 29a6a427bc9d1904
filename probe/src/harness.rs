//! The harness loop: reads test cases from the engine, runs them statement by statement over a
//! value pool, and answers with what the probes recorded.
//!
//! The generated dispatch module supplies one [`OpFn`] per operation (a callable, a literal, a
//! constructor, ...); this module knows nothing about the crate under test. Protocol frames use
//! file descriptors 3 (requests) and 4 (outcomes) so that whatever the code under test prints to
//! stdout cannot corrupt them; before any crate code runs they move to close-on-exec descriptors
//! at a pseudo-random height ([`hide_wire`]), so code that writes to descriptor 4 forges
//! nothing. Tests run on one long-lived thread with a large stack, so deep but finite recursion
//! is not mistaken for a crash.

use std::any::Any;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::os::fd::FromRawFd;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use crate::alloc;
use crate::wire::{self, Dec, Enc, Outcome, Request, Status, Stmt, Value};
use crate::{Snapshot, Stop};

/// One operation of the dispatch table: reads its arguments from the pool, stores its result
/// in the pool, and returns a `Debug` summary of the result.
pub type OpFn = fn(&mut Pool, &[u32], &Value) -> Result<Option<String>, OpError>;

/// A test case that does not fit the dispatch table.
#[derive(Debug)]
pub struct OpError(pub String);

/// Polls [`block_on`] gives a future before deciding it waits on a reactor.
pub const POLLS: u32 = 1000;

/// Runs an `async fn`'s future to completion on this thread, polling it with a waker that does
/// nothing: enough for futures that need no reactor (pure computation, `yield_now`, channels a
/// test fills first). A future still pending after [`POLLS`] polls, or one that panics because
/// no async runtime is running (tokio's "there is no reactor running"), needs a runtime the
/// harness does not run: the statement is invalid, not a finding about the crate.
pub fn block_on<F: std::future::Future>(future: F) -> Result<F::Output, OpError> {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..POLLS {
        match panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx))) {
            Ok(Poll::Ready(out)) => return Ok(out),
            Ok(Poll::Pending) => std::thread::yield_now(),
            Err(payload) => {
                let missing = payload.downcast_ref::<Stop>().is_none()
                    && LAST_PANIC
                        .lock()
                        .ok()
                        .is_some_and(|last| last.as_ref().is_some_and(|(m, _)| needs_runtime(m)));
                if !missing {
                    panic::resume_unwind(payload);
                }
                let (message, _) = last_panic();
                return Err(OpError(format!(
                    "the future needs an async runtime: {message}"
                )));
            }
        }
    }
    Err(OpError(format!(
        "the future was still pending after {POLLS} polls: it waits on a reactor nobody runs"
    )))
}

/// Bytes [`leak_str`] and [`leak_bytes`] leak at most over a run: a search trying ever new
/// strings must not grow the harness without bound.
pub const MAX_LEAKED: usize = 16 << 20;

/// The strings and byte strings leaked so far, each once, and their total length.
static LEAKED: Mutex<(BTreeSet<&'static [u8]>, usize)> = Mutex::new((BTreeSet::new(), 0));

/// A `&'static` copy of `s`, for a `&'static str` parameter (`HeaderValue::from_static`): a
/// borrow of a pooled `String` does not live long enough. Each distinct string is leaked once;
/// past [`MAX_LEAKED`] bytes the statement is invalid.
pub fn leak_str(s: &str) -> Result<&'static str, OpError> {
    let bytes = leak_bytes(s.as_bytes())?;
    std::str::from_utf8(bytes).map_err(|e| OpError(e.to_string()))
}

/// [`leak_str`] for a `&'static [u8]` parameter (`Bytes::from_static`).
pub fn leak_bytes(b: &[u8]) -> Result<&'static [u8], OpError> {
    let mut leaked = LEAKED.lock().unwrap_or_else(|e| e.into_inner());
    let (all, total) = &mut *leaked;
    if let Some(same) = all.get(b) {
        return Ok(same);
    }
    if *total + b.len() > MAX_LEAKED {
        return Err(OpError(format!(
            "more than {MAX_LEAKED} bytes of `&'static` strings leaked"
        )));
    }
    *total += b.len();
    let copy: &'static [u8] = Box::leak(b.to_vec().into_boxed_slice());
    all.insert(copy);
    Ok(copy)
}

/// Whether a panic message says an async runtime was missing (tokio's, async-std's).
fn needs_runtime(message: &str) -> bool {
    message.contains("no reactor running") || message.contains("Tokio 1.x runtime")
}

/// Results of the statements run so far, one slot per statement (`None` for unit results and
/// for values moved away or lent).
#[derive(Default)]
pub struct Pool {
    slots: Vec<Option<Box<dyn Any>>>,
    /// Values lent to results that borrow from them, in lending order; freed after every slot.
    lent: Vec<*mut dyn Any>,
    /// What the statement being run left behind in the values it borrowed mutably
    /// (parameter, what was looked at, `Debug` rendering), taken by the runner after each
    /// statement.
    observed: Vec<(u32, u8, String)>,
    /// Whether to record it (see [`Pool::observing`]).
    observing: bool,
}

impl Pool {
    fn slot(&mut self, i: u32) -> Result<&mut Option<Box<dyn Any>>, OpError> {
        self.slots
            .get_mut(i as usize)
            .ok_or_else(|| OpError(format!("no statement {i}")))
    }

    /// Takes the boxed value of statement `i` out, to borrow it during a call; give it back
    /// with [`Pool::put`].
    pub fn take(&mut self, i: u32) -> Result<Box<dyn Any>, OpError> {
        self.slot(i)?
            .take()
            .ok_or_else(|| OpError(format!("value {i} is gone")))
    }

    /// Puts a value taken with [`Pool::take`] back.
    pub fn put(&mut self, i: u32, b: Box<dyn Any>) {
        if let Some(s) = self.slots.get_mut(i as usize) {
            *s = Some(b);
        }
    }

    /// Moves the value of statement `i` out for good.
    pub fn take_val<T: 'static>(&mut self, i: u32) -> Result<T, OpError> {
        let b = self.take(i)?;
        b.downcast::<T>().map(|b| *b).map_err(|_| mistyped::<T>(i))
    }

    /// Copies the value of statement `i`.
    pub fn copy_val<T: Copy + 'static>(&mut self, i: u32) -> Result<T, OpError> {
        let s = self.slot(i)?;
        let b = s
            .as_ref()
            .ok_or_else(|| OpError(format!("value {i} is gone")))?;
        b.downcast_ref::<T>()
            .copied()
            .ok_or_else(|| mistyped::<T>(i))
    }

    /// Whether the engine asked for the state statements leave behind: off while searching,
    /// where formatting it would only cost time.
    pub fn observing(&self) -> bool {
        self.observing
    }

    /// Records the state the statement being run left in its parameter `param`, a value it
    /// borrowed mutably (`summary`: its `Debug` rendering after the call, when it has one).
    pub fn observe(&mut self, param: u32, summary: Option<String>) {
        if let Some(s) = summary {
            self.observed.push((param, wire::LOOK_DEBUG, s));
        }
    }

    /// As [`Pool::observe`], for what iterating the value by reference yields ([`Iterate`]).
    pub fn observe_items(&mut self, param: u32, items: Option<String>) {
        if let Some(s) = items {
            self.observed.push((param, wire::LOOK_ITEMS, s));
        }
    }

    /// As [`Pool::observe`], for what the value's inspector `k` returned (`param`
    /// [`wire::RESULT`]: the statement's own result, which has no `Debug` form), formatted by
    /// `look`; nothing when the inspector panics on this state.
    pub fn observe_inspector(&mut self, param: u32, k: u8, look: impl FnOnce() -> String) {
        if let Ok(value) = panic::catch_unwind(AssertUnwindSafe(look)) {
            let look = wire::LOOK_INSPECTOR.saturating_add(k);
            self.observed.push((param, look, value));
        }
    }

    /// Stores the result of the statement being run.
    pub fn store<T: 'static>(&mut self, v: T) {
        self.slots.push(Some(Box::new(v)));
    }

    /// Lends the value of statement `i` for the rest of the test to the result of the
    /// statement being run, which may borrow from it (`Reader::from_str(&s)` keeps `&s`). The
    /// pool only holds `'static` values, so the borrow is widened to `'static`; the value leaves
    /// its slot, so no later statement can move, mutate or read it, and it is dropped only
    /// after every slot (see [`Pool::clear`]), as a test's borrow checker would demand.
    ///
    /// # Safety
    /// The reference must not outlive the test: it dangles once the pool is cleared. Results
    /// stored in the pool may hold it; nothing else may.
    pub unsafe fn lend<T: 'static>(&mut self, i: u32) -> Result<&'static T, OpError> {
        let p = self.lend_ptr::<T>(i)?;
        // SAFETY: `p` comes from a live box only this reference will reach (see above).
        Ok(unsafe { &*p })
    }

    /// [`Pool::lend`] for a mutable borrow.
    ///
    /// # Safety
    /// As for [`Pool::lend`].
    pub unsafe fn lend_mut<T: 'static>(&mut self, i: u32) -> Result<&'static mut T, OpError> {
        let p = self.lend_ptr::<T>(i)?;
        // SAFETY: as in `lend`; the value left its slot, so this is the only way to it.
        Ok(unsafe { &mut *p })
    }

    fn lend_ptr<T: 'static>(&mut self, i: u32) -> Result<*mut T, OpError> {
        let b = self.take(i)?;
        if !b.is::<T>() {
            self.put(i, b);
            return Err(mistyped::<T>(i));
        }
        let raw = Box::into_raw(b);
        self.lent.push(raw);
        Ok(raw.cast::<T>())
    }

    /// Drops every value, newest first as a test's locals drop, so a result that borrows from
    /// an earlier value goes before it; lent values go last, newest first for the same reason.
    fn clear(&mut self) {
        while let Some(slot) = self.slots.pop() {
            drop(slot);
        }
        while let Some(raw) = self.lent.pop() {
            // SAFETY: `raw` came from `Box::into_raw` in `lend_ptr` and is freed only here;
            // every result that borrowed from it was dropped above or before it in this loop.
            drop(unsafe { Box::from_raw(raw) });
        }
    }
}

/// A borrowed box seen as `T`.
pub fn as_ref<T: 'static>(b: &dyn Any, i: u32) -> Result<&T, OpError> {
    b.downcast_ref::<T>().ok_or_else(|| mistyped::<T>(i))
}

/// A mutably borrowed box seen as `T`.
pub fn as_mut<T: 'static>(b: &mut dyn Any, i: u32) -> Result<&mut T, OpError> {
    b.downcast_mut::<T>().ok_or_else(|| mistyped::<T>(i))
}

fn mistyped<T>(i: u32) -> OpError {
    OpError(format!("value {i} is not a {}", std::any::type_name::<T>()))
}

/// Summaries longer than this are dropped: an assertion on them would be unreadable.
pub const MAX_SUMMARY: usize = 512;

/// Wraps a result for autoref-specialised summarising: `(&&&Summ(&v)).summ()`.
pub struct Summ<'a, T: ?Sized>(pub &'a T);

/// `Debug` summary when the type has one.
pub trait Summarise {
    /// The value's `Debug` form, at most [`MAX_SUMMARY`] bytes long; `None` when the type has no
    /// `Debug`, when the form is longer, or for values whose form differs between processes.
    fn summ(&self) -> Option<String>;
}

/// A raw pointer's `Debug` is an address, different in every process: nothing to assert.
impl<T: ?Sized> Summarise for &&Summ<'_, *const T> {
    fn summ(&self) -> Option<String> {
        None
    }
}

impl<T: ?Sized> Summarise for &&Summ<'_, *mut T> {
    fn summ(&self) -> Option<String> {
        None
    }
}

/// Text: its `Debug` is at least its length plus the quotes, so a long one is dropped unread
/// (std's `Debug` for text runs no instrumented code).
impl Summarise for &&&Summ<'_, String> {
    fn summ(&self) -> Option<String> {
        (&&&Summ(self.0.as_str())).summ()
    }
}

impl Summarise for &&&Summ<'_, &str> {
    fn summ(&self) -> Option<String> {
        (&&&Summ(*self.0)).summ()
    }
}

impl Summarise for &&&Summ<'_, str> {
    fn summ(&self) -> Option<String> {
        if self.0.len() + 2 > MAX_SUMMARY {
            return None;
        }
        debug_within_limit(self.0)
    }
}

/// Bytes: each takes at least one digit and the list a ", " between two, so a list of more
/// than a third of the limit is too long (std's `Debug` for bytes runs no instrumented code).
impl Summarise for &&&Summ<'_, [u8]> {
    fn summ(&self) -> Option<String> {
        if self.0.len().saturating_mul(3) > MAX_SUMMARY {
            return None;
        }
        debug_within_limit(self.0)
    }
}

impl Summarise for &&&Summ<'_, Vec<u8>> {
    fn summ(&self) -> Option<String> {
        (&&&Summ(self.0.as_slice())).summ()
    }
}

impl Summarise for &&&Summ<'_, &[u8]> {
    fn summ(&self) -> Option<String> {
        (&&&Summ(*self.0)).summ()
    }
}

/// Formatted in full even when long: the crate's own `Debug` impls are instrumented code, and
/// what they cover must not depend on where a summary would be cut.
impl<T: std::fmt::Debug + ?Sized> Summarise for &Summ<'_, T> {
    fn summ(&self) -> Option<String> {
        debug_within_limit(self.0)
    }
}

/// The `Debug` text of `v`, unless it is longer than [`MAX_SUMMARY`].
fn debug_within_limit<T: std::fmt::Debug + ?Sized>(v: &T) -> Option<String> {
    let s = format!("{v:?}");
    (s.len() <= MAX_SUMMARY).then_some(s)
}

impl<T: ?Sized> Summarise for Summ<'_, T> {
    fn summ(&self) -> Option<String> {
        None
    }
}

/// Items [`Iterate`] collects at most: a longer collection is not asserted item by item.
const MAX_ITEMS: usize = 128;

/// Wraps a value for autoref-specialised iteration: `(&&Items(&v)).items()`.
pub struct Items<'a, T: ?Sized>(pub &'a T);

/// The `Debug` form of what iterating a value by reference yields, collected, when `&T` is
/// `IntoIterator` with `Debug` items: a collection whose own `Debug` hides its contents (slab's
/// shows only its length and capacity) is observed by them.
pub trait Iterate {
    /// The collected items' `Debug` form; `None` when `&T` does not iterate into `Debug` items,
    /// when there are more than 128 of them, or when the form is longer than [`MAX_SUMMARY`].
    fn items(&self) -> Option<String>;
}

impl<T: ?Sized> Iterate for &Items<'_, T>
where
    for<'b> &'b T: IntoIterator,
    for<'b> <&'b T as IntoIterator>::Item: std::fmt::Debug,
{
    fn items(&self) -> Option<String> {
        let mut it = self.0.into_iter();
        let items: Vec<_> = it.by_ref().take(MAX_ITEMS).collect();
        if it.next().is_some() {
            return None;
        }
        debug_within_limit(&items)
    }
}

impl<T: ?Sized> Iterate for Items<'_, T> {
    fn items(&self) -> Option<String> {
        None
    }
}

/// Reads an integer value statement's payload.
pub fn int(v: &Value) -> Result<i128, OpError> {
    match v {
        Value::Int(i) => Ok(*i),
        other => Err(OpError(format!("expected an integer, got {other:?}"))),
    }
}

/// Reads a float value statement's payload.
pub fn float(v: &Value) -> Result<f64, OpError> {
    match v {
        Value::Float(f) => Ok(*f),
        other => Err(OpError(format!("expected a float, got {other:?}"))),
    }
}

/// Reads a boolean value statement's payload.
pub fn boolean(v: &Value) -> Result<bool, OpError> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(OpError(format!("expected a bool, got {other:?}"))),
    }
}

/// Reads a char value statement's payload.
pub fn character(v: &Value) -> Result<char, OpError> {
    match v {
        Value::Char(c) => Ok(*c),
        other => Err(OpError(format!("expected a char, got {other:?}"))),
    }
}

/// Reads a string value statement's payload.
pub fn string(v: &Value) -> Result<String, OpError> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        other => Err(OpError(format!("expected a string, got {other:?}"))),
    }
}

/// The last panic's message and location, set by the hook, read after `catch_unwind`.
static LAST_PANIC: Mutex<Option<(String, String)>> = Mutex::new(None);

fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            String::new()
        };
        let loc = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some((msg, loc.unwrap_or_default()));
        }
    }));
}

fn last_panic() -> (String, String) {
    LAST_PANIC
        .lock()
        .ok()
        .and_then(|mut l| l.take())
        .unwrap_or_default()
}

/// Stack of the test thread.
const STACK_BYTES: usize = 256 << 20;

/// Runs the harness until the engine shuts it down or closes the pipe. Returns the process exit
/// code: 0 on a clean shutdown, 2 when the protocol descriptors are missing or broken.
pub fn serve(ops: &'static [OpFn], goals: usize, functions: usize, loops: usize) -> i32 {
    crate::init(goals, functions, loops);
    install_panic_hook();
    let worker = std::thread::Builder::new()
        .name("frugal-test".into())
        .stack_size(STACK_BYTES)
        .spawn(move || serve_on_this_thread(ops));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => 2,
    }
}

fn serve_on_this_thread(ops: &[OpFn]) -> i32 {
    // The first panic on a thread allocates for its machinery; pay that before any test, so a
    // test's allocation count does not depend on whether a panic came before it.
    let _ = panic::catch_unwind(|| panic::panic_any(Stop::FuelExhausted));
    let _ = last_panic();
    crate::tables::warm_up();
    let Some((input, output)) = hide_wire() else {
        return 2;
    };
    let (mut input, mut output) = (BufReader::new(input), BufWriter::new(output));
    let mut frame = Vec::new();
    let mut enc = Enc::default();
    let mut runner = Runner::default();
    loop {
        match wire::read_frame(&mut input, &mut frame) {
            Ok(true) => {}
            Ok(false) => return 0,
            Err(_) => return 2,
        }
        let request = match Dec::new(&frame).request() {
            Ok(r) => r,
            Err(_) => return 2,
        };
        match request {
            Request::Config {
                fuel,
                depth,
                heap_bytes,
                observe,
                mutant,
            } => {
                crate::set_fuel(fuel, depth);
                crate::mutants::activate(mutant);
                alloc::set_ceiling(usize::try_from(heap_bytes).unwrap_or(usize::MAX));
                runner.pool.observing = observe;
            }
            Request::Run(stmts) => {
                let outcome = runner.run(ops, &stmts);
                enc.buf.clear();
                enc.outcome(&outcome);
                if wire::write_frames(&mut output, &enc.buf).is_err() {
                    return 2;
                }
            }
            Request::Shutdown => return 0,
        }
    }
}

unsafe extern "C" {
    fn fcntl(fd: i32, cmd: i32, ...) -> i32;
    fn close(fd: i32) -> i32;
    fn getpid() -> i32;
}

/// `F_DUPFD_CLOEXEC` on Linux.
const F_DUPFD_CLOEXEC: i32 = 1030;

/// Takes the protocol descriptors 3 and 4 the engine opened before exec, moves them to
/// close-on-exec descriptors at a per-process pseudo-random height (above 256, below the
/// sandbox's `RLIMIT_NOFILE` of 4096) and closes 3 and 4, before any crate code runs. Code
/// under test that writes a forged outcome frame to descriptor 4 (or reads requests from 3)
/// then hits a closed or unrelated descriptor, and processes it spawns do not inherit the
/// pipes. `None` when the descriptors are missing.
fn hide_wire() -> Option<(File, File)> {
    let seed = {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let local = 0u8;
        // SAFETY: getpid has no preconditions.
        let pid = unsafe { getpid() } as u32;
        (t ^ pid.rotate_left(16) ^ (std::ptr::addr_of!(local) as usize as u32 >> 4))
            .wrapping_mul(0x9e37_79b9)
    };
    let mut moved = [0i32; 2];
    for (i, fd) in [3, 4].into_iter().enumerate() {
        let base = 256 + ((seed >> (i * 11)) % 3072) as i32;
        // SAFETY: fcntl only duplicates a descriptor; 3 and 4 belong to the harness alone.
        let mut new = unsafe { fcntl(fd, F_DUPFD_CLOEXEC, base) };
        if new < 0 {
            // A lower descriptor limit than the sandbox's: any free slot above 4 will do.
            new = unsafe { fcntl(fd, F_DUPFD_CLOEXEC, 5) };
        }
        if new < 0 {
            return None;
        }
        moved[i] = new;
    }
    // SAFETY: 3 and 4 were duplicated above and are not used again; the duplicates are owned
    // by the files returned, nothing else in this process knows their numbers.
    unsafe {
        close(3);
        close(4);
        Some((File::from_raw_fd(moved[0]), File::from_raw_fd(moved[1])))
    }
}

/// Buffers reused from test to test.
#[derive(Default)]
struct Runner {
    pool: Pool,
    snap: Snapshot,
}

impl Runner {
    fn run(&mut self, ops: &[OpFn], stmts: &[Stmt]) -> Outcome {
        crate::reset();
        crate::seen::clear();
        // Counting is on only while a generated operation runs the crate's code (see
        // `count`), so the harness's own bookkeeping never shows up in a test's figures.
        alloc::pause();
        alloc::reset();
        let mut summaries = Vec::with_capacity(stmts.len());
        let mut observed = Vec::new();
        let mut end = (
            Status::Completed,
            stmts.len() as u32,
            String::new(),
            String::new(),
        );
        for (i, s) in stmts.iter().enumerate() {
            let step = self.step(ops, s);
            observed.extend(
                self.pool
                    .observed
                    .drain(..)
                    .map(|(param, look, o)| (i as u32, param, look, o)),
            );
            match step {
                Ok(summary) => summaries.push(summary),
                Err((status, message, location)) => {
                    end = (status, i as u32, message, location);
                    break;
                }
            }
            if self.pool.slots.len() == i {
                self.pool.slots.push(None);
            }
        }
        // Counted so far: the test's statements. Dropping the values below runs user `Drop`
        // code too, but also frees the harness's boxes; keep the count deterministic.
        alloc::pause();
        let heap = alloc::stats();
        // Dropping the values runs user `Drop` code: part of the test, and it may panic too.
        let pool = &mut self.pool;
        let dropped = panic::catch_unwind(AssertUnwindSafe(|| pool.clear()));
        if dropped.is_err() && end.0 == Status::Completed {
            let (m, l) = last_panic();
            end = (Status::Panicked, stmts.len() as u32, m, l);
        }
        // A fresh pool for the next test, observing as the engine last asked.
        self.pool = Pool {
            observing: self.pool.observing,
            ..Pool::default()
        };
        crate::snapshot(&mut self.snap);
        let mut seen = Vec::new();
        crate::seen::drain(&mut seen);
        Outcome {
            status: end.0,
            stopped_at: end.1,
            message: end.2,
            location: end.3,
            summaries,
            observed,
            goals: self.snap.goals.clone(),
            calls: self.snap.calls.clone(),
            loops: self.snap.loops.clone(),
            statements: self.snap.statements,
            allocations: heap.allocations,
            alloc_bytes: heap.bytes,
            seen,
        }
    }

    fn step(&mut self, ops: &[OpFn], s: &Stmt) -> Result<Option<String>, (Status, String, String)> {
        let Some(op) = ops.get(s.op as usize) else {
            return Err((
                Status::Invalid,
                format!("no operation {}", s.op),
                String::new(),
            ));
        };
        let pool = &mut self.pool;
        match panic::catch_unwind(AssertUnwindSafe(|| op(pool, &s.args, &s.value))) {
            Ok(Ok(summary)) => Ok(summary),
            Ok(Err(OpError(m))) => Err((Status::Invalid, m, String::new())),
            Err(payload) => {
                let (message, location) = last_panic();
                let status = match payload.downcast_ref::<Stop>() {
                    Some(Stop::FuelExhausted) => Status::OutOfFuel,
                    Some(Stop::DepthExceeded) => Status::TooDeep,
                    None => Status::Panicked,
                };
                Err((status, message, location))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Records its name when dropped.
    struct Noisy(&'static str, Rc<RefCell<Vec<&'static str>>>);

    impl Drop for Noisy {
        fn drop(&mut self) {
            self.1.borrow_mut().push(self.0);
        }
    }

    /// Pending `n` times, waking itself each time, then ready with `n`.
    struct Yields(u32, u32);

    impl std::future::Future for Yields {
        type Output = u32;
        fn poll(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<u32> {
            if self.1 == self.0 {
                return std::task::Poll::Ready(self.0);
            }
            self.1 += 1;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }

    #[test]
    fn futures_without_a_reactor_complete_and_the_others_are_invalid() {
        assert_eq!(block_on(async { 7 }).unwrap(), 7);
        assert_eq!(block_on(Yields(3, 0)).unwrap(), 3);
        let pending = block_on(std::future::pending::<()>()).unwrap_err();
        assert!(pending.0.contains("still pending"), "{pending:?}");
        assert!(block_on(Yields(POLLS, 0)).is_err());
        install_panic_hook();
        let missing = block_on(async {
            panic!("there is no reactor running, must be called from the context of a Tokio 1.x runtime")
        })
        .unwrap_err();
        assert!(missing.0.contains("needs an async runtime"), "{missing:?}");
        // Any other panic is the crate's own: it goes on up.
        let own = panic::catch_unwind(|| block_on(async { panic!("boom") }));
        assert!(own.is_err());
    }

    #[test]
    #[expect(clippy::needless_borrow)] // the borrows are the specialisation
    fn summaries_skip_raw_pointers_and_types_without_debug() {
        struct Opaque;
        let v = vec![1u8, 2];
        assert_eq!((&&&Summ(&v)).summ(), Some("[1, 2]".to_string()));
        assert_eq!((&&&Summ(&v.as_ptr())).summ(), None);
        let mut m = 5i32;
        assert_eq!((&&&Summ(&(&mut m as *mut i32))).summ(), None);
        assert_eq!((&&&Summ(&Opaque)).summ(), None);
    }

    #[test]
    #[expect(clippy::needless_borrow)] // the borrows are the specialisation
    fn items_are_what_iterating_by_reference_yields() {
        /// A collection whose `Debug` hides its contents, iterable by reference.
        struct Hidden(Vec<(usize, char)>);
        impl<'a> IntoIterator for &'a Hidden {
            type Item = &'a (usize, char);
            type IntoIter = std::slice::Iter<'a, (usize, char)>;
            fn into_iter(self) -> Self::IntoIter {
                self.0.iter()
            }
        }
        let h = Hidden(vec![(0, 'a'), (2, 'c')]);
        assert_eq!(
            (&&Items(&h)).items(),
            Some("[(0, 'a'), (2, 'c')]".to_string())
        );
        assert_eq!((&&Items(&5u32)).items(), None, "not iterable");
        let long: Vec<u8> = vec![0; MAX_ITEMS + 1];
        assert_eq!((&&Items(&long)).items(), None, "too many items to assert");
    }

    #[test]
    #[expect(clippy::needless_borrow)] // the borrows are the specialisation
    fn summaries_are_the_debug_text_up_to_the_limit() {
        for n in [
            0,
            1,
            100,
            MAX_SUMMARY - 3,
            MAX_SUMMARY - 2,
            MAX_SUMMARY - 1,
            2000,
        ] {
            let text = "x".repeat(n);
            let full = format!("{text:?}");
            let want = (full.len() <= MAX_SUMMARY).then_some(full);
            assert_eq!((&&&Summ(&text)).summ(), want, "String of {n}");
            assert_eq!((&&&Summ(&text.as_str())).summ(), want, "&str of {n}");
            let escaped = "\n".repeat(n / 2);
            let full = format!("{escaped:?}");
            let want = (full.len() <= MAX_SUMMARY).then_some(full);
            assert_eq!((&&&Summ(&escaped)).summ(), want, "escapes, {n}");
            let bytes: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
            let full = format!("{bytes:?}");
            let want = (full.len() <= MAX_SUMMARY).then_some(full);
            assert_eq!((&&&Summ(&bytes)).summ(), want, "Vec<u8> of {n}");
            assert_eq!((&&&Summ(&bytes.as_slice())).summ(), want, "&[u8] of {n}");
            let list: Vec<u32> = (0..n as u32).collect();
            let full = format!("{list:?}");
            let want = (full.len() <= MAX_SUMMARY).then_some(full);
            assert_eq!((&&&Summ(&list)).summ(), want, "list of {n}");
        }
    }

    #[test]
    fn a_lent_value_leaves_its_slot_and_outlives_every_slot() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut pool = Pool::default();
        pool.store(Noisy("lent", log.clone()));
        pool.store(Noisy("older", log.clone()));
        // SAFETY: the reference is dropped before the pool is cleared.
        let lent = unsafe { pool.lend::<Noisy>(0) }.expect("value 0 is a Noisy");
        assert_eq!(lent.0, "lent");
        pool.store(Noisy("borrower", log.clone()));
        assert!(pool.take(0).is_err(), "a lent value is out of reach");
        assert!(unsafe { pool.lend::<Noisy>(0) }.is_err());
        pool.clear();
        assert_eq!(*log.borrow(), ["borrower", "older", "lent"]);
    }

    #[test]
    fn lending_as_the_wrong_type_keeps_the_value() {
        let mut pool = Pool::default();
        pool.store(7u8);
        assert!(unsafe { pool.lend_mut::<String>(0) }.is_err());
        assert_eq!(pool.copy_val::<u8>(0).ok(), Some(7));
    }
}
