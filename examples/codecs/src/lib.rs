//! An example crate whose work happens in `io::Read` and `io::Write` impls, as base64's
//! `DecoderReader` and `EncoderWriter` do theirs: the readers and writers are built by `new`,
//! and only calling `read`, `write` and `flush` runs their code.

use std::io::{self, Read, Write};

/// Reads ROT13 of what `inner` holds.
pub struct Rot13Reader<R> {
    inner: R,
}

impl<R: Read> Rot13Reader<R> {
    pub fn new(inner: R) -> Self {
        Rot13Reader { inner }
    }
}

impl<R: Read> Read for Rot13Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        for b in &mut buf[..n] {
            *b = rot13(*b);
        }
        Ok(n)
    }
}

/// Writes ROT13 of what it is given to `inner`, in lines: a line is passed on when it ends.
pub struct Rot13Writer<W> {
    inner: W,
    line: Vec<u8>,
}

impl<W: Write> Rot13Writer<W> {
    pub fn new(inner: W) -> Self {
        Rot13Writer {
            inner,
            line: Vec::new(),
        }
    }

    /// The bytes waiting for the end of their line.
    pub fn pending(&self) -> usize {
        self.line.len()
    }
}

impl<W: Write> Write for Rot13Writer<W> {
    fn write(&mut self, input: &[u8]) -> io::Result<usize> {
        for &b in input {
            self.line.push(rot13(b));
            if b == b'\n' {
                self.inner.write_all(&self.line)?;
                self.line.clear();
            }
        }
        Ok(input.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.line.is_empty() {
            self.inner.write_all(&self.line)?;
            self.line.clear();
        }
        self.inner.flush()
    }
}

fn rot13(b: u8) -> u8 {
    match b {
        b'a'..=b'z' => (b - b'a' + 13) % 26 + b'a',
        b'A'..=b'Z' => (b - b'A' + 13) % 26 + b'A',
        _ => b,
    }
}
