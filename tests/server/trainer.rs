//! The endgame trainer over HTTP, and the daily puzzle: every start served is a won endgame by
//! the board's table, playing one out perfectly wins in the distance shown with the computer
//! defending as long as the table allows, a slip is said, and bad input gets its error; the
//! daily puzzle is one per UTC day for every browser; a board whose table this server cannot
//! make says so rather than "being made".

use crate::harness::{Http, TestServer};
use merels::catalog::Catalog;
use merels::engine::puzzles::values;
use merels::engine::{Table, Value as Worth};
use merels::rules::{Color, Variant};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

const THREE: &str = "three-mens-morris";

fn three() -> (Arc<Variant>, Table) {
    let variant = Catalog::builtin()
        .configure(THREE, &BTreeMap::new())
        .unwrap();
    let table = merels::engine::solve(&variant, 1).unwrap();
    (variant, table)
}

async fn turn(http: &Http, slug: &str, position: &str, turn: &str) -> (u16, Value) {
    http.request(
        "POST",
        &format!("/api/trainer/{slug}/turn"),
        None,
        Some(json!({ "position": position, "turn": turn })),
    )
    .await
}

fn color(side: &Value) -> Color {
    match side.as_str() {
        Some("white") => Color::White,
        Some("black") => Color::Black,
        other => panic!("no side: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_endgame_is_won_and_played_out_against_the_longest_defence() {
    let server = TestServer::start().await;
    let http = server.http();
    let (variant, table) = three();
    let (status, body) = http
        .request("GET", &format!("/api/trainer/{THREE}"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    let starts = body["starts"].as_array().unwrap();
    assert_eq!(starts.len(), 6, "{body}");
    for (i, start) in starts.iter().enumerate() {
        assert_eq!(start["n"], i + 1);
        let pos = variant
            .parse_position(start["position"].as_str().unwrap())
            .unwrap();
        assert_eq!(pos.to_move(), color(&start["to_move"]));
        assert_eq!((pos.hand(Color::White), pos.hand(Color::Black)), (0, 0));
        let plies = start["plies"].as_u64().unwrap() as u16;
        assert_eq!(table.value(&pos), Some(Worth::Win(plies)), "{start}");
    }
    // The same starts again (chosen once, from a fixed seed).
    let (_, again) = http
        .request("GET", &format!("/api/trainer/{THREE}"), None, None)
        .await;
    assert_eq!(again, body);

    // Each start played out with the table's best turns: the distance falls by two a turn, and
    // every reply is the longest defence there is.
    for start in starts {
        let me = color(&start["to_move"]);
        let mut position = start["position"].as_str().unwrap().to_string();
        let mut plies = start["plies"].as_u64().unwrap();
        loop {
            let pos = variant.parse_position(&position).unwrap();
            let (best, _) = table.best(&variant, &pos).unwrap();
            let (status, answer) = turn(&http, THREE, &position, &variant.turn_string(best)).await;
            assert_eq!(status, 200, "{answer}");
            assert_eq!(answer["before"], format!("win in {plies}"));
            assert_eq!(answer["value"], format!("win in {plies}"));
            assert_eq!(
                (&answer["outcome"], &answer["slipped"]),
                (&json!("win"), &json!(false))
            );
            if !answer["over"].is_null() {
                assert_eq!(color(&answer["over"]), me);
                assert_eq!(plies, 1);
                assert_eq!(answer["then"]["legal"], json!([]));
                break;
            }
            let after = variant.play(&pos, best).unwrap();
            let longest = values(&variant, &table, &after)
                .unwrap()
                .into_iter()
                .map(|(_, v)| v.rank())
                .max()
                .unwrap();
            let reply = variant
                .parse_turn(answer["reply"]["turn"].as_str().unwrap())
                .unwrap();
            let replied = variant.play(&after, reply).unwrap();
            assert_eq!(table.value(&replied).unwrap().back().rank(), longest);
            plies -= 2;
            assert_eq!(answer["distance"], plies, "{answer}");
            position = answer["then"]["position"].as_str().unwrap().to_string();
            assert_eq!(
                variant.position_string(&replied),
                position,
                "the position after the reply"
            );
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slip_is_said_and_bad_input_gets_its_error() {
    let server = TestServer::start().await;
    let http = server.http();
    let (variant, table) = three();
    let (_, body) = http
        .request("GET", &format!("/api/trainer/{THREE}"), None, None)
        .await;
    // A start with a turn that gives the win away, and that turn.
    let (position, weak, worth) = body["starts"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|s| {
            let position = s["position"].as_str().unwrap();
            let pos = variant.parse_position(position).unwrap();
            let (t, v) = values(&variant, &table, &pos)
                .unwrap()
                .into_iter()
                .find(|(_, v)| !matches!(v, Worth::Win(_)))?;
            Some((position.to_string(), variant.turn_string(t), v))
        })
        .expect("a start where a turn lets the win go");
    let (status, answer) = turn(&http, THREE, &position, &weak).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["slipped"], true, "{answer}");
    assert_eq!(answer["value"], worth.to_string());
    assert_ne!(answer["outcome"], "win");

    // Errors: the board, the position, the turn, the body.
    let legal = variant.legal_turns(&variant.parse_position(&position).unwrap());
    let some_turn = variant.turn_string(legal[0]);
    let cases = [
        (
            "nine-mens-morris",
            position.as_str(),
            some_turn.as_str(),
            400,
            "bad_variant",
        ),
        (
            "no-such-board",
            position.as_str(),
            some_turn.as_str(),
            400,
            "bad_variant",
        ),
        (
            THREE,
            "not a position",
            some_turn.as_str(),
            400,
            "bad_notation",
        ),
        (THREE, position.as_str(), "zz9", 400, "bad_notation"),
    ];
    for (slug, position, played, status, code) in cases {
        let (s, answer) = turn(&http, slug, position, played).await;
        assert_eq!(
            (s, answer["error"].as_str()),
            (status, Some(code)),
            "{answer}"
        );
        assert!(!answer["message"].as_str().unwrap().is_empty());
    }
    let pos = variant.parse_position(&position).unwrap();
    let illegal = variant
        .legal_turns(&variant.start())
        .into_iter()
        .find(|t| !variant.is_legal(&pos, *t))
        .map(|t| variant.turn_string(t))
        .unwrap();
    let (s, answer) = turn(&http, THREE, &position, &illegal).await;
    assert_eq!(
        (s, answer["error"].as_str()),
        (422, Some("illegal_turn")),
        "{answer}"
    );
    // A position where the game is over: a start played out to its end.
    let mut over = variant
        .parse_position(body["starts"][0]["position"].as_str().unwrap())
        .unwrap();
    while variant.status(&over).is_none() {
        let (best, _) = table.best(&variant, &over).unwrap();
        over = variant.play(&over, best).unwrap();
    }
    let over = variant.position_string(&over);
    let (s, answer) = turn(&http, THREE, &over, &some_turn).await;
    assert_eq!(
        (s, answer["error"].as_str()),
        (409, Some("game_over")),
        "{answer}"
    );
    let (s, answer) = http
        .request(
            "POST",
            &format!("/api/trainer/{THREE}/turn"),
            None,
            Some(json!({ "position": position, "turn": some_turn, "more": 1 })),
        )
        .await;
    assert_eq!(
        (s, answer["error"].as_str()),
        (400, Some("malformed")),
        "{answer}"
    );
    let (s, page) = http
        .request("GET", &format!("/trainer/{THREE}/7"), None, None)
        .await;
    assert_eq!(s, 404, "{page}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_tables_folder_a_board_says_it_needs_its_table() {
    // The test server keeps no tables folder: only Three Men's is solved (on the spot).
    let server = TestServer::start().await;
    let http = server.http();
    for path in [
        "/api/puzzles/next?variant=five-mens-morris".to_string(),
        "/api/trainer/six-mens-morris".to_string(),
    ] {
        let (status, body) = http.request("GET", &path, None, None).await;
        assert_eq!((status, body["error"].as_str()), (503, Some("unavailable")));
        let message = body["message"].as_str().unwrap();
        assert!(
            message.contains("MERELS_TABLES") && message.contains("merels solve"),
            "{message}"
        );
        assert!(!message.contains("being made"), "{message}");
    }
    let page = http.page("/trainer/five-mens-morris").await;
    assert!(page.contains("MERELS_TABLES"), "{page}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_puzzle_is_one_for_everyone_each_day() {
    let server = TestServer::start().await;
    let (a, b) = (server.browser(), server.browser());
    // Today's: the same for two browsers (its board may be one this server has no table of).
    let (status, today) = a.request("GET", "/api/puzzles/daily", None, None).await;
    let (_, also) = b.request("GET", "/api/puzzles/daily", None, None).await;
    if status == 200 {
        assert_eq!(today["id"], also["id"]);
    } else {
        assert_eq!(today["error"], "unavailable", "{today}");
    }
    // Days whose board is Three Men's (the boards take turns): one puzzle each, the same for
    // both browsers, not the same every day.
    let mut ids = Vec::new();
    let mut three_day = None;
    for day in 20_000..20_016 {
        let path = format!("/api/puzzles/daily?day={day}");
        let (status, one) = a.request("GET", &path, None, None).await;
        let (_, other) = b.request("GET", &path, None, None).await;
        assert_eq!(one, other, "day {day}");
        if status == 200 {
            assert_eq!(
                (one["day"].as_u64(), &one["variant"]),
                (Some(day), &json!(THREE))
            );
            ids.push(one["id"].as_i64().unwrap());
            three_day = Some(day);
        } else {
            assert_eq!(one["error"], "unavailable", "{one}");
        }
    }
    assert!(ids.len() >= 2, "{ids:?}");
    ids.sort_unstable();
    ids.dedup();
    assert!(ids.len() >= 2, "the same puzzle every day: {ids:?}");
    let (status, bad) = a
        .request("GET", "/api/puzzles/daily?day=yesterday", None, None)
        .await;
    assert_eq!((status, bad["error"].as_str()), (400, Some("malformed")));
    // The home page links to it; the page goes on to the puzzle.
    assert!(a.page("/").await.contains("href=\"/puzzles/daily\""));
    let page = a
        .page(&format!("/puzzles/daily?day={}", three_day.unwrap()))
        .await;
    assert!(page.contains("to play and"), "{page}");
    server.stop().await;
}
