//! Puzzles over HTTP: every puzzle served is checked against the board's solved table (the
//! solver's turn is the only one keeping the result, at every step of its line), ratings move
//! as Glicko-2 says for a fixed sequence of attempts, and bad input gets its error and changes
//! nothing.

use crate::harness::{Http, TestServer};
use merels::catalog::Catalog;
use merels::engine::puzzles::{Goal, values};
use merels::engine::{Table, Value as Worth};
use merels::rating::Rating;
use merels::rules::Variant;
use merels::rules::board::points;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

fn board(slug: &str) -> (Arc<Variant>, Table) {
    let variant = Catalog::builtin()
        .configure(slug, &BTreeMap::new())
        .unwrap();
    let table = merels::engine::solve(&variant, 2).unwrap();
    (variant, table)
}

async fn next(http: &Http, slug: &str) -> (u16, Value) {
    http.request(
        "GET",
        &format!("/api/puzzles/next?variant={slug}"),
        None,
        None,
    )
    .await
}

async fn attempt(http: &Http, id: &Value, turns: &[&str]) -> (u16, Value) {
    http.request(
        "POST",
        &format!("/api/puzzles/{id}/attempt"),
        None,
        Some(json!({ "turns": turns })),
    )
    .await
}

/// The one turn of `position` keeping `goal`, asserting from the table that there is exactly one
/// (and another to be tempted by), and that the position is worth the goal.
fn only_keeper(variant: &Variant, table: &Table, position: &str, goal: &str) -> String {
    let pos = variant.parse_position(position).unwrap();
    let goal = Goal::parse(goal).unwrap();
    assert_eq!(
        Goal::of(table.value(&pos).unwrap()),
        Some(goal),
        "{position}"
    );
    let all = values(variant, table, &pos).unwrap();
    let keepers: Vec<_> = all.iter().filter(|(_, v)| goal.kept_by(*v)).collect();
    assert_eq!(keepers.len(), 1, "{position}: {all:?}");
    assert!(all.len() >= 2, "{position}");
    variant.turn_string(keepers[0].0)
}

/// A wrong turn of `position`, with what it is worth.
fn a_wrong_turn(variant: &Variant, table: &Table, position: &str, goal: &str) -> (String, Worth) {
    let pos = variant.parse_position(position).unwrap();
    let goal = Goal::parse(goal).unwrap();
    let all = values(variant, table, &pos).unwrap();
    let (turn, worth) = all.into_iter().find(|(_, v)| !goal.kept_by(*v)).unwrap();
    (variant.turn_string(turn), worth)
}

