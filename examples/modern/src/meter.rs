//! Values without a `Debug` form, as many handles and builders are: what a `&mut self` method
//! did to a `Meter` shows only through its getters, and so does the `Summary` it is consumed
//! into.

/// Readings and their peak.
pub struct Meter {
    readings: Vec<u32>,
    peak: u32,
}

impl Meter {
    pub fn new() -> Self {
        Meter {
            readings: Vec::new(),
            peak: 0,
        }
    }

    /// Records a reading; a new peak is kept.
    pub fn record(&mut self, v: u32) {
        self.readings.push(v);
        if v > self.peak {
            self.peak = v;
        }
    }

    /// Forgets the readings and the peak.
    pub fn reset(&mut self) {
        self.readings.clear();
        self.peak = 0;
    }

    pub fn count(&self) -> usize {
        self.readings.len()
    }

    pub fn peak(&self) -> u32 {
        self.peak
    }

    /// The readings' total and count, for good.
    pub fn summary(self) -> Summary {
        Summary {
            total: self.readings.iter().map(|&r| u64::from(r)).sum(),
            count: self.readings.len(),
        }
    }
}

/// What a [`Meter`] read, in all.
pub struct Summary {
    total: u64,
    count: usize,
}

impl Summary {
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn mean(&self) -> Option<u64> {
        if self.count == 0 {
            None
        } else {
            Some(self.total / self.count as u64)
        }
    }
}
