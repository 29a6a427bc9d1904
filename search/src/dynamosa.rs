//! The many-objective family: MOSA (Panichella et al., ICST 2015, \[mosa\]), DynaMOSA (TSE 2018,
//! \[dynamosa\]), and aDynaMOSA (Grano et al., \[adynamosa\]). One objective per uncovered goal, preference sorting,
//! fronts; DynaMOSA activates targets along the control dependencies; aDynaMOSA archives the
//! cheaper test (Eq. 1) and picks survivors within a front by the performance heuristic (Eq. 2)
//! or the crowding distance, switched on stagnation (Algorithm 2).

use frugal_proxies::{Proxies, Secondary, Switch, performance_heuristic};
use rand::RngExt;

use crate::algorithm::{Algorithm, Context, Evaluated};
use crate::{ExecResult, Goals, TestCase};

/// MOSA (`dynamic = false`), DynaMOSA, and aDynaMOSA (`adaptive = true`).
pub struct ManyObjective {
    dynamic: bool,
    adaptive: bool,
    switch: Switch,
    /// Best objective value per target in the last population, to detect stagnation.
    best: std::collections::BTreeMap<u32, f64>,
    /// The current targets, recomputed only when the archive grew.
    current: Targets,
}

/// The targets for one archive size, and a version that changes when they do: an
/// individual's objective row is computed once per version, not once per ranking.
#[derive(Default)]
struct Targets {
    /// The archive's size they were computed for; `None` before the first time.
    archive_len: Option<usize>,
    version: u64,
    goals: Vec<u32>,
}

impl ManyObjective {
    pub fn new(dynamic: bool, adaptive: bool) -> Self {
        ManyObjective {
            dynamic,
            adaptive,
            switch: Switch::new(),
            best: Default::default(),
            current: Targets::default(),
        }
    }

    /// The current targets (they depend only on which goals the archive covers, and covered
    /// goals stay covered) and their version.
    fn targets(&mut self, cx: &Context<'_>) -> (Vec<u32>, u64) {
        let len = cx.archive.len();
        if self.current.archive_len != Some(len) {
            let now: Vec<u32> = if self.dynamic {
                targets(cx.goals, &cx.archive)
            } else {
                (0..cx.goals.len() as u32)
                    .filter(|&g| !cx.archive.covers(g))
                    .collect()
            };
            if self.current.archive_len.is_none() || now != self.current.goals {
                self.current.version += 1;
                self.current.goals = now;
            }
            self.current.archive_len = Some(len);
        }
        (self.current.goals.clone(), self.current.version)
    }

    /// The secondary criterion for the next selection: crowding unless aDynaMOSA's switch
    /// says performance.
    fn secondary(&self) -> Secondary {
        if self.adaptive {
            self.switch.current()
        } else {
            Secondary::Crowding
        }
    }

    /// Whether this generation improved: a goal got covered, or some target got closer.
    /// `pop`'s rows are up to date with `aim` (as [`select`] leaves them).
    fn improved(&mut self, pop: &[Ind], aim: &Aim<'_>, newly_covered: bool) -> bool {
        let mut better = newly_covered;
        for (k, &t) in aim.targets.iter().enumerate() {
            let now = pop.iter().map(|i| i.obj[k]).fold(f64::INFINITY, f64::min);
            let before = self.best.insert(t, now).unwrap_or(f64::INFINITY);
            better |= now < before;
        }
        better
    }
}

/// The targets objective rows are computed for, with their version ([`Targets`]).
struct Aim<'a> {
    goals: &'a Goals,
    targets: &'a [u32],
    version: u64,
}

/// Brings every individual's objective row up to `aim`'s targets; rows already computed for
/// them are kept, so a test's fitness is computed once per change of targets.
fn refresh(pop: &mut [Ind], aim: &Aim<'_>) {
    for i in pop.iter_mut().filter(|i| i.version != aim.version) {
        i.obj.clear();
        let row = aim
            .targets
            .iter()
            .map(|&g| fitness(&i.result, g, aim.goals));
        i.obj.extend(row);
        i.version = aim.version;
    }
}

