//! The binary wire format between the engine and a harness process.
//!
//! Every frame is a little-endian `u32` length followed by that many bytes. The engine writes
//! request frames (a test case each, or a control message) in batches; the harness answers each
//! test with one [`Outcome`] frame and flushes it at once, so when a harness dies the engine
//! knows exactly which test killed it. Bump [`VERSION`] on any change.

use std::io::{self, Read, Write};

/// Wire format version, checked in the harness's hello frame.
pub const VERSION: u32 = 1;

/// A value carried by a value statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// No literal: the statement is not a value statement.
    None,
    /// An integer literal.
    Int(i128),
    /// A floating-point literal.
    Float(f64),
    /// A boolean literal.
    Bool(bool),
    /// A char literal.
    Char(char),
    /// A string literal.
    Str(String),
}

/// A [`Value`] borrowed, as [`Enc::stmt_parts`] takes it: the engine encodes its own
/// statements without building [`Stmt`]s first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueRef<'a> {
    /// No literal: the statement is not a value statement.
    None,
    /// An integer literal.
    Int(i128),
    /// A floating-point literal.
    Float(f64),
    /// A boolean literal.
    Bool(bool),
    /// A char literal.
    Char(char),
    /// A string literal, borrowed.
    Str(&'a str),
}

impl Value {
    /// This value borrowed, as [`Enc::stmt_parts`] takes it.
    pub fn borrowed(&self) -> ValueRef<'_> {
        match self {
            Value::None => ValueRef::None,
            Value::Int(i) => ValueRef::Int(*i),
            Value::Float(f) => ValueRef::Float(*f),
            Value::Bool(b) => ValueRef::Bool(*b),
            Value::Char(c) => ValueRef::Char(*c),
            Value::Str(s) => ValueRef::Str(s),
        }
    }
}

/// One statement: run operation `op` over earlier statements' results `args`.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// Index of the operation in the harness's registry.
    pub op: u32,
    /// Indices of earlier statements whose results are the arguments, in parameter order.
    pub args: Vec<u32>,
    /// The literal of a value statement; [`Value::None`] for other statements.
    pub value: Value,
}

/// Requests from the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Limits for the following tests.
    Config {
        /// Fuel each test starts with: loop iterations plus function entries before it is stopped as
        /// [`Status::OutOfFuel`].
        fuel: i64,
        /// Deepest nesting of instrumented calls before a test is stopped as [`Status::TooDeep`].
        depth: u32,
        /// Live heap bytes above which allocations fail (saturated to `usize::MAX` where larger).
        heap_bytes: u64,
        /// Record the state each statement leaves in values it borrows mutably
        /// ([`Outcome::observed`]); off while searching, where nothing reads it.
        observe: bool,
        /// The goal id of the mutant switched on (strong mutation), or
        /// [`crate::mutants::NO_MUTANT`].
        mutant: u32,
    },
    /// Run one test case.
    Run(Vec<Stmt>),
    /// Exit cleanly.
    Shutdown,
}

/// How a test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Every statement ran.
    Completed,
    /// A statement panicked.
    Panicked,
    /// The fuel ran out (endless loop).
    OutOfFuel,
    /// Instrumented calls nested too deep (unbounded recursion).
    TooDeep,
    /// The test did not fit the harness (a missing or mistyped argument): an engine bug.
    Invalid,
}

/// The answer to one [`Request::Run`].
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// How the test ended.
    pub status: Status,
    /// Index of the statement that ended the test early, or the number of statements.
    pub stopped_at: u32,
    /// Panic message and `file:line:col` when the status is not `Completed`.
    pub message: String,
    /// Where the panic was raised, as `file:line:col`; see `message`.
    pub location: String,
    /// `Debug` rendering of each executed statement's result, when it has one.
    pub summaries: Vec<Option<String>>,
    /// The state a statement left behind in a value it borrowed mutably: (statement, parameter,
    /// what was looked at ([`LOOK_DEBUG`], [`LOOK_ITEMS`] or an inspector), its `Debug` rendering after the
    /// call), for the values that have one.
    pub observed: Vec<(u32, u32, u8, String)>,
    /// Reached goals with their normalised distance (0 = covered).
    pub goals: Vec<(u32, f64)>,
    /// Entries per function id, non-zero only.
    pub calls: Vec<(u32, u32)>,
    /// Iterations per loop id, non-zero only.
    pub loops: Vec<(u32, u32)>,
    /// Statements of the instrumented code executed (line probes passed).
    pub statements: u64,
    /// Heap allocations made while the test ran, the harness's own work excluded.
    pub allocations: u64,
    /// Bytes those allocations requested, in total.
    pub alloc_bytes: u64,
    /// Strings the test's values were compared against and did not match, for dynamic
    /// seeding (`seen.rs`).
    pub seen: Vec<String>,
}

