//! Several instances on one PostgreSQL database behave as one: each game has one owner, which
//! serves every client of the game wherever it connected (the others forward its sockets to it,
//! send them to its own address, or, with a bus, keep them and relay their frames over NATS), so
//! that turns, offers, clocks and presence are decided in one place. Real servers on 127.0.0.1:0 and real processes, on a
//! real PostgreSQL cluster and a real NATS server; SQLite refuses a second process. Each test of
//! sockets across instances runs both ways.

use crate::harness::{PgCluster, Process, TestServer, Ws, eager_turn, free_addr, metric, turns};
use crate::nats::NatsServer;
use merels::time::wall_ms;
use serde_json::{Value, json};
use std::time::Duration;

/// How soon every client must see a change made on any instance.
const SEEN_WITHIN: Duration = Duration::from_secs(1);

/// How a socket reaches a game that another instance owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    /// Passed on to the owner as it is.
    Forwarding,
    /// Kept where it landed, its frames relayed over a bus.
    Bus,
    /// Told to reconnect to the owner's own address (`moved`).
    Direct,
}

/// The NATS server the instances share, when they use one.
fn bus(via: Via) -> Option<NatsServer> {
    (via == Via::Bus).then(NatsServer::start)
}

/// Two instances on one fresh database (and `bus`, if any), configured alike by `tweak`; each
/// reachable at its own address when sockets go there (`via`).
async fn two(
    cluster: &PgCluster,
    name: &str,
    via: Via,
    bus: &Option<NatsServer>,
    tweak: fn(&mut merels::config::Config),
) -> [TestServer; 2] {
    let url = cluster.database(name).await;
    let configure = |c: &mut merels::config::Config| {
        tweak(c);
        c.nats_url = bus.as_ref().map(|n| n.url.clone());
        if via == Via::Direct {
            c.direct_url = Some(format!("http://{}", c.bind));
        }
    };
    [
        TestServer::start_on(&url, configure).await,
        TestServer::start_on(&url, configure).await,
    ]
}

/// Two instances as processes on one fresh database (and `bus`, if any), with a lease of
/// `lease_secs` seconds, B started `apart` after A (so that their renewals are that far out of
/// step); the folder they run in comes first, to be dropped after them.
async fn two_processes(
    cluster: &PgCluster,
    name: &str,
    bus: &Option<NatsServer>,
    lease_secs: &str,
    apart: Duration,
) -> (tempfile::TempDir, Process, Process) {
    let url = cluster.database(name).await;
    let dir = tempfile::tempdir().unwrap();
    let mut env = vec![
        ("MERELS_LEASE_SECS", lease_secs),
        ("MERELS_INTERNAL_BIND", "127.0.0.1:0"),
    ];
    if let Some(nats) = bus {
        env.push(("MERELS_NATS_URL", &nats.url));
    }
    let a = Process::start_with(dir.path(), free_addr(), &url, &env).await;
    tokio::time::sleep(apart).await;
    let b = Process::start_with(dir.path(), free_addr(), &url, &env).await;
    (dir, a, b)
}

/// Waits until every client has the game at `plies` turns, each within [`SEEN_WITHIN`]; returns
/// the version they all agree on.
async fn all_see(clients: &mut [&mut Ws], plies: usize) -> Value {
    for ws in clients.iter_mut() {
        tokio::time::timeout(SEEN_WITHIN, ws.state_with_turns(plies))
            .await
            .unwrap_or_else(|_| panic!("ply {plies} seen within {SEEN_WITHIN:?}"));
    }
    let version = clients[0].state["version"].clone();
    for ws in clients.iter() {
        assert_eq!(ws.state["version"], version, "every client at one version");
        assert_eq!(turns(&ws.state), turns(&clients[0].state));
    }
    version
}

/// Plays the plies `plies` (White's the even ones), each seen by both players.
async fn alternate(white: &mut Ws, black: &mut Ws, plies: std::ops::Range<usize>) {
    for ply in plies {
        let mover = if ply % 2 == 0 {
            &mut *white
        } else {
            &mut *black
        };
        let turn = eager_turn(&mover.state);
        mover.play(&turn).await;
        all_see(&mut [&mut *white, &mut *black], ply + 1).await;
    }
}

/// How a finished game ended: its result and termination.
fn ending(state: &Value) -> (&str, &str) {
    let word = |key: &str| state[key].as_str().unwrap_or("");
    (word("result"), word("termination"))
}

