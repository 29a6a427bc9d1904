//! I/O parameters: readers and writers generic over `io::Read`, `io::Write` and `io::BufRead`,
//! taken by value and by `&mut`, as parsers and encoders take them.

use std::io::{self, BufRead, Read, Write};

/// Reads a length-prefixed record: one length byte, then that many bytes, as text.
pub fn read_record<R: Read>(r: &mut R) -> io::Result<String> {
    let mut len = [0u8; 1];
    r.read_exact(&mut len)?;
    let mut body = vec![0u8; usize::from(len[0])];
    r.read_exact(&mut body)?;
    String::from_utf8(body).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Writes `text` as a length-prefixed record; refuses text longer than 255 bytes.
pub fn write_record<W: Write>(w: &mut W, text: &str) -> io::Result<usize> {
    let len = u8::try_from(text.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "record too long"))?;
    w.write_all(&[len])?;
    w.write_all(text.as_bytes())?;
    Ok(text.len() + 1)
}

/// Counts the lines that are neither empty nor comments (`#`).
pub fn count_entries(r: impl BufRead) -> usize {
    r.lines()
        .map_while(Result::ok)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .count()
}

/// Byte orders, as a sealed set of unit types.
pub trait Order {
    /// Decodes two bytes, in the order read.
    fn pair(first: u8, second: u8) -> u16;
}

/// Most significant byte first.
pub enum Big {}
/// Least significant byte first.
pub enum Little {}

impl Order for Big {
    fn pair(first: u8, second: u8) -> u16 {
        u16::from_be_bytes([first, second])
    }
}

impl Order for Little {
    fn pair(first: u8, second: u8) -> u16 {
        u16::from_le_bytes([first, second])
    }
}

/// An extension trait whose methods are all provided, added to every reader by an empty
/// blanket impl (`byteorder::ReadBytesExt`'s shape).
pub trait ReadWordsExt: Read {
    /// Reads one 16-bit word in the byte order `O`.
    fn read_word<O: Order>(&mut self) -> io::Result<u16> {
        let mut b = [0u8; 2];
        self.read_exact(&mut b)?;
        Ok(O::pair(b[0], b[1]))
    }

    /// Reads words until the input ends; an odd trailing byte is an error.
    fn read_words<O: Order>(&mut self) -> io::Result<Vec<u16>> {
        let mut out = Vec::new();
        let mut b = [0u8; 2];
        loop {
            match self.read(&mut b[..1])? {
                0 => return Ok(out),
                _ => self.read_exact(&mut b[1..])?,
            }
            out.push(O::pair(b[0], b[1]));
        }
    }
}

impl<R: Read + ?Sized> ReadWordsExt for R {}
