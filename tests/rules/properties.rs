//! Property tests over random games of every variant and option: the generator and `play` agree
//! in both directions, men are conserved, finished games generate nothing, notation round-trips;
//! and random text fed to every parser gives errors, never panics.

use crate::oracle::all_configurations;
use crate::random::Rng;
use merels::catalog::{Catalog, VariantInfo, parse_options};
use merels::rules::notation::{parse_setup, parse_turn};
use merels::rules::{Color, Game, Point, Record, Setup, Turn, Variant};
use proptest::prelude::*;
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

fn configurations() -> &'static [Arc<Variant>] {
    static ALL: OnceLock<Vec<Arc<Variant>>> = OnceLock::new();
    ALL.get_or_init(all_configurations)
}

/// Every turn that could be written on this board, legal or not.
fn every_candidate(variant: &Variant) -> Vec<Turn> {
    let n = variant.board().len() as u8;
    let points: Vec<Point> = (0..n).map(Point).collect();
    let optional: Vec<Option<Point>> = std::iter::once(None)
        .chain(points.iter().map(|&p| Some(p)))
        .collect();
    let mut out = Vec::new();
    for &from in &optional {
        for &to in &points {
            for &remove in &optional {
                out.push(Turn { from, to, remove });
            }
        }
    }
    out
}

/// Plays a random game and checks every property at every ply.
fn check_random_game(variant: &Arc<Variant>, seed: u64, plies: usize, exhaustive: bool) {
    let mut rng = Rng::new(seed);
    let mut game = Game::new(variant.clone());
    let mut removed = [0u8; 2];
    let candidates = every_candidate(variant);
    for _ in 0..plies {
        let pos = *game.position();
        let legal = variant.legal_turns(&pos);
        let set: HashSet<Turn> = legal.iter().copied().collect();
        assert_eq!(set.len(), legal.len(), "a turn generated twice");

        // Every generated turn is accepted; with `exhaustive`, every accepted turn is generated.
        for &turn in &legal {
            assert!(
                variant.play(&pos, turn).is_ok(),
                "generated but refused: {}",
                variant.turn_string(turn)
            );
        }
        if exhaustive {
            for &turn in &candidates {
                assert_eq!(
                    variant.is_legal(&pos, turn),
                    set.contains(&turn),
                    "{turn:?} at {}",
                    variant.position_string(&pos)
                );
            }
        }
        assert_eq!(variant.count_turns(&pos), legal.len() as u64);

        // Men are conserved.
        for c in Color::BOTH {
            assert_eq!(pos.total(c) + removed[c.index()], variant.rules().men);
        }

        // A finished position generates nothing, and refuses every turn.
        if variant.status(&pos).is_some() {
            assert!(legal.is_empty());
        }
        if game.outcome().is_some() {
            assert!(game.legal_turns().is_empty());
            if let Some(&t) = candidates.first() {
                assert!(game.clone().play(t).is_err());
            }
            break;
        }

        // Notation round-trips.
        let text = variant.position_string(&pos);
        assert_eq!(variant.parse_position(&text).unwrap().setup(), pos.setup());
        for &turn in &legal {
            assert_eq!(
                variant.parse_turn(&variant.turn_string(turn)).unwrap(),
                turn
            );
        }

        let turn = legal[rng.below(legal.len())];
        if turn.remove.is_some() {
            removed[pos.to_move().opponent().index()] += 1;
        }
        let before = game.clone();
        game.play(turn).unwrap();
        assert_eq!(before.turns().len() + 1, game.turns().len());
    }

    // The game record round-trips through text and replays to the same game.
    let record = game.record(&[("White", "Ann \"the\" Player"), ("Black", "Bo\\b")]);
    let parsed = Record::parse(&record.to_string()).unwrap();
    assert_eq!(parsed, record);
    let replayed = Catalog::builtin().replay(&parsed).unwrap();
    assert_eq!(replayed.turns(), game.turns());
    assert_eq!(replayed.position(), game.position());
    assert_eq!(replayed.outcome(), game.outcome());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_property(index in 0usize..64, seed: u64, plies in 0usize..400) {
        let all = configurations();
        check_random_game(&all[index % all.len()], seed, plies, true);
    }

    #[test]
    fn random_setups_are_refused_or_playable(index in 0usize..64, w: u32, b: u32, wh in 0u8..14, bh in 0u8..14, black: bool) {
        let all = configurations();
        let variant = &all[index % all.len()];
        let setup = Setup { men: [w, b], hand: [wh, bh], to_move: if black { Color::Black } else { Color::White } };
        if let Ok(pos) = variant.setup(&setup) {
            for turn in variant.legal_turns(&pos) {
                let next = variant.play(&pos, turn).unwrap();
                prop_assert!(next.total(Color::White) <= variant.rules().men);
            }
            let text = variant.position_string(&pos);
            prop_assert_eq!(variant.parse_position(&text).unwrap(), pos);
        }
    }

    #[test]
    fn parsers_never_panic_on_random_text(text in ".{0,60}") {
        parsers_never_panic(&text);
    }

    #[test]
    fn parsers_never_panic_on_notation_like_text(text in "[a-h0-9x,/ wb\\-\\.\\[\\]\"\\n]{0,60}") {
        parsers_never_panic(&text);
    }
}

fn parsers_never_panic(text: &str) {
    for variant in configurations() {
        let _ = parse_turn(variant.board(), text);
        let _ = parse_setup(variant.board(), text);
        let _ = variant.parse_position(text);
    }
    let _ = parse_options(text);
    if let Ok(record) = Record::parse(text) {
        let _ = Catalog::builtin().replay(&record);
    }
    let with_variant = format!("[Variant \"nine-mens-morris\"]\n\n{text}");
    if let Ok(record) = Record::parse(&with_variant) {
        let _ = Catalog::builtin().replay(&record);
    }
    let _ = VariantInfo::parse("fuzz.md", text);
    let _ = VariantInfo::parse("fuzz.md", &format!("---\n{text}\n---\nbody"));
}

#[test]
fn exhaustive_agreement_on_some_games_of_every_configuration() {
    for (i, variant) in configurations().iter().enumerate() {
        for seed in 0..3 {
            check_random_game(variant, seed * 31 + i as u64, 200, true);
        }
    }
}
