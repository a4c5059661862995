//! The store against both backends it supports: a real SQLite file and a real PostgreSQL server
//! (a throwaway cluster started here). The same checks run on each.

use crate::harness::{PgCluster, eventually};
use merels::store::owners::Owner;
use merels::store::{ChatRow, ClockRow, GameEnd, GameRow, OfferKind, SeatColumn, Store, WriteOp};
use merels::time::wall_ms as now_ms;
use std::sync::atomic::Ordering;

fn game(id: &str, at: i64) -> GameRow {
    GameRow {
        id: id.into(),
        variant: "six-mens-morris".into(),
        options: String::new(),
        time_control: "3+2".into(),
        white_secret_hash: Some("aa".repeat(32)),
        status: "waiting".into(),
        created_at: at,
        updated_at: at,
        version: 1,
        epoch: EPOCH,
        ..GameRow::default()
    }
}

/// The epoch of the owner that made the games here (as an instance that creates a game does).
const EPOCH: i64 = 1;

/// A game in play: both seats taken (its version is 2).
fn playing(id: &str, at: i64) -> GameRow {
    GameRow {
        status: "playing".into(),
        black_secret_hash: Some("bb".repeat(32)),
        version: 2,
        ..game(id, at)
    }
}

/// A turn with the clocks it leaves (White's time falls by the ply, Black's stays), decided
/// against version `seen` of its game.
fn turn(id: &str, ply: i64, notation: &str, seen: i64) -> WriteOp {
    turn_by(id, ply, notation, seen, EPOCH)
}

/// [`turn`], by the owner at `epoch`.
fn turn_by(id: &str, ply: i64, notation: &str, seen: i64, epoch: i64) -> WriteOp {
    WriteOp::AppendTurn {
        id: id.into(),
        ply,
        notation: notation.into(),
        at: now_ms(),
        clock: Some([180_000 - ply, 180_000]),
        end: None,
        seen,
        epoch,
    }
}

fn finish(id: &str, result: &str, termination: &str, seen: i64) -> WriteOp {
    WriteOp::Finish {
        id: id.into(),
        end: GameEnd {
            result: result.into(),
            termination: termination.into(),
        },
        at: now_ms(),
        clock: None,
        seen,
        epoch: EPOCH,
    }
}

fn offer(id: &str, kind: OfferKind, by: Option<(&str, i64)>, seen: i64) -> WriteOp {
    WriteOp::SetOffer {
        id: id.into(),
        kind,
        by: by.map(|(side, ply)| (side.to_string(), ply)),
        at: now_ms(),
        seen,
        epoch: EPOCH,
    }
}

async fn create(store: &Store, row: GameRow) {
    assert!(
        store
            .write(WriteOp::CreateGame(Box::new(row)))
            .await
            .unwrap()
    );
}

