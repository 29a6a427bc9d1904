use statemachine::*;

#[test]
fn order_happy_path() {
    let mut o = Order::new(50);
    assert_eq!(o.step(Event::Pay(20)), Ok(State::Created));
    assert_eq!(o.step(Event::Pay(30)), Ok(State::Paid));
    assert_eq!(o.step(Event::Ship), Ok(State::Shipped));
    assert_eq!(o.step(Event::Deliver), Ok(State::Delivered));
    assert_eq!(
        o.step(Event::Refund(60)),
        Err(TransitionError::WrongAmount(60))
    );
    assert_eq!(o.step(Event::Refund(10)), Ok(State::Refunded));
    assert!(o.is_final());
    assert_eq!(o.step(Event::Ship), Err(TransitionError::AlreadyFinal));
}

#[test]
fn order_locks_after_failures() {
    let mut o = Order::new(10);
    assert_eq!(o.step(Event::Ship), Err(TransitionError::NotAllowed));
    assert_eq!(o.step(Event::Pay(0)), Err(TransitionError::WrongAmount(0)));
    assert_eq!(o.step(Event::Deliver), Err(TransitionError::NotAllowed));
    assert_eq!(o.step(Event::Cancel), Err(TransitionError::Locked));
}

#[test]
fn replay_script() {
    let mut o = Order::new(50);
    assert_eq!(o.replay("pay:30, pay, ship,,deliver"), Ok(4));
    assert_eq!(o.state, State::Delivered);
    let mut o = Order::new(5);
    assert_eq!(
        o.replay("cancel,fly"),
        Err(TransitionError::UnknownEvent(1))
    );
    assert_eq!(o.state, State::Cancelled);
}

#[test]
fn accounts() {
    let mut a = Account::new("ann", 100);
    let mut b = Account::new("bob", 0);
    assert_eq!(a.deposit(50), 50);
    assert!(a.transfer(&mut b, 120));
    assert_eq!(a.balance, -70);
    assert_eq!(b.balance, 120);
    assert!(!b.transfer(&mut a, 500));
    assert!(!b.transfer(&mut a, 0));
    let mut c = Account::new("cat", 5000);
    assert_eq!(c.withdraw(1500), -1500);
    assert!(c.frozen);
    assert!(!c.transfer(&mut a, 1));
}

#[test]
#[should_panic(expected = "capacity too large")]
fn stack_capacity_checked() {
    BoundedStack::new(65);
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn stack_get_out_of_bounds() {
    let s = BoundedStack::new(3);
    assert!(s.is_empty());
    s.get(0);
}
