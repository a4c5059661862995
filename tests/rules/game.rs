//! The rules as games play them: every way a game ends, every draw rule, every reason a turn is
//! refused (and that a refused turn changes nothing), and game records.

use merels::catalog::Catalog;
use merels::rules::{Color, Game, IllegalTurn, Outcome, Record, Termination, Variant, VariantSpec};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A catalog variant with some table options chosen (the engine's tests use it too).
pub(crate) fn variant(slug: &str, options: &[(&str, &str)]) -> Arc<Variant> {
    let choices: BTreeMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Catalog::builtin().configure(slug, &choices).unwrap()
}

fn game(slug: &str, position: &str, moves: &str) -> Game {
    let v = variant(slug, &[]);
    let start = v.parse_position(position).unwrap();
    let moves: Vec<&str> = moves.split_whitespace().collect();
    Game::replay(v, Some(start), &moves).unwrap()
}

fn play(game: &mut Game, turn: &str) -> Result<Option<Outcome>, IllegalTurn> {
    let t = game.variant().parse_turn(turn).unwrap();
    game.play(t)
}

#[test]
fn fewer_than_three_men_loses() {
    let mut g = game("nine-mens-morris", "a1,d1,g4,b6 a7,d7,f4 0/0 w", "");
    assert_eq!(
        play(&mut g, "g4-g1xa7").unwrap(),
        Some(Outcome::win(Color::White, Termination::FewerThanThree))
    );
    assert_eq!(g.record(&[]).tag("Result"), Some("1-0"));
}

#[test]
fn no_legal_move_loses() {
    let v = variant("nine-mens-morris", &[("flying", "off")]);
    let start = v.parse_position("d1,b4,d6,f4 a1,a4,a7 0/0 w").unwrap();
    let mut g = Game::from_position(v.clone(), start);
    assert_eq!(
        play(&mut g, "d6-d7").unwrap(),
        Some(Outcome::win(Color::White, Termination::NoLegalMove))
    );
    // With flying on, Black (three men) could still fly: the game goes on.
    let mut g = game("nine-mens-morris", "d1,b4,d6,f4 a1,a4,a7 0/0 w", "");
    assert_eq!(play(&mut g, "d6-d7").unwrap(), None);
}

#[test]
fn a_row_of_three_wins_three_mens_morris_even_while_placing() {
    let mut g = game("three-mens-morris", "a1,a2 b1,c3 1/1 w", "");
    assert_eq!(
        play(&mut g, "a3").unwrap(),
        Some(Outcome::win(Color::White, Termination::RowOfThree))
    );
    assert!(g.legal_turns().is_empty());
    // A setup whose side to move already has a row is refused.
    let v = variant("three-mens-morris", &[]);
    assert!(v.parse_position("a1,a2,a3 b1,c3 0/1 w").is_err());
}

#[test]
fn threefold_repetition_draws() {
    let mut g = game("nine-mens-morris", "a7,d6,f4,b2 g1,d3,e5,c4 0/0 w", "");
    for round in 0..2 {
        for turn in ["a7-a4", "g1-g4", "a4-a7", "g4-g1"] {
            let outcome = play(&mut g, turn).unwrap();
            if round == 1 && turn == "g4-g1" {
                assert_eq!(outcome, Some(Outcome::draw(Termination::Repetition)));
            } else {
                assert_eq!(outcome, None, "round {round} {turn}");
            }
        }
    }
}

/// A copy of a catalog variant with some rule knobs changed: knobs are data.
fn tweaked(slug: &str, change: impl FnOnce(&mut VariantSpec)) -> Arc<Variant> {
    let mut spec = Catalog::builtin().get(slug).unwrap().spec.clone();
    change(&mut spec);
    Arc::new(spec.configure(&BTreeMap::new()).unwrap())
}

#[test]
fn plies_without_a_removal_draw_once_both_hands_are_empty() {
    assert_eq!(
        variant("nine-mens-morris", &[]).rules().quiet_plies_draw,
        Some(100)
    );
    assert_eq!(
        variant("three-mens-morris", &[]).rules().quiet_plies_draw,
        None
    );
    let v = tweaked("nine-mens-morris", |s| s.rules.quiet_plies_draw = Some(4));
    // Placements never count.
    let mut g = Game::new(v.clone());
    for turn in ["a7", "g1", "d6", "d3"] {
        assert_eq!(play(&mut g, turn).unwrap(), None);
    }
    // Four slides in a row without a removal do; a removal starts the count again.
    let start = v
        .parse_position("a7,d6,f4,b2 g1,d3,e5,c4,c5 0/0 w")
        .unwrap();
    let mut g = Game::from_position(v, start);
    for turn in ["a7-a4", "g1-g4", "a4-a1", "g4-g7"] {
        assert!(g.outcome().is_none());
        play(&mut g, turn).unwrap();
    }
    assert_eq!(g.outcome(), Some(Outcome::draw(Termination::QuietPlies)));
}

#[test]
fn three_against_three_draws_after_twenty_plies_in_morabaraba() {
    let v = variant("morabaraba", &[]);
    assert_eq!(v.rules().three_against_three_draw, Some(20));
    let start = v.parse_position("a7,d6,f4 g1,d3,e5 0/0 w").unwrap();
    let mut g = Game::from_position(v.clone(), start);
    let mut seen = std::collections::HashSet::from([start.repetition_key()]);
    for ply in 1..=20 {
        // A quiet turn to a position not seen before, so that nothing else ends the game.
        let turn = g
            .legal_turns()
            .into_iter()
            .find(|&t| {
                t.remove.is_none()
                    && !seen.contains(&v.play(g.position(), t).unwrap().repetition_key())
                    && v.status(&v.play(g.position(), t).unwrap()).is_none()
            })
            .unwrap();
        let outcome = g.play(turn).unwrap();
        seen.insert(g.position().repetition_key());
        if ply < 20 {
            assert_eq!(outcome, None, "ply {ply}");
        } else {
            assert_eq!(outcome, Some(Outcome::draw(Termination::ThreeAgainstThree)));
        }
    }
}

#[test]
fn a_full_board_draws_twelve_mens_morris() {
    let mut g = game(
        "twelve-mens-morris",
        "a1,b4,b6,c3,d1,d5,d7,e3,e4,f2,g4,g7 a7,b2,c4,c5,d2,d3,d6,e5,f4,f6,g1 0/1 b",
        "",
    );
    assert_eq!(
        play(&mut g, "a4").unwrap(),
        Some(Outcome::draw(Termination::BoardFull))
    );
    assert_eq!(g.record(&[]).tag("Result"), Some("1/2-1/2"));
}

#[test]
fn morabaraba_forbids_moving_straight_back_into_a_mill() {
    let position = "a7,d7,g7,b4,f4 a1,d1,e3,f2,d3 0/0 w";
    let mut g = game("morabaraba", position, "g7-g4 a1-a4");
    let before = *g.position();
    assert_eq!(
        play(&mut g, "g4-g7xa4"),
        Err(IllegalTurn::MoveBack(
            g.variant().board().point("g4").unwrap(),
            g.variant().board().point("g7").unwrap()
        ))
    );
    assert_eq!(*g.position(), before);
    // A turn later the way back is open again.
    play(&mut g, "g4-g1").unwrap();
    play(&mut g, "a4-a1").unwrap();
    play(&mut g, "g1-g4").unwrap();
    play(&mut g, "a1-a4").unwrap();
    assert!(play(&mut g, "g4-g7xa4").is_ok());
    // Twelve Men's Morris has no such rule.
    let mut g = game("twelve-mens-morris", position, "g7-g4 a1-a4");
    assert!(play(&mut g, "g4-g7xa4").is_ok());
}

#[test]
fn lasker_counts_men_in_hand_towards_flying() {
    let g = game("lasker-morris", "a7,d7 a1,g1,d2,b2 1/6 w", "");
    let turns: Vec<String> = g
        .legal_turns()
        .iter()
        .map(|&t| g.variant().turn_string(t))
        .collect();
    assert!(
        turns.contains(&"a7-c5".to_string()),
        "White (2 on board + 1 in hand) flies"
    );
    assert!(turns.contains(&"e4".to_string()), "and may still place");
    let v = variant("lasker-morris", &[("flying", "off")]);
    let g = Game::from_position(
        v.clone(),
        v.parse_position("a7,d7 a1,g1,d2,b2 1/6 w").unwrap(),
    );
    assert!(!g.legal_turns().iter().any(|&t| v.turn_string(t) == "a7-c5"));
}

#[test]
fn every_illegal_turn_is_refused_with_its_reason_and_changes_nothing() {
    let v = variant("nine-mens-morris", &[]);
    let p = |n: &str| v.board().point(n).unwrap();
    let cases: [(&str, &str, &str, IllegalTurn); 11] = [
        ("- - 9/9 w", "", "a1-a4", IllegalTurn::MustPlace),
        ("a1 - 8/9 b", "", "a1", IllegalTurn::Occupied(p("a1"))),
        (
            "a1,a4,d7,f4 b2,b4,d6,c5 0/0 w",
            "",
            "d1",
            IllegalTurn::NoMenInHand,
        ),
        (
            "a1,a4,d7,f4 b2,b4,d6,c5 0/0 w",
            "",
            "b2-b6",
            IllegalTurn::NotYourMan(p("b2")),
        ),
        (
            "a1,a4,d7,f4 b2,b4,d6,c5 0/0 w",
            "",
            "a1-g1",
            IllegalTurn::NotAdjacent(p("a1"), p("g1")),
        ),
        (
            "a1,a4,d7,f4 b2,b4,d6,c5 0/0 w",
            "",
            "d7-a7",
            IllegalTurn::RemovalRequired,
        ),
        (
            "a1,a4,d7,f4 b2,b4,d6,c5 0/0 w",
            "",
            "d7-g7xb2",
            IllegalTurn::NoMill,
        ),
        (
            "a1,a4,d7,f4 b2,b4,d6,c5 0/0 w",
            "",
            "d7-a7xa1",
            IllegalTurn::NotOpponentMan(p("a1")),
        ),
        (
            "a1,a4,d7,f4 b6,d6,f6,c5 0/0 w",
            "",
            "d7-a7xd6",
            IllegalTurn::ProtectedMan(p("d6")),
        ),
        (
            "a1,d1,g4,b6 a7,d7,f4 0/0 w",
            "g4-g1xa7",
            "d7-g7",
            IllegalTurn::GameOver,
        ),
        ("a1 - 8/9 b", "", "a1-a4", IllegalTurn::MustPlace),
    ];
    for (position, before, turn, reason) in cases {
        let mut g = game("nine-mens-morris", position, before);
        let snapshot = (*g.position(), g.turns().to_vec(), g.outcome());
        let t = v.parse_turn(turn).unwrap();
        assert_eq!(g.play(t), Err(reason), "{position} {turn}");
        assert_eq!((*g.position(), g.turns().to_vec(), g.outcome()), snapshot);
        assert!(!reason.describe(v.board()).is_empty());
    }
}

#[test]
fn a_protected_man_may_be_taken_when_every_man_is_in_a_mill() {
    let mut g = game("nine-mens-morris", "a1,a4,d7,f4 b6,d6,f6 0/0 w", "");
    assert!(play(&mut g, "d7-a7xd6").is_ok());
}

#[test]
fn server_decided_ends_are_kept_once() {
    let mut g = Game::new(variant("six-mens-morris", &[]));
    assert!(g.end(Outcome::win(Color::Black, Termination::Resignation)));
    assert!(!g.end(Outcome::draw(Termination::Agreement)));
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(Color::Black, Termination::Resignation))
    );
    assert!(g.legal_turns().is_empty());
    let record = g.record(&[]);
    assert_eq!(record.tag("Result"), Some("0-1"));
    assert_eq!(record.tag("Termination"), Some("resignation"));
    for t in Termination::ALL {
        assert_eq!(Termination::parse(t.as_str()), Some(t));
    }
}

