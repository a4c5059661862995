//! Games that are never lost: a server killed with SIGKILL mid-game comes back with every
//! acknowledged turn; two servers racing for one ply store exactly one turn; stale games are
//! closed; PostgreSQL serves the same. (Several instances: `instances.rs`.)

use crate::harness::{
    Http, PgCluster, Process, TestServer, Ws, eager_turn, eventually, free_addr, turns,
};
use serde_json::Value;
use std::time::Duration;

fn http_for(base: String) -> Http {
    Http {
        base,
        client: reqwest::Client::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_turns_survive_sigkill_and_play_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    let addr = free_addr();
    let server = Process::start(dir.path(), addr, &url).await;
    let http = http_for(server.base());

    // Three games in progress; every turn a player saw acknowledged is remembered.
    let mut games = Vec::new();
    for variant in ["nine-mens-morris", "six-mens-morris", "morabaraba"] {
        let white = http.create(variant, "white").await;
        let black = http.join(&white.id).await;
        let ws_white = Ws::connect(addr, &white.id, Some(&white.secret)).await;
        let ws_black = Ws::connect(addr, &white.id, Some(&black.secret)).await;
        games.push((white, black, ws_white, ws_black));
    }
    let mut acknowledged: Vec<Vec<String>> = vec![Vec::new(); games.len()];
    for round in 0..6 {
        for (g, (_, _, ws_white, ws_black)) in games.iter_mut().enumerate() {
            let state = ws_white.state.clone();
            let mover = if state["to_move"] == "white" {
                &mut *ws_white
            } else {
                &mut *ws_black
            };
            mover.play(&eager_turn(&state)).await;
            let seen = mover.state_with_turns(round + 1).await;
            ws_white.state_with_turns(round + 1).await;
            ws_black.state_with_turns(round + 1).await;
            acknowledged[g] = turns(&seen);
        }
    }
    // One more turn each, sent but not waited for: it may or may not be stored.
    for (_, _, ws_white, ws_black) in games.iter_mut() {
        let state = ws_white.state.clone();
        let mover = if state["to_move"] == "white" {
            &mut *ws_white
        } else {
            &mut *ws_black
        };
        mover.play(&eager_turn(&state)).await;
    }
    server.kill();

    let server = Process::start(dir.path(), addr, &url).await;
    let http = http_for(server.base());
    for (g, (white, black, ws_white, _)) in games.iter_mut().enumerate() {
        let state = http.state(&white.id).await;
        let stored = turns(&state);
        assert!(stored.len() >= acknowledged[g].len());
        assert_eq!(
            stored[..acknowledged[g].len()],
            acknowledged[g][..],
            "game {g}"
        );
        // The old connection was cut by the kill; the players reconnect and play on.
        assert_eq!(ws_white.closed().await, None);
        let mut w = Ws::connect(addr, &white.id, Some(&white.secret)).await;
        let mut b = Ws::connect(addr, &white.id, Some(&black.secret)).await;
        assert_eq!(w.state["turns"], state["turns"]);
        let n = stored.len();
        let mover = if w.state["to_move"] == "white" {
            &mut w
        } else {
            &mut b
        };
        let turn = eager_turn(&mover.state.clone());
        mover.play(&turn).await;
        assert_eq!(turns(&w.state_with_turns(n + 1).await)[n], turn);
    }
    let status = server.terminate();
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_racing_for_one_ply_store_exactly_one_turn() {
    let cluster = PgCluster::start();
    let url = cluster.database("race").await;
    let a = TestServer::start_on(&url, |_| {}).await;
    let b = TestServer::start_on(&url, |_| {}).await;
    let white = a.http().create("nine-mens-morris", "white").await;
    a.http().join(&white.id).await;
    // White is connected to both servers, which serve the game from one room (A's).
    let mut on_a = a.ws(&white.id, Some(&white.secret)).await;
    let mut on_b = b.ws(&white.id, Some(&white.secret)).await;
    let mut watcher_b = b.ws(&white.id, None).await;
    on_a.play("d6").await;
    on_b.play("f4").await;
    // Each side hears either its own turn in a state, or why not.
    async fn fate(ws: &mut Ws, own: &str) -> Result<(), Value> {
        loop {
            let m = ws.next().await;
            if m["type"] == "error" {
                return Err(m);
            }
            let change = m["type"] == "state" || m["type"] == "update";
            if change && turns(&ws.state) == [own] {
                return Ok(());
            }
        }
    }
    let (fa, fb) = tokio::join!(fate(&mut on_a, "d6"), fate(&mut on_b, "f4"));
    let errors: Vec<Value> = [fa, fb].into_iter().filter_map(Result::err).collect();
    assert_eq!(errors.len(), 1, "exactly one loses: {errors:?}");
    assert_eq!(errors[0]["code"], "not_your_turn");
    let stored = turns(&a.http().state(&white.id).await);
    assert_eq!(stored.len(), 1);
    // Both servers, and everyone watching, now agree on the one stored turn.
    assert_eq!(turns(&b.http().state(&white.id).await), stored);
    assert_eq!(turns(&watcher_b.state_with_turns(1).await), stored);
    a.stop().await;
    b.stop().await;
}

/// Time when no server ran is charged to nobody: a five-second outage while White's clock runs
/// costs White only the moments the server was up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_outage_is_not_charged_to_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    let server = TestServer::start_on(&url, |_| {}).await;
    let http = server.http();
    let white = http.create_timed("six-mens-morris", "white", "5+0").await;
    let black = http.join(&white.id).await;
    assert_eq!(http.play(&white, "a1").await.0, 200);
    assert_eq!(http.play(&black, "e5").await.0, 200);
    let before = http.state(&white.id).await;
    assert_eq!(before["clock"]["running"], "white");
    let left = before["clock"]["white_ms"].as_i64().unwrap();
    let server = server.restart_after(Duration::from_secs(5)).await;
    let after = server.http().state(&white.id).await;
    let spent = left - after["clock"]["white_ms"].as_i64().unwrap();
    assert!(
        (0..2_500).contains(&spent),
        "White was charged {spent} ms across a 5 s outage"
    );
    assert_eq!(after["clock"]["black_ms"], 300_000);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untouched_games_are_closed_as_abandoned() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    let a = TestServer::start_on(&url, |_| {}).await;
    let http = a.http();
    let lonely = http.create("six-mens-morris", "white").await;
    let white = http.create("six-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    http.play(&white, "a1").await;
    http.play(&black, "e5").await;
    http.play(&white, "a3").await;
    a.stop().await;

    tokio::time::sleep(Duration::from_millis(20)).await;
    let b = TestServer::start_on(&url, |c| c.abandon_after_days = 0.0).await;
    let http = b.http();
    eventually("the sweep closes the game", || async {
        http.state(&white.id).await["status"] == "finished"
    })
    .await;
    let state = http.state(&white.id).await;
    assert_eq!(state["termination"], "abandonment");
    assert_eq!(state["result"], "1-0", "Black let it lapse on Black's turn");
    let state = http.state(&lonely.id).await;
    assert_eq!(state["status"], "finished");
    assert_eq!(state["termination"], "aborted");
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_on_postgresql_plays_and_restarts_without_loss() {
    let cluster = PgCluster::start();
    let url = cluster.database("merels").await;
    let server = TestServer::start_on(&url, |_| {}).await;
    let white = server.http().create("seven-mens-morris", "black").await;
    assert_eq!(white.color, "black");
    let other = server.http().join(&white.id).await;
    let mut ws_other = server.ws(&white.id, Some(&other.secret)).await;
    let mut ws_creator = server.ws(&white.id, Some(&white.secret)).await;
    for ply in 0..8 {
        let state = ws_other.state.clone();
        let mover = if state["to_move"] == "white" {
            &mut ws_other
        } else {
            &mut ws_creator
        };
        mover.play(&eager_turn(&state)).await;
        ws_other.state_with_turns(ply + 1).await;
        ws_creator.state_with_turns(ply + 1).await;
    }
    let before = ws_other.state.clone();
    drop((ws_other, ws_creator));
    server.stop().await;

    let server = TestServer::start_on(&url, |_| {}).await;
    let state = server.http().state(&white.id).await;
    assert_eq!(state["turns"], before["turns"]);
    assert_eq!(state["position"], before["position"]);
    let ws = server.ws(&white.id, Some(&other.secret)).await;
    assert_eq!(ws.hello["seat"], "white");
    server.stop().await;
}

/// A graceful shutdown tells every socket to reconnect (1012) before the process exits, on
/// PostgreSQL too, where the last writes take longest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_shutdown_sends_every_socket_its_1012() {
    // Under the per-address cap of open sockets (64): every one from this host.
    const SOCKETS: usize = 60;
    let cluster = PgCluster::start();
    let url = cluster.database("shutdown").await;
    let dir = tempfile::tempdir().unwrap();
    let server = Process::start(dir.path(), free_addr(), &url).await;
    let http = http_for(server.base());
    let white = http.create("nine-mens-morris", "white").await;
    http.join(&white.id).await;
    let mut sockets = Vec::new();
    for _ in 0..SOCKETS {
        sockets.push(Ws::connect(server.addr, &white.id, None).await);
    }
    let status = server.terminate();
    assert!(status.success(), "{status}");
    let mut codes = Vec::new();
    for ws in &mut sockets {
        codes.push(ws.closed().await);
    }
    let told = codes.iter().filter(|c| **c == Some(1012)).count();
    assert_eq!(told, SOCKETS, "{codes:?}");
}

/// An outage of PostgreSQL is said as one: while the database is down, a turn, a resignation and
/// a new game are refused with `unavailable` (503: try again), never `internal`, and change
/// nothing; once it is back, the same turn is accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_is_said_as_unavailable_and_changes_nothing() {
    let cluster = PgCluster::start();
    let url = cluster.database("outage").await;
    let server = TestServer::start_on(&url, |_| {}).await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    assert_eq!(http.play(&white, "a1").await.0, 200);

    cluster.stop_server();
    let refused = [
        ("a turn", http.play(&black, "d7").await),
        ("a resignation", http.resign(&black).await),
        (
            "a new game",
            http.request(
                "POST",
                "/api/games",
                None,
                Some(
                    serde_json::json!({"variant": "nine-mens-morris", "options": {},
                    "color": "white", "clock": "untimed"}),
                ),
            )
            .await,
        ),
    ];
    for (what, (status, body)) in &refused {
        assert_eq!(*status, 503, "{what} during the outage: {body}");
        assert_eq!(body["error"], "unavailable", "{what}: {body}");
    }

    cluster.start_server();
    let mut answer = (0, Value::Null);
    for _ in 0..40 {
        answer = http.play(&black, "d7").await;
        if answer.0 == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(
        answer.0, 200,
        "the turn once the database is back: {}",
        answer.1
    );
    let state = http.state(&white.id).await;
    assert_eq!(turns(&state), ["a1", "d7"], "{state}");
    assert!(
        state["result"].is_null(),
        "the resignation was refused: {state}"
    );
    server.stop().await;
}
