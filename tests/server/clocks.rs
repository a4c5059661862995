//! Clocks and absent opponents. Time controls are read and written; the server runs the clocks;
//! a flag fall and a first-move abort are driven by tokio's paused clock against rooms on a real
//! SQLite file; a player gone on their turn can be claimed against, over HTTP and WebSocket; and
//! a restart in the middle of a timed game keeps the clocks.

use crate::harness::{TestServer, eager_turn};
use merels::catalog::Catalog;
use merels::clock::{Clock, Expiry, FIRST_MOVE_MS, TimeControl};
use merels::protocol::{GameState, Status};
use merels::rooms::outbox::{Next, Outbox};
use merels::rooms::{
    Action, Actor, ColorChoice, Connection, Ending, OfferAction, Opponent, RoomError, Rooms,
    RoomsConfig,
};
use merels::rules::{Color, Termination};
use merels::store::Store;
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::{advance, pause};
use tokio_util::sync::CancellationToken;

/// Where the rooms' direct callers here come from.
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

#[test]
fn time_controls_read_and_write_back() {
    for text in [
        "untimed", "1+1", "3+2", "0.25+0", "0.5+1", "2.5+0", "180+180", "1d", "14d",
    ] {
        let control = TimeControl::parse(text).unwrap();
        assert_eq!(control.to_string(), text);
    }
    assert_eq!(TimeControl::parse("").unwrap(), TimeControl::Untimed);
    assert_eq!(
        TimeControl::parse("3+2").unwrap(),
        TimeControl::Fischer {
            base_ms: 180_000,
            increment_ms: 2_000
        }
    );
    for bad in [
        "0+0", "0+5", "181+0", "3+181", "0.3+0", "-1+2", "3", "3+", "0d", "15d", "x",
    ] {
        let e = TimeControl::parse(bad).unwrap_err();
        assert!(e.to_string().contains(bad), "{e}");
    }
}

#[test]
fn clocks_charge_the_mover_and_add_the_increment_once_both_have_moved() {
    let control = TimeControl::parse("1+2").unwrap();
    let start = Clock::start(control, 1_000);
    // The first two turns are free, each with its own deadline to abort the game.
    assert_eq!(
        start.deadline(0, Color::White),
        Some((1_000 + FIRST_MOVE_MS, Expiry::Abort))
    );
    let after_white = start.after_turn(6_000, 0, Color::White);
    assert_eq!((after_white.left, after_white.since), ([60_000; 2], 6_000));
    let running = after_white.after_turn(9_000, 1, Color::Black);
    assert_eq!(running.left, [60_000; 2]);
    assert_eq!(
        running.deadline(2, Color::White),
        Some((69_000, Expiry::Flag))
    );
    assert_eq!(running.left_at(19_000, 2, Color::White), [50_000, 60_000]);
    let next = running.after_turn(19_000, 2, Color::White);
    assert_eq!((next.left, next.since), ([52_000, 60_000], 19_000));
    // Never below zero, and stopping freezes what is left.
    assert_eq!(next.left_at(200_000, 3, Color::Black), [52_000, 0]);
    assert_eq!(
        next.stopped_at(29_000, 3, Color::Black).left,
        [52_000, 50_000]
    );

    // Days per turn: every turn starts the full count again.
    let days = Clock::start(TimeControl::Days(2), 0);
    let after = days.after_turn(86_400_000, 0, Color::White);
    assert_eq!(after.left, [172_800_000; 2]);
    assert_eq!(
        after.deadline(1, Color::Black),
        Some((86_400_000 + 172_800_000, Expiry::Abort))
    );
}

/// Two seats at a table of Six Men's Morris, in rooms over a real SQLite file.
struct Table {
    rooms: Rooms,
    id: String,
    secrets: [String; 2],
    _dir: tempfile::TempDir,
}

/// The rooms' settings a server started with no flags has.
fn defaults() -> RoomsConfig {
    let config =
        merels::config::Config::new(std::net::SocketAddr::new(LOCAL, 0), "sqlite::memory:");
    merels::server::rooms_config(&config, false, String::new())
}

