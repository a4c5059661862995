//! Criterion bench of the pictures drawn on the server: one position as PNG (what
//! `/g/{id}/image.png` draws), and a 100-ply game as an animated GIF (`/g/{id}/game.gif`). It
//! also prints the size of the GIF of a 100- and a 300-ply game, the figure docs/BENCHMARKS.md
//! gives.

use criterion::{Criterion, criterion_group, criterion_main};
use merels::catalog::Catalog;
use merels::picture::{Look, View, game_gif, position_png};
use merels::protocol::{GameState, Geometry, SeatView, Sides, Snapshot, Status};
use merels::rules::Game;
use std::collections::BTreeMap;
use std::hint::black_box;

/// A game of Nine Men's Morris (flying on, so that it lasts) of exactly `plies` turns, played
/// by a fixed sequence of choices among the legal turns; the first seed that lasts that long.
fn long_game(plies: usize) -> (GameState, Geometry) {
    let options = BTreeMap::from([("flying".to_string(), "on".to_string())]);
    let variant = Catalog::builtin()
        .configure("nine-mens-morris", &options)
        .unwrap();
    for seed in 1u64.. {
        let mut game = Game::new(variant.clone());
        let mut state = seed;
        while game.turns().len() < plies && game.outcome().is_none() {
            let legal = game.legal_turns();
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (state >> 33) as usize % legal.len();
            game.play(legal[pick]).unwrap();
        }
        if game.turns().len() == plies {
            let seats = Sides::from_fn(|_| SeatView::default());
            let now = Snapshot::new(1, &game, Status::Playing, seats, 0);
            return (
                GameState::new("bench", &game, now),
                Geometry::of(variant.board()),
            );
        }
    }
    unreachable!("some seed plays on")
}

fn pictures(c: &mut Criterion) {
    let (state, geometry) = long_game(100);
    let view = View::at(&state, &geometry, 40).unwrap();
    c.bench_function("one position as PNG (512 px)", |b| {
        b.iter(|| black_box(position_png(&geometry, &view, Look::default()).unwrap()))
    });
    for plies in [100, 300] {
        let (state, geometry) = long_game(plies);
        let gif = game_gif(&state, &geometry, Look::default()).unwrap();
        println!("GIF of a {plies}-ply game: {} bytes", gif.len());
    }
    let mut group = c.benchmark_group("gif");
    group.sample_size(10);
    group.bench_function("a 100-ply game as GIF", |b| {
        b.iter(|| black_box(game_gif(&state, &geometry, Look::default()).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, pictures);
criterion_main!(benches);
