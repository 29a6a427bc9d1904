//! `statemachine`: an example crate for frugal's test generator.
//!
//! It exercises stateful code: methods on `&mut self` whose outcome depends
//! on earlier calls, methods that panic (`panic!`, `assert!` preconditions,
//! slice indexing out of bounds), and an enum-driven order lifecycle with a
//! `step` function returning `Result<State, TransitionError>` plus a replay
//! loop over a script of events. A generator must build call sequences (not
//! just single calls) to cover it, and must record expected panics.

/// Largest capacity a `BoundedStack` may be created with.
pub const MAX_CAPACITY: usize = 64;

/// Rejected transitions after which an order locks up.
pub const MAX_FAILURES: u8 = 3;

/// A stack of integers with a fixed capacity.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundedStack {
    items: Vec<i64>,
    capacity: usize,
}

impl BoundedStack {
    /// Creates a stack; panics unless `1 <= capacity <= MAX_CAPACITY`.
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "capacity must be positive");
        assert!(capacity <= MAX_CAPACITY, "capacity too large");
        BoundedStack {
            items: Vec::with_capacity(capacity),
            capacity,
        }
    }

    /// Pushes a value; panics with "stack overflow" when full.
    pub fn push(&mut self, value: i64) {
        if self.items.len() == self.capacity {
            panic!("stack overflow");
        }
        self.items.push(value);
    }

    /// Pushes values until the stack is full; returns how many were pushed.
    pub fn push_all(&mut self, values: &[i64]) -> usize {
        let mut pushed = 0;
        for &v in values {
            if self.is_full() {
                break;
            }
            self.items.push(v);
            pushed += 1;
        }
        pushed
    }

    pub fn pop(&mut self) -> Option<i64> {
        self.items.pop()
    }

    pub fn peek(&self) -> Option<i64> {
        self.items.last().copied()
    }

    /// Value at `index` counted from the bottom; panics if out of bounds.
    pub fn get(&self, index: usize) -> i64 {
        self.items[index]
    }

    /// Sum of the top `n` values (all values if fewer are stored).
    pub fn sum_top(&self, n: usize) -> i64 {
        let mut sum: i64 = 0;
        for (i, v) in self.items.iter().rev().enumerate() {
            if i >= n {
                break;
            }
            sum = sum.wrapping_add(*v);
        }
        sum
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn is_full(&self) -> bool {
        self.items.len() >= self.capacity
    }
}

/// A bank account that may go into a limited overdraft.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Account {
    pub owner: String,
    pub balance: i64,
    pub overdraft_limit: i64,
    pub frozen: bool,
}

impl Account {
    pub fn new(owner: &str, overdraft_limit: i64) -> Self {
        assert!(!owner.is_empty(), "owner required");
        assert!(overdraft_limit >= 0, "negative overdraft limit");
        Account {
            owner: owner.to_string(),
            balance: 0,
            overdraft_limit,
            frozen: false,
        }
    }

    /// Adds money; panics if `amount` is not positive or the account is frozen.
    pub fn deposit(&mut self, amount: i64) -> i64 {
        assert!(amount > 0, "deposit must be positive");
        if self.frozen {
            panic!("account frozen");
        }
        self.balance = self.balance.saturating_add(amount);
        self.balance
    }

    /// Removes money; panics with "insufficient funds" past the overdraft.
    pub fn withdraw(&mut self, amount: i64) -> i64 {
        assert!(amount > 0, "withdrawal must be positive");
        if self.frozen {
            panic!("account frozen");
        }
        let after = self.balance.saturating_sub(amount);
        if after < self.overdraft_limit.saturating_neg() {
            panic!("insufficient funds");
        }
        self.balance = after;
        if self.balance < -1000 {
            self.frozen = true;
        }
        self.balance
    }

    /// Moves money to `other`; returns `false` instead of panicking.
    pub fn transfer(&mut self, other: &mut Account, amount: i64) -> bool {
        if amount <= 0 || self.frozen || other.frozen {
            return false;
        }
        if self.balance.saturating_sub(amount) < self.overdraft_limit.saturating_neg() {
            return false;
        }
        self.withdraw(amount);
        other.deposit(amount);
        true
    }
}