/// An evaluated test with its place in the last ranking.
#[derive(Clone)]
struct Ind {
    test: TestCase,
    result: ExecResult,
    proxies: Proxies,
    rank: usize,
    /// The active secondary score (crowding or performance heuristic); higher is better.
    crowding: f64,
    /// Objective value per target of [`Targets`] version `version` (0: none yet).
    obj: Vec<f64>,
    version: u64,
}

impl Algorithm for ManyObjective {
    fn run(&mut self, cx: &mut Context<'_>) {
        let m = cx.params.population.max(2);
        // The seeds start the first population; random tests fill it up.
        let mut pop = into_inds(cx.take_seeded());
        let first: Vec<TestCase> = (pop.len()..m)
            .map(|_| cx.builder.random_test(&mut cx.rng))
            .collect();
        pop.extend(into_inds(cx.evaluate(first)));
        if pop.len() > m {
            let (targets, version) = self.targets(cx);
            let aim = Aim {
                goals: cx.goals,
                targets: &targets,
                version,
            };
            pop = select(pop, &aim, m, self.secondary());
        }
        if self.adaptive {
            self.switch.observe(true);
        }
        cx.report();
        while !cx.done() && !pop.is_empty() {
            let (targets, version) = self.targets(cx);
            let secondary = self.secondary();
            let aim = Aim {
                goals: cx.goals,
                targets: &targets,
                version,
            };
            rank(&mut pop, &aim, m, secondary);
            let covered_before = cx.archive.len();
            let offspring = cx.evaluate_made(m, |cx| breed_pair(cx, &pop));
            let mut union = pop;
            union.extend(into_inds(offspring));
            let (targets, version) = self.targets(cx);
            let aim = Aim {
                goals: cx.goals,
                targets: &targets,
                version,
            };
            pop = select(union, &aim, m, secondary);
            if self.adaptive {
                let newly = cx.archive.len() > covered_before;
                let improved = self.improved(&pop, &aim, newly);
                self.switch.observe(improved);
            }
            cx.report();
        }
    }
}

fn into_inds(evaluated: Vec<Evaluated>) -> Vec<Ind> {
    evaluated
        .into_iter()
        .map(|e| Ind {
            test: e.test,
            result: e.result,
            proxies: e.proxies,
            rank: 0,
            crowding: 0.0,
            obj: Vec::new(),
            version: 0,
        })
        .collect()
}

/// DynaMOSA's current objectives: uncovered goals whose controlling goal is covered.
pub(crate) fn targets(goals: &Goals, archive: &crate::Archive) -> Vec<u32> {
    (0..goals.len() as u32)
        .filter(|&g| goals.searched(g) && !archive.covers(g))
        .filter(|&g| controlling(goals, g).is_none_or(|p| archive.covers(p)))
        .collect()
}

/// Secondary scores of a front's members (higher is better).
fn secondary_scores<R: AsRef<[f64]>>(
    f: &[R],
    front: &[usize],
    proxies: &[Proxies],
    secondary: Secondary,
) -> Vec<f64> {
    match secondary {
        Secondary::Crowding => subvector_dominance(f, front),
        Secondary::Performance => {
            let members: Vec<Proxies> = front.iter().map(|&i| proxies[i]).collect();
            performance_heuristic(&members)
        }
    }
}

/// The nearest ancestor the search pursues: deferred goals are never archived, so they cannot
/// be what activates their descendants.
fn controlling(goals: &Goals, g: u32) -> Option<u32> {
    let mut p = goals.parents[g as usize];
    while let Some(q) = p {
        if goals.searched(q) {
            return Some(q);
        }
        p = goals.parents[q as usize];
    }
    None
}

