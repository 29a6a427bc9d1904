//! The engine's ends of one harness's two pipes, driven from the search's own thread with no
//! helper threads: requests are buffered and written as far as the pipe takes them, outcomes
//! are read as they come, and `poll(2)` bounds every wait. Outcomes a harness wrote while the
//! search was busy are picked up with one read, and nothing is woken per test (on a virtual
//! machine a cross-CPU wakeup costs as much as a short test).

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::time::{Duration, Instant};

use frugal_probe::wire::{self, Dec, Outcome};

/// Why no outcome came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    /// Nothing within the timeout.
    Timeout,
    /// The harness closed its end (it died) or wrote garbage.
    Lost,
}

/// Room for many outcomes, so a harness rarely waits for the engine to read.
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Bytes read per `read(2)`.
const READ_CHUNK: usize = 64 << 10;

pub(super) struct Pipes {
    requests: io::PipeWriter,
    outcomes: io::PipeReader,
    /// Request bytes the pipe has not taken yet.
    unsent: Vec<u8>,
    /// Outcome bytes read and not yet decoded, from `parsed` on.
    received: Vec<u8>,
    parsed: usize,
    /// What one `read(2)` lands in.
    chunk: Box<[u8]>,
}

impl Pipes {
    /// Takes the engine's ends; both become non-blocking.
    pub(super) fn new(requests: io::PipeWriter, outcomes: io::PipeReader) -> io::Result<Pipes> {
        for fd in [requests.as_raw_fd(), outcomes.as_raw_fd()] {
            set_nonblocking(fd)?;
            // Best effort: the default (64 KiB) works, only with more waiting.
            // SAFETY: fcntl on a descriptor we own.
            unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES) };
        }
        Ok(Pipes {
            requests,
            outcomes,
            unsent: Vec::new(),
            received: Vec::new(),
            parsed: 0,
            chunk: vec![0; READ_CHUNK].into_boxed_slice(),
        })
    }

    /// Queues framed request bytes and writes what the pipe takes now.
    pub(super) fn send(&mut self, bytes: &[u8]) {
        self.unsent.extend_from_slice(bytes);
        self.flush();
    }

    /// Writes queued requests until the pipe is full. A harness that is gone takes nothing:
    /// its requests are dropped, and its end shows up as `Lost` when its outcomes are read.
    fn flush(&mut self) {
        while !self.unsent.is_empty() {
            match self.requests.write(&self.unsent) {
                Ok(0) => break,
                Ok(n) => {
                    self.unsent.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    self.unsent.clear();
                    break;
                }
            }
        }
    }

    /// The next outcome, waiting at most `timeout` for it while writing queued requests.
    pub(super) fn next(&mut self, timeout: Duration) -> Result<Outcome, Ended> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(outcome) = self.take_frame()? {
                return Ok(outcome);
            }
            if self.fill()? {
                continue;
            }
            self.flush();
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Ended::Timeout);
            }
            self.wait(left);
        }
    }

    /// Decodes the next complete frame, if one has been read.
    fn take_frame(&mut self) -> Result<Option<Outcome>, Ended> {
        let Some((body, taken)) =
            wire::split_frame(&self.received[self.parsed..]).map_err(|_| Ended::Lost)?
        else {
            return Ok(None);
        };
        let outcome = Dec::new(body).outcome().map_err(|_| Ended::Lost)?;
        self.parsed += taken;
        if self.parsed == self.received.len() {
            self.received.clear();
            self.parsed = 0;
        }
        Ok(Some(outcome))
    }

    /// Reads what the pipe holds: true when bytes came, false when there are none yet.
    fn fill(&mut self) -> Result<bool, Ended> {
        if self.parsed > 0 {
            self.received.drain(..self.parsed);
            self.parsed = 0;
        }
        let got = loop {
            match self.outcomes.read(&mut self.chunk) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match got {
            Ok(0) => Err(Ended::Lost),
            Ok(n) => {
                self.received.extend_from_slice(&self.chunk[..n]);
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(_) => Err(Ended::Lost),
        }
    }

    /// Sleeps until outcomes can be read, queued requests can be written, or `left` passes.
    fn wait(&self, left: Duration) {
        let mut fds = [
            libc::pollfd {
                fd: self.outcomes.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.requests.as_raw_fd(),
                events: libc::POLLOUT,
                revents: 0,
            },
        ];
        let n = if self.unsent.is_empty() { 1 } else { 2 };
        // Rounded up: a zero timeout would spin.
        let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` outlives the call and `n` is within it.
        unsafe { libc::poll(fds.as_mut_ptr(), n as libc::nfds_t, ms) };
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
