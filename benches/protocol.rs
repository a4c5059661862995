//! Criterion bench of what every turn costs the server besides the database: building the
//! snapshot of a mid-game Nine Men's Morris position (legal turns included) and encoding it as
//! the `update` every connection receives; and the whole state a connection gets when it joins.

use criterion::{Criterion, criterion_group, criterion_main};
use merels::catalog::Catalog;
use merels::protocol::{GameState, SeatView, ServerMessage, Sides, Snapshot, Status};
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
        name: None,
        computer: None,
    });
    let snapshot = || Snapshot::new(21, black_box(&game), Status::Playing, seats.clone(), 2);
    c.bench_function("update of a mid-game position, built and encoded", |b| {
        b.iter(|| black_box(ServerMessage::Update(Box::new(snapshot())).to_json()))
    });
    c.bench_function(
        "whole state of a mid-game position, built and encoded",
        |b| {
            b.iter(|| {
                let state = GameState::new("Yl8AoFa933AQfZ2xk3vB7w", &game, snapshot());
                black_box(ServerMessage::State(Box::new(state)).to_json())
            })
        },
    );
}

criterion_group!(benches, encode_state);
criterion_main!(benches);