async fn exercise(store: Store) {
    store.ping().await.unwrap();
    let at = now_ms();
    assert!(
        store
            .write(WriteOp::CreateGame(Box::new(game("g1", at))))
            .await
            .unwrap()
    );
    assert!(
        !store
            .write(WriteOp::CreateGame(Box::new(game("g1", at))))
            .await
            .unwrap(),
        "ids are unique"
    );
    assert_eq!(store.load("nope").await.unwrap(), None);
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(loaded.game, game("g1", at));
    assert!(loaded.turns.is_empty());

    // The empty seat goes to one claimant only.
    let claim = |hash: &str| WriteOp::ClaimSeat {
        id: "g1".into(),
        seat: SeatColumn::Black,
        hash: hash.into(),
        name: None,
        at,
        clock: Some(ClockRow {
            white_ms: 180_000,
            black_ms: 180_000,
            at,
        }),
        seen: 1,
        epoch: EPOCH,
    };
    assert!(store.write(claim("bb")).await.unwrap());
    assert!(!store.write(claim("cc")).await.unwrap());
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(loaded.game.black_secret_hash.as_deref(), Some("bb"));
    assert_eq!(loaded.game.status, "playing");
    assert_eq!(loaded.game.time_control, "3+2");
    assert_eq!(
        loaded.game.clock.map(|c| (c.black_ms, c.at)),
        Some((180_000, at))
    );
    assert_eq!(
        loaded.version(),
        2,
        "every write that takes effect bumps the version"
    );

    // Offers stand until cleared; a rematch offer waits for the end.
    let offer = |kind, by, seen| offer("g1", kind, by, seen);
    assert!(
        store
            .write(offer(OfferKind::Draw, Some(("white", 0)), 2))
            .await
            .unwrap()
    );
    assert!(
        store
            .write(offer(OfferKind::Takeback, Some(("black", 0)), 3))
            .await
            .unwrap()
    );
    assert!(
        !store
            .write(offer(OfferKind::Rematch, Some(("black", 0)), 4))
            .await
            .unwrap()
    );
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(loaded.game.draw_offer, Some(("white".into(), 0)));
    assert_eq!(loaded.game.takeback_offer, Some(("black".into(), 0)));
    assert_eq!(loaded.version(), 4);
    assert!(store.write(offer(OfferKind::Draw, None, 4)).await.unwrap());
    assert!(
        store
            .write(offer(OfferKind::Takeback, None, 5))
            .await
            .unwrap()
    );

    // No two turns can claim the same ply, even when they race.
    assert!(store.write(turn("g1", 0, "a1", 6)).await.unwrap());
    assert!(!store.write(turn("g1", 0, "a3", 6)).await.unwrap());
    // A turn of a game that was never stored is refused, and the writer goes on.
    assert!(!store.write(turn("never-stored", 0, "a1", 2)).await.unwrap());
    assert_eq!(store.load("never-stored").await.unwrap(), None);
    let racers: Vec<_> = (0..16)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .write(turn("g1", 1, &format!("c{}", i % 5 + 1), 7))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut winners = 0;
    for r in racers {
        winners += usize::from(r.await.unwrap());
    }
    assert_eq!(winners, 1);
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(
        loaded.turns.iter().map(|t| t.ply).collect::<Vec<_>>(),
        [0, 1]
    );
    assert_eq!(loaded.turns[0].notation, "a1");
    assert_eq!(loaded.turns[1].clock, Some([179_999, 180_000]));
    assert_eq!(loaded.version(), 8);
    assert_eq!(
        loaded.game.version, 6,
        "a plain turn does not touch its game's row"
    );

    // Turns of other games that share a batch with a loser are stored all the same.
    for i in 0..4 {
        create(&store, playing(&format!("x{i}"), at)).await;
    }
    let mixed: Vec<_> = (0..4)
        .map(|i| turn(&format!("x{i}"), 0, "d2", 2))
        .chain([turn("g1", 1, "d3", 8)])
        .map(|op| {
            let store = store.clone();
            tokio::spawn(async move { store.write(op).await.unwrap() })
        })
        .collect();
    let mut outcomes = Vec::new();
    for w in mixed {
        outcomes.push(w.await.unwrap());
    }
    assert_eq!(outcomes, [true, true, true, true, false]);
    for i in 0..4 {
        let loaded = store.load(&format!("x{i}")).await.unwrap().unwrap();
        assert_eq!(loaded.turns.len(), 1);
    }
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(loaded.turns.len(), 2);
    assert_ne!(loaded.turns[1].notation, "d3", "the loser changed nothing");

    // A turn that ends the game records the end with it; a later end changes nothing.
    let end = GameEnd {
        result: "1-0".into(),
        termination: "fewer than three men".into(),
    };
    let last = WriteOp::AppendTurn {
        id: "g1".into(),
        ply: 2,
        notation: "e5".into(),
        at: now_ms(),
        clock: None,
        end: Some(end.clone()),
        seen: 8,
        epoch: EPOCH,
    };
    assert!(store.write(last).await.unwrap());
    assert!(
        !store
            .write(finish("g1", "0-1", "resignation", 9))
            .await
            .unwrap()
    );
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(
        (loaded.game.status.as_str(), loaded.game.result.as_deref()),
        ("finished", Some("1-0"))
    );
    assert_eq!(
        loaded.game.termination.as_deref(),
        Some("fewer than three men")
    );
    assert_eq!(loaded.version(), 9);

    // After the end: a rematch offer, then the rematch itself, linked once only.
    assert!(
        store
            .write(offer(OfferKind::Rematch, Some(("black", 0)), 9))
            .await
            .unwrap()
    );
    assert!(
        !store
            .write(offer(OfferKind::Draw, Some(("white", 3)), 10))
            .await
            .unwrap()
    );
    assert_eq!(
        store
            .load("g1")
            .await
            .unwrap()
            .unwrap()
            .game
            .rematch_offer
            .as_deref(),
        Some("black")
    );
    let rematch = |id: &str, seen| WriteOp::StartRematch {
        id: "g1".into(),
        game: Box::new(playing(id, at)),
        seen,
        epoch: EPOCH,
    };
    assert!(store.write(rematch("r1", 10)).await.unwrap());
    assert!(
        !store.write(rematch("r2", 11)).await.unwrap(),
        "one rematch per game"
    );
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(
        (
            loaded.game.rematch_id.as_deref(),
            loaded.game.rematch_offer.as_deref()
        ),
        (Some("r1"), None)
    );
    assert_eq!(store.load("r2").await.unwrap(), None);
    assert_eq!(store.load("r1").await.unwrap().unwrap().version(), 2);

    // Group commit: many games' turns, sent at once, share transactions.
    let before = (
        store.stats().batches.load(Ordering::Relaxed),
        store.stats().writes.load(Ordering::Relaxed),
    );
    for i in 0..40 {
        create(&store, playing(&format!("m{i}"), at)).await;
    }
    // Each game's turns in order, as its room sends them; the games at once.
    let writes: Vec<_> = (0..40)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                for ply in 0..5 {
                    let op = turn(&format!("m{i}"), ply, "a1", 2 + ply);
                    assert!(store.write(op).await.unwrap(), "m{i} at ply {ply}");
                }
            })
        })
        .collect();
    for w in writes {
        w.await.unwrap();
    }
    let batches = store.stats().batches.load(Ordering::Relaxed) - before.0;
    let written = store.stats().writes.load(Ordering::Relaxed) - before.1;
    assert_eq!(written, 240);
    assert!(
        batches < written / 2,
        "{batches} transactions for {written} writes"
    );

    // Stale and live games.
    assert!(
        store
            .write(WriteOp::CreateGame(Box::new(game("old", at - 60_000))))
            .await
            .unwrap()
    );
    // An old game with a fresh turn is in play, though its row has not changed.
    create(&store, playing("busy", at - 60_000)).await;
    assert!(store.write(turn("busy", 0, "a1", 2)).await.unwrap());
    assert_eq!(
        store.stale_games(at - 1, 100).await.unwrap(),
        ["old"],
        "finished, fresh and busy games are not stale"
    );
    assert!(
        store
            .stale_games(at - 60_000, 100)
            .await
            .unwrap()
            .is_empty()
    );
    let live: Vec<String> = store
        .live_games(100)
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.id)
        .collect();
    assert!(
        live.contains(&"r1".to_string()) && live.contains(&"busy".to_string()),
        "{live:?}"
    );
    assert!(
        !live.contains(&"g1".to_string()) && !live.contains(&"old".to_string()),
        "neither finished nor waiting games are being played: {live:?}"
    );
    // Open challenges: waiting games their creator opened to anyone, newest first; a game made
    // for a friend is never listed, nor one that has started.
    let open = |id: &str, at| GameRow {
        open_challenge: true,
        listed_until: Some(at + 60_000),
        black_secret_hash: Some("bb".repeat(32)),
        white_secret_hash: None,
        ..game(id, at)
    };
    // Listed only while the creator is there (`listed_until` not passed), not once expired
    // (made before `since`), and of one address only the first two.
    let from = |id: &str, at| GameRow {
        created_from: Some("one address".into()),
        ..open(id, at)
    };
    for row in [
        open("c1", at),
        open("c2", at + 1),
        GameRow {
            open_challenge: true,
            ..playing("c3", at)
        },
        GameRow {
            listed_until: Some(at - 1),
            ..open("c-gone", at + 2)
        },
        GameRow {
            listed_until: Some(at + 60_000),
            ..open("c-expired", at - 60_001)
        },
        from("a1", at + 3),
        from("a2", at + 4),
        from("a3", at + 5),
    ] {
        create(&store, row).await;
    }
    assert!(store.load("c1").await.unwrap().unwrap().game.open_challenge);
    let challenges = store.open_challenges(at, at - 60_000, 100).await.unwrap();
    let listed: Vec<(&str, &str)> = challenges
        .iter()
        .map(|c| (c.id.as_str(), c.waiting))
        .collect();
    assert_eq!(
        listed,
        [
            ("a2", "black"),
            ("a1", "black"),
            ("c2", "black"),
            ("c1", "black")
        ]
    );
    assert_eq!(challenges[3].created_at, at);
    assert_eq!(
        store
            .challenges_from("one address", at, at - 60_000)
            .await
            .unwrap(),
        3,
        "all three are counted at creation"
    );
    // The room renews a listing (the owner's epoch only): gone a while, listed again.
    store
        .list_until("c-gone", at + 10, EPOCH + 1)
        .await
        .unwrap();
    let ids = |cs: Vec<merels::store::Challenge>| cs.into_iter().map(|c| c.id).collect::<Vec<_>>();
    assert!(
        !ids(store.open_challenges(at, at - 60_000, 100).await.unwrap())
            .contains(&"c-gone".to_string()),
        "a stale owner renews nothing"
    );
    store.list_until("c-gone", at + 10, EPOCH).await.unwrap();
    assert!(
        store
            .open_challenges(at, at - 60_000, 100)
            .await
            .unwrap()
            .iter()
            .any(|c| c.id == "c-gone")
    );
    assert_eq!(
        (
            challenges[0].variant.as_str(),
            challenges[0].time_control.as_str()
        ),
        ("six-mens-morris", "3+2")
    );

    // Names: given with the seat, changed after (a change of the game, checked against its
    // version and owner), kept whole in any script, never on an empty seat, and never longer
    // than a name may be, whoever writes.
    create(
        &store,
        GameRow {
            white_name: Some("Ana".into()),
            ..game("n1", at)
        },
    )
    .await;
    let name = |seat, name: &str, seen| WriteOp::SetName {
        id: "n1".into(),
        seen,
        seat,
        name: name.into(),
        epoch: EPOCH,
    };
    assert!(
        !store.write(name(SeatColumn::Black, "Bo", 1)).await.unwrap(),
        "the seat is empty"
    );
    assert!(
        !store
            .write(name(SeatColumn::White, "Ana B", 0))
            .await
            .unwrap(),
        "stale"
    );
    assert!(
        store
            .write(name(SeatColumn::White, "مريم", 1))
            .await
            .unwrap()
    );
    let loaded = store.load("n1").await.unwrap().unwrap();
    assert_eq!(
        (
            loaded.game.white_name.as_deref(),
            loaded.game.black_name.as_deref()
        ),
        (Some("مريم"), None)
    );
    assert_eq!(loaded.version(), 2);
    assert!(
        store
            .write(name(SeatColumn::White, &"x".repeat(21), 2))
            .await
            .is_err(),
        "the table holds no name over 20 characters"
    );
    assert_eq!(
        store
            .load("n1")
            .await
            .unwrap()
            .unwrap()
            .game
            .white_name
            .as_deref(),
        Some("مريم")
    );
    store.close().await;
}

