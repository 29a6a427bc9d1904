//! A container generic over its capacity, as `arrayvec` and `heapless` are: `Ring<T, N>` with
//! `const N: usize`. frugal instantiates `N` with a small value, so a full ring is reachable.

/// At most `N` values; pushing onto a full ring drops the oldest.
#[derive(Debug, Clone)]
pub struct Ring<T, const N: usize> {
    items: Vec<T>,
}

impl<T: Copy, const N: usize> Ring<T, N> {
    pub fn new() -> Self {
        Ring { items: Vec::new() }
    }

    /// Pushes `v`: the value dropped to make room, if the ring was full.
    pub fn push(&mut self, v: T) -> Option<T> {
        let dropped = if self.items.len() == N {
            Some(self.items.remove(0))
        } else {
            None
        };
        self.items.push(v);
        dropped
    }

    pub fn is_full(&self) -> bool {
        self.items.len() == N
    }

    pub fn capacity(&self) -> usize {
        N
    }
}