/// An observed value's own `Debug` form.
pub const LOOK_DEBUG: u8 = 0;
/// The `Debug` form of what iterating the value by reference yields, collected into a `Vec`.
pub const LOOK_ITEMS: u8 = 1;
/// `LOOK_INSPECTOR + k`: the `Debug` form of what the value's inspector `k` returns (a `&self`
/// method of the crate without other arguments, in the registry's order for the type).
pub const LOOK_INSPECTOR: u8 = 2;
/// The parameter index of an observation of the statement's own result, not of an argument.
pub const RESULT: u32 = u32::MAX;

/// A malformed frame.
#[derive(Debug)]
pub struct WireError(pub String);

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed frame: {}", self.0)
    }
}

impl std::error::Error for WireError {}

impl From<WireError> for io::Error {
    fn from(e: WireError) -> Self {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }
}

/// Appends little-endian fields to a reusable buffer.
#[derive(Default)]
pub struct Enc {
    /// The encoded bytes; clear it to reuse the allocation for the next frames.
    pub buf: Vec<u8>,
}

impl Enc {
    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    /// Appends a little-endian `u32`.
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a little-endian `u64`.
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a little-endian `i64`.
    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a little-endian `f64` (its IEEE 754 bits).
    pub fn f64(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a string: its length in bytes as a `u32`, then its UTF-8 bytes.
    pub fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.buf.extend_from_slice(s.as_bytes());
    }
    fn pairs(&mut self, v: &[(u32, u32)]) {
        self.u32(v.len() as u32);
        for &(a, b) in v {
            self.u32(a);
            self.u32(b);
        }
    }
    /// Starts a frame; finish it with [`Enc::end_frame`].
    pub fn begin_frame(&mut self) -> usize {
        let at = self.buf.len();
        self.u32(0);
        at
    }
    /// Finishes the frame [`Enc::begin_frame`] started at `at`: writes its body's length there.
    pub fn end_frame(&mut self, at: usize) {
        let len = (self.buf.len() - at - 4) as u32;
        self.buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }

    fn value(&mut self, v: ValueRef<'_>) {
        match v {
            ValueRef::None => self.u8(0),
            ValueRef::Int(i) => {
                self.u8(1);
                self.buf.extend_from_slice(&i.to_le_bytes());
            }
            ValueRef::Float(f) => {
                self.u8(2);
                self.f64(f);
            }
            ValueRef::Bool(b) => {
                self.u8(3);
                self.u8(b as u8);
            }
            ValueRef::Char(c) => {
                self.u8(4);
                self.u32(c as u32);
            }
            ValueRef::Str(s) => {
                self.u8(5);
                self.str(s);
            }
        }
    }

    /// Encodes a whole request frame.
    pub fn request(&mut self, r: &Request) {
        let at = self.begin_frame();
        match r {
            Request::Config {
                fuel,
                depth,
                heap_bytes,
                observe,
                mutant,
            } => {
                self.u8(1);
                self.i64(*fuel);
                self.u32(*depth);
                self.u64(*heap_bytes);
                self.u8(u8::from(*observe));
                self.u32(*mutant);
            }
            Request::Run(stmts) => {
                self.run_header(stmts.len());
                stmts.iter().for_each(|s| self.stmt(s));
            }
            Request::Shutdown => self.u8(3),
        }
        self.end_frame(at);
    }

    /// The start of a run request's frame body, before its `n` statements: a run request is
    /// `begin_frame`, this, [`Enc::stmt_parts`] per statement, `end_frame`.
    pub fn run_header(&mut self, n: usize) {
        self.u8(2);
        self.u32(n as u32);
    }

    /// Encodes one statement as a run request carries it (the engine keys results by these
    /// bytes).
    pub fn stmt(&mut self, s: &Stmt) {
        self.stmt_parts(s.op, &s.args, s.value.borrowed());
    }

    /// [`Enc::stmt`] from a statement's parts.
    pub fn stmt_parts(&mut self, op: u32, args: &[u32], value: ValueRef<'_>) {
        self.u32(op);
        self.u32(args.len() as u32);
        args.iter().for_each(|a| self.u32(*a));
        self.value(value);
    }

