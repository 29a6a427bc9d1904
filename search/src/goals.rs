//! Coverage goals and their control dependencies, as the search sees them.

/// The criterion a goal belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GoalKind {
    /// One side of a branch of the code under test was taken.
    Branch,
    /// A line of the code under test was executed.
    Line,
    /// A function of the code under test was entered; these are the roots of the control
    /// dependencies.
    Function,
    /// A callable returned normally at least once (EvoSuite's method-no-exception, \[evosuite\]).
    FunctionNoPanic,
    /// A callable panicked at one location (EvoSuite's exception coverage); discovered at run
    /// time, so the executor fills pre-allocated slots.
    Panic,
    /// A callable returned a value of one class (EvoSuite's output coverage).
    Output,
    /// A callable received an argument of one class (EvoSuite's input coverage).
    Input,
    /// A mutant of a comparison or an arithmetic site was weakly killed: its state differed
    /// from the original's at least once (EvoSuite's weak mutation).
    WeakMutation,
    /// The same mutants, killed: what a test observes (how it ends, the values it returns, the
    /// state its calls leave) differs with the mutant switched on (EvoSuite's strong mutation).
    StrongMutation,
}

impl GoalKind {
    /// Whether goals of this kind are mutants (weak or strong).
    pub fn is_mutant(self) -> bool {
        matches!(self, GoalKind::WeakMutation | GoalKind::StrongMutation)
    }
}

/// Which goals the search pursues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GoalSelection {
    /// Every goal of every selected criterion.
    #[default]
    All,
    /// Smart selection (\[smart-goals\]): goals subsumed by another criterion's are deferred.
    Smart,
}

impl std::str::FromStr for GoalSelection {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all" => Ok(GoalSelection::All),
            "smart" => Ok(GoalSelection::Smart),
            other => Err(format!(
                "unknown goal selection `{other}`: expected all or smart"
            )),
        }
    }
}

/// All goals of a subject; ids are indices.
#[derive(Debug, Clone, Default)]
pub struct Goals {
    /// The criterion of each goal, indexed by goal id.
    pub kinds: Vec<GoalKind>,
    /// Innermost controlling goal; `None` for roots (function entries).
    pub parents: Vec<Option<u32>>,
    children: Vec<Vec<u32>>,
    /// Goals left out of the search by smart selection (\[smart-goals\]): never targets, never
    /// archived while searching, measured and kept by minimisation afterwards.
    deferred: Vec<bool>,
}

impl Goals {
    /// Goals with these kinds and controlling goals (indexed alike), none deferred. A parent id out
    /// of range is kept in `parents` but gives its goal no place among the parent's children.
    pub fn new(kinds: Vec<GoalKind>, parents: Vec<Option<u32>>) -> Self {
        let mut children = vec![Vec::new(); kinds.len()];
        for (g, p) in parents.iter().enumerate() {
            if let Some(p) = p.filter(|&p| (p as usize) < kinds.len()) {
                children[p as usize].push(g as u32);
            }
        }
        let deferred = vec![false; kinds.len()];
        Goals {
            kinds,
            parents,
            children,
            deferred,
        }
    }

    /// Defers the goals marked `true` (smart goal selection).
    pub fn with_deferred(mut self, deferred: Vec<bool>) -> Self {
        if deferred.len() == self.kinds.len() {
            self.deferred = deferred;
        }
        self
    }

    /// Whether the search pursues this goal.
    pub fn searched(&self, g: u32) -> bool {
        !self.deferred.get(g as usize).copied().unwrap_or(false)
    }

    /// The deferred-goal mask.
    pub fn deferred(&self) -> &[bool] {
        &self.deferred
    }

    /// Number of goals the search pursues.
    pub fn searched_len(&self) -> usize {
        self.deferred.iter().filter(|d| !**d).count()
    }

    /// Number of goals, deferred ones included.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether there are no goals at all.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The goals `g` directly controls (whose parent is `g`). Panics if `g` is not a goal id.
    pub fn children(&self, g: u32) -> &[u32] {
        &self.children[g as usize]
    }

    /// Goals without a controlling goal: DynaMOSA's first targets.
    pub fn roots(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len() as u32).filter(|&g| self.parents[g as usize].is_none())
    }
}
