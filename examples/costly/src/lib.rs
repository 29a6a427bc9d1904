//! A minefield whose size the caller chooses: the fixture for cost shrinking. Every branch is
//! reached on a board of a few cells, but the search, drawing sizes from the crate's constants
//! and from powers of ten, keeps tests that build boards of tens of thousands of cells and
//! flood-fill them. Shrinking must bring those tests down to small boards covering the same
//! goals.

/// The most cells a field may have.
pub const MAX_CELLS: usize = 1 << 16;

/// One cell of the field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// The cell holds a mine.
    pub mine: bool,
    /// Mines in the eight cells around it.
    pub adjacent: u8,
    /// The cell was revealed by a click or a flood fill.
    pub revealed: bool,
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Cells without mines are still hidden.
    Playing,
    /// Every cell without a mine is revealed.
    Won,
    /// A mine was clicked.
    Lost,
}

/// Why a field cannot be made or clicked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldError {
    /// A side of length zero.
    Empty,
    /// More than [`MAX_CELLS`] cells.
    TooLarge,
    /// At least as many mines as cells.
    TooManyMines,
    /// The game already ended.
    Ended,
}

/// A minefield, row by row.
#[derive(Clone, Debug)]
pub struct Field {
    cells: Vec<Cell>,
    height: usize,
    width: usize,
    state: State,
}

impl Field {
    /// A `height` × `width` field with `mines` mines spread evenly over it.
    pub fn new(height: usize, width: usize, mines: usize) -> Result<Field, FieldError> {
        if height == 0 || width == 0 {
            return Err(FieldError::Empty);
        }
        let n = match height.checked_mul(width) {
            Some(n) if n <= MAX_CELLS => n,
            _ => return Err(FieldError::TooLarge),
        };
        if mines >= n {
            return Err(FieldError::TooManyMines);
        }
        let mut cells = vec![Cell::default(); n];
        let stride = n / (mines + 1);
        for i in 0..mines {
            cells[(i + 1) * stride].mine = true;
        }
        let mut field = Field {
            cells,
            height,
            width,
            state: State::Playing,
        };
        for row in 0..height {
            for col in 0..width {
                let adjacent = field
                    .neighbours(row, col)
                    .filter(|&(r, c)| field.cells[r * width + c].mine)
                    .count();
                field.cells[row * width + col].adjacent = adjacent as u8;
            }
        }
        Ok(field)
    }

    /// The cell at `row`, `col`; panics outside the field.
    pub fn cell(&self, row: usize, col: usize) -> Cell {
        assert!(row < self.height && col < self.width, "outside the field");
        self.cells[row * self.width + col]
    }

    /// Where the game stands.
    pub fn state(&self) -> State {
        self.state
    }

    /// Cells revealed so far.
    pub fn revealed(&self) -> usize {
        self.cells.iter().filter(|c| c.revealed).count()
    }

    /// Reveals the cell at `row`, `col`, and every cell around a revealed cell with no mine
    /// next to it. Returns whether it was a mine; panics outside the field.
    pub fn click(&mut self, row: usize, col: usize) -> Result<bool, FieldError> {
        if self.state != State::Playing {
            return Err(FieldError::Ended);
        }
        let at = self.cell(row, col);
        if at.mine {
            self.state = State::Lost;
            return Ok(true);
        }
        let mut todo = vec![(row, col)];
        while let Some((r, c)) = todo.pop() {
            let cell = &mut self.cells[r * self.width + c];
            if cell.revealed {
                continue;
            }
            cell.revealed = true;
            if cell.adjacent == 0 {
                todo.extend(self.neighbours(r, c));
            }
        }
        if self.cells.iter().all(|c| c.mine || c.revealed) {
            self.state = State::Won;
        }
        Ok(false)
    }

    fn neighbours(&self, row: usize, col: usize) -> impl Iterator<Item = (usize, usize)> {
        let (height, width) = (self.height, self.width);
        (-1i64..=1)
            .flat_map(|dr| (-1i64..=1).map(move |dc| (dr, dc)))
            .filter(|&d| d != (0, 0))
            .filter_map(move |(dr, dc)| {
                let r = row as i64 + dr;
                let c = col as i64 + dc;
                if r < 0 || c < 0 || r >= height as i64 || c >= width as i64 {
                    None
                } else {
                    Some((r as usize, c as usize))
                }
            })
    }
}
