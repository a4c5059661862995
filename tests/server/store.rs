//! The store against both backends it supports: a real SQLite file and a real PostgreSQL server
//! (a throwaway cluster started here). The same checks run on each.

use crate::harness::PgCluster;
use merels::store::{ClockRow, GameEnd, GameRow, OfferKind, SeatColumn, Store, WriteOp};
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
        ..GameRow::default()
    }
}

/// A turn with the clocks it leaves: White's time falls by the ply, Black's stays.
fn turn(id: &str, ply: i64, notation: &str) -> WriteOp {
    WriteOp::AppendTurn {
        id: id.into(),
        ply,
        notation: notation.into(),
        at: now_ms(),
        clock: Some([180_000 - ply, 180_000]),
        end: None,
    }
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
        at,
        clock: Some(ClockRow {
            white_ms: 180_000,
            black_ms: 180_000,
            at,
        }),
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
    let offer = |kind, by: Option<(&str, i64)>| WriteOp::SetOffer {
        id: "g1".into(),
        kind,
        by: by.map(|(side, ply)| (side.to_string(), ply)),
        at: now_ms(),
    };
    assert!(
        store
            .write(offer(OfferKind::Draw, Some(("white", 0))))
            .await
            .unwrap()
    );
    assert!(
        store
            .write(offer(OfferKind::Takeback, Some(("black", 0))))
            .await
            .unwrap()
    );
    assert!(
        !store
            .write(offer(OfferKind::Rematch, Some(("black", 0))))
            .await
            .unwrap()
    );
    let loaded = store.load("g1").await.unwrap().unwrap();
    assert_eq!(loaded.game.draw_offer, Some(("white".into(), 0)));
    assert_eq!(loaded.game.takeback_offer, Some(("black".into(), 0)));
    assert_eq!(loaded.version(), 4);
    assert!(store.write(offer(OfferKind::Draw, None)).await.unwrap());
    assert!(store.write(offer(OfferKind::Takeback, None)).await.unwrap());

    // No two turns can claim the same ply, even when they race.
    assert!(store.write(turn("g1", 0, "a1")).await.unwrap());
    assert!(!store.write(turn("g1", 0, "a3")).await.unwrap());
    // A turn of a game that was never stored is refused (in SQLite, when its batch commits),
    // and the writer goes on with the next batch.
    assert!(store.write(turn("never-stored", 0, "a1")).await.is_err());
    assert_eq!(store.load("never-stored").await.unwrap(), None);
    let racers: Vec<_> = (0..16)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .write(turn("g1", 1, &format!("c{}", i % 5 + 1)))
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
        let id = format!("x{i}");
        assert!(
            store
                .write(WriteOp::CreateGame(Box::new(game(&id, at))))
                .await
                .unwrap()
        );
    }
    let mixed: Vec<_> = (0..4)
        .map(|i| turn(&format!("x{i}"), 0, "d2"))
        .chain([turn("g1", 1, "d3")])
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
    };
    assert!(store.write(last).await.unwrap());
    let resign = GameEnd {
        result: "0-1".into(),
        termination: "resignation".into(),
    };
    assert!(
        !store
            .write(WriteOp::Finish {
                id: "g1".into(),
                end: resign,
                at: now_ms(),
                clock: None,
            })
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
            .write(offer(OfferKind::Rematch, Some(("black", 0))))
            .await
            .unwrap()
    );
    assert!(
        !store
            .write(offer(OfferKind::Draw, Some(("white", 3))))
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
    let rematch = |id: &str| WriteOp::StartRematch {
        id: "g1".into(),
        game: Box::new(GameRow {
            status: "playing".into(),
            black_secret_hash: Some("cc".repeat(32)),
            version: 2,
            ..game(id, at)
        }),
    };
    assert!(store.write(rematch("r1")).await.unwrap());
    assert!(
        !store.write(rematch("r2")).await.unwrap(),
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
        assert!(
            store
                .write(WriteOp::CreateGame(Box::new(game(&format!("m{i}"), at))))
                .await
                .unwrap()
        );
    }
    let writes: Vec<_> = (0..40)
        .flat_map(|i| (0..5).map(move |ply| (i, ply)))
        .map(|(i, ply)| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .write(turn(&format!("m{i}"), ply, "a1"))
                    .await
                    .unwrap()
            })
        })
        .collect();
    for w in writes {
        assert!(w.await.unwrap());
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
    assert!(
        store
            .write(WriteOp::CreateGame(Box::new(game("busy", at - 60_000))))
            .await
            .unwrap()
    );
    assert!(store.write(turn("busy", 0, "a1")).await.unwrap());
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
    let live = store.live_games(100).await.unwrap();
    assert_eq!(
        live.iter().map(|g| g.0.as_str()).collect::<Vec<_>>(),
        ["r1"],
        "only the rematch is being played"
    );
    store.close().await;
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