/// Solves puzzles of `slug` one after another as served, checking each step against the table.
async fn solve_served(http: &Http, slug: &str, count: usize) {
    let (variant, table) = board(slug);
    let mut seen = HashSet::new();
    let mut rating = 1500;
    for _ in 0..count {
        let (status, puzzle) = next(http, slug).await;
        assert_eq!(status, 200, "{puzzle}");
        assert!(seen.insert(puzzle["id"].clone()), "served twice: {puzzle}");
        assert_eq!(puzzle["your_rating"], rating);
        let goal = puzzle["goal"].as_str().unwrap();
        let mut position = puzzle["position"].as_str().unwrap().to_string();
        let mut turns = Vec::new();
        loop {
            turns.push(only_keeper(&variant, &table, &position, goal));
            let played: Vec<&str> = turns.iter().map(String::as_str).collect();
            let (status, answer) = attempt(http, &puzzle["id"], &played).await;
            assert_eq!(status, 200, "{answer}");
            if answer["result"] == "solved" {
                assert!(answer["rating"].as_i64().unwrap() > rating);
                rating = answer["rating"].as_i64().unwrap();
                assert_eq!(turns.len() as u64, puzzle["solver_turns"]);
                break;
            }
            assert_eq!(answer["result"], "continue", "{answer}");
            position = answer["then"]["position"].as_str().unwrap().to_string();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_puzzle_served_is_the_one_turn_keeping_the_result() {
    // A tables folder: Five Men's Morris's table is solved into it (only Three Men's is made
    // without one).
    let tables = tempfile::tempdir().unwrap();
    let folder = tables.path().to_path_buf();
    let server = TestServer::start_with(|c| c.tables = Some(folder)).await;
    solve_served(&server.browser(), "three-mens-morris", 12).await;
    // Five Men's Morris's table is solved in the background first: `unavailable` until then
    // (asked often: a connection left idle longer than the server keeps one is closed).
    let http = server.browser();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let (status, body) = next(&http, "five-mens-morris").await;
        if status == 200 {
            break;
        }
        assert_eq!((status, body["error"].as_str()), (503, Some("unavailable")));
        assert!(
            std::time::Instant::now() < deadline,
            "five men's morris never had puzzles"
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    solve_served(&server.browser(), "five-mens-morris", 8).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratings_move_as_glicko_2_says() {
    let server = TestServer::start().await;
    let (variant, table) = board("three-mens-morris");
    let http = server.browser();
    let mut mine = Rating::default();
    // Solve one, fail one, solve one: each attempt one rating period against the puzzle.
    for solve in [true, false, true] {
        let (_, puzzle) = next(&http, "three-mens-morris").await;
        assert_eq!(puzzle["your_rating"], mine.rating.round() as i64);
        assert_eq!(puzzle["rating"], 1500, "a new puzzle: {puzzle}");
        let position = puzzle["position"].as_str().unwrap();
        let goal = puzzle["goal"].as_str().unwrap();
        let (turn, worth) = if solve {
            (only_keeper(&variant, &table, position, goal), None)
        } else {
            let (turn, worth) = a_wrong_turn(&variant, &table, position, goal);
            (turn, Some(worth))
        };
        let mut turns = vec![turn];
        let answer = loop {
            let played: Vec<&str> = turns.iter().map(String::as_str).collect();
            let (status, answer) = attempt(&http, &puzzle["id"], &played).await;
            assert_eq!(status, 200, "{answer}");
            if answer["result"] != "continue" {
                break answer;
            }
            let then = answer["then"]["position"].as_str().unwrap();
            turns.push(only_keeper(&variant, &table, then, goal));
        };
        let (me, it) = Rating::attempt(mine, Rating::default(), solve);
        assert_eq!(answer["result"], if solve { "solved" } else { "wrong" });
        assert_eq!(answer["rating"], me.rating.round() as i64, "{answer}");
        assert_eq!(
            answer["puzzle_rating"],
            it.rating.round() as i64,
            "{answer}"
        );
        assert_eq!(
            answer["rating_change"],
            (me.rating.round() - mine.rating.round()) as i64
        );
        if let Some(worth) = worth {
            let wrong = &answer["wrong"];
            assert_eq!(wrong["at"], 0);
            assert_eq!(wrong["turn"], turns[0]);
            assert_eq!(wrong["value"], worth.to_string());
            let right = only_keeper(&variant, &table, position, goal);
            assert_eq!(wrong["right"]["turn"], right);
        }
        mine = me;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_its_error_and_changes_nothing() {
    let server = TestServer::start().await;
    let (variant, table) = board("three-mens-morris");
    let http = server.browser();
    let (_, puzzle) = next(&http, "three-mens-morris").await;
    let id = &puzzle["id"];
    let position = puzzle["position"].as_str().unwrap();
    let goal = puzzle["goal"].as_str().unwrap();

    for (query, code) in [
        ("/api/puzzles/next?variant=nine-mens-morris", "bad_variant"),
        ("/api/puzzles/next?variant=nonsense", "bad_variant"),
        ("/api/puzzles/next", "bad_variant"),
    ] {
        let (status, body) = http.request("GET", query, None, None).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some(code)),
            "{query}"
        );
    }
    let unknown = json!({ "turns": ["b2"] });
    for path in ["/api/puzzles/999999/attempt", "/api/puzzles/abc/attempt"] {
        let (status, body) = http
            .request("POST", path, None, Some(unknown.clone()))
            .await;
        assert_eq!((status, body["error"].as_str()), (404, Some("not_found")));
    }
    let right = only_keeper(&variant, &table, position, goal);
    let pos = variant.parse_position(position).unwrap();
    let occupied = points(variant.board().all())
        .map(|p| variant.board().name(p).to_string())
        .find(|name| {
            variant
                .parse_turn(name)
                .is_ok_and(|t| !variant.is_legal(&pos, t))
        })
        .unwrap();
    let many: Vec<&str> =
        vec![right.as_str(); puzzle["solver_turns"].as_u64().unwrap() as usize + 1];
    for (body, status, code) in [
        (json!({ "turns": ["zz9"] }), 400, "bad_notation"),
        (json!({ "turns": [occupied] }), 422, "illegal_turn"),
        (json!({ "turns": [] }), 400, "malformed"),
        (json!({ "turns": many }), 422, "illegal_turn"),
        (json!({ "turns": [right], "extra": 1 }), 400, "malformed"),
        (json!({ "turn": right }), 400, "malformed"),
    ] {
        let path = format!("/api/puzzles/{id}/attempt");
        let (got, answer) = http.request("POST", &path, None, Some(body.clone())).await;
        assert_eq!(
            (got, answer["error"].as_str()),
            (status, Some(code)),
            "{body}"
        );
    }
    // None of it rated anything: the same puzzle comes next, and the rating stands.
    let (_, again) = next(&http, "three-mens-morris").await;
    assert_eq!((&again["id"], &again["your_rating"]), (id, &json!(1500)));

    // A wrong turn ends the attempt; a second attempt is refused and changes nothing.
    let (wrong, _) = a_wrong_turn(&variant, &table, position, goal);
    let (status, answer) = attempt(&http, id, &[&wrong]).await;
    assert_eq!((status, answer["result"].as_str()), (200, Some("wrong")));
    let rated = answer["rating"].clone();
    let (status, body) = attempt(&http, id, &[&right]).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("conflict")));
    let (_, after) = next(&http, "three-mens-morris").await;
    assert_eq!(after["your_rating"], rated);
    assert_ne!(&after["id"], id, "a puzzle tried is not served again");
    server.stop().await;
}

/// `merels puzzles` prints a set as JSON lines, each proven by the table, the same for one seed.
#[test]
fn the_command_prints_one_set_for_one_seed() {
    let (variant, table) = board("three-mens-morris");
    let run = |seed: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_merels"))
            .args(["puzzles", "--variant", "three-mens-morris", "--count", "25"])
            .args(["--seed", seed])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let set = run("3");
    assert_eq!(set, run("3"));
    assert_ne!(set, run("4"));
    assert_eq!(set.lines().count(), 25);
    for line in set.lines() {
        let p: Value = serde_json::from_str(line).unwrap();
        let text = |k: &str| p[k].as_str().unwrap().to_string();
        let puzzle = merels::engine::puzzles::Puzzle::parse(
            &variant,
            &text("position"),
            &text("goal"),
            &text("line"),
        )
        .unwrap();
        assert_eq!(
            merels::engine::puzzles::check(&variant, &table, &puzzle),
            Ok(())
        );
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_merels"))
        .args(["puzzles", "--variant", "nine-mens-morris"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("solved table"));
}

/// Every puzzle query of the store, on one backend: a set added (a position twice is kept once),
/// counted, read by number and by place, served nearest a rating and never twice to a browser,
/// and an attempt stored once with both ratings it moves (a second changes nothing).
async fn exercise_puzzle_sql(store: merels::store::Store) {
    use merels::engine::puzzles::{Wanted, generate};
    use merels::store::{Attempt, PuzzleRow};
    let (variant, table) = board("three-mens-morris");
    let wanted = Wanted {
        count: 5,
        seed: 1,
        depth: 2,
    };
    let rows: Vec<PuzzleRow> = generate(&variant, &table, wanted)
        .iter()
        .enumerate()
        .map(|(i, p)| PuzzleRow {
            id: 0,
            variant: variant.slug().to_string(),
            options: variant.options_string(),
            position: variant.position_string(&p.start),
            goal: p.goal.as_str().to_string(),
            line: p.line_string(&variant),
            rating: Rating {
                rating: 1300.0 + 100.0 * i as f64,
                ..Rating::default()
            },
            attempts: 0,
            solved: 0,
        })
        .collect();
    assert_eq!(rows.len(), 5);
    let (slug, options) = (variant.slug(), variant.options_string());
    assert_eq!(store.add_puzzles(&rows).await.unwrap(), 5);
    assert_eq!(store.add_puzzles(&rows[..2]).await.unwrap(), 0, "kept once");
    assert_eq!(store.puzzle_count(slug, &options).await.unwrap(), 5);
    assert_eq!(store.puzzle_count(slug, "other").await.unwrap(), 0);
    // By place, in the order added; and by number.
    let mut ids = Vec::new();
    for (n, row) in rows.iter().enumerate() {
        let got = store
            .nth_puzzle(slug, &options, n as i64)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (&got.position, &got.line, got.rating),
            (&row.position, &row.line, row.rating)
        );
        assert_eq!(store.puzzle(got.id).await.unwrap(), Some(got.clone()));
        ids.push(got.id);
    }
    assert_eq!(store.nth_puzzle(slug, &options, 5).await.unwrap(), None);
    assert_eq!(store.puzzle(-1).await.unwrap(), None);
    // Nearest the rating asked, then the next nearest once tried.
    let next = store.next_puzzle(slug, &options, "b1", 1490.0).await;
    let next = next.unwrap().unwrap();
    assert_eq!(next.id, ids[2]);
    assert!(!store.attempted("b1", next.id).await.unwrap());
    assert_eq!(store.puzzle_rating("b1").await.unwrap(), None);
    let (mine, theirs) = Rating::attempt(Rating::default(), next.rating, true);
    let attempt = Attempt {
        browser: "b1",
        puzzle: next.id,
        solved: true,
        at: 1_000,
        browser_rating: mine,
        puzzle_rating: theirs,
    };
    assert!(store.record_attempt(attempt).await.unwrap());
    assert!(store.attempted("b1", next.id).await.unwrap());
    assert_eq!(store.puzzle_rating("b1").await.unwrap(), Some(mine));
    let after = store.puzzle(next.id).await.unwrap().unwrap();
    assert_eq!((after.rating, after.attempts, after.solved), (theirs, 1, 1));
    // A second attempt of the same puzzle: refused, nothing moved.
    let twice = Attempt {
        solved: false,
        browser_rating: Rating::default(),
        puzzle_rating: Rating::default(),
        ..attempt
    };
    assert!(!store.record_attempt(twice).await.unwrap());
    assert_eq!(store.puzzle_rating("b1").await.unwrap(), Some(mine));
    assert_eq!(store.puzzle(next.id).await.unwrap(), Some(after));
    // Tried puzzles are not served again: the next nearest (1400 before 1600, the lower first).
    let again = store.next_puzzle(slug, &options, "b1", 1500.0).await;
    assert_eq!(again.unwrap().unwrap().id, ids[1]);
    let other = store.next_puzzle(slug, &options, "b2", theirs.rating).await;
    assert_eq!(other.unwrap().unwrap().id, ids[2], "another browser's own");
}

#[tokio::test]
async fn the_puzzle_sql_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    exercise_puzzle_sql(merels::store::Store::connect(&url).await.unwrap()).await;
}

#[tokio::test]
async fn the_puzzle_sql_on_postgres() {
    let cluster = crate::harness::PgCluster::start();
    let url = cluster.database("puzzles").await;
    exercise_puzzle_sql(merels::store::Store::connect(&url).await.unwrap()).await;
}