/// Lifecycle states of an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Created,
    Paid,
    Shipped,
    Delivered,
    Cancelled,
    Refunded,
}

/// Things that can happen to an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Pay(u32),
    Ship,
    Deliver,
    Cancel,
    Refund(u32),
}

/// Why a transition was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransitionError {
    NotAllowed,
    WrongAmount(u32),
    AlreadyFinal,
    Locked,
    UnknownEvent(usize),
}

/// An order moving through its lifecycle.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    pub state: State,
    pub total: u32,
    pub paid: u32,
    pub failures: u8,
}

impl Order {
    pub fn new(total: u32) -> Self {
        Order {
            state: State::Created,
            total,
            paid: 0,
            failures: 0,
        }
    }

    pub fn is_final(&self) -> bool {
        matches!(
            self.state,
            State::Delivered | State::Cancelled | State::Refunded
        )
    }

    /// Applies one event and returns the new state.
    pub fn step(&mut self, event: Event) -> Result<State, TransitionError> {
        if self.failures >= MAX_FAILURES {
            return Err(TransitionError::Locked);
        }
        let result = self.transition(event);
        match result {
            Ok(next) => self.state = next,
            Err(_) => self.failures += 1,
        }
        result
    }

    fn transition(&mut self, event: Event) -> Result<State, TransitionError> {
        match (self.state, event) {
            (State::Created, Event::Pay(amount)) => {
                if amount == 0 || self.paid.saturating_add(amount) > self.total {
                    return Err(TransitionError::WrongAmount(amount));
                }
                self.paid += amount;
                if self.paid == self.total {
                    Ok(State::Paid)
                } else {
                    Ok(State::Created)
                }
            }
            (State::Paid, Event::Ship) => Ok(State::Shipped),
            (State::Shipped, Event::Deliver) => Ok(State::Delivered),
            (State::Created | State::Paid, Event::Cancel) => Ok(State::Cancelled),
            (State::Delivered, Event::Refund(amount)) if amount > 0 && amount <= self.paid => {
                self.paid -= amount;
                Ok(State::Refunded)
            }
            (State::Delivered, Event::Refund(amount)) => Err(TransitionError::WrongAmount(amount)),
            (State::Delivered | State::Cancelled | State::Refunded, _) => {
                Err(TransitionError::AlreadyFinal)
            }
            _ => Err(TransitionError::NotAllowed),
        }
    }

    /// Replays a script like `"pay:30,pay:20,ship,deliver"`; returns how many
    /// events were applied, or the first error.
    pub fn replay(&mut self, script: &str) -> Result<usize, TransitionError> {
        let mut applied = 0;
        for (index, token) in script.split(',').map(str::trim).enumerate() {
            if token.is_empty() {
                continue;
            }
            let (name, arg) = match token.split_once(':') {
                Some((n, a)) => (n, a.parse::<u32>().ok()),
                None => (token, None),
            };
            let event = match (name, arg) {
                ("pay", Some(a)) => Event::Pay(a),
                ("pay", None) => Event::Pay(self.total.saturating_sub(self.paid)),
                ("ship", None) => Event::Ship,
                ("deliver", None) => Event::Deliver,
                ("cancel", None) => Event::Cancel,
                ("refund", Some(a)) => Event::Refund(a),
                _ => return Err(TransitionError::UnknownEvent(index)),
            };
            self.step(event)?;
            applied += 1;
        }
        Ok(applied)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_basics() {
        let mut s = BoundedStack::new(2);
        assert_eq!(s.push_all(&[1, 2, 3]), 2);
        assert!(s.is_full());
        assert_eq!(s.get(0), 1);
        assert_eq!(s.peek(), Some(2));
        assert_eq!(s.sum_top(5), 3);
        assert_eq!(s.pop(), Some(2));
        assert_eq!(s.len(), 1);
    }

    #[test]
    #[should_panic(expected = "stack overflow")]
    fn stack_overflow_panics() {
        let mut s = BoundedStack::new(1);
        s.push(1);
        s.push(2);
    }

    #[test]
    #[should_panic(expected = "insufficient funds")]
    fn overdraft_panics() {
        assert!(Account::default().owner.is_empty());
        let mut a = Account::new("ann", 10);
        a.withdraw(11);
    }
}
