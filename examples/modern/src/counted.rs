//! An adaptor generic over a bare `I: Iterator` bound on its impl, as itertools' `MultiPeek`
//! and `PutBack` are: frugal gives `I` a `Vec`'s `IntoIter`.

/// Counts what it takes from the iterator it wraps.
pub struct Counted<I> {
    inner: I,
    seen: usize,
}

impl<I: Iterator> Counted<I> {
    pub fn new(inner: I) -> Self {
        Counted { inner, seen: 0 }
    }

    /// Takes up to `n` items: how many there were.
    pub fn advance(&mut self, n: usize) -> usize {
        let mut taken = 0;
        while taken < n && self.inner.next().is_some() {
            taken += 1;
        }
        self.seen += taken;
        taken
    }

    /// `true` once the wrapped iterator is exhausted.
    pub fn finished(&mut self) -> bool {
        match self.inner.next() {
            Some(_) => {
                self.seen += 1;
                false
            }
            None => true,
        }
    }

    pub fn seen(&self) -> usize {
        self.seen
    }
}