#[test]
fn records_print_tags_and_numbered_turns_and_read_back() {
    let v = variant("nine-mens-morris", &[("flying", "off")]);
    let mut g = Game::new(v);
    for t in ["d6", "f4", "b6", "d2", "f6xf4"] {
        play(&mut g, t).unwrap();
    }
    let record = g.record(&[("White", "Ann"), ("Black", "Bob"), ("Date", "2026.11.30")]);
    let text = record.to_string();
    assert!(text.starts_with(
        "[Variant \"nine-mens-morris\"]\n[Options \"flying=off\"]\n[White \"Ann\"]\n"
    ));
    assert!(text.ends_with("\n1. d6 f4 2. b6 d2 3. f6xf4 *\n"), "{text}");
    assert_eq!(Record::parse(&text).unwrap(), record);
    let replayed = Catalog::builtin().replay(&record).unwrap();
    assert_eq!(replayed.position(), g.position());
    assert_eq!(replayed.variant().options_string(), "flying=off");

    // A game from a set-up position carries it in a Position tag.
    let g = game(
        "nine-mens-morris",
        "a7,g7,c5 a1,d1,g1,b2,d2,f2 0/0 w",
        "a7-a4",
    );
    let record = g.record(&[]);
    assert_eq!(
        record.tag("Position"),
        Some("a7,c5,g7 a1,b2,d1,d2,f2,g1 0/0 w")
    );
    let replayed = Catalog::builtin()
        .replay(&Record::parse(&record.to_string()).unwrap())
        .unwrap();
    assert_eq!(replayed.position(), g.position());

    // Broken records say what is wrong.
    for bad in [
        "[Variant nine]\n\n1. d6",
        "[Variant \"nine-mens-morris\"]\n\n2. d6",
        "[Variant \"nine-mens-morris\"]\n\n1. d6 1-0 d5",
    ] {
        assert!(Record::parse(bad).is_err(), "{bad}");
    }
    let illegal = Record::parse("[Variant \"nine-mens-morris\"]\n\n1. d6 d6").unwrap();
    let err = Catalog::builtin().replay(&illegal).unwrap_err().to_string();
    assert!(
        err.contains("turn 2 (d6)") && err.contains("not empty"),
        "{err}"
    );
}