/// Two stores on one database, as two processes would be: one keeps up, the other writes what a
/// stale room decided. The store refuses every write that would break the game's order.
async fn refuse_what_breaks_the_rules(fresh: Store, stale: Store) {
    let at = now_ms();
    create(&fresh, playing("i1", at)).await;
    assert!(fresh.write(turn("i1", 0, "a1", 2)).await.unwrap());
    assert!(
        !stale.write(turn("i1", 0, "a4", 2)).await.unwrap(),
        "a ply is stored once"
    );
    assert!(
        !stale.write(turn("i1", 2, "a4", 4)).await.unwrap(),
        "no gap: ply 1 is missing"
    );
    assert!(
        !stale.write(turn("i1", -1, "a4", 1)).await.unwrap(),
        "no ply before the first"
    );
    assert!(
        !stale.write(finish("i1", "0-1", "time", 2)).await.unwrap(),
        "an end decided before the last turn is stale"
    );
    assert!(
        !stale
            .write(offer("i1", OfferKind::Draw, Some(("white", 0)), 2))
            .await
            .unwrap(),
        "so is an offer"
    );
    assert!(
        fresh
            .write(finish("i1", "1-0", "resignation", 3))
            .await
            .unwrap()
    );
    assert!(
        !stale.write(turn("i1", 1, "b4", 4)).await.unwrap(),
        "no turn after the end, even at the right ply and version"
    );
    assert!(
        !stale.write(finish("i1", "0-1", "time", 4)).await.unwrap(),
        "one end"
    );
    let stored = fresh.load("i1").await.unwrap().unwrap();
    assert_eq!(stored.turns.len(), 1);
    assert_eq!(
        (stored.game.result.as_deref(), stored.version()),
        (Some("1-0"), 4)
    );

    // A takeback on one instance, then a turn of the other's stale game: refused, so no game
    // replays with a gap (or with the taken-back turn's position).
    create(&fresh, playing("i2", at)).await;
    for (ply, notation) in ["a1", "a4", "a7"].into_iter().enumerate() {
        let ply = ply as i64;
        assert!(
            fresh
                .write(turn("i2", ply, notation, 2 + ply))
                .await
                .unwrap()
        );
    }
    let take_back = |seen| WriteOp::TakeBack {
        id: "i2".into(),
        from_ply: 2,
        at: now_ms(),
        clock: None,
        seen,
        epoch: EPOCH,
    };
    assert!(!stale.write(take_back(4)).await.unwrap(), "stale takeback");
    assert!(fresh.write(take_back(5)).await.unwrap());
    assert!(
        !stale.write(turn("i2", 3, "b2", 5)).await.unwrap(),
        "the ply after the one taken back"
    );
    assert!(
        !stale.write(turn("i2", 2, "b2", 5)).await.unwrap(),
        "the taken-back ply, against the version before the takeback"
    );
    assert!(fresh.write(turn("i2", 2, "g7", 6)).await.unwrap());
    let stored = fresh.load("i2").await.unwrap().unwrap();
    assert_eq!(
        stored
            .turns
            .iter()
            .map(|t| (t.ply, t.notation.as_str()))
            .collect::<Vec<_>>(),
        [(0, "a1"), (1, "a4"), (2, "g7")]
    );
    assert_eq!(stored.version(), 7);

    // An end and a turn decided against the same version, racing from the two stores: exactly
    // one is stored, whichever commits first.
    // Chat lines: one to a number, no gaps, only who may speak there, and not the game's
    // version.
    let version = fresh.load("i1").await.unwrap().unwrap().version();
    let line_keeping = |seq: i64, room: &str, author: &str, body: &str, keep_from| WriteOp::Chat {
        line: Box::new(ChatRow {
            game_id: "i1".into(),
            room: room.into(),
            seq,
            author: author.into(),
            body: body.into(),
            said_at: at,
            author_name: None,
        }),
        keep_from,
        epoch: EPOCH,
    };
    let line =
        |seq: i64, room: &str, author: &str, body: &str| line_keeping(seq, room, author, body, 1);
    assert!(
        fresh
            .write(line(1, "players", "white", "hi"))
            .await
            .unwrap()
    );
    assert!(
        !stale
            .write(line(1, "players", "black", "hi"))
            .await
            .unwrap(),
        "taken"
    );
    assert!(
        !stale
            .write(line(3, "players", "black", "hi"))
            .await
            .unwrap(),
        "a gap"
    );
    assert!(
        stale
            .write(line(2, "players", "black", "hello"))
            .await
            .unwrap()
    );
    assert!(
        stale
            .write(line(1, "spectators", "spectator", "go"))
            .await
            .unwrap()
    );
    for bad in [
        line(3, "players", "spectator", "psst"),
        line(2, "spectators", "white", "hi"),
        line(3, "players", "white", &"x".repeat(301)),
        line(3, "players", "white", ""),
        line(1, "lobby", "white", "hi"),
    ] {
        assert!(
            fresh.write(bad.clone()).await.is_err(),
            "{bad:?} was stored"
        );
    }
    let said = fresh.chat_lines("i1").await.unwrap();
    let said: Vec<_> = said
        .iter()
        .map(|r| (r.room.as_str(), r.seq, r.body.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            ("players", 1, "hi"),
            ("players", 2, "hello"),
            ("spectators", 1, "go")
        ]
    );
    assert_eq!(fresh.load("i1").await.unwrap().unwrap().version(), version);
    // A chat is a window: a line that pushes the oldest out deletes them with its write, and the
    // numbers go on from the newest kept.
    assert!(
        fresh
            .write(line_keeping(3, "players", "white", "bye", 3))
            .await
            .unwrap()
    );
    assert!(
        !fresh
            .write(line_keeping(3, "players", "black", "again", 3))
            .await
            .unwrap(),
        "taken, even alone in its window"
    );
    assert!(
        fresh
            .write(line_keeping(4, "players", "black", "bye", 4))
            .await
            .unwrap()
    );
    let players: Vec<_> = fresh
        .chat_lines("i1")
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.room == "players")
        .map(|r| (r.seq, r.body))
        .collect();
    assert_eq!(players, [(4, "bye".to_string())]);

    for i in 0..12 {
        let id = format!("race{i}");
        create(&fresh, playing(&id, at)).await;
        let (a, b) = (fresh.clone(), stale.clone());
        let (end, moved) = (id.clone(), id.clone());
        let end = tokio::spawn(async move { a.write(finish(&end, "0-1", "time", 2)).await });
        let moved = tokio::spawn(async move { b.write(turn(&moved, 0, "a1", 2)).await });
        let (end, moved) = (end.await.unwrap().unwrap(), moved.await.unwrap().unwrap());
        assert!(end ^ moved, "{id}: end {end}, turn {moved}");
        let stored = fresh.load(&id).await.unwrap().unwrap();
        assert_eq!(stored.turns.len(), usize::from(moved));
        assert_eq!(stored.game.status, if end { "finished" } else { "playing" });
    }
    owners_fence_each_other(&fresh, &stale).await;
    fresh.close().await;
    stale.close().await;
}

