//! Random search with an archive: the baseline every algorithm must beat.

use crate::algorithm::{Algorithm, Context};

pub struct RandomSearch;

impl Algorithm for RandomSearch {
    fn run(&mut self, cx: &mut Context<'_>) {
        while !cx.done() {
            let batch: Vec<_> = (0..cx.params.population)
                .map(|_| cx.builder.random_test(&mut cx.rng))
                .collect();
            cx.evaluate(batch);
            cx.report();
        }
    }
}