/// Objective value of a test for a goal: the normalised distance if the test reached the
/// goal's site, else one plus the number of controlling goals it missed (approach level) plus
/// the normalised distance of the nearest one it reached (branch distance where it diverged,
/// \[dynamosa\]): a test that almost took the controlling branch ranks above one that did
/// not come close, so a distance measured at a guard (an observed `eq_ignore_ascii_case`, a
/// comparison) also leads to the goals behind it.
pub(crate) fn fitness(r: &ExecResult, goal: u32, goals: &Goals) -> f64 {
    if let Some(d) = r.distance(goal) {
        return d;
    }
    let mut approach = 1.0;
    let mut g = goal;
    while let Some(p) = goals.parents[g as usize] {
        if let Some(d) = r.distance(p) {
            // Normalised distances are below 1, so approach levels keep their order.
            return approach + d.min(0.999);
        }
        approach += 1.0;
        g = p;
    }
    approach
}

/// Assigns rank and secondary score for tournament selection.
fn rank(pop: &mut [Ind], aim: &Aim<'_>, m: usize, secondary: Secondary) {
    refresh(pop, aim);
    let mut placed = Vec::with_capacity(pop.len());
    {
        let f: Vec<&[f64]> = pop.iter().map(|i| i.obj.as_slice()).collect();
        let lens: Vec<usize> = pop.iter().map(|i| i.test.len()).collect();
        let proxies: Vec<Proxies> = pop.iter().map(|i| i.proxies).collect();
        for (r, front) in preference_sort(&f, &lens, m).into_iter().enumerate() {
            let crowd = secondary_scores(&f, &front, &proxies, secondary);
            placed.extend(front.into_iter().zip(crowd).map(|(i, c)| (i, r, c)));
        }
    }
    for (i, r, c) in placed {
        pop[i].rank = r;
        pop[i].crowding = c;
    }
}

/// Fills the next population front by front; the last front that fits only partly is cut by
/// the secondary score.
fn select(mut union: Vec<Ind>, aim: &Aim<'_>, m: usize, secondary: Secondary) -> Vec<Ind> {
    refresh(&mut union, aim);
    let mut chosen: Vec<(usize, usize, f64)> = Vec::with_capacity(m);
    {
        let f: Vec<&[f64]> = union.iter().map(|i| i.obj.as_slice()).collect();
        let lens: Vec<usize> = union.iter().map(|i| i.test.len()).collect();
        let proxies: Vec<Proxies> = union.iter().map(|i| i.proxies).collect();
        for (r, front) in preference_sort(&f, &lens, m).into_iter().enumerate() {
            let crowd = secondary_scores(&f, &front, &proxies, secondary);
            let mut members: Vec<(usize, f64)> = front.into_iter().zip(crowd).collect();
            if chosen.len() + members.len() > m {
                members.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                members.truncate(m - chosen.len());
            }
            chosen.extend(members.into_iter().map(|(i, c)| (i, r, c)));
            if chosen.len() >= m {
                break;
            }
        }
    }
    let mut slots: Vec<Option<Ind>> = union.into_iter().map(Some).collect();
    chosen
        .into_iter()
        .filter_map(|(i, r, c)| {
            slots[i].take().map(|mut ind| {
                ind.rank = r;
                ind.crowding = c;
                ind
            })
        })
        .collect()
}

/// MOSA's preference sorting: front 0 holds, for each target, the test closest to it (shorter
/// on ties, then the earlier one); the rest is sorted into Pareto fronts over the targets, only
/// as far as needed to fill `m` places.
pub(crate) fn preference_sort<R: AsRef<[f64]>>(
    f: &[R],
    lens: &[usize],
    m: usize,
) -> Vec<Vec<usize>> {
    let n = f.len();
    let mut in_first = vec![false; n];
    for b in best_per_target(f, lens) {
        in_first[b] = true;
    }
    let first: Vec<usize> = (0..n).filter(|&i| in_first[i]).collect();
    let rest: Vec<usize> = (0..n).filter(|&i| !in_first[i]).collect();
    let mut fronts = Vec::new();
    let filled = first.len();
    if !first.is_empty() {
        fronts.push(first);
    }
    if filled >= m {
        if !rest.is_empty() {
            fronts.push(rest);
        }
        return fronts;
    }
    fronts.extend(non_dominated_fronts(f, rest, m - filled));
    fronts
}

