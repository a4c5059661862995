//! `merels backup` of a live SQLite database while it is played, and `merels restore` of the
//! copy into a server that then serves every game it holds; what each refuses.

use crate::harness::{Process, eager_turn, free_addr, turns};
use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `merels ARGS` with `DATABASE_URL=url`, run to its end off the runtime.
async fn merels(url: &str, args: &[&str]) -> Output {
    let (url, args) = (
        url.to_string(),
        args.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
    );
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_merels"))
            .args(&args)
            .env("DATABASE_URL", url)
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Each game's turns as its players heard them acknowledged, by game id.
type Acknowledged = Arc<Mutex<HashMap<String, Vec<String>>>>;

/// Plays games one after another on `server` until `stop`, recording each turn once it is
/// acknowledged.
async fn play_on(base: String, acknowledged: Acknowledged, stop: Arc<AtomicBool>) {
    let http = crate::harness::Http {
        base,
        client: reqwest::Client::new(),
    };
    while !stop.load(Ordering::Relaxed) {
        let white = http.create("nine-mens-morris", "white").await;
        let black = http.join(&white.id).await;
        acknowledged
            .lock()
            .unwrap()
            .insert(white.id.clone(), Vec::new());
        loop {
            let state = http.state(&white.id).await;
            if state["status"] != "playing" || stop.load(Ordering::Relaxed) {
                break;
            }
            let seat = if state["to_move"] == "white" {
                &white
            } else {
                &black
            };
            let turn = eager_turn(&state);
            let (status, body) = http.play(seat, &turn).await;
            assert_eq!(status, 200, "{body}");
            acknowledged
                .lock()
                .unwrap()
                .get_mut(&white.id)
                .unwrap()
                .push(turn);
        }
    }
}

fn counts(acknowledged: &Acknowledged) -> HashMap<String, usize> {
    let games = acknowledged.lock().unwrap();
    games.iter().map(|(id, t)| (id.clone(), t.len())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_games_are_played_restores_every_game_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let live = format!("sqlite:{}", dir.path().join("live.db").display());
    let copy = dir.path().join("copy.db");
    let copy_name = copy.display().to_string();
    // Games end within a few dozen turns here: more than ten a minute are made.
    let lifted = [("MERELS_GAMES_PER_MINUTE", "10000")];
    let server = Process::start_with(dir.path(), free_addr(), &live, &lifted).await;

    // Four pairs of players play on while the copy is taken.
    let acknowledged: Acknowledged = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let load: Vec<_> = (0..4)
        .map(|_| {
            tokio::spawn(play_on(
                server.base(),
                Arc::clone(&acknowledged),
                Arc::clone(&stop),
            ))
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let before = counts(&acknowledged);
    let out = merels(&live, &["backup", &copy_name]).await;
    let after = counts(&acknowledged);
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains("backed up "), "{}", said(&out));
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::Relaxed);
    for player in load {
        player.await.unwrap();
    }
    assert!(server.terminate().success());
    let played: usize = counts(&acknowledged).values().sum();
    assert!(
        played > before.values().sum::<usize>(),
        "no turn was played during the backup: it shows nothing"
    );

    // Restored into a file of its own and served: every game acknowledged before the copy began
    // is there, with at least the turns acknowledged by then and at most one more than were
    // acknowledged when it ended (a turn stored but not yet heard of), as a prefix of what was
    // played; every game there replays by the rules (the server loads it through them).
    let restored = format!("sqlite:{}", dir.path().join("restored.db").display());
    let out = merels(&restored, &["restore", &copy_name]).await;
    assert!(out.status.success(), "{}", said(&out));
    let server = Process::start(dir.path(), free_addr(), &restored).await;
    let http = server.http();
    let games = acknowledged.lock().unwrap().clone();
    let mut held = 0;
    for (id, played) in &games {
        let (status, state) = http
            .request("GET", &format!("/api/games/{id}"), None, None)
            .await;
        let Some(&at_start) = before.get(id) else {
            assert!(status == 200 || status == 404, "{id}: {status} {state}");
            continue;
        };
        assert_eq!(
            status, 200,
            "{id}, acknowledged before the copy, is missing: {state}"
        );
        held += 1;
        let stored = turns(&state);
        let at_end = after.get(id).copied().unwrap_or(at_start);
        assert!(
            stored.len() >= at_start && stored.len() <= at_end + 1,
            "{id}: {} turns restored, {at_start} acknowledged before the copy, {at_end} after",
            stored.len()
        );
        assert_eq!(stored[..], played[..stored.len()], "{id}");
    }
    assert!(held > 0, "no game was there to restore");

    // Refusals, each naming what is wrong and changing nothing.
    let refused = |out: &Output, needle: &str| {
        assert!(!out.status.success(), "it succeeded: {}", said(out));
        assert!(said(out).contains(needle), "{}", said(out));
    };
    // The server runs on the file a restore would replace.
    refused(
        &merels(&restored, &["restore", &copy_name]).await,
        "another merels process is using",
    );
    // A copy never overwrites a file.
    refused(
        &merels(&restored, &["backup", &copy_name]).await,
        "exists already",
    );
    // A file that is not a merels database.
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"not a database at all").unwrap();
    let elsewhere = format!("sqlite:{}", dir.path().join("elsewhere.db").display());
    refused(
        &merels(&elsewhere, &["restore", &junk.display().to_string()]).await,
        "is not a merels database",
    );
    assert!(!Path::new(&dir.path().join("elsewhere.db")).exists());
    // PostgreSQL has its own tools.
    refused(
        &merels("postgres://nobody@127.0.0.1:1/none", &["backup", "x.db"]).await,
        "pg_dump",
    );
    // The served database is untouched by all of it.
    let (status, _) = http.request("GET", "/healthz", None, None).await;
    assert_eq!(status, 200);
    assert!(server.terminate().success());
}
