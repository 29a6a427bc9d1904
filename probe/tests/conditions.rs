//! A condition that is one comparison records through `branch_cmp`, which the instrumenter
//! emits instead of `branch(t, f, cmp(..))`: both must leave the same distances, or the search
//! would see different goals depending on how a condition was written (a process of its own:
//! the tables are global).

use frugal_probe::{Snapshot, branch, branch_cmp, cmp, init, op, reset, snapshot};

fn goals() -> Vec<(u32, f64)> {
    let mut s = Snapshot::default();
    snapshot(&mut s);
    s.goals
}

/// A comparison: operator, outcome, the operands' magnitude.
type Step = (u8, bool, Option<f64>);

/// Goal and distance bits.
type Distances = Vec<(u32, u64)>;

/// Goals 0..2 through `branch(cmp)`, goals 2..4 through `branch_cmp`, for each of `steps`;
/// distances as bits, so that NaN (an infinite magnitude) compares too.
fn both(steps: &[Step]) -> (Distances, Distances) {
    reset();
    for &(opcode, c, mag) in steps {
        assert_eq!(branch(0, 1, cmp(opcode, c, mag)), c);
        assert_eq!(branch_cmp(2, 3, opcode, c, mag), c);
    }
    let all = goals();
    let bits = |lo: u32| {
        (all.iter().filter(|(g, _)| (lo..lo + 2).contains(g)))
            .map(|&(g, d)| (g - lo, d.to_bits()))
            .collect()
    };
    let (old, new) = (bits(0), bits(2));
    (old, new)
}

#[test]
fn a_fused_comparison_records_what_branch_of_cmp_records() {
    init(4, 1, 1);
    let ops = [op::EQ, op::NE, op::LT, op::LE, op::GT, op::GE, 200];
    let mags = [
        None,
        Some(0.0),
        Some(0.5),
        Some(3.0),
        Some(1e300),
        Some(f64::INFINITY),
    ];
    let mut checked = 0;
    for &opcode in &ops {
        for c in [false, true] {
            for &mag in &mags {
                // Alone, then after a closer and a farther one, and after a covering one: the
                // best distance per goal is kept whichever comes first.
                let cases: [Vec<Step>; 3] = [
                    vec![(opcode, c, mag)],
                    vec![
                        (op::LT, false, Some(1.0)),
                        (opcode, c, mag),
                        (op::LT, false, Some(9.0)),
                    ],
                    vec![
                        (op::EQ, true, Some(0.0)),
                        (opcode, c, mag),
                        (op::NE, true, Some(2.0)),
                    ],
                ];
                for steps in &cases {
                    let (old, new) = both(steps);
                    assert_eq!(old, new, "{steps:?}");
                    assert_eq!(old.len(), 2, "both outcomes get a distance: {steps:?}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, ops.len() * 2 * mags.len() * 3);
}
