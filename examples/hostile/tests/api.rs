// Only the well-behaved functions are called here; the hostile ones would
// hang or kill the test process.
use hostile::{double, safe_div, sign, spin_if, SPIN_TRIGGER};

#[test]
fn well_behaved_functions() {
    assert_eq!(double(-4), -8);
    assert_eq!(safe_div(-9, 3), Some(-3));
    assert_eq!(sign(-5), -1);
    assert_eq!(sign(0), 0);
    assert_eq!(sign(9), 1);
}

#[test]
fn spin_if_is_identity_away_from_trigger() {
    assert_eq!(SPIN_TRIGGER, 7);
    assert_eq!(spin_if(0), 0);
    assert_eq!(spin_if(u32::MAX), u32::MAX);
}
