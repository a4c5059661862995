//! Playing the computer: its seat is taken at creation, it thinks off the room and plays through
//! the same checks and store as anyone, answers draws, takebacks and rematches, can be watched,
//! and the record names it. Analyses never hold its turns up, and tables are built for it alone,
//! one at a time.

use crate::harness::{Http, Seat, TestServer, WAIT, eager_turn, metric, turns};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Waits until the game is finished or it is `seat`'s turn; the state then.
async fn my_turn_or_end(http: &Http, seat: &Seat) -> Value {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let state = http.state(&seat.id).await;
        if state["status"] == "finished" || state["to_move"] == seat.color.as_str() {
            return state;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the computer never moved: {state}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_plays_a_whole_game_through_the_room_and_is_watched() {
    let server = TestServer::start().await;
    let http = server.http();
    // Three Men's Morris with adjacent moves: a first-player win, which perfect play takes.
    let human = http
        .create_with(json!({
            "variant": "three-mens-morris",
            "options": {"movement": "adjacent"},
            "color": "black",
            "computer": 6,
        }))
        .await;
    assert_eq!(human.color, "black");
    let mut watcher = server.ws(&human.id, None).await;

    let mut state = my_turn_or_end(&http, &human).await;
    assert_eq!(turns(&state)[0], "b2", "perfect play takes the centre");
    assert_eq!(state["status"], "playing");
    let white = &state["seats"]["white"];
    assert_eq!(
        (white["taken"].as_bool(), white["connected"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(white["computer"]["level"], 6);
    assert!(white["computer"]["thought_ms"].as_u64().is_some());

    // A spectator plays for nobody, and the human cannot claim a win from a computer that
    // thinks: it is never gone.
    watcher.play("a1").await;
    assert_eq!(watcher.next_of("error").await["code"], "not_seated");
    assert!(state["claim"].is_null(), "{state}");

    while state["status"] != "finished" {
        if state["to_move"] == "white" {
            state = my_turn_or_end(&http, &human).await;
            continue;
        }
        let legal: Vec<String> = state["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["turn"].as_str().unwrap().to_string())
            .collect();
        let turn = legal.last().unwrap().clone();
        let (status, body) = http.play(&human, &turn).await;
        assert_eq!(status, 200, "{body}");
        state = my_turn_or_end(&http, &human).await;
    }
    assert_eq!(state["winner"], "white", "the computer wins a won game");

    // The spectator saw it all, and the record names the engine.
    let plies = turns(&state).len();
    let mut seen = watcher.next_state().await;
    while seen["status"] != "finished" {
        seen = watcher.next_state().await;
    }
    assert_eq!(turns(&seen).len(), plies);
    let record = http.record(&human.id).await;
    assert!(
        record.contains("[White \"merels computer, level 6 (master)\"]"),
        "{record}"
    );
    assert!(record.contains("[Result \"1-0\"]"), "{record}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_answers_draws_takebacks_and_rematches() {
    let server = TestServer::start().await;
    let http = server.http();
    let action = |seat: &Seat, what: &str| {
        let http = http.clone();
        let path = format!("/api/games/{}/{what}", seat.id);
        let secret = seat.secret.clone();
        async move { http.request("POST", &path, Some(&secret), None).await }
    };

    // White, the human, holds the won side of Three Men's with adjacent moves: the computer,
    // which knows it is lost, takes a draw at once.
    let human = http
        .create_with(json!({
            "variant": "three-mens-morris",
            "options": {"movement": "adjacent"},
            "color": "white",
            "computer": 6,
        }))
        .await;
    let (status, body) = http.play(&human, "b2").await;
    assert_eq!(status, 200, "{body}");
    my_turn_or_end(&http, &human).await;
    // A takeback is granted: back to the start, White to move.
    let (status, body) = action(&human, "takeback/offer").await;
    assert_eq!(status, 200, "{body}");
    let state = http.state(&human.id).await;
    assert_eq!(
        (state["plies"].as_u64(), state["to_move"].as_str()),
        (Some(0), Some("white"))
    );
    let (status, _) = http.play(&human, "b2").await;
    assert_eq!(status, 200);
    my_turn_or_end(&http, &human).await;
    let (status, body) = action(&human, "draw/offer").await;
    assert_eq!(status, 200, "{body}");
    let state = http.state(&human.id).await;
    assert_eq!(
        (state["status"].as_str(), state["termination"].as_str()),
        (Some("finished"), Some("agreement")),
        "{state}"
    );

    // A rematch is agreed to at once, colours swapped: the computer now has White.
    let (status, body) = action(&human, "rematch").await;
    assert_eq!(status, 200, "{body}");
    let new_id = body["rematch"]["id"].as_str().unwrap().to_string();
    assert_eq!(body["rematch"]["seat"], "black");
    let seat = Seat {
        id: new_id.clone(),
        color: "black".into(),
        secret: body["rematch"]["secret"].as_str().unwrap().into(),
    };
    let state = my_turn_or_end(&http, &seat).await;
    assert_eq!(state["seats"]["white"]["computer"]["level"], 6);
    assert_eq!(turns(&state).len(), 1, "the computer opened the rematch");

    // On the won side the computer turns a draw down.
    let (status, body) = action(&seat, "draw/offer").await;
    assert_eq!(status, 200, "{body}");
    let state = http.state(&new_id).await;
    assert_eq!(state["status"], "playing");
    assert!(state["draw_offer"].is_null(), "declined: {state}");

    // A level that does not exist is refused with a reason, and makes nothing.
    let (status, body) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "nine-mens-morris", "computer": 9})),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("level 9"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_analysed_exactly_on_a_solved_board_and_by_search_elsewhere() {
    let server = TestServer::start().await;
    let http = server.http();
    let path = |id: &str| format!("/api/games/{id}/analysis");

    // Three Men's with adjacent moves, between two people: White's a1 throws the win away
    // (only the centre wins), and the analysis says so, exactly.
    let white = http
        .create_with(json!({"variant": "three-mens-morris", "options": {"movement": "adjacent"}, "color": "white"}))
        .await;
    let black = http.join(&white.id).await;
    let (status, body) = http.request("GET", &path(&white.id), None, None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("not_allowed")),
        "{body}"
    );
    for (seat, turn) in [(&white, "a1"), (&black, "b2")] {
        assert_eq!(http.play(seat, turn).await.0, 200);
    }
    let resign = format!("/api/games/{}/resign", white.id);
    http.request("POST", &resign, Some(&white.secret), None)
        .await;
    let (status, body) = http.request("GET", &path(&white.id), None, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["exact"], true);
    let first = &body["turns"][0];
    assert_eq!(
        (
            first["turn"].as_str(),
            first["best"]["turn"].as_str(),
            first["value"].as_str()
        ),
        (Some("a1"), Some("b2"), Some("win in 9"))
    );
    assert_eq!(first["mark"], "blunder", "{body}");
    assert!(body["turns"][1]["mark"].is_null(), "{body}");

    // Nine Men's is searched: every turn gets a value and a best turn.
    let id = finished_game(&http).await;
    let (status, body) = http.request("GET", &path(&id), None, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["exact"], false);
    let turns = body["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 4);
    assert!(
        turns
            .iter()
            .all(|t| t["best"]["to"].is_string() && t["value"].is_string()),
        "{body}"
    );

    // The page shows the same, one row a turn.
    let page = http.page(&format!("/g/{id}/analysis")).await;
    assert_eq!(page.matches("<tr class=").count(), 4, "{page}");
    assert!(page.contains("<code>d6</code>"));
}

/// Bots and scripts have the analysis of turns sent in, stored nowhere and over or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_sent_in_are_analysed_and_bad_ones_refused() {
    let server = TestServer::start().await;
    let http = server.http();
    let get = |query: &'static str| http.request("GET", query, None, None);

    let (status, body) =
        get("/api/analysis?variant=three-mens-morris&movement=adjacent&moves=a1,b2+c3").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["exact"].as_bool(), body.get("id")),
        (Some(true), None)
    );
    let turns = body["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 3);
    assert_eq!(
        (
            turns[0]["best"]["turn"].as_str(),
            turns[0]["value"].as_str()
        ),
        (Some("b2"), Some("win in 9"))
    );
    assert_eq!(turns[0]["mark"], "blunder", "{body}");
    assert_eq!(turns[2]["side"], "white");

    // From a position of its own: White to move, closing a mill.
    let (status, body) =
        get("/api/analysis?variant=nine-mens-morris&position=a7,d7+a1,g1+7/7+w&moves=g7xa1").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["exact"], false);
    assert_eq!(body["turns"][0]["turn"], "g7xa1");
    assert!(body["turns"][0]["best"]["turn"].is_string(), "{body}");

    for (query, want) in [
        ("/api/analysis?moves=b2", (400, "bad_variant")),
        ("/api/analysis?variant=no-such-morris", (400, "bad_variant")),
        (
            "/api/analysis?variant=three-mens-morris&flying=sometimes",
            (400, "bad_variant"),
        ),
        (
            "/api/analysis?variant=three-mens-morris&moves=b2,zz9",
            (400, "bad_notation"),
        ),
        (
            "/api/analysis?variant=three-mens-morris&moves=b2,b2",
            (422, "illegal_turn"),
        ),
        (
            "/api/analysis?variant=three-mens-morris&position=nonsense",
            (400, "bad_notation"),
        ),
    ] {
        let (status, body) = get(query).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (want.0, Some(want.1)),
            "{query}: {body}"
        );
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    server.stop().await;
}

/// The first `plies` turns (fewer if it ends) of a game of `variant` in notation, the same every
/// time.
fn some_game(variant: &str, plies: usize) -> Vec<String> {
    game_of(variant, plies, |_| true)
}

/// Like [`some_game`], but no mill is closed when another turn can be played: a long game.
fn quiet_game(variant: &str, plies: usize) -> Vec<String> {
    game_of(variant, plies, |turn| turn.remove.is_none())
}

/// The first `plies` turns of a game of `variant`, each picked the same way every time from the
/// legal turns that are `wanted` (from all of them when none is).
fn game_of(
    variant: &str,
    plies: usize,
    wanted: impl Fn(&merels::rules::Turn) -> bool,
) -> Vec<String> {
    let variant = merels::catalog::Catalog::builtin()
        .configure(variant, &Default::default())
        .unwrap();
    let mut game = merels::rules::Game::new(variant);
    while game.turns().len() < plies && game.outcome().is_none() {
        let legal = game.legal_turns();
        let liked: Vec<_> = legal.iter().copied().filter(&wanted).collect();
        let from = if liked.is_empty() { &legal } else { &liked };
        let pick = from[game.turns().len() * 7 % from.len()];
        game.play(pick).unwrap();
    }
    game.turn_strings().to_vec()
}

/// A finished game of Nine Men's Morris between two people: four turns, then a resignation.
async fn finished_game(http: &Http) -> String {
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    for (seat, turn) in [
        (&white, "d6"),
        (&black, "d2"),
        (&white, "b6"),
        (&black, "f2"),
    ] {
        assert_eq!(http.play(seat, turn).await.0, 200);
    }
    let resign = format!("/api/games/{}/resign", white.id);
    http.request("POST", &resign, Some(&white.secret), None)
        .await;
    white.id
}

/// With one engine thread, a computer whose turn comes while two other games' computers think
/// (level 6: three million nodes each) waits for the thread: its clock is held meanwhile, and
/// charged only for its own thinking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computers_clock_stands_while_it_waits_for_a_thread() {
    let server = TestServer::start().await;
    let http = server.http();
    let create = |clock: &str| {
        json!({
            "variant": "nine-mens-morris",
            "color": "white",
            "clock": clock,
            "computer": 6,
        })
    };
    let slow = [
        http.create_with(create("untimed")).await,
        http.create_with(create("untimed")).await,
    ];
    let timed = http.create_with(create("0.25+0")).await;
    // The first two turns of the timed game: its clocks run from the next.
    let state = http.state(&timed.id).await;
    assert_eq!(http.play(&timed, &eager_turn(&state)).await.0, 200);
    let state = my_turn_or_end(&http, &timed).await;

    // The untimed games' computers take the thread, one after the other...
    for seat in &slow {
        let slow_state = http.state(&seat.id).await;
        assert_eq!(http.play(seat, &eager_turn(&slow_state)).await.0, 200);
    }
    // ...while the timed game's computer has 15 s and a reply to make.
    let asked = std::time::Instant::now();
    assert_eq!(http.play(&timed, &eager_turn(&state)).await.0, 200);
    let state = my_turn_or_end(&http, &timed).await;
    let waited = asked.elapsed();
    assert_eq!(state["status"], "playing", "{state}");
    assert!(
        waited > std::time::Duration::from_secs(2),
        "the computer did not wait for its thread ({waited:?}): the test shows nothing"
    );
    // It thinks for a thirtieth of its time at most, half a second; some slack for the trips.
    let charged = 15_000 - state["clock"]["black_ms"].as_i64().unwrap();
    assert!(
        charged < 1_000,
        "the computer was charged {charged} ms for a reply it waited {waited:?} for"
    );
    server.stop().await;
}

/// One address floods both analysis endpoints, thirty requests at a time, wave after wave,
/// while a person plays a 15-second game against level 6 (the computer has one engine thread):
/// the computer keeps its time and wins none of it less, the flood is capped, and a finished
/// game's analysis is served again as it was kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_analysis_flood_neither_starves_the_computer_nor_goes_uncapped() {
    let server = TestServer::start().await;
    let http = server.http();
    let finished = finished_game(&http).await;
    let moves = some_game("nine-mens-morris", 120).join(",");

    let human = http
        .create_with(json!({
            "variant": "nine-mens-morris",
            "color": "white",
            "clock": "0.25+0",
            "computer": 6,
        }))
        .await;

    let flooding = Arc::new(AtomicBool::new(true));
    let flood = {
        let (base, flooding) = (http.base.clone(), Arc::clone(&flooding));
        let finished = finished.clone();
        tokio::spawn(async move {
            let client = reqwest::Client::new();
            let (mut waves, mut capped) = (0, 0);
            while flooding.load(Ordering::Relaxed) {
                waves += 1;
                let wave: Vec<_> = (0..30)
                    .map(|n| {
                        let url = if n % 3 == 0 {
                            format!("{base}/api/games/{finished}/analysis")
                        } else {
                            format!("{base}/api/analysis?variant=nine-mens-morris&moves={moves}")
                        };
                        let client = client.clone();
                        tokio::spawn(async move {
                            let response = client.get(url).send().await.unwrap();
                            let status = response.status().as_u16();
                            let body: Value = response.json().await.unwrap_or(Value::Null);
                            (status, body)
                        })
                    })
                    .collect();
                for request in wave {
                    let (status, body) = request.await.unwrap();
                    match status {
                        200 => {}
                        429 => {
                            assert_eq!(body["error"], "rate_limited", "{body}");
                            assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
                            capped += 1;
                        }
                        other => panic!("the flood was answered {other}: {body}"),
                    }
                }
            }
            (waves, capped)
        })
    };

    // Eight replies of the computer, the flood going on all the while.
    let mut state = http.state(&human.id).await;
    let mut replies = 0;
    while replies < 8 && state["status"] == "playing" {
        let (status, body) = http.play(&human, &eager_turn(&state)).await;
        assert_eq!(status, 200, "{body}");
        state = my_turn_or_end(&http, &human).await;
        replies += 1;
    }
    flooding.store(false, Ordering::Relaxed);
    let (waves, capped) = flood.await.unwrap();

    assert_ne!(
        (state["status"].as_str(), state["termination"].as_str()),
        (Some("finished"), Some("time")),
        "the computer lost on time: {state}"
    );
    // Level 6 thinks for a thirtieth of what it has left: eight replies cost it under a third
    // of its 15 s unless it waited for a thread.
    let left = state["clock"]["black_ms"].as_i64().unwrap();
    assert!(
        left > 10_000,
        "the computer's replies were slow: {left} ms left"
    );
    // Of each wave's twenty analyses of turns sent in, two run (the finished game's are kept).
    assert!(
        capped >= 15 * waves,
        "the flood was not capped: {capped} refused in {waves} waves"
    );
    assert!(
        metric(
            &server,
            "merels_limit_violations_total{kind=\"analyses_per_ip\"}"
        )
        .await
            >= 20.0
    );

    // The finished game's analysis is kept: asked again, it is served as it was.
    let path = format!("/api/games/{finished}/analysis");
    let kept = r#"merels_analyses_total{kind="kept"}"#;
    let (status, first) = http.request("GET", &path, None, None).await;
    assert_eq!(status, 200, "{first}");
    let before = metric(&server, kept).await;
    let (status, again) = http.request("GET", &path, None, None).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(first, again);
    assert_eq!(
        metric(&server, kept).await,
        before + 1.0,
        "not served from what was kept"
    );
    server.stop().await;
}

/// The computer's turns have an engine thread of their own: while one address has the two
/// analyses it may (of a long game, each seconds of search) under way on the one analysis
/// thread, a level-1 computer replies before either is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_answers_while_analyses_are_under_way() {
    let server = TestServer::start().await;
    let http = server.http();
    let moves = quiet_game("nine-mens-morris", 200);
    assert!(moves.len() >= 100, "a short game: {}", moves.len());
    let url = format!(
        "{}/api/analysis?variant=nine-mens-morris&moves={}",
        http.base,
        moves.join(",")
    );
    let human = http
        .create_with(json!({"variant": "nine-mens-morris", "color": "white", "computer": 1}))
        .await;
    let state = http.state(&human.id).await;

    let analyses: Vec<_> = (0..2)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move {
                let response = reqwest::get(url).await.unwrap();
                let status = response.status().as_u16();
                let body: Value = response.json().await.unwrap_or(Value::Null);
                (status, body, std::time::Instant::now())
            })
        })
        .collect();
    // Both are under way (each takes seconds) before the human plays.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(http.play(&human, &eager_turn(&state)).await.0, 200);
    let state = my_turn_or_end(&http, &human).await;
    let replied = std::time::Instant::now();
    assert_eq!(state["status"], "playing", "{state}");

    for analysis in analyses {
        let (status, body, answered) = analysis.await.unwrap();
        assert_eq!(status, 200, "{body}");
        assert!(
            replied < answered,
            "the computer replied {:?} after an analysis was answered: it waited for it",
            replied - answered
        );
    }
    server.stop().await;
}

