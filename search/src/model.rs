//! Test cases: statements over a value pool.

use serde::{Deserialize, Serialize};

/// A literal carried by a value statement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Value {
    /// An integer, of any integer type the schema's [`ValueKind::Int`](crate::ValueKind::Int) range allows.
    Int(i128),
    /// A floating-point number.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A character.
    Char(char),
    /// A string.
    Str(String),
}

/// One statement: operation `op` of the schema applied to the results of earlier statements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    /// Index of the operation in the schema's [`Schema::ops`](crate::Schema::ops).
    pub op: u32,
    /// Indices of earlier statements whose results are the arguments, in parameter order.
    pub args: Vec<u32>,
    /// The literal of a value statement.
    pub value: Option<Value>,
}

impl Stmt {
    /// A call of operation `op` on the results of the earlier statements `args`: no literal.
    pub fn call(op: u32, args: &[u32]) -> Stmt {
        Stmt {
            op,
            args: args.to_vec(),
            value: None,
        }
    }
}

/// A test case: statements run in order; statement `i`'s result is value `i`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TestCase {
    /// The statements, in execution order.
    pub stmts: Vec<Stmt>,
}

/// An argument slot whose statement was deleted; [`TestCase::repair`] rebinds or drops it.
pub(crate) const DANGLING: u32 = u32::MAX;

impl TestCase {
    /// Number of statements.
    pub fn len(&self) -> usize {
        self.stmts.len()
    }

    /// Whether the test has no statement.
    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty()
    }

    /// Removes statement `i`; later references to it become dangling, later indices shift.
    pub fn remove(&mut self, i: usize) {
        self.stmts.remove(i);
        for s in &mut self.stmts[i..] {
            for a in &mut s.args {
                match (*a as usize).cmp(&i) {
                    std::cmp::Ordering::Equal => *a = DANGLING,
                    std::cmp::Ordering::Greater if *a != DANGLING => *a -= 1,
                    _ => {}
                }
            }
        }
    }

    /// Inserts a statement at `i`, shifting later references.
    pub fn insert(&mut self, i: usize, stmt: Stmt) {
        for s in &mut self.stmts[i..] {
            for a in &mut s.args {
                if *a != DANGLING && *a as usize >= i {
                    *a += 1;
                }
            }
        }
        self.stmts.insert(i, stmt);
    }
}