/// For each target, the individual with the lowest objective there, the shorter test on a tie,
/// the first one on a tie of both. Row by row: rows are contiguous, columns are not.
fn best_per_target<R: AsRef<[f64]>>(f: &[R], lens: &[usize]) -> Vec<usize> {
    let Some(first) = f.first() else {
        return Vec::new();
    };
    let mut best: Vec<(f64, usize)> = first.as_ref().iter().map(|&v| (v, 0)).collect();
    for (i, row) in f.iter().enumerate().skip(1) {
        for (b, &v) in best.iter_mut().zip(row.as_ref()) {
            if v.total_cmp(&b.0).then(lens[i].cmp(&lens[b.1])).is_lt() {
                *b = (v, i);
            }
        }
    }
    best.into_iter().map(|(_, i)| i).collect()
}

/// Pareto fronts of `members` until at least `need` individuals are placed.
fn non_dominated_fronts<R: AsRef<[f64]>>(
    f: &[R],
    mut members: Vec<usize>,
    need: usize,
) -> Vec<Vec<usize>> {
    let mut fronts = Vec::new();
    let mut placed = 0;
    let mut alive = vec![false; f.len()];
    members.iter().for_each(|&i| alive[i] = true);
    // The member last found dominating each one: while it is left, so is the dominance, and
    // the next front need not look again.
    let mut witness = vec![usize::MAX; f.len()];
    // A dominating row is nowhere greater, so its sum is no greater (rounding is monotone):
    // only members up to a row's own sum can dominate it. Rows with NaN (whose sums say
    // nothing) come first and are always asked.
    let sums: Vec<f64> = f.iter().map(|r| r.as_ref().iter().sum()).collect();
    let mut by_sum = members.clone();
    by_sum.sort_by(|&a, &b| {
        (sums[b].is_nan().cmp(&sums[a].is_nan())).then(sums[a].total_cmp(&sums[b]))
    });
    while !members.is_empty() && placed < need {
        let mut front = Vec::new();
        for &p in &members {
            if alive.get(witness[p]) == Some(&true) {
                continue;
            }
            let row = f[p].as_ref();
            let dominator = (by_sum.iter())
                .take_while(|&&q| sums[q].is_nan() || sums[p].is_nan() || sums[q] <= sums[p])
                .find(|&&q| q != p && dominates(f[q].as_ref(), row));
            match dominator {
                Some(&q) => witness[p] = q,
                None => front.push(p),
            }
        }
        if front.is_empty() {
            // Every member dominated by another: NaN distances (from an infinite operand
            // gap) can make dominance cyclic. The rest share the last front.
            break;
        }
        front.iter().for_each(|&i| alive[i] = false);
        members.retain(|&i| alive[i]);
        by_sum.retain(|&i| alive[i]);
        placed += front.len();
        fronts.push(front);
    }
    if !members.is_empty() {
        fronts.push(members);
    }
    fronts
}

/// `a` is no worse than `b` on every objective and better on one.
pub(crate) fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut better = false;
    for (x, y) in a.iter().zip(b) {
        if x > y {
            return false;
        }
        better |= x < y;
    }
    better
}