/// Threads of this process building a table now (with the helpers a build starts, which
/// inherit the name).
fn solving_threads() -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|name| name.trim() == "merels-solve")
        })
        .count()
}

/// Anonymous analyses of the small boards build no table (they are searched, and say so); two
/// games against the computer on two small boards have theirs built one after the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_are_built_one_at_a_time_for_the_computer_never_for_analyses() {
    let tables = tempfile::tempdir().unwrap();
    let folder = tables.path().to_path_buf();
    let server = TestServer::start_with(|c| c.tables = Some(folder)).await;
    let http = server.http();
    let builds = |what: &'static str| metric(&server, what);

    for variant in ["seven-mens-morris", "six-mens-morris", "five-mens-morris"] {
        let moves = some_game(variant, 3).join(",");
        let query = format!("/api/analysis?variant={variant}&moves={moves}");
        let (status, body) = http.request("GET", &query, None, None).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            (body["exact"].as_bool(), body["table_missing"].as_bool()),
            (Some(false), Some(true)),
            "{variant}: {body}"
        );
        assert!(body["turns"][0]["value"].is_string(), "searched: {body}");
    }
    // Nothing was started in the background either.
    for _ in 0..20 {
        assert_eq!(solving_threads(), 0, "an analysis started a table build");
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(builds("merels_table_builds_total").await, 0.0);
    assert_eq!(builds("merels_table_builds_waiting").await, 0.0);
    assert_eq!(std::fs::read_dir(tables.path()).unwrap().count(), 0);

    // Two games against the computer, which moves first: one table is built, the other waits.
    for variant in ["five-mens-morris", "six-mens-morris"] {
        http.create_with(json!({"variant": variant, "color": "black", "computer": 1}))
            .await;
    }
    let mut seen_one_waiting = false;
    for _ in 0..40 {
        let running = builds("merels_table_builds_running").await;
        let waiting = builds("merels_table_builds_waiting").await;
        assert!(running <= 1.0, "{running} tables built at once");
        seen_one_waiting |= running == 1.0 && waiting == 1.0;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        seen_one_waiting,
        "the second table did not wait for the first"
    );
    assert_eq!(builds("merels_table_builds_total").await, 1.0);
    // The one waiting is not begun once the server stops.
    server.stop().await;
}
