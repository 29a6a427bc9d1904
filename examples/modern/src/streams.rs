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
