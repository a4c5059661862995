//! The computer player: solved tables checked against a second, deliberately naive solver and
//! against what is known of perfect play (REFERENCE.md §6); perfect play never losing a game it
//! had not already lost; and the search finding forced ends that the tables confirm.

use crate::game::variant;
use crate::random::Rng;
use merels::engine::index::LayerKey;
use merels::engine::{self, Ask, Level, Limits, Search, Table, Value};
use merels::rules::{Color, Game, Position, Variant};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

fn three_mens_configurations() -> Vec<Arc<Variant>> {
    let mut all = Vec::new();
    for diagonals in ["on", "off"] {
        for movement in ["anywhere", "adjacent"] {
            all.push(variant(
                "three-mens-morris",
                &[("diagonals", diagonals), ("movement", movement)],
            ));
        }
    }
    all
}

/// The tables of Five and Six Men's Morris, solved once for every test of this binary.
fn solved(slug: &'static str) -> &'static (Arc<Variant>, Table) {
    static FIVE: OnceLock<(Arc<Variant>, Table)> = OnceLock::new();
    static SIX: OnceLock<(Arc<Variant>, Table)> = OnceLock::new();
    let cell = match slug {
        "five-mens-morris" => &FIVE,
        "six-mens-morris" => &SIX,
        _ => unreachable!(),
    };
    cell.get_or_init(|| {
        let v = variant(slug, &[]);
        let table = engine::solve(&v, 2).unwrap();
        (v, table)
    })
}

/// A second solver, written to be obviously right rather than fast: every position reachable
/// from `roots` by the rules, then rounds of "won in n if some turn leads to a loss in n - 1,
/// lost in n if every turn leads to a win, the longest in n - 1", until nothing changes.
fn naive_values(variant: &Variant, roots: &[Position]) -> HashMap<Position, Value> {
    let mut children: HashMap<Position, Vec<Position>> = HashMap::new();
    let mut todo: Vec<Position> = roots.to_vec();
    while let Some(pos) = todo.pop() {
        if children.contains_key(&pos) {
            continue;
        }
        let next: Vec<Position> = variant
            .legal_turns(&pos)
            .into_iter()
            .map(|t| variant.play(&pos, t).unwrap())
            .collect();
        todo.extend(next.iter().copied());
        children.insert(pos, next);
    }
    let mut values: HashMap<Position, Value> = HashMap::new();
    for (pos, next) in &children {
        if next.is_empty() {
            let outcome = variant.status(pos).unwrap();
            let value = match outcome.winner {
                None => Value::Draw,
                Some(w) if w == pos.to_move() => Value::Win(0),
                Some(_) => Value::Loss(0),
            };
            values.insert(*pos, value);
        }
    }
    let mut quiet_rounds = 0;
    for n in 1u16.. {
        let mut found = Vec::new();
        for (pos, next) in &children {
            if values.contains_key(pos) {
                continue;
            }
            let child: Vec<Option<Value>> = next.iter().map(|c| values.get(c).copied()).collect();
            if n % 2 == 1 && child.contains(&Some(Value::Loss(n - 1))) {
                found.push((*pos, Value::Win(n)));
            }
            let all_won = child.iter().all(|v| matches!(v, Some(Value::Win(_))));
            let longest = child.iter().filter_map(|v| match v {
                Some(Value::Win(d)) => Some(*d),
                _ => None,
            });
            if n % 2 == 0 && all_won && longest.max() == Some(n - 1) {
                found.push((*pos, Value::Loss(n)));
            }
        }
        quiet_rounds = if found.is_empty() {
            quiet_rounds + 1
        } else {
            0
        };
        values.extend(found);
        if quiet_rounds == 2 {
            break;
        }
    }
    for pos in children.keys() {
        values.entry(*pos).or_insert(Value::Draw);
    }
    values
}

fn assert_tables_agree(variant: &Variant, table: &Table, roots: &[Position]) -> usize {
    let naive = naive_values(variant, roots);
    for (pos, value) in &naive {
        assert_eq!(
            table.value(pos),
            Some(*value),
            "{} in {}",
            variant.position_string(pos),
            Table::file_name(variant)
        );
    }
    naive.len()
}

#[test]
fn three_mens_morris_tables_agree_with_a_naive_solver_on_every_position() {
    for v in three_mens_configurations() {
        let table = engine::solve(&v, 1).unwrap();
        let checked = assert_tables_agree(&v, &table, &[v.start()]);
        assert!(checked > 3_000, "{checked} positions reached");
    }
}

/// Random positions with both hands empty and `men` men a side, that the rules accept.
fn random_positions(variant: &Variant, men: [u32; 2], count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let points = variant.board().len();
    let mut found = Vec::new();
    while found.len() < count {
        let mut placed = [0u32; 2];
        for (side, n) in men.into_iter().enumerate() {
            while placed[side].count_ones() < n {
                let p = 1 << rng.below(points);
                if (placed[0] | placed[1]) & p == 0 {
                    placed[side] |= p;
                }
            }
        }
        let setup = merels::rules::Setup {
            men: placed,
            hand: [0, 0],
            to_move: Color::BOTH[rng.below(2)],
        };
        if let Ok(pos) = variant.setup(&setup) {
            found.push(pos);
        }
    }
    found
}

#[test]
fn five_six_and_seven_mens_tables_agree_with_a_naive_solver_on_samples() {
    // Samples of the endgames (three and four men a side: each sample's whole future is solved
    // again), and for Seven Men's, whose whole table takes minutes, the layers those need alone.
    for slug in ["five-mens-morris", "six-mens-morris"] {
        let (v, table) = solved(slug);
        let roots = random_positions(v, [3, 3], 40, 7);
        assert_tables_agree(v, table, &roots);
    }
    let seven = variant("seven-mens-morris", &[]);
    let endgames = |key: LayerKey| key.hand == [0, 0] && key.board[0] + key.board[1] <= 6;
    let table = engine::solve::solve_layers(&seven, 2, endgames).unwrap();
    let roots = random_positions(&seven, [3, 3], 40, 11);
    assert_tables_agree(&seven, &table, &roots);
}

#[test]
fn the_known_results_of_perfect_play_come_out() {
    // REFERENCE.md §6: Three Men's with diagonals and adjacent moves is a first-player win by the
    // centre; with moves to any empty point it is a draw; Five and Six Men's are draws.
    let [anywhere, adjacent] = ["anywhere", "adjacent"]
        .map(|m| variant("three-mens-morris", &[("diagonals", "on"), ("movement", m)]));
    let table = engine::solve(&anywhere, 1).unwrap();
    assert_eq!(table.value(&anywhere.start()), Some(Value::Draw));
    let table = engine::solve(&adjacent, 1).unwrap();
    let start = adjacent.start();
    assert!(matches!(table.value(&start), Some(Value::Win(_))));
    let winning: Vec<String> = adjacent
        .legal_turns(&start)
        .into_iter()
        .filter(|&t| {
            let next = adjacent.play(&start, t).unwrap();
            matches!(table.value(&next), Some(Value::Loss(_)))
        })
        .map(|t| adjacent.turn_string(t))
        .collect();
    assert_eq!(winning, ["b2"], "only the centre wins");

    for slug in ["five-mens-morris", "six-mens-morris"] {
        let (v, table) = solved(slug);
        assert_eq!(table.value(&v.start()), Some(Value::Draw), "{slug}");
    }
}

/// Plays `games` games of perfect play against `other` and fails if perfect play ever loses a
/// game in which it once stood no worse than a draw.
fn perfect_never_slips(
    variant: &Arc<Variant>,
    table: &Table,
    games: u64,
    mut other: impl FnMut(&Game, u64) -> merels::rules::Turn,
) {
    for g in 0..games {
        let perfect = Color::BOTH[(g % 2) as usize];
        let mut game = Game::new(variant.clone());
        let mut held = false;
        while game.outcome().is_none() {
            let turn = if game.to_move() == perfect {
                let (turn, value) = table.best(variant, game.position()).unwrap();
                held |= !matches!(value, Value::Loss(_));
                turn
            } else {
                other(&game, g)
            };
            game.play(turn).unwrap();
        }
        let winner = game.outcome().unwrap().winner;
        assert!(
            !(held && winner == Some(perfect.opponent())),
            "perfect play as {} lost game {g} of {}: {:?}",
            perfect.name(),
            variant.slug(),
            game.turn_strings()
        );
    }
}

/// Every solved board the suite plays on: Three Men's in every configuration, Five and Six.
fn solved_boards() -> Vec<(Arc<Variant>, Table)> {
    let mut boards: Vec<(Arc<Variant>, Table)> = three_mens_configurations()
        .into_iter()
        .map(|v| {
            let t = engine::solve(&v, 1).unwrap();
            (v, t)
        })
        .collect();
    for slug in ["five-mens-morris", "six-mens-morris"] {
        let (v, t) = solved(slug);
        boards.push((v.clone(), t.clone()));
    }
    boards
}

#[test]
fn perfect_play_never_loses_to_random_play() {
    for (v, table) in &solved_boards() {
        let mut rng = Rng::new(3);
        perfect_never_slips(v, table, 1_000, |game, _| {
            let legal = game.legal_turns();
            legal[rng.below(legal.len())]
        });
    }
}

#[test]
fn perfect_play_never_loses_to_the_search_at_any_level() {
    // A thousand games a board, the levels in turn. The search's first turn is a random one, so
    // that the levels that make no mistakes of their own do not play one game a thousand times;
    // each search has a thousand nodes (its level's depth and mistakes, not its time: the
    // strongest levels would take hours here).
    for (v, table) in &solved_boards() {
        let levels: Vec<Level> = Level::all().collect();
        let mut rng = Rng::new(5);
        perfect_never_slips(v, table, 1_000, |game, g| {
            if game.turns().len() < 2 {
                let legal = game.legal_turns();
                return legal[rng.below(legal.len())];
            }
            let earlier: Vec<Position> = game.positions().collect();
            let choice = engine::choose(Ask {
                variant: v,
                table: None,
                earlier: &earlier[..earlier.len() - 1],
                position: game.position(),
                level: levels[(g / 2 % 6) as usize],
                seed: g,
                stop: None,
                nodes: Some(1_000),
            });
            choice.unwrap().turn
        });
    }
}

#[test]
fn the_search_finds_every_short_forced_end_the_tables_know() {
    // Wherever the table says a position is won or lost within five plies, a search six plies
    // deep finds exactly that: the same distance, and a turn that keeps it.
    let (v, table) = solved("five-mens-morris");
    let mut checked = 0;
    for pos in random_positions(v, [4, 3], 400, 5)
        .into_iter()
        .chain(random_positions(v, [3, 3], 400, 6))
    {
        let value = table.value(&pos).unwrap();
        let expected = match value {
            Value::Win(d) if d <= 5 => engine::search::MATE - i32::from(d),
            Value::Loss(d) if d <= 4 && d > 0 => -(engine::search::MATE - i32::from(d)),
            _ => continue,
        };
        let mut search = Search::new(v, 16);
        let found = search
            .best(
                &[],
                &pos,
                Limits {
                    depth: 6,
                    nodes: u64::MAX,
                },
            )
            .unwrap();
        assert_eq!(found.score, expected, "{}", v.position_string(&pos));
        let next = v.play(&pos, found.turn).unwrap();
        assert_eq!(table.value(&next).unwrap().back(), value);
        checked += 1;
    }
    assert!(checked > 50, "only {checked} short ends among the samples");
}

#[test]
fn the_search_closes_mills_and_blocks_them_on_the_big_board() {
    let nine = variant("nine-mens-morris", &[]);
    let best = |position: &str| {
        let pos = nine.parse_position(position).unwrap();
        let found = Search::new(&nine, 16)
            .best(
                &[],
                &pos,
                Limits {
                    depth: 4,
                    nodes: u64::MAX,
                },
            )
            .unwrap();
        (nine.turn_string(found.turn), found.score)
    };
    // White closes a7-d7-g7 at once.
    let (turn, _) = best("a7,d7 a1,g1,b4 6/6 w");
    assert!(turn.starts_with("g7x"), "{turn}");
    // White must stop Black's a1-d1-g1.
    let (turn, _) = best("a7,b6 a1,d1 7/7 w");
    assert_eq!(turn, "g1");
    // Flying, White closes a mill and Black is down to two: a win in one.
    let (turn, score) = best("a7,d7,b6 a1,d1,f4 0/0 w");
    assert!(turn.starts_with("b6-g7x"), "{turn}");
    assert_eq!(score, engine::search::MATE - 1);
}

#[test]
fn a_level_makes_the_same_choice_from_the_same_seed_and_a_legal_one_always() {
    let nine = variant("nine-mens-morris", &[]);
    let mut game = Game::new(nine.clone());
    for ply in 0..40u64 {
        if game.outcome().is_some() {
            break;
        }
        let level = Level::new(1 + (ply % 3) as u8).unwrap();
        let ask = |seed| {
            engine::choose(Ask {
                variant: &nine,
                table: None,
                earlier: &[],
                position: game.position(),
                level,
                seed,
                stop: None,
                nodes: None,
            })
            .unwrap()
        };
        let (a, b) = (ask(ply), ask(ply));
        assert_eq!(a.turn, b.turn);
        assert!(nine.is_legal(game.position(), a.turn));
        game.play(a.turn).unwrap();
    }
}

#[test]
fn tables_read_back_from_their_bytes_and_refuse_another_variant() {
    let [anywhere, adjacent] = ["anywhere", "adjacent"]
        .map(|m| variant("three-mens-morris", &[("diagonals", "on"), ("movement", m)]));
    let table = engine::solve(&adjacent, 1).unwrap();
    let bytes = table.to_bytes();
    let back = Table::from_bytes(&adjacent, &bytes).unwrap();
    assert_eq!(
        back.value(&adjacent.start()),
        table.value(&adjacent.start())
    );
    assert_eq!(back.census(), table.census());
    assert!(matches!(
        Table::from_bytes(&anywhere, &bytes),
        Err(engine::TableError::OtherVariant { .. })
    ));
    assert_eq!(
        Table::from_bytes(&adjacent, &bytes[..bytes.len() - 2]).err(),
        Some(engine::TableError::Length)
    );
    assert_eq!(
        Table::from_bytes(&adjacent, b"hello").err(),
        Some(engine::TableError::NotATable)
    );
    assert!(engine::solve(&variant("nine-mens-morris", &[]), 1).is_err());
}