/// Waits until a client sees the game finished; returns its state.
async fn finished(ws: &mut Ws) -> Value {
    tokio::time::timeout(SEEN_WITHIN, async {
        while ws.state["status"] != "finished" {
            ws.next_state().await;
        }
    })
    .await
    .expect("the end seen within a second");
    ws.state.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_across_two_instances_is_one_game() {
    across(Via::Forwarding).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_across_two_instances_over_a_bus_is_one_game() {
    across(Via::Bus).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_across_two_instances_served_at_its_owners_address_is_one_game() {
    across(Via::Direct).await;
}

async fn across(via: Via) {
    let cluster = PgCluster::start();
    let nats = bus(via);
    let [a, b] = two(&cluster, "across", via, &nats, |_| {}).await;

    // Made on A, joined on B; White on A, Black on B, a spectator on each.
    let white = a.http().create("nine-mens-morris", "white").await;
    let join = format!("/api/games/{}/join", white.id);
    let (status, joined) = b.http().request("POST", &join, None, None).await;
    assert_eq!(status, 200, "{joined}");
    let black_secret = joined["secret"].as_str().unwrap();
    let mut ws_white = a.ws(&white.id, Some(&white.secret)).await;
    // Black's socket lands on B even where the join's answer names the owner's address.
    let mut ws_black = b.ws(&white.id, Some(black_secret)).await;
    let mut watch_a = a.ws(&white.id, None).await;
    let mut watch_b = b.ws(&white.id, None).await;
    assert_eq!(ws_black.hello["seat"], "black", "{}", ws_black.hello);
    let owners_socket = format!("ws://{}/api/games/{}/ws", a.addr, white.id);
    // The seat's answer and the game's page, both made by the owner, name its own address for
    // the socket when it has one.
    let page = reqwest::get(format!("{}/g/{}", b.base, white.id))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    if via == Via::Direct {
        assert_eq!(joined["socket"], owners_socket.as_str(), "{joined}");
        assert!(page.contains(&format!(" data-socket=\"{owners_socket}\"")));
    } else {
        assert_eq!(joined.get("socket"), None, "{joined}");
        assert!(!page.contains("data-socket"));
    }
    for ws in [&ws_black, &watch_b] {
        let sent_to = (via == Via::Direct).then_some(owners_socket.as_str());
        assert_eq!(ws.moved.as_deref(), sent_to);
    }
    let mut last = Value::Null;
    for ply in 0..30 {
        let mover = if ply % 2 == 0 {
            &mut ws_white
        } else {
            &mut ws_black
        };
        let turn = eager_turn(&mover.state);
        mover.play(&turn).await;
        let version = all_see(
            &mut [&mut ws_white, &mut ws_black, &mut watch_a, &mut watch_b],
            ply + 1,
        )
        .await;
        assert_eq!(turns(&watch_b.state)[ply], turn);
        assert_ne!(version, last, "a new version for every turn");
        last = version;
    }
    // The game ran in one room: the one that made it. B forwarded its clients there (the join,
    // the page and both sockets), or kept the sockets and relayed them, or sent them there.
    if via == Via::Direct {
        // A client that cannot reach the owner's address asks to be served where it landed.
        let url = format!("ws://{}/api/games/{}/ws?direct=0", b.addr, white.id);
        let stays = Ws::connect_url(&url, None).await;
        assert_eq!(
            (stays.moved.as_deref(), turns(&stays.state).len()),
            (None, 30)
        );
    }
    let (forwarded, relayed, moved) = match via {
        Via::Forwarding => (4.0, 0.0, 0.0),
        Via::Bus => (2.0, 2.0, 0.0),
        Via::Direct => (3.0, 0.0, 2.0),
    };
    assert_eq!(metric(&b, "merels_forwarded_total").await, forwarded);
    assert_eq!(metric(&b, "merels_relayed_total").await, relayed);
    assert_eq!(metric(&b, "merels_moved_total").await, moved);
    for counter in ["forwarded", "relayed", "moved"] {
        assert_eq!(metric(&a, &format!("merels_{counter}_total")).await, 0.0);
    }
    assert_eq!(metric(&b, "merels_games_in_memory").await, 0.0);

    // A draw offered on A and accepted on B.
    let path = |action: &str| format!("/api/games/{}/draw/{action}", white.id);
    let (status, body) = a
        .http()
        .request("POST", &path("offer"), Some(&white.secret), None)
        .await;
    assert_eq!(
        (status, body["draw_offer"].as_str()),
        (200, Some("white")),
        "{body}"
    );
    let (status, body) = b
        .http()
        .request("POST", &path("accept"), Some(black_secret), None)
        .await;
    assert_eq!(status, 200, "{body}");
    for ws in [&mut ws_white, &mut ws_black, &mut watch_a, &mut watch_b] {
        let state = finished(ws).await;
        assert_eq!(state["result"], "1/2-1/2", "{state}");
    }
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offers_resignations_and_http_turns_go_to_the_one_owner() {
    offers(Via::Forwarding).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offers_resignations_and_http_turns_go_to_the_one_owner_over_a_bus() {
    offers(Via::Bus).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offers_resignations_and_http_turns_go_to_the_one_owner_at_its_address() {
    offers(Via::Direct).await;
}

async fn offers(via: Via) {
    let cluster = PgCluster::start();
    let nats = bus(via);
    let [a, b] = two(&cluster, "offers", via, &nats, |_| {}).await;
    let servers = [&a, &b];

    // HTTP turns sent to either instance, at random: every one is stored, in order.
    let white = b.http().create("six-mens-morris", "white").await;
    let black = a.http().join(&white.id).await;
    let mut rng = 0x9e37_79b9_u32;
    for ply in 0..12 {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        let server = servers[(rng % 2) as usize];
        let state = server.http().state(&white.id).await;
        assert_eq!(turns(&state).len(), ply, "{state}");
        let seat = if ply % 2 == 0 { &white } else { &black };
        let (status, body) = server.http().play(seat, &eager_turn(&state)).await;
        assert_eq!(status, 200, "ply {ply}: {body}");
    }
    assert_eq!(
        turns(&a.http().state(&white.id).await),
        turns(&b.http().state(&white.id).await)
    );

    // A takeback asked on B, accepted on A; White's socket is on A, a spectator on B.
    let mut ws_white = a.ws(&white.id, Some(&white.secret)).await;
    let mut watch_b = b.ws(&white.id, None).await;
    let path = |action: &str| format!("/api/games/{}/takeback/{action}", white.id);
    let (status, body) = b
        .http()
        .request("POST", &path("offer"), Some(&black.secret), None)
        .await;
    assert_eq!(status, 200, "{body}");
    ws_white.send_json(json!({"type": "takeback_accept"})).await;
    tokio::time::timeout(SEEN_WITHIN, async {
        while turns(&watch_b.state).len() != 11 {
            watch_b.next_state().await;
        }
    })
    .await
    .expect("the takeback seen on B within a second");
    assert_eq!(turns(&a.http().state(&white.id).await).len(), 11);

    // A resignation on A, seen on B.
    let (status, body) = a.http().resign(&white).await;
    assert_eq!(status, 200, "{body}");
    let state = finished(&mut watch_b).await;
    assert_eq!(ending(&state), ("0-1", "resignation"));
    let stored = b.http().state(&white.id).await;
    assert_eq!(turns(&stored).len(), 11, "no turn after the end");
    assert_eq!(metric(&a, "merels_store_refusals_total").await, 0.0);
    assert_eq!(metric(&b, "merels_store_refusals_total").await, 0.0);
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_and_claims_are_decided_by_the_owner_alone() {
    clocks(Via::Forwarding).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_and_claims_are_decided_by_the_owner_alone_over_a_bus() {
    clocks(Via::Bus).await;
}

async fn clocks(via: Via) {
    let cluster = PgCluster::start();
    let nats = bus(via);
    let [a, b] = two(&cluster, "clocks", via, &nats, |c| {
        c.absent_untimed_secs = 0.5
    })
    .await;

    // Untimed: White is to move and connected on B; Black, on A, may not claim, however long
    // White thinks. Once White's socket is gone, Black may.
    let white = a.http().create("six-mens-morris", "white").await;
    let black = a.http().join(&white.id).await;
    let mut ws_white = b.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = a.ws(&white.id, Some(&black.secret)).await;
    // (A game is aborted, not claimed, before each side has moved.)
    ws_white.play("a1").await;
    ws_black.state_with_turns(1).await;
    ws_black.play("e5").await;
    ws_white.state_with_turns(2).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let claim = format!("/api/games/{}/claim/win", white.id);
    let (status, body) = a
        .http()
        .request("POST", &claim, Some(&black.secret), None)
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("not_allowed")),
        "{body}"
    );
    drop(ws_white);
    loop {
        let s = ws_black.next_state().await;
        if s["seats"]["white"]["connected"] == false && s["claim"]["in_ms"] == 0 {
            break;
        }
    }
    let (status, body) = b
        .http()
        .request("POST", &claim, Some(&black.secret), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["termination"], "abandonment");

    // Fifteen seconds a side: both play promptly, each through another instance, and nobody
    // loses on time; then White stops, and White's flag falls.
    let white = b
        .http()
        .create_timed("six-mens-morris", "white", "0.25+0")
        .await;
    let black = a.http().join(&white.id).await;
    let mut ws_white = a.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = b.ws(&white.id, Some(&black.secret)).await;
    alternate(&mut ws_white, &mut ws_black, 0..10).await;
    assert_eq!(ws_white.state["status"], "playing", "{}", ws_white.state);
    let left = ws_white.state["clock"]["white_ms"].as_i64().unwrap();
    assert!(
        left > 10_000,
        "White has used little of the clock: {left} ms left"
    );
    tokio::time::sleep(Duration::from_millis(left as u64)).await;
    let state = finished(&mut ws_black).await;
    assert_eq!(ending(&state), ("0-1", "time"), "White's flag fell");
    a.stop().await;
    b.stop().await;
}

/// An instance that stops gracefully gives its games up: the other takes them at once, and
/// clients that were on the stopped one reconnect anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_moves_on_when_its_owner_stops_or_idles() {
    moves_on(Via::Forwarding).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_moves_on_when_its_owner_stops_or_idles_over_a_bus() {
    moves_on(Via::Bus).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_moves_on_when_its_owner_stops_or_idles_at_its_address() {
    moves_on(Via::Direct).await;
}

async fn moves_on(via: Via) {
    let cluster = PgCluster::start();
    let nats = bus(via);
    let [a, b] = two(&cluster, "moves", via, &nats, |c| c.room_idle_secs = 1).await;
    let white = a.http().create("six-mens-morris", "white").await;
    let black = a.http().join(&white.id).await;
    assert_eq!(a.http().play(&white, "a1").await.0, 200);

    // A's room idles out and gives the game up; B, asked next, takes it. (The room leaves
    // memory first and writes the release after: the test waits for the store to say it.)
    let http = a.http();
    crate::harness::eventually("A's room leaves memory", || async {
        metric(&a, "merels_games_in_memory").await == 0.0
    })
    .await;
    drop(http);
    let url = cluster.url("moves");
    crate::harness::eventually("A gives the game up in the store", || async {
        let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
            .await
            .unwrap();
        let (owner,): (Option<String>,) = sqlx::query_as("SELECT owner FROM games WHERE id = $1")
            .bind(&white.id)
            .fetch_one(&mut db)
            .await
            .unwrap();
        owner.is_none()
    })
    .await;
    assert_eq!(b.http().play(&black, "e5").await.0, 200);
    assert_eq!(metric(&b, "merels_games_taken_total").await, 1.0);
    // Now A forwards to B.
    assert_eq!(turns(&a.http().state(&white.id).await), ["a1", "e5"]);

    // B stops (a deploy): A takes the game at once, without waiting out a lease. Sockets on
    // either instance are told to reconnect.
    let mut on_b = b.ws(&white.id, Some(&white.secret)).await;
    let mut via_a = a.ws(&white.id, None).await;
    b.stop().await;
    assert_eq!(on_b.closed().await, Some(1012));
    assert_eq!(via_a.closed().await, Some(1012));
    let (status, body) = a.http().play(&white, "a3").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(turns(&body), ["a1", "e5", "a3"]);
    a.stop().await;
}

/// Two instances, A and B, as processes: A owns a game and is paused (SIGSTOP) past its lease.
/// B cuts the sockets it forwarded to A, takes the game, and play goes on through B. When A
/// wakes, what it had queued is refused by the store, and it closes its sockets (1012) within
/// the lease, so that they reconnect to B.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_cannot_write_after_it_was_replaced() {
    zombie(Via::Forwarding).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_cannot_write_after_it_was_replaced_over_a_bus() {
    zombie(Via::Bus).await;
}

async fn zombie(via: Via) {
    let cluster = PgCluster::start();
    let nats = bus(via);
    let (_dir, a, b) = two_processes(&cluster, "zombie", &nats, "2", Duration::ZERO).await;
    let (on_a, on_b) = (a.http(), b.http());
    let white = on_a.create("six-mens-morris", "white").await;
    let black = on_a.join(&white.id).await;
    let mut ws_white = Ws::connect(a.addr, &white.id, Some(&white.secret)).await;
    let mut watch_b = Ws::connect(b.addr, &white.id, None).await;

    a.signal("STOP");
    // White's turn reaches the paused owner and waits in its socket.
    ws_white.play("a1").await;
    // Once A's lease has lapsed, B cuts the spectator's socket it forwarded to A; the spectator
    // comes back through B, which takes the game and serves it.
    tokio::time::timeout(Duration::from_secs(4), watch_b.closed())
        .await
        .expect("B cuts what it forwarded to a paused owner");
    let mut watch_b = Ws::connect(b.addr, &white.id, None).await;
    assert!(turns(&watch_b.state).is_empty());
    let (status, body) = on_b.play(&white, "a3").await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = on_b.play(&black, "e5").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(turns(&watch_b.state_with_turns(2).await), ["a3", "e5"]);

    a.signal("CONT");
    let woke = tokio::time::Instant::now();
    let code = tokio::time::timeout(Duration::from_secs(2), ws_white.closed())
        .await
        .expect("A closes its sockets within the lease");
    assert_eq!(code, Some(1012));
    assert!(woke.elapsed() < Duration::from_secs(2));
    // A's queued turn was not stored; both instances serve the game as B stored it.
    assert_eq!(turns(&on_b.state(&white.id).await), ["a3", "e5"]);
    let mut ws_white = Ws::connect(a.addr, &white.id, Some(&white.secret)).await;
    assert_eq!(turns(&ws_white.state), ["a3", "e5"]);
    ws_white.play("a1").await;
    assert_eq!(
        turns(&ws_white.state_with_turns(3).await),
        ["a3", "e5", "a1"]
    );
    assert_eq!(turns(&on_a.state(&white.id).await), ["a3", "e5", "a1"]);
    drop((a, b));
}

/// A peer that stops renewing is cut off as its lease lapses, not at the next renewal of the
/// instance that holds its sockets: B closes the spectator's socket that it relays to a paused
/// A, so that it comes back to whoever takes the game, within half a second of A's lease
/// lapsing, and not before. With a lease of 6 s each renews every 2 s, and B a second out of
/// step with A: B's next renewal comes about a second after A's lease lapses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owners_sockets_are_cut_as_its_lease_lapses() {
    let cluster = PgCluster::start();
    let nats = bus(Via::Bus);
    let apart = Duration::from_secs(1);
    let (_dir, a, b) = two_processes(&cluster, "lapse", &nats, "6", apart).await;
    let white = a.http().create("six-mens-morris", "white").await;
    let mut watch_b = Ws::connect(b.addr, &white.id, None).await;
    a.signal("STOP");
    // A's lease as it stands, read once no renewal of A's can still be on its way.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let store = merels::store::Store::connect(&cluster.url("lapse"))
        .await
        .unwrap();
    let now = wall_ms();
    let owner = store.owner_of(&white.id, now).await.unwrap();
    let lapse = store
        .live_instances(now)
        .await
        .unwrap()
        .into_iter()
        .find(|l| Some(&l.owner) == owner.as_ref())
        .expect("A owns the game, under a lease that holds")
        .lease_until;
    let code = tokio::time::timeout(Duration::from_secs(8), watch_b.closed())
        .await
        .expect("B cuts what it relays to a paused owner");
    let cut = wall_ms();
    a.signal("CONT");
    assert_eq!(code, Some(1012));
    assert!(
        (lapse..lapse + 500).contains(&cut),
        "B cut the socket {} ms after A's lease lapsed",
        cut - lapse
    );
    drop((a, b));
}

/// An owner killed outright (SIGKILL) loses its games at once, not when its lease lapses: its
/// sign of life (a connection of its own to PostgreSQL) goes with the process, and the next
/// instance asked takes the game. That instance does not charge the player to move for the
/// moment nobody served the game (from the dead owner's last renewal), as one server does not
/// across its own restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_owners_games_move_at_once_and_its_outage_is_not_charged_to_the_clock() {
    let cluster = PgCluster::start();
    // A lease of 6 s: by the lease alone, B could take A's games only 4 to 6 s after A dies.
    let (_dir, a, b) = two_processes(&cluster, "dead", &None, "6", Duration::ZERO).await;
    let on_a = a.http();
    let white = on_a.create_timed("six-mens-morris", "white", "5+0").await;
    let black = on_a.join(&white.id).await;
    assert_eq!(on_a.play(&white, "a1").await.0, 200);
    assert_eq!(on_a.play(&black, "e5").await.0, 200);
    let before = on_a.state(&white.id).await;
    assert_eq!(before["clock"]["running"], "white");
    let left = before["clock"]["white_ms"].as_i64().unwrap();
    a.kill();
    let killed = tokio::time::Instant::now();

    // Through B: unavailable for a moment at most, then B's.
    let on_b = b.http();
    let path = format!("/api/games/{}", white.id);
    let after = loop {
        let (status, body) = on_b.request("GET", &path, None, None).await;
        if status == 200 {
            break body;
        }
        assert_eq!(status, 503, "{body}");
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "B never took the game"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let waited = killed.elapsed();
    // Not a measure of speed (the chaos run measures that): the game moved while A's lease
    // still held, which only its sign of life could tell.
    assert!(
        waited < Duration::from_secs(3),
        "B took the game {waited:?} after A died, as if waiting for A's lease"
    );
    assert_eq!(after["clock"]["running"], "white");
    // At most the time between White's turn beginning and A's last renewal (under 2 s) is
    // White's; without the credit it would be all of the wait.
    let spent = left - after["clock"]["white_ms"].as_i64().unwrap();
    assert!(
        (0..2_500).contains(&spent),
        "White was charged {spent} ms across {waited:?} with no server for the game"
    );
    assert_eq!(after["clock"]["black_ms"], before["clock"]["black_ms"]);
    let (status, body) = on_b.play(&white, "a3").await;
    assert_eq!(status, 200, "{body}");
    drop(b);
}

/// SQLite serves one instance: a second process on the same file stops at once and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_process_on_one_sqlite_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    let first = Process::start(dir.path(), free_addr(), &url).await;
    let second = std::process::Command::new(env!("CARGO_BIN_EXE_merels"))
        .arg("serve")
        .current_dir(dir.path())
        .env("MERELS_BIND", free_addr().to_string())
        .env("DATABASE_URL", &url)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(
        said.contains("another merels process is using") && said.contains("PostgreSQL"),
        "{said}"
    );
    // The first serves on, and once it has stopped, the file is free again.
    let (status, _) = first
        .http()
        .request("GET", "/api/games/nope", None, None)
        .await;
    assert_eq!(status, 404);
    assert!(first.terminate().success());
    let again = Process::start(dir.path(), free_addr(), &url).await;
    drop(again);
}

/// The internal address takes only the other instances' requests: without the peers' secret a
/// request is refused; with it, the client address it names is the one the limits count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_internal_address_serves_peers_only() {
    let cluster = PgCluster::start();
    let url = cluster.database("internal").await;
    let server = TestServer::start_on(&url, |c| c.games_per_minute = 1).await;
    let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    let (address,): (String,) = sqlx::query_as("SELECT address FROM instances")
        .fetch_one(&mut db)
        .await
        .unwrap();
    let (secret,): (String,) = sqlx::query_as("SELECT secret FROM peer_secret")
        .fetch_one(&mut db)
        .await
        .unwrap();
    let client = reqwest::Client::new();
    let create = |peer: Option<&str>, from: &str| {
        let mut request = client
            .post(format!("http://{address}/api/games"))
            .json(&json!({"variant": "six-mens-morris", "color": "white"}))
            .header("x-merels-client", from);
        if let Some(peer) = peer {
            request = request.header("x-merels-peer", peer);
        }
        async move { request.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(create(None, "203.0.113.1").await, 403);
    assert_eq!(create(Some("not-the-secret"), "203.0.113.1").await, 403);
    assert_eq!(create(Some(&secret), "203.0.113.1").await, 201);
    // One game a minute from each client: the second from the same client is refused, one from
    // another client is not.
    assert_eq!(create(Some(&secret), "203.0.113.1").await, 429);
    assert_eq!(create(Some(&secret), "203.0.113.2").await, 201);
    server.stop().await;
}

/// The bus carries no seat secret, and only the instances may speak on it. A client of the NATS
/// server with its credentials, but not an instance, reads every message while two players, one
/// on each instance, play over the bus; then its forged frame (a resignation), forged connect and
/// replays of genuine messages change nothing. A client without the credentials is refused by
/// the NATS server itself, and the instances connect with those in their URL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bus_carries_no_secret_and_obeys_the_instances_alone() {
    use std::sync::{Arc, Mutex};
    let cluster = PgCluster::start();
    let nats = Some(NatsServer::with_user("merels", "bus pass/word"));
    let server = nats.as_ref().unwrap();
    let without = tokio::time::timeout(Duration::from_secs(10), async_nats::connect(&server.bare))
        .await
        .expect("the NATS server answers");
    assert!(without.is_err(), "a client without credentials is refused");
    let spy =
        async_nats::ConnectOptions::with_user_and_password("merels".into(), "bus pass/word".into())
            .connect(&server.bare)
            .await
            .unwrap();
    let mut subscription = spy.subscribe("merels.>").await.unwrap();
    spy.flush().await.unwrap();
    let heard: Arc<Mutex<Vec<async_nats::Message>>> = Arc::default();
    let listening = {
        use futures_util::StreamExt;
        let heard = heard.clone();
        tokio::spawn(async move {
            while let Some(message) = subscription.next().await {
                heard.lock().unwrap().push(message);
            }
        })
    };

    let [a, b] = two(&cluster, "sealed", Via::Bus, &nats, |_| {}).await;
    let white = a.http().create("nine-mens-morris", "white").await;
    let join = format!("/api/games/{}/join", white.id);
    let (status, joined) = b.http().request("POST", &join, None, None).await;
    assert_eq!(status, 200, "{joined}");
    let black_secret = joined["secret"].as_str().unwrap().to_string();
    let mut ws_white = a.ws(&white.id, Some(&white.secret)).await;
    let mut ws_black = b.ws(&white.id, Some(&black_secret)).await;
    assert_eq!(ws_black.hello["seat"], "black", "{}", ws_black.hello);
    alternate(&mut ws_white, &mut ws_black, 0..4).await;
    assert_eq!(metric(&b, "merels_relayed_total").await, 1.0);
    let heard: Vec<_> = heard.lock().unwrap().clone();
    for message in &heard {
        let text = String::from_utf8_lossy(&message.payload);
        for secret in [white.secret.as_str(), black_secret.as_str()] {
            assert!(
                !text.contains(secret),
                "a seat secret on the bus, in {}: {text}",
                message.subject
            );
        }
    }
    // What the spy learnt: the owner's connect subject, the edge's request, and the subject of
    // the edge's records to the owner (Black's turns).
    let connect = heard
        .iter()
        .find(|m| m.subject.ends_with(".connect"))
        .expect("Black's connect crossed the bus")
        .clone();
    let ask: Value = serde_json::Deserializer::from_slice(&connect.payload)
        .into_iter::<Value>()
        .next()
        .unwrap()
        .unwrap();
    let owner = connect.subject.trim_end_matches(".connect").to_string();
    let records = format!("{owner}.from.{}", ask["edge"].as_str().unwrap());
    let genuine: Vec<_> = heard.iter().filter(|m| *m.subject == *records).collect();
    assert!(!genuine.is_empty(), "Black's turns crossed as {records}");
    let conn = ask["conn"].as_u64().unwrap();
    let version = ws_white.state["version"].clone();

    // A forged resignation for Black's connection, bare and with a made-up seal.
    let mut forged = vec![2u8, 0, 1];
    forged.extend(conn.to_be_bytes());
    let resign = br#"{"type":"resign"}"#;
    forged.extend((resign.len() as u32).to_be_bytes());
    forged.extend(resign);
    spy.publish(records.clone(), forged.clone().into())
        .await
        .unwrap();
    spy.publish(records.clone(), made_up_seal(&forged, 1 << 40).into())
        .await
        .unwrap();
    // Genuine records again (Black's turns, and its sync), as they were.
    for message in &genuine {
        spy.publish(records.clone(), message.payload.clone())
            .await
            .unwrap();
    }
    // A forged connect (another connection, Black's seat by its secret or hash), bare and with
    // a made-up seal, and the genuine one again: none is answered.
    let mut other = ask.clone();
    other["conn"] = json!(conn + 1000);
    other["secret"] = json!(black_secret);
    other["from"] = json!("203.0.113.9");
    let other = serde_json::to_vec(&other).unwrap();
    let connects = [
        ("bare forged", other.clone().into()),
        (
            "forged (made-up seal)",
            made_up_seal(&other, (1 << 40) + 1).into(),
        ),
        ("replayed", connect.payload.clone()),
    ];
    for (what, payload) in connects.iter().cloned() {
        let answer = tokio::time::timeout(
            Duration::from_secs(2),
            spy.request(connect.subject.clone(), payload),
        )
        .await;
        assert!(
            !matches!(answer, Ok(Ok(_))),
            "a {what} connect is not answered"
        );
    }
    spy.flush().await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let state = a.http().state(&white.id).await;
    assert_eq!(state["status"], "playing", "{state}");
    assert_eq!(state["version"], version, "nothing changed: {state}");
    assert_eq!(turns(&state).len(), 4);
    // Each forged or replayed message is refused: two resignations, the genuine records, the
    // connects.
    let refused = metric(&a, "merels_bus_refused_total").await;
    let sent = 2 + genuine.len() + connects.len();
    assert!(refused >= sent as f64, "{refused} of {sent} refused");
    // The game plays on, over the bus, as before.
    alternate(&mut ws_white, &mut ws_black, 4..6).await;
    listening.abort();
    a.stop().await;
    b.stop().await;
}

/// `body` with a made-up seal, as a forger without the instances' key would send it: a number
/// `seq` its sender never used (so that no replay check stops it) and a tag of zeros.
fn made_up_seal(body: &[u8], seq: u64) -> Vec<u8> {
    let mut sealed = body.to_vec();
    sealed.extend(seq.to_be_bytes());
    sealed.extend([0u8; 32]);
    sealed
}

/// One address holding connections to the internal address cannot take the process offline:
/// a server with few descriptors (`ulimit -n 400`) caps the unproven connections there by
/// address, counts them in the one total with the public port's, and closes one whose request
/// lacks the instances' secret at once; the public port and `/healthz` answer throughout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_held_on_the_internal_address_leave_the_public_one_serving() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let cluster = PgCluster::start();
    let url = cluster.database("hold").await;
    let dir = tempfile::tempdir().unwrap();
    let addr = free_addr();
    let child = std::process::Command::new("sh")
        .args(["-c", "ulimit -n 400 && exec \"$0\" serve"])
        .arg(env!("CARGO_BIN_EXE_merels"))
        .current_dir(dir.path())
        .env("MERELS_BIND", addr.to_string())
        .env("DATABASE_URL", &url)
        .env("MERELS_INTERNAL_BIND", "127.0.0.1:0")
        .env("MERELS_TCP_CONNECTIONS_PER_IP", "64")
        .env("MERELS_HEADER_TIMEOUT_SECS", "60")
        .env("RUST_LOG", "error")
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let server = Process { child, addr };
    let client = reqwest::Client::new();
    let ready = format!("{}/readyz", server.base());
    crate::harness::eventually("the server answers", || {
        crate::harness::answers(&client, &ready)
    })
    .await;
    let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    let (internal,): (String,) = sqlx::query_as("SELECT address FROM instances")
        .fetch_one(&mut db)
        .await
        .unwrap();
    let internal: std::net::SocketAddr = internal.parse().unwrap();
    // One address holds 300 connections to the internal address, three others 150 to the public
    // one: together past the descriptors the process has.
    let held = hold(internal, 1..2, 300).await;
    let public = hold(addr, 2..5, 50).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let probe = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 5]))
        .timeout(Duration::from_secs(3))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    for path in [
        "/healthz",
        "/readyz",
        "/healthz",
        "/api/games/nope",
        "/healthz",
    ] {
        let answer = probe
            .get(format!("{}{path}", server.base()))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{path} answers while connections are held: {e}"));
        let expected = if path.starts_with("/api") { 404 } else { 200 };
        assert_eq!(answer.status().as_u16(), expected, "{path}");
    }
    // Past the cap, the internal address closed the held connections at once; the ones it kept
    // are closed as soon as their request lacks the secret (long before the header timeout).
    let kept = still_open(held).await;
    assert!(
        !kept.is_empty() && kept.len() <= 64,
        "{} of 300 held connections kept",
        kept.len()
    );
    for mut tcp in kept {
        tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: merels\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut answer))
            .await
            .expect("closed after the answer")
            .unwrap();
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    }
    // The internal address's connections count in one total with the public one's: beside the
    // 150 public connections still held, 200 more to the internal address from four addresses,
    // each under its cap, find only the places the total has left (under `ulimit -n 400`: 256,
    // and 16 more the host itself may take); the rest are closed at once. With a total of their
    // own, the two ports together would hold more than the process has descriptors for.
    let more = hold(internal, 6..10, 50).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let kept = still_open(more).await.len();
    assert!(
        public.len() + kept <= 256 + 16,
        "{kept} of 200 internal connections kept beside {} public ones",
        public.len()
    );
    drop(public);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let limits = server.http().request("GET", "/metrics", None, None).await;
    assert_eq!(limits.0, 200);
    let text = limits.1.as_str().unwrap_or_default().to_string();
    for limit in [
        "internal_connections_per_address",
        "internal_connections_total",
    ] {
        assert!(text.contains(limit), "the refusals are counted: {limit}");
    }
    drop(server);
}

/// `each` connections to `to` from each of the addresses 127.0.0.`hosts`.
async fn hold(
    to: std::net::SocketAddr,
    hosts: std::ops::Range<u8>,
    each: usize,
) -> Vec<tokio::net::TcpStream> {
    let mut held = Vec::new();
    for host in hosts {
        for _ in 0..each {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket
                .bind(std::net::SocketAddr::from(([127, 0, 0, host], 0)))
                .unwrap();
            held.push(socket.connect(to).await.unwrap());
        }
    }
    held
}

/// Of `held`, the connections the server keeps open (not closed within half a second).
async fn still_open(mut held: Vec<tokio::net::TcpStream>) -> Vec<tokio::net::TcpStream> {
    use tokio::io::AsyncReadExt;
    let open = futures_util::future::join_all(held.iter_mut().map(|tcp| async {
        let mut byte = [0u8; 1];
        tokio::time::timeout(Duration::from_millis(500), tcp.read(&mut byte))
            .await
            .is_err()
    }))
    .await;
    held.into_iter()
        .zip(open)
        .filter_map(|(tcp, open)| open.then_some(tcp))
        .collect()
}