/// The epoch of a claim that took the game.
fn epoch(claim: Option<merels::store::owners::Claim>) -> Option<i64> {
    claim.map(|c| c.epoch)
}

/// Two instances, A on `a` and B on `b`: a game runs under one owner at a time, and once B has
/// taken it, nothing A decided is stored.
async fn owners_fence_each_other(a: &Store, b: &Store) {
    let at = now_ms();
    let lease = 10_000;
    create(a, playing("o1", at)).await;
    // A can be reached by clients directly; B only through the balancer.
    let instance_a = Owner {
        instance: "A".into(),
        address: "a.internal:8081".into(),
        direct: Some("https://a.merels.example".into()),
    };
    let instance_b = Owner {
        instance: "B".into(),
        address: "b.internal:8081".into(),
        direct: None,
    };
    // Each alive (with PostgreSQL, a connection of its own), then registered.
    let life_a = a.sign_of_life("A").await.unwrap();
    let _life_b = b.sign_of_life("B").await.unwrap();
    a.register(&instance_a, at, at + lease).await.unwrap();
    b.register(&instance_b, at, at + lease).await.unwrap();
    assert_eq!(epoch(a.claim("o1", "A", at).await.unwrap()), Some(2));
    assert_eq!(
        b.claim("o1", "B", at).await.unwrap(),
        None,
        "A's lease holds"
    );
    assert_eq!(
        b.owner_of("o1", at).await.unwrap(),
        Some(instance_a.clone())
    );
    let live = b.live_instances(at).await.unwrap();
    assert!(live.iter().any(|l| l.owner == instance_b));
    assert!(live.iter().all(|l| l.lease_until == at + lease), "{live:?}");
    assert_eq!(b.claim("nope", "B", at).await.unwrap(), None);
    assert!(a.write(turn_by("o1", 0, "a1", 2, 2)).await.unwrap());

    // A's lease lapses (paused, cut off): B takes the game, and A can no longer write it.
    let later = at + lease + 1;
    assert_eq!(b.owner_of("o1", later).await.unwrap(), None);
    // Taken from an owner that died: the game was served by nobody since A last renewed.
    let taken = b.claim("o1", "B", later).await.unwrap().unwrap();
    assert_eq!((taken.epoch, taken.unserved_since), (3, Some(at)));
    assert!(
        !a.write(turn_by("o1", 1, "e5", 3, 2)).await.unwrap(),
        "a turn from the old owner"
    );
    let mut end = finish("o1", "1-0", "resignation", 3);
    if let WriteOp::Finish { epoch, .. } = &mut end {
        *epoch = 2;
    }
    assert!(!a.write(end).await.unwrap(), "an end from the old owner");
    let mut draw = offer("o1", OfferKind::Draw, Some(("white", 1)), 3);
    if let WriteOp::SetOffer { epoch, .. } = &mut draw {
        *epoch = 2;
    }
    assert!(!a.write(draw).await.unwrap(), "an offer from the old owner");
    let chat = |epoch| WriteOp::Chat {
        line: Box::new(ChatRow {
            game_id: "o1".into(),
            room: "players".into(),
            seq: 1,
            author: "white".into(),
            body: "hello".into(),
            said_at: at,
            author_name: None,
        }),
        keep_from: 1,
        epoch,
    };
    assert!(
        !a.write(chat(2)).await.unwrap(),
        "a chat line from the old owner"
    );
    assert!(b.write(chat(3)).await.unwrap());
    assert!(b.write(turn_by("o1", 1, "e5", 3, 3)).await.unwrap());
    let stored = b.load("o1").await.unwrap().unwrap();
    assert_eq!(stored.turns.len(), 2);
    assert_eq!(
        (stored.game.owner.as_deref(), stored.game.epoch),
        (Some("B"), 3)
    );

    // Both renew, and A asks again: B's lease holds, so the game stays B's.
    a.register(&instance_a, later, later + lease).await.unwrap();
    b.register(&instance_b, later, later + lease).await.unwrap();
    assert_eq!(a.claim("o1", "A", later).await.unwrap(), None);
    // B's room ends and gives the game up (only at its own epoch): the next instance asked
    // takes it at once.
    b.release("o1", "B", 2).await.unwrap();
    assert!(
        b.owner_of("o1", later).await.unwrap().is_some(),
        "not at an old epoch"
    );
    b.release("o1", "B", 3).await.unwrap();
    assert_eq!(b.owner_of("o1", later).await.unwrap(), None);
    let taken = a.claim("o1", "A", later).await.unwrap().unwrap();
    assert_eq!(
        (taken.epoch, taken.unserved_since),
        (4, None),
        "given up, not dead"
    );
    // With PostgreSQL, A dies (its sign of life gone) with its lease holding: its games go at
    // once, as from a lapsed lease. (SQLite has one instance, and no sign of life to lose.)
    let mut given = 4;
    if a.backend_name() == "postgres" {
        life_a.end().await;
        // The server process of A's connection ends a moment after the connection closes.
        eventually("A is dead", || async {
            b.owner_of("o1", later).await.unwrap().is_none()
        })
        .await;
        let taken = b.claim("o1", "B", later).await.unwrap().unwrap();
        assert_eq!(
            (taken.epoch, taken.unserved_since),
            (5, Some(later)),
            "taken from the dead, served by nobody since A's last renewal"
        );
        b.release("o1", "B", 5).await.unwrap();
        assert_eq!(epoch(a.claim("o1", "A", later).await.unwrap()), Some(6));
        given = 6;
    } else {
        life_a.end().await;
        assert!(b.owner_of("o1", later).await.unwrap().is_some());
    }
    // A stops for good: its games are anyone's.
    a.deregister("A").await.unwrap();
    assert_eq!(b.owner_of("o1", later).await.unwrap(), None);
    let taken = b.claim("o1", "B", later).await.unwrap().unwrap();
    assert_eq!(
        (taken.epoch, taken.unserved_since),
        (given + 1, None),
        "given up, not dead"
    );
}

