//! Perft: the counts pinned in tests/data/perft.txt, and the engine's move generator checked turn
//! by turn against the naive implementation of tests/rules/oracle.rs over random games of every variant.

use crate::oracle::{Naive, all_configurations};
use crate::random::Rng;
use merels::catalog::{Catalog, parse_options};
use merels::rules::Game;

struct Case {
    line: usize,
    variant: String,
    options: String,
    position: String,
    moves: String,
    depth: u32,
    count: u64,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../data/perft.txt");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 6, "line {}: {l}", i + 1);
            Case {
                line: i + 1,
                variant: f[0].into(),
                options: f[1].into(),
                position: f[2].into(),
                moves: f[3].into(),
                depth: f[4].parse().unwrap(),
                count: f[5].parse().unwrap(),
            }
        })
        .collect()
}

fn game_of(case: &Case) -> Game {
    let options = parse_options(&case.options).unwrap();
    let variant = Catalog::builtin()
        .configure(&case.variant, &options)
        .unwrap();
    let start = (case.position != "start").then(|| variant.parse_position(&case.position).unwrap());
    let moves: Vec<&str> = case.moves.split_whitespace().collect();
    Game::replay(variant, start, &moves).unwrap()
}

#[test]
fn pinned_counts() {
    let cases = cases();
    assert!(cases.len() > 60);
    for case in &cases {
        let game = game_of(case);
        let n = game.variant().perft(game.position(), case.depth);
        assert_eq!(n, case.count, "tests/data/perft.txt line {}", case.line);
    }
}

#[test]
fn the_reference_figures_are_pinned() {
    // REFERENCE.md §5 (see the data file on six-mens-morris at depth 5).
    let reference: [(&str, [u64; 5]); 3] = [
        ("nine-mens-morris", [24, 552, 12_144, 255_024, 5_140_800]),
        ("six-mens-morris", [16, 240, 3_360, 43_680, 531_648]),
        ("three-mens-morris", [9, 72, 504, 3_024, 15_120]),
    ];
    let cases = cases();
    for (slug, counts) in reference {
        for (i, &count) in counts.iter().enumerate() {
            let depth = i as u32 + 1;
            assert!(
                cases.iter().any(|c| c.variant == slug
                    && c.options.is_empty()
                    && c.position == "start"
                    && c.depth == depth
                    && c.count == count),
                "{slug} depth {depth} is not pinned at {count}"
            );
        }
    }
}

#[test]
fn small_pinned_counts_agree_with_the_naive_implementation() {
    let mut checked = 0;
    for case in cases().iter().filter(|c| c.count <= 600_000) {
        let game = game_of(case);
        let mut naive = match case.position.as_str() {
            "start" => Naive::start(game.variant().rules()),
            p => Naive::from_position(game.variant().rules(), p),
        };
        for m in case.moves.split_whitespace() {
            naive.play(m);
        }
        assert_eq!(
            naive.perft(case.depth),
            case.count,
            "tests/data/perft.txt line {}",
            case.line
        );
        checked += 1;
    }
    assert!(checked > 40);
}

#[test]
fn random_games_generate_the_same_turns_as_the_naive_implementation() {
    for variant in all_configurations() {
        for seed in 0..12 {
            let mut rng = Rng::new(seed);
            let mut game = Game::new(variant.clone());
            let mut naive = Naive::start(variant.rules());
            for ply in 0..200 {
                let mut turns = game.variant().legal_turns(game.position());
                let mut names: Vec<String> =
                    turns.iter().map(|&t| variant.turn_string(t)).collect();
                names.sort();
                assert_eq!(
                    names,
                    naive.turns(),
                    "{} {:?} seed {seed} ply {ply} at {}",
                    variant.slug(),
                    variant.options(),
                    variant.position_string(game.position())
                );
                if game.outcome().is_some() || turns.is_empty() {
                    break;
                }
                let turn = turns.swap_remove(rng.below(turns.len()));
                naive.play(&variant.turn_string(turn));
                game.play(turn).unwrap();
            }
        }
    }
}
