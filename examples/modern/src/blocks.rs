//! Long inputs: a checksum with a block-wise path for inputs of 64 bytes or more, and a text
//! measure with one for long lines, as crc32fast, adler2 and memchr have. A literal of a few
//! characters or a `vec!` of a few elements never reaches them.

/// A checksum of `data`: byte by byte for short inputs, 16 bytes at a time for long ones.
pub fn block_sum(data: &[u8]) -> u32 {
    if data.len() < 64 {
        return data.iter().fold(1u32, |acc, &b| acc.wrapping_mul(31).wrapping_add(u32::from(b)));
    }
    let mut acc = 1u32;
    let mut blocks = data.chunks_exact(16);
    for block in &mut blocks {
        let word = block.iter().fold(0u32, |w, &b| w.rotate_left(3) ^ u32::from(b));
        acc = acc.wrapping_mul(0x0100_0193) ^ word;
    }
    blocks.remainder().iter().fold(acc, |a, &b| a.wrapping_add(u32::from(b)))
}

/// Columns `line` needs, where a line longer than 80 characters wraps into rows of 80.
pub fn rows_needed(line: &str) -> usize {
    let width = line.chars().count();
    if width > 80 {
        width.div_ceil(80)
    } else {
        1
    }
}