#[tokio::test]
async fn sqlite_store_refuses_what_breaks_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    // One process per SQLite file (a second is refused): the stale writer is a clone.
    let fresh = Store::connect(&url).await.unwrap();
    assert!(matches!(
        Store::connect(&url).await,
        Err(merels::store::StoreError::InUse { .. })
    ));
    let stale = fresh.clone();
    refuse_what_breaks_the_rules(fresh, stale).await;
}

#[tokio::test]
async fn postgres_store_refuses_what_breaks_the_rules() {
    let cluster = PgCluster::start();
    let url = cluster.database("rules").await;
    let fresh = Store::connect(&url).await.unwrap();
    let stale = Store::connect(&url).await.unwrap();
    refuse_what_breaks_the_rules(fresh, stale).await;
}

#[tokio::test]
async fn sqlite_store() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("nested/merels.db").display());
    exercise(Store::connect(&url).await.unwrap()).await;
    // Reopening runs no migration twice and finds everything.
    let again = Store::connect(&url).await.unwrap();
    assert_eq!(again.load("g1").await.unwrap().unwrap().turns.len(), 3);
    assert_eq!(again.backend_name(), "sqlite");
}

#[tokio::test]
async fn postgres_store() {
    let cluster = PgCluster::start();
    let url = cluster.database("store").await;
    exercise(Store::connect(&url).await.unwrap()).await;
    let again = Store::connect(&url).await.unwrap();
    assert_eq!(again.load("g1").await.unwrap().unwrap().turns.len(), 3);
    assert_eq!(again.backend_name(), "postgres");
}

#[tokio::test]
async fn a_bad_database_url_is_refused() {
    assert!(Store::connect("mysql://localhost/x").await.is_err());
}

#[tokio::test]
async fn postgres_connections_the_server_dropped_are_replaced() {
    let cluster = PgCluster::start();
    let url = cluster.database("dropped").await;
    let store = Store::connect(&url).await.unwrap();
    create(&store, game("g1", now_ms())).await;
    assert!(store.load("g1").await.unwrap().is_some());
    // The server ends every connection of the store's (a restart, a proxy's idle timeout).
    let admin = sqlx::PgPool::connect(&url).await.unwrap();
    let ended: Vec<(bool,)> = sqlx::query_as(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = 'dropped' AND pid <> pg_backend_pid()",
    )
    .fetch_all(&admin)
    .await
    .unwrap();
    assert!(!ended.is_empty() && ended.iter().all(|(done,)| *done));
    // A connection that has sat idle is pinged before use, found dead and replaced: the next
    // read succeeds.
    tokio::time::sleep(std::time::Duration::from_millis(1_200)).await;
    assert!(store.load("g1").await.unwrap().is_some());
    store.ping().await.unwrap();
}