    /// Encodes a whole outcome frame.
    pub fn outcome(&mut self, o: &Outcome) {
        let at = self.begin_frame();
        self.u8(status_code(o.status));
        self.u32(o.stopped_at);
        self.str(&o.message);
        self.str(&o.location);
        self.u32(o.summaries.len() as u32);
        for s in &o.summaries {
            match s {
                Some(s) => {
                    self.u8(1);
                    self.str(s);
                }
                None => self.u8(0),
            }
        }
        self.u32(o.observed.len() as u32);
        for (stmt, param, look, s) in &o.observed {
            self.u32(*stmt);
            self.u32(*param);
            self.u8(*look);
            self.str(s);
        }
        self.u32(o.goals.len() as u32);
        for &(g, d) in &o.goals {
            self.u32(g);
            self.f64(d);
        }
        self.pairs(&o.calls);
        self.pairs(&o.loops);
        self.u64(o.statements);
        self.u64(o.allocations);
        self.u64(o.alloc_bytes);
        self.u32(o.seen.len() as u32);
        for v in &o.seen {
            self.str(v);
        }
        self.end_frame(at);
    }
}

fn status_code(s: Status) -> u8 {
    match s {
        Status::Completed => 0,
        Status::Panicked => 1,
        Status::OutOfFuel => 2,
        Status::TooDeep => 3,
        Status::Invalid => 4,
    }
}

/// Reads fields back from one frame's bytes.
pub struct Dec<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Dec<'a> {
    /// A decoder at the start of `buf`, one frame's body.
    pub fn new(buf: &'a [u8]) -> Self {
        Dec { buf, at: 0 }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| WireError(format!("truncated at byte {}", self.at)))?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn arr<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }
    /// Reads a little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.arr()?))
    }
    /// Reads a little-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.arr()?))
    }
    /// Reads a little-endian `i64`.
    pub fn i64(&mut self) -> Result<i64, WireError> {
        Ok(i64::from_le_bytes(self.arr()?))
    }
    /// Reads a little-endian `f64`.
    pub fn f64(&mut self) -> Result<f64, WireError> {
        Ok(f64::from_le_bytes(self.arr()?))
    }
    /// Reads a string written by [`Enc::str`]; fails when truncated or not UTF-8.
    pub fn str(&mut self) -> Result<String, WireError> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| WireError("string is not UTF-8".into()))
    }
    /// A count that must fit in the remaining bytes at `min` bytes per item.
    fn count(&mut self, min: usize) -> Result<usize, WireError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min) > self.buf.len() - self.at {
            return Err(WireError(format!("count {n} exceeds the frame")));
        }
        Ok(n)
    }
    fn pairs(&mut self) -> Result<Vec<(u32, u32)>, WireError> {
        let n = self.count(8)?;
        (0..n).map(|_| Ok((self.u32()?, self.u32()?))).collect()
    }

    fn value(&mut self) -> Result<Value, WireError> {
        Ok(match self.u8()? {
            0 => Value::None,
            1 => Value::Int(i128::from_le_bytes(self.arr()?)),
            2 => Value::Float(self.f64()?),
            3 => Value::Bool(self.u8()? != 0),
            4 => {
                let c = self.u32()?;
                Value::Char(char::from_u32(c).ok_or_else(|| WireError(format!("bad char {c}")))?)
            }
            5 => Value::Str(self.str()?),
            t => return Err(WireError(format!("unknown value tag {t}"))),
        })
    }

    /// Decodes a request frame's bytes.
    pub fn request(&mut self) -> Result<Request, WireError> {
        Ok(match self.u8()? {
            1 => Request::Config {
                fuel: self.i64()?,
                depth: self.u32()?,
                heap_bytes: self.u64()?,
                observe: self.u8()? == 1,
                mutant: self.u32()?,
            },
            2 => {
                let n = self.count(9)?;
                let mut stmts = Vec::with_capacity(n);
                for _ in 0..n {
                    let op = self.u32()?;
                    let k = self.count(4)?;
                    let args = (0..k).map(|_| self.u32()).collect::<Result<_, _>>()?;
                    stmts.push(Stmt {
                        op,
                        args,
                        value: self.value()?,
                    });
                }
                Request::Run(stmts)
            }
            3 => Request::Shutdown,
            k => return Err(WireError(format!("unknown request kind {k}"))),
        })
    }

    /// Decodes an outcome frame's bytes.
    pub fn outcome(&mut self) -> Result<Outcome, WireError> {
        let status = match self.u8()? {
            0 => Status::Completed,
            1 => Status::Panicked,
            2 => Status::OutOfFuel,
            3 => Status::TooDeep,
            4 => Status::Invalid,
            s => return Err(WireError(format!("unknown status {s}"))),
        };
        let stopped_at = self.u32()?;
        let message = self.str()?;
        let location = self.str()?;
        let n = self.count(1)?;
        let mut summaries = Vec::with_capacity(n);
        for _ in 0..n {
            summaries.push(if self.u8()? == 1 {
                Some(self.str()?)
            } else {
                None
            });
        }
        let n = self.count(13)?;
        let observed = (0..n)
            .map(|_| Ok((self.u32()?, self.u32()?, self.u8()?, self.str()?)))
            .collect::<Result<_, _>>()?;
        let n = self.count(12)?;
        let goals = (0..n)
            .map(|_| Ok((self.u32()?, self.f64()?)))
            .collect::<Result<_, _>>()?;
        Ok(Outcome {
            status,
            stopped_at,
            message,
            location,
            summaries,
            observed,
            goals,
            calls: self.pairs()?,
            loops: self.pairs()?,
            statements: self.u64()?,
            allocations: self.u64()?,
            alloc_bytes: self.u64()?,
            seen: {
                let n = self.count(4)?;
                (0..n).map(|_| self.str()).collect::<Result<_, _>>()?
            },
        })
    }
}

