//! Coverage goals and their control dependencies, as the search sees them.

/// The criterion a goal belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GoalKind {
    Branch,
    Line,
    Function,
    /// A callable returned normally at least once (EvoSuite's method-no-exception).
    FunctionNoPanic,
    /// A callable panicked at one location (EvoSuite's exception coverage); discovered at run
    /// time, so the executor fills pre-allocated slots.
    Panic,
    /// A callable returned a value of one class (EvoSuite's output coverage).
    Output,
    /// A callable received an argument of one class (EvoSuite's input coverage).
    Input,
}

/// All goals of a subject; ids are indices.
#[derive(Debug, Clone, Default)]
pub struct Goals {
    pub kinds: Vec<GoalKind>,
    /// Innermost controlling goal; `None` for roots (function entries).
    pub parents: Vec<Option<u32>>,
    children: Vec<Vec<u32>>,
}

impl Goals {
    pub fn new(kinds: Vec<GoalKind>, parents: Vec<Option<u32>>) -> Self {
        let mut children = vec![Vec::new(); kinds.len()];
        for (g, p) in parents.iter().enumerate() {
            if let Some(p) = p.filter(|&p| (p as usize) < kinds.len()) {
                children[p as usize].push(g as u32);
            }
        }
        Goals {
            kinds,
            parents,
            children,
        }
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    pub fn children(&self, g: u32) -> &[u32] {
        &self.children[g as usize]
    }

    /// Goals without a controlling goal: DynaMOSA's first targets.
    pub fn roots(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len() as u32).filter(|&g| self.parents[g as usize].is_none())
    }
}