/// Subvector-dominance assignment (Köppen and Yoshida, \[svd\]), as used by MOSA: for each member,
/// the least number of objectives on which it beats any other member. Higher is more diverse.
pub(crate) fn subvector_dominance<R: AsRef<[f64]>>(f: &[R], front: &[usize]) -> Vec<f64> {
    if front.len() == 1 {
        return vec![f64::INFINITY];
    }
    front
        .iter()
        .map(|&p| {
            front
                .iter()
                .filter(|&&q| q != p)
                .map(|&q| {
                    let (fp, fq) = (f[p].as_ref(), f[q].as_ref());
                    fp.iter().zip(fq).filter(|(x, y)| x < y).count()
                })
                .min()
                .unwrap_or(0) as f64
        })
        .collect()
}

fn tournament<'p>(cx: &mut Context<'_>, pop: &'p [Ind]) -> &'p Ind {
    let mut best = &pop[cx.rng.random_range(0..pop.len())];
    for _ in 1..cx.params.tournament.max(1) {
        let c = &pop[cx.rng.random_range(0..pop.len())];
        if c.rank < best.rank || (c.rank == best.rank && c.crowding > best.crowding) {
            best = c;
        }
    }
    best
}

/// Two offspring by tournament selection, single-point crossover and mutation.
fn breed_pair(cx: &mut Context<'_>, pop: &[Ind]) -> Vec<TestCase> {
    let pa = tournament(cx, pop);
    let pb = tournament(cx, pop);
    let (a, b) = (pa.test.clone(), pb.test.clone());
    let (mut x, mut y) = if cx.rng.random_bool(cx.params.crossover_rate) {
        cx.builder.crossover(&a, &b, &mut cx.rng)
    } else {
        (a, b)
    };
    // Each child is mostly its first parent's: that run's comparisons seed its values.
    for (child, parent) in [(&mut x, pa), (&mut y, pb)] {
        cx.builder
            .mutate_seeded(child, &parent.result.seen, &mut cx.rng);
        if child.is_empty() {
            *child = cx.builder.random_test(&mut cx.rng);
        }
    }
    vec![x, y]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preference_sort_puts_the_best_per_target_first() {
        // Three tests, two targets. Test 1 is best for target 0, test 2 for target 1.
        let f = vec![vec![0.5, 0.5], vec![0.1, 0.9], vec![0.9, 0.2]];
        let fronts = preference_sort(&f, &[3, 3, 3], 10);
        assert_eq!(fronts[0], vec![1, 2]);
        assert_eq!(fronts[1], vec![0]);
    }

    #[test]
    fn ties_in_front_zero_go_to_the_shorter_test() {
        let f = vec![vec![0.3], vec![0.3]];
        assert_eq!(preference_sort(&f, &[5, 2], 10)[0], vec![1]);
    }

    #[test]
    fn pareto_fronts_follow_dominance() {
        let f = vec![
            vec![0.1, 0.1],
            vec![0.2, 0.2],
            vec![0.05, 0.3],
            vec![0.3, 0.3],
        ];
        let fronts = non_dominated_fronts(&f, vec![0, 1, 2, 3], 4);
        assert_eq!(fronts, vec![vec![0, 2], vec![1], vec![3]]);
    }

    /// Fronts over all columns, as the definition reads.
    fn fronts_by_definition(f: &[Vec<f64>], mut members: Vec<usize>) -> Vec<Vec<usize>> {
        let mut fronts = Vec::new();
        while !members.is_empty() {
            let front: Vec<usize> = (members.iter().copied())
                .filter(|&p| !members.iter().any(|&q| q != p && dominates(&f[q], &f[p])))
                .collect();
            if front.is_empty() {
                fronts.push(members);
                break;
            }
            members.retain(|i| !front.contains(i));
            fronts.push(front);
        }
        fronts
    }

    /// Fronts found with witnesses are the fronts of the definition, on random matrices with
    /// shared columns, ties, infinity and NaN.
    #[test]
    fn fronts_are_the_fronts_of_the_definition() {
        let values = [0.0, 0.25, 0.5, 1.0, 2.0, f64::INFINITY, f64::NAN];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..300 {
            let (n, t) = (1 + next(12), 1 + next(9));
            // Some columns constant over all rows, the others drawn per row.
            let constant: Vec<Option<f64>> = (0..t)
                .map(|_| (next(2) == 0).then(|| values[next(values.len())]))
                .collect();
            let f: Vec<Vec<f64>> = (0..n)
                .map(|_| {
                    (constant.iter())
                        .map(|c| c.unwrap_or_else(|| values[next(values.len())]))
                        .collect()
                })
                .collect();
            let members: Vec<usize> = (0..n).filter(|_| next(4) != 0).collect();
            assert_eq!(
                non_dominated_fronts(&f, members.clone(), usize::MAX),
                fronts_by_definition(&f, members),
                "{f:?}"
            );
        }
    }

    /// Row by row finds what a minimum per column finds, ties and NaN included.
    #[test]
    fn best_per_target_is_the_first_minimum_of_each_column() {
        let nan = f64::NAN;
        let f = vec![
            vec![0.5, 0.2, nan, 1.0],
            vec![0.1, 0.2, 0.3, 1.0],
            vec![0.1, 0.9, nan, 1.0],
        ];
        let lens = [3, 2, 1];
        let by_column: Vec<usize> = (0..4)
            .map(|t| {
                (0..3)
                    .min_by(|&a, &b| f[a][t].total_cmp(&f[b][t]).then(lens[a].cmp(&lens[b])))
                    .unwrap()
            })
            .collect();
        assert_eq!(by_column, vec![2, 1, 1, 2]);
        assert_eq!(best_per_target(&f, &lens), by_column);
    }

    /// NaN makes dominance cyclic (each of these dominates the next); the fronts still end.
    #[test]
    fn cyclic_dominance_ends_in_one_last_front() {
        let nan = f64::NAN;
        let f = vec![
            vec![0.0, 1.0, nan],
            vec![1.0, nan, 0.0],
            vec![nan, 0.0, 1.0],
        ];
        assert!(dominates(&f[0], &f[1]) && dominates(&f[1], &f[2]) && dominates(&f[2], &f[0]));
        assert_eq!(
            non_dominated_fronts(&f, vec![0, 1, 2], 3),
            vec![vec![0, 1, 2]]
        );
    }

    #[test]
    fn subvector_dominance_counts_objectives_won() {
        // p0 beats p1 on 2 objectives and p2 on 1 -> 1; p1 beats p0 on 1, p2 on 1 -> 1;
        // p2 beats p0 on 2, p1 on 2 -> 2.
        let f = vec![
            vec![0.1, 0.1, 0.9],
            vec![0.2, 0.2, 0.1],
            vec![0.05, 0.3, 0.05],
        ];
        assert_eq!(subvector_dominance(&f, &[0, 1, 2]), vec![1.0, 1.0, 2.0]);
        assert_eq!(subvector_dominance(&f, &[1]), vec![f64::INFINITY]);
    }

    #[test]
    fn unreached_goals_get_the_approach_level() {
        let goals = Goals::new(
            vec![
                crate::GoalKind::Function,
                crate::GoalKind::Branch,
                crate::GoalKind::Branch,
            ],
            vec![None, Some(0), Some(1)],
        );
        let r = ExecResult {
            status: crate::Status::Completed,
            completed: 1,
            goals: vec![(0, 0.0)],
            summaries: vec![],
            observed: Vec::new(),
            counters: Default::default(),
            seen: Vec::new(),
        };
        assert_eq!(fitness(&r, 0, &goals), 0.0);
        assert_eq!(fitness(&r, 1, &goals), 1.0);
        assert_eq!(fitness(&r, 2, &goals), 2.0);
        // Goal 1 reached but not taken: goal 2 below it adds goal 1's distance.
        let near = ExecResult {
            goals: vec![(0, 0.0), (1, 0.25)],
            ..r
        };
        assert_eq!(fitness(&near, 2, &goals), 1.25);
    }
}