/// Reads one frame into `buf` (reused). `Ok(false)` on a clean end of stream.
pub fn read_frame(r: &mut impl Read, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
        Err(e) => return Err(e),
    }
    let n = u32::from_le_bytes(len) as usize;
    if n > MAX_FRAME {
        return Err(WireError(format!("frame of {n} bytes exceeds the limit")).into());
    }
    buf.clear();
    buf.resize(n, 0);
    r.read_exact(buf)?;
    Ok(true)
}

/// The first frame of `buf` when it is complete: its body and the bytes it takes with its
/// length prefix. `Ok(None)` while more bytes are needed.
pub fn split_frame(buf: &[u8]) -> Result<Option<(&[u8], usize)>, WireError> {
    let Some(len) = buf.first_chunk::<4>() else {
        return Ok(None);
    };
    let n = u32::from_le_bytes(*len) as usize;
    if n > MAX_FRAME {
        return Err(WireError(format!("frame of {n} bytes exceeds the limit")));
    }
    Ok(buf.get(4..4 + n).map(|body| (body, 4 + n)))
}

/// Frames above this are refused rather than allocated.
pub const MAX_FRAME: usize = 64 << 20;

/// Writes already-framed bytes and flushes.
pub fn write_frames(w: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    w.write_all(bytes)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip_request(r: Request) {
        let mut e = Enc::default();
        e.request(&r);
        let mut buf = Vec::new();
        assert!(read_frame(&mut e.buf.as_slice(), &mut buf).unwrap());
        assert_eq!(Dec::new(&buf).request().unwrap(), r);
    }

    #[test]
    fn requests_survive_a_roundtrip() {
        roundtrip_request(Request::Shutdown);
        roundtrip_request(Request::Config {
            fuel: 5,
            depth: 7,
            heap_bytes: 1 << 30,
            observe: true,
            mutant: 4,
        });
        roundtrip_request(Request::Run(vec![
            Stmt {
                op: 3,
                args: vec![],
                value: Value::Int(-170141183460469231731687303715884105728),
            },
            Stmt {
                op: 4,
                args: vec![0, 0],
                value: Value::Str("héllo".into()),
            },
            Stmt {
                op: 5,
                args: vec![1],
                value: Value::Char('ß'),
            },
            Stmt {
                op: 6,
                args: vec![],
                value: Value::Float(-0.5),
            },
            Stmt {
                op: 7,
                args: vec![],
                value: Value::Bool(true),
            },
        ]));
    }

    #[test]
    fn outcomes_survive_a_roundtrip() {
        let o = Outcome {
            status: Status::Panicked,
            stopped_at: 2,
            message: "boom".into(),
            location: "src/lib.rs:3:5".into(),
            summaries: vec![Some("1".into()), None],
            observed: vec![(1, 0, LOOK_ITEMS, "[3]".into())],
            goals: vec![(0, 0.0), (9, 0.25)],
            calls: vec![(1, 2)],
            loops: vec![(0, 100)],
            statements: 42,
            allocations: 3,
            alloc_bytes: 96,
            seen: vec!["ABC-3:".into(), "héllo".into()],
        };
        let mut e = Enc::default();
        e.outcome(&o);
        let mut buf = Vec::new();
        assert!(read_frame(&mut e.buf.as_slice(), &mut buf).unwrap());
        assert_eq!(Dec::new(&buf).outcome().unwrap(), o);
    }

    #[test]
    fn truncated_and_oversized_frames_are_errors() {
        let mut e = Enc::default();
        e.request(&Request::Run(vec![Stmt {
            op: 1,
            args: vec![2],
            value: Value::None,
        }]));
        let cut = &e.buf[4..e.buf.len() - 2];
        assert!(Dec::new(cut).request().is_err());
        let huge = (u32::MAX).to_le_bytes();
        assert!(read_frame(&mut huge.as_slice(), &mut Vec::new()).is_err());
        // A count far larger than the frame must not allocate.
        let mut lie = Enc::default();
        lie.u8(2);
        lie.u32(u32::MAX);
        assert!(Dec::new(&lie.buf).request().is_err());
    }
}