impl Table {
    async fn new(clock: &str, config: RoomsConfig) -> Table {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("merels.db").display());
        let store = Store::connect(&url).await.unwrap();
        let metrics = Arc::new(merels::metrics::Metrics::new());
        let rooms = Rooms::new(
            store,
            metrics,
            Catalog::builtin(),
            config,
            CancellationToken::new(),
        );
        let control = TimeControl::parse(clock).unwrap();
        let white = rooms
            .create(
                LOCAL,
                "six-mens-morris",
                &BTreeMap::new(),
                control,
                ColorChoice::White,
                Opponent::Friend,
                None,
            )
            .await
            .unwrap();
        let black = rooms.join(&white.id, None).await.unwrap();
        Table {
            rooms,
            id: white.id,
            secrets: [white.secret, black.secret],
            _dir: dir,
        }
    }

    fn actor(&self, color: Color) -> Actor {
        Actor::Secret(Some(self.secrets[color.index()].clone()))
    }

    async fn state(&self) -> GameState {
        self.rooms.state(&self.id).await.unwrap()
    }

    /// Plays the first legal turn for `color`.
    async fn play(&self, color: Color) -> Result<GameState, RoomError> {
        let state = self.state().await;
        let turn = state
            .now
            .legal
            .first()
            .map(|t| t.turn.clone())
            .unwrap_or_default();
        self.act(self.actor(color), Action::Turn(turn.to_string()))
            .await
    }

    /// Does an action, and answers with the state after it.
    async fn act(&self, actor: Actor, action: Action) -> Result<GameState, RoomError> {
        let acted = self.rooms.act(&self.id, actor, LOCAL, action).await?;
        Ok(acted.state)
    }

    /// Attaches a connection, as a seat or a spectator.
    async fn watch(&self, seat: Option<Color>) -> (Arc<Outbox>, Connection) {
        let outbox = Arc::new(Outbox::new());
        let conn = self
            .rooms
            .connect(&self.id, seat, None, LOCAL, outbox.clone())
            .await
            .unwrap();
        (outbox, conn)
    }
}

/// Waits for a state pushed to `outbox` that satisfies `done`.
async fn pushed(outbox: &Outbox, done: impl Fn(&Value) -> bool) -> Value {
    let mut messages = VecDeque::new();
    loop {
        assert_eq!(
            outbox.next(&mut messages).await,
            Next::Send,
            "the connection was closed"
        );
        for m in messages.drain(..) {
            let v: Value = serde_json::from_str(m.as_str()).unwrap();
            if v["type"] == "state" && done(&v) {
                return v;
            }
        }
    }
}

fn clock_of(state: &GameState) -> (i64, i64, Option<Color>) {
    let c = state.now.clock.expect("a timed game shows its clocks");
    (c.white_ms, c.black_ms, c.running)
}

