//! Criterion bench of what every turn costs the server besides the database: building the whole
//! state of a mid-game Nine Men's Morris position (legal turns included) and encoding it as the
//! JSON text frame that every connection receives.

use criterion::{Criterion, criterion_group, criterion_main};
use merels::catalog::Catalog;
use merels::protocol::{SeatView, Sides, StateView, Status};
use merels::rules::Game;
use std::collections::BTreeMap;
use std::hint::black_box;

fn encode_state(c: &mut Criterion) {
    let nine = Catalog::builtin()
        .configure("nine-mens-morris", &BTreeMap::new())
        .unwrap();
    let turns =
        "c4 f4 f2 b4 d6 f6 a7 a1 g7 c5 d7xa1 b6 d5xb4 g1 d3 e4 e5 g4xc4 d3-e3 g1-d1 a7-a4 c5-c4";
    let moves: Vec<&str> = turns.split_whitespace().collect();
    let game = Game::replay(nine, None, &moves).unwrap();
    let seats = Sides::from_fn(|_| SeatView {
        taken: true,
        connected: true,
    });
    c.bench_function("state of a mid-game position, built and encoded", |b| {
        b.iter(|| {
            let state = StateView::new(
                "Yl8AoFa933AQfZ2xk3vB7w",
                21,
                black_box(&game),
                Status::Playing,
                seats,
                2,
            );
            black_box(state.to_json())
        })
    });
}

criterion_group!(benches, encode_state);
criterion_main!(benches);
