//! Criterion benches of the engine: perft from the start of Nine Men's Morris (the README's
//! figure), and of a flying endgame where every man can go anywhere.

use criterion::{Criterion, criterion_group, criterion_main};
use merels::catalog::Catalog;
use std::collections::BTreeMap;
use std::hint::black_box;

fn perft(c: &mut Criterion) {
    let nine = Catalog::builtin()
        .configure("nine-mens-morris", &BTreeMap::new())
        .unwrap();
    let start = nine.start();
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("nine-mens-morris start depth 6 (99,274,176 leaves)", |b| {
        b.iter(|| assert_eq!(nine.perft(black_box(&start), 6), 99_274_176))
    });
    let flying = nine
        .parse_position("a7,g7,c5 a1,d1,g1,b2,d2,f2 0/0 w")
        .unwrap();
    group.bench_function("nine-mens-morris flying endgame depth 4", |b| {
        b.iter(|| nine.perft(black_box(&flying), 4))
    });
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