#[tokio::test(flavor = "current_thread")]
async fn a_flag_falls_on_tokios_paused_clock() {
    let table = Table::new("1+0", defaults()).await;
    let (watcher, _) = table.watch(None).await;
    table.play(Color::White).await.unwrap();
    table.play(Color::Black).await.unwrap();
    pause();
    // Both have moved: White's clock runs.
    let (white, black, running) = clock_of(&table.state().await);
    assert_eq!((black, running), (60_000, Some(Color::White)));
    assert!(white <= 60_000 && white > 59_000, "{white}");

    advance(Duration::from_secs(45)).await;
    let (white_before, ..) = clock_of(&table.state().await);
    table.play(Color::White).await.unwrap();
    let state = table.state().await;
    assert_eq!(clock_of(&state), (white_before, 60_000, Some(Color::Black)));
    assert!((14_000..=15_000).contains(&white_before), "{white_before}");

    // Black lets the clock run out. Nobody sends anything: the server's own timer ends it.
    advance(Duration::from_secs(59)).await;
    assert_eq!(table.state().await.now.status, Status::Playing);
    advance(Duration::from_secs(2)).await;
    let ended = pushed(&watcher, |s| s["status"] == "finished").await;
    assert_eq!(ended["termination"], "time");
    assert_eq!(ended["result"], "1-0");
    assert_eq!(ended["clock"]["black_ms"], 0);
    assert_eq!(ended["clock"]["running"], Value::Null);
    assert!(matches!(
        table.play(Color::Black).await.unwrap_err(),
        RoomError::GameOver
    ));

    // It is stored with the clocks as they fell, and the record says why. (A read may open a
    // new database connection, which has a timeout of its own: let time run again.)
    tokio::time::resume();
    let stored = table.rooms.store().load(&table.id).await.unwrap().unwrap();
    assert_eq!(stored.game.termination.as_deref(), Some("time"));
    assert_eq!(stored.game.clock.map(|c| c.black_ms), Some(0));
    let record = table.rooms.record(&table.id).await.unwrap();
    assert!(
        record.contains("[Result \"1-0\"]") && record.contains("[Termination \"time\"]"),
        "{record}"
    );
    assert!(record.contains("[TimeControl \"60+0\"]"), "{record}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_first_move_not_made_in_30_seconds_aborts_the_game() {
    // White never moves.
    let table = Table::new("3+2", defaults()).await;
    let (watcher, _) = table.watch(None).await;
    pause();
    let clock = table.state().await.now.clock.unwrap();
    assert_eq!(clock.running, None, "no clock runs before both have moved");
    assert!(clock.first_move_ms.unwrap() > 29_000);
    advance(Duration::from_millis(FIRST_MOVE_MS as u64 + 10)).await;
    let ended = pushed(&watcher, |s| s["status"] == "finished").await;
    assert_eq!(
        (ended["termination"].as_str(), ended["result"].as_str()),
        (Some("aborted"), Some("*"))
    );
    assert_eq!(
        ended["clock"]["white_ms"], 180_000,
        "a clock that never ran"
    );

    // White moves in time; Black does not. Also aborted: nobody wins a game that never began.
    tokio::time::resume();
    let table = Table::new("3+2", defaults()).await;
    pause();
    advance(Duration::from_secs(20)).await;
    table.play(Color::White).await.unwrap();
    advance(Duration::from_secs(29)).await;
    assert_eq!(table.state().await.now.status, Status::Playing);
    assert!(
        table
            .state()
            .await
            .now
            .clock
            .unwrap()
            .first_move_ms
            .unwrap()
            <= 1_000
    );
    advance(Duration::from_secs(2)).await;
    let state = table.state().await;
    assert_eq!(
        (state.now.status, state.now.termination),
        (Status::Finished, Some(Termination::Aborted))
    );

    // Untimed games wait for ever while both players are there. (A player who never came,
    // or left before their first turn, is waited for only as long as the absence wait.)
    tokio::time::resume();
    let table = Table::new("untimed", defaults()).await;
    let _white = table.watch(Some(Color::White)).await;
    let _black = table.watch(Some(Color::Black)).await;
    pause();
    advance(Duration::from_secs(86_400)).await;
    let state = table.state().await;
    assert_eq!(
        (state.now.status, state.now.clock, state.now.termination),
        (Status::Playing, None, None)
    );
}

#[tokio::test(flavor = "current_thread")]
async fn days_per_turn_give_each_turn_its_days_and_takebacks_give_back_no_time() {
    let table = Table::new("1d", defaults()).await;
    let (watcher, _) = table.watch(None).await;
    pause();
    // No 30-second rule here: a day for White's first turn, then a fresh day for each turn.
    advance(Duration::from_secs(20 * 3600)).await;
    table.play(Color::White).await.unwrap();
    let (white, black, running) = clock_of(&table.state().await);
    assert_eq!(
        (white, black, running),
        (86_400_000, 86_400_000, Some(Color::Black))
    );
    advance(Duration::from_secs(23 * 3600)).await;
    table.play(Color::Black).await.unwrap();
    advance(Duration::from_secs(3600)).await;
    let (white, ..) = clock_of(&table.state().await);
    assert!((82_799_000..=82_800_000).contains(&white), "{white}");

    // Black asks for a takeback of its turn and White allows it an hour later: the hour White
    // spent is not given back, and Black's clock runs again from the takeback.
    table
        .act(
            table.actor(Color::Black),
            Action::Takeback(OfferAction::Offer),
        )
        .await
        .unwrap();
    advance(Duration::from_secs(3600)).await;
    let state = table
        .act(
            table.actor(Color::White),
            Action::Takeback(OfferAction::Accept),
        )
        .await
        .unwrap();
    assert_eq!((state.turns.len(), state.now.to_move), (1, Color::Black));
    let (white, black, running) = clock_of(&state);
    assert!((79_199_000..=79_200_000).contains(&white), "{white}");
    assert_eq!((black, running), (86_400_000, Some(Color::Black)));

    // Black then lets its day pass. After the takeback only White has moved, so the game had not
    // begun: it is aborted rather than lost.
    advance(Duration::from_secs(86_400)).await;
    let ended = pushed(&watcher, |s| s["status"] == "finished").await;
    assert_eq!(
        (ended["termination"].as_str(), ended["result"].as_str()),
        (Some("aborted"), Some("*"))
    );
}

#[tokio::test(flavor = "current_thread")]
async fn the_opponent_of_a_player_gone_on_their_turn_may_claim() {
    let table = Table::new("untimed", defaults()).await;
    let (_white_outbox, white) = table.watch(Some(Color::White)).await;
    let (_black_outbox, _black) = table.watch(Some(Color::Black)).await;
    table.play(Color::White).await.unwrap();
    table.play(Color::Black).await.unwrap();
    pause();
    // White is to move and connected: nothing to claim.
    assert_eq!(table.state().await.now.claim, None);
    let refused = table
        .act(table.actor(Color::Black), Action::End(Ending::ClaimWin))
        .await;
    assert!(
        matches!(refused, Err(RoomError::NotAllowed(_))),
        "{refused:?}"
    );

    // White's connection drops. Two minutes later (untimed), Black may claim.
    table.rooms.disconnect(&table.id, &white).await;
    advance(Duration::from_secs(60)).await;
    let claim = table.state().await.now.claim.unwrap();
    assert_eq!((claim.by, claim.in_ms), (Color::Black, 60_000));
    let early = table
        .act(table.actor(Color::Black), Action::End(Ending::ClaimWin))
        .await;
    assert!(matches!(early, Err(RoomError::NotAllowed(_))), "{early:?}");
    // A spectator cannot claim for anyone.
    let spectator = table
        .act(Actor::Seat(None), Action::End(Ending::ClaimWin))
        .await;
    assert!(matches!(spectator.unwrap_err(), RoomError::NotSeated));

    advance(Duration::from_secs(61)).await;
    assert_eq!(table.state().await.now.claim.unwrap().in_ms, 0);
    let won = table
        .act(table.actor(Color::Black), Action::End(Ending::ClaimWin))
        .await
        .unwrap();
    assert_eq!(
        (
            won.now.result.as_deref(),
            won.now.termination,
            won.now.claim
        ),
        (Some("0-1"), Some(Termination::Abandonment), None)
    );

    // In a timed game 30 seconds are enough, and a draw may be claimed instead. A player who
    // acts over HTTP is there as far as claims go.
    tokio::time::resume();
    let table = Table::new("5+3", defaults()).await;
    table.play(Color::White).await.unwrap();
    table.play(Color::Black).await.unwrap();
    pause();
    advance(Duration::from_secs(20)).await;
    table.play(Color::White).await.unwrap();
    // Black was last seen when it moved (over HTTP), 20 seconds ago.
    let claim = table.state().await.now.claim.unwrap();
    assert_eq!(claim.by, Color::White);
    assert!((9_900..=10_000).contains(&claim.in_ms), "{claim:?}");
    advance(Duration::from_secs(10)).await;
    let drawn = table
        .act(table.actor(Color::White), Action::End(Ending::ClaimDraw))
        .await
        .unwrap();
    assert_eq!(
        (drawn.now.result.as_deref(), drawn.now.termination),
        (Some("1/2-1/2"), Some(Termination::Abandonment))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_over_http_and_websocket() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    let server = TestServer::start_on(&url, |c| c.absent_untimed_secs = 0.5).await;
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    let mut ws_white = server.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = server.ws(&white.id, Some(&black.secret)).await;
    let state = ws_white.state.clone();
    ws_white.play(&eager_turn(&state)).await;
    let state = ws_black.state_with_turns(1).await;
    ws_black.play(&eager_turn(&state)).await;
    ws_white.state_with_turns(2).await;
    let claim = |what: &str, bearer: Option<&str>| {
        let http = http.clone();
        let path = format!("/api/games/{}/claim/{what}", white.id);
        let bearer = bearer.map(str::to_string);
        async move { http.request("POST", &path, bearer.as_deref(), None).await }
    };
    // White is there: Black's claim is refused, and a bad word is not a route.
    let (status, body) = claim("win", Some(&black.secret)).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("not_allowed")));
    assert_eq!(claim("loss", Some(&black.secret)).await.0, 404);
    assert_eq!(claim("win", None).await.0, 401);
    ws_black.send_json(json!({"type": "claim_win"})).await;
    assert_eq!(ws_black.next_of("error").await["code"], "not_allowed");

    // White leaves; presence shows it, and soon the claim.
    drop(ws_white);
    loop {
        let s = ws_black.next_state().await;
        if s["seats"]["white"]["connected"] == false && s["claim"]["in_ms"] == 0 {
            assert_eq!(s["claim"]["by"], "black");
            break;
        }
    }
    let (status, body) = claim("win", Some(&black.secret)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["result"].as_str(), body["termination"].as_str()),
        (Some("0-1"), Some("abandonment"))
    );
    let s = ws_black.next_state().await;
    assert_eq!(s["status"], "finished");
    assert_eq!(claim("draw", Some(&black.secret)).await.0, 409);
    let record = server.http().record(&white.id).await;
    assert!(
        record.contains("[Result \"0-1\"]") && record.contains("[Termination \"abandonment\"]"),
        "{record}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_in_the_middle_of_a_timed_game_keeps_the_clocks() {
    let server = TestServer::start().await;
    let http = server.http();
    let (status, body) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "six-mens-morris", "clock": "7+999"})),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_variant")));
    let white = http.create_timed("six-mens-morris", "white", "3+2").await;
    let black = http.join(&white.id).await;
    let state = http.state(&white.id).await;
    assert_eq!(state["time_control"], "3+2");
    assert_eq!(
        state["clock"]["first_move_ms"]
            .as_i64()
            .map(|ms| ms > 25_000),
        Some(true)
    );
    for seat in [&white, &black] {
        let turn = eager_turn(&http.state(&white.id).await);
        assert_eq!(http.play(seat, &turn).await.0, 200);
    }
    // White thinks a little, then Black does: both clocks move off 3:00.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let turn = eager_turn(&http.state(&white.id).await);
    assert_eq!(http.play(&white, &turn).await.0, 200);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let turn = eager_turn(&http.state(&white.id).await);
    let stopped = std::time::Instant::now();
    let (_, before) = http.play(&black, &turn).await;
    let white_ms = before["clock"]["white_ms"].as_i64().unwrap();
    let black_ms = before["clock"]["black_ms"].as_i64().unwrap();
    assert!(white_ms < 182_000 - 250 && white_ms > 181_000, "{white_ms}");
    assert!(black_ms < 182_000 - 150 && black_ms > 181_000, "{black_ms}");
    assert_eq!(before["clock"]["running"], "white");

    let server = server.restart().await;
    let http = server.http();
    let after = http.state(&white.id).await;
    let waited = stopped.elapsed().as_millis() as i64;
    assert_eq!(
        after["clock"]["black_ms"], black_ms,
        "a stopped clock is exactly kept"
    );
    let white_after = after["clock"]["white_ms"].as_i64().unwrap();
    assert!(
        white_after <= white_ms && white_after >= white_ms - waited,
        "White's running clock went on through the restart: {white_ms} then {white_after} after {waited} ms"
    );
    assert_eq!(after["clock"]["running"], "white");
    assert_eq!(
        after["version"], before["version"],
        "versions are stored too"
    );
    let turn = eager_turn(&after);
    let (status, next) = http.play(&white, &turn).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(next["clock"]["running"], "black");
    server.stop().await;
}
