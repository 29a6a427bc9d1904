//! What a subject offers the search: the types it can hold and the operations it can run.

/// How a value of a type can be written as a literal, if at all.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueKind {
    /// An integer within `min..=max` (both inclusive).
    Int {
        /// Smallest value of the type.
        min: i128,
        /// Largest value of the type.
        max: i128,
    },
    /// A floating-point number.
    Float,
    /// A boolean.
    Bool,
    /// A character.
    Char,
    /// A string.
    Str,
}

/// A type the pool can hold.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeInfo {
    /// Display name, also used by emitters (`i32`, `String`, `my_crate::Stack`).
    pub name: String,
    /// `Some` when a value statement can create it from a literal.
    pub literal: Option<ValueKind>,
    /// Passing it by value does not consume it.
    pub copy: bool,
}

/// How an operation takes an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// By value: consumes the argument unless its type is `Copy`.
    Move,
    /// By shared reference.
    Ref,
    /// By mutable reference.
    Mut,
    /// By shared reference that the result keeps (`Reader::from_str(&s)`): the argument stays
    /// borrowed for the rest of the test, so later statements cannot use it.
    Lend,
    /// By mutable reference that the result keeps (`reader.read_event(&mut buf)`).
    LendMut,
}

impl Pass {
    /// Whether the argument is borrowed mutably.
    pub fn is_mut(self) -> bool {
        matches!(self, Pass::Mut | Pass::LendMut)
    }

    /// Whether the argument is borrowed (shared or mutably) rather than moved.
    pub fn is_borrow(self) -> bool {
        self != Pass::Move
    }
}

/// What an operation is, for operators and the performance proxies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Creates a value of its return type from the statement's literal.
    Literal,
    /// Calls a callable of the subject (a test's "method call").
    Call,
    /// Builds or takes apart a value: constructors, collections, unwraps, enum variants.
    Build,
}

/// One operation.
#[derive(Debug, Clone, PartialEq)]
pub struct OpInfo {
    /// Name of the operation, for people: it appears in messages about the operation.
    pub name: String,
    /// What the operation is.
    pub kind: OpKind,
    /// Parameter types and passing modes (receiver first for methods).
    pub params: Vec<(u32, Pass)>,
    /// The type of the result, when it is kept in the pool.
    pub ret: Option<u32>,
    /// Takes any number (up to a small cap) of arguments of `params[0]`'s type: collections.
    pub variadic: bool,
}

/// Literal constants of the subject, for seeding values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Constants {
    /// Integer literals found in the subject's code.
    pub ints: Vec<i128>,
    /// Floating-point literals found in the subject's code.
    pub floats: Vec<f64>,
    /// String literals found in the subject's code.
    pub strings: Vec<String>,
    /// Character literals found in the subject's code.
    pub chars: Vec<char>,
}

/// Types and operations; ids are indices.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    /// The types values can have; a type id is an index here.
    pub types: Vec<TypeInfo>,
    /// The operations statements can run; an operation id ([`Stmt::op`](crate::Stmt::op)) is an
    /// index here. Changing it after [`Schema::new`] leaves the lookup tables stale.
    pub ops: Vec<OpInfo>,
    /// Literal constants of the subject, for seeding values.
    pub constants: Constants,
    /// For each type, the operations producing it (filled by [`Schema::index`]).
    producers: Vec<Vec<u32>>,
    /// Operations of kind `Call`.
    calls: Vec<u32>,
    /// For each type, the calls taking it as a parameter.
    consumers: Vec<Vec<u32>>,
}

impl Schema {
    /// A schema with its lookup tables built.
    pub fn new(types: Vec<TypeInfo>, ops: Vec<OpInfo>, constants: Constants) -> Self {
        let mut s = Schema {
            types,
            ops,
            constants,
            ..Default::default()
        };
        s.index();
        s
    }

    fn index(&mut self) {
        let n = self.types.len();
        self.producers = vec![Vec::new(); n];
        self.consumers = vec![Vec::new(); n];
        self.calls.clear();
        for (i, op) in self.ops.iter().enumerate() {
            if let Some(t) = op.ret {
                self.producers[t as usize].push(i as u32);
            }
            if op.kind == OpKind::Call {
                self.calls.push(i as u32);
                for &(t, _) in &op.params {
                    if !self.consumers[t as usize].contains(&(i as u32)) {
                        self.consumers[t as usize].push(i as u32);
                    }
                }
            }
        }
    }

    /// The operations whose result has type `ty` (none for an unknown type).
    pub fn producers(&self, ty: u32) -> &[u32] {
        self.producers.get(ty as usize).map_or(&[], Vec::as_slice)
    }

    /// The calls taking a parameter of type `ty`, each once (none for an unknown type).
    pub fn consumers(&self, ty: u32) -> &[u32] {
        self.consumers.get(ty as usize).map_or(&[], Vec::as_slice)
    }

    /// The operations of kind [`OpKind::Call`], in id order.
    pub fn calls(&self) -> &[u32] {
        &self.calls
    }

    /// The operation with id `op`. Panics if there is none.
    pub fn op(&self, op: u32) -> &OpInfo {
        &self.ops[op as usize]
    }

    /// The type with id `ty`. Panics if there is none.
    pub fn ty(&self, ty: u32) -> &TypeInfo {
        &self.types[ty as usize]
    }

    /// Whether passing `ty` this way leaves it unusable for later statements: moved (unless
    /// `Copy`) or lent to the result.
    pub fn consumes(&self, ty: u32, pass: Pass) -> bool {
        match pass {
            Pass::Move => !self.ty(ty).copy,
            Pass::Lend | Pass::LendMut => true,
            Pass::Ref | Pass::Mut => false,
        }
    }
}
