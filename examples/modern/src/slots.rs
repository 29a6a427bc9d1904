//! A collection with iterator types of its own, as `slab` and `indexmap` have: `Slots<T>`
//! hands out `Iter<'_, T>` and `IntoIter<T>`, which do their work in `next`, `next_back`,
//! `size_hint` and `len`, the methods of std's iterator traits.

/// Values in numbered slots; a removed value leaves its slot empty.
#[derive(Debug, Clone, Default)]
pub struct Slots<T> {
    entries: Vec<Option<T>>,
    len: usize,
}

impl<T> Slots<T> {
    pub fn new() -> Self {
        Slots {
            entries: Vec::new(),
            len: 0,
        }
    }

    /// Puts `v` in a new slot and returns the slot's number.
    pub fn insert(&mut self, v: T) -> usize {
        self.entries.push(Some(v));
        self.len += 1;
        self.entries.len() - 1
    }

    /// Empties slot `k`.
    pub fn remove(&mut self, k: usize) -> Option<T> {
        let taken = self.entries.get_mut(k)?.take();
        if taken.is_some() {
            self.len -= 1;
        }
        taken
    }

    /// The filled slots, in order.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            entries: self.entries.iter().enumerate(),
            len: self.len,
        }
    }
}

/// The filled slots of a [`Slots`], borrowed.
#[derive(Debug)]
pub struct Iter<'a, T> {
    entries: std::iter::Enumerate<std::slice::Iter<'a, Option<T>>>,
    len: usize,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = (usize, &'a T);

    fn next(&mut self) -> Option<Self::Item> {
        for (k, e) in &mut self.entries {
            if let Some(v) = e {
                self.len -= 1;
                return Some((k, v));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<T> DoubleEndedIterator for Iter<'_, T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        while let Some((k, e)) = self.entries.next_back() {
            if let Some(v) = e {
                self.len -= 1;
                return Some((k, v));
            }
        }
        None
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {
    fn len(&self) -> usize {
        self.len
    }
}

/// The filled slots of a [`Slots`], owned.
#[derive(Debug)]
pub struct IntoIter<T> {
    entries: std::iter::Enumerate<std::vec::IntoIter<Option<T>>>,
    len: usize,
}

impl<T> IntoIterator for Slots<T> {
    type Item = (usize, T);
    type IntoIter = IntoIter<T>;

    fn into_iter(self) -> IntoIter<T> {
        IntoIter {
            entries: self.entries.into_iter().enumerate(),
            len: self.len,
        }
    }
}

impl<T> Iterator for IntoIter<T> {
    type Item = (usize, T);

    fn next(&mut self) -> Option<Self::Item> {
        for (k, e) in &mut self.entries {
            if let Some(v) = e {
                self.len -= 1;
                return Some((k, v));
            }
        }
        None
    }
}

impl<T> DoubleEndedIterator for IntoIter<T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        while let Some((k, e)) = self.entries.next_back() {
            if let Some(v) = e {
                self.len -= 1;
                return Some((k, v));
            }
        }
        None
    }
}