#[test]
fn a_checked_turn_plays_only_on_the_game_as_it_was_checked() {
    let mut g = game("nine-mens-morris", "a1,d1,g4,b6 a7,d7,f4 0/0 w", "");
    let winning = g.variant().parse_turn("g4-g1xa7").unwrap();
    let quiet = g.variant().parse_turn("b6-b4").unwrap();

    // Checking changes nothing, and knows the outcome and the notation.
    let before = g.clone();
    let checked = g.preview(winning).unwrap();
    assert_eq!(
        checked.outcome(),
        Some(Outcome::win(Color::White, Termination::FewerThanThree))
    );
    assert_eq!(checked.notation(), "g4-g1xa7");
    assert_eq!(g.turn_strings(), before.turn_strings());
    assert_eq!(g.position(), before.position());
    // An illegal turn is refused by the check as by play.
    let illegal = g.variant().parse_turn("a7-a4").unwrap();
    assert_eq!(
        g.preview(illegal).unwrap_err(),
        g.clone().play(illegal).unwrap_err()
    );

    // Once another turn has been played, the check is stale and changes nothing.
    let stale = g.preview(quiet).unwrap();
    let mut moved_on = g.clone();
    moved_on.play(winning).unwrap();
    let finished = moved_on.clone();
    assert_eq!(moved_on.commit(stale), Err(merels::rules::Stale));
    assert_eq!(moved_on.turn_strings(), finished.turn_strings());
    assert_eq!(moved_on.outcome(), finished.outcome());

    // On the game it was checked against, it plays exactly as play would.
    let mut by_play = g.clone();
    by_play.play(winning).unwrap();
    assert_eq!(
        g.commit(checked).unwrap(),
        Some(Outcome::win(Color::White, Termination::FewerThanThree))
    );
    assert_eq!(g.turn_strings(), by_play.turn_strings());
    assert_eq!(g.position(), by_play.position());
    assert_eq!(g.legal_turns(), by_play.legal_turns());
}
