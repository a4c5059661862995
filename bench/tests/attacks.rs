//! `merels-bench` run whole, as scripts/test and a self-hoster run it: its attacks on merels at a
//! small scale, each against real server processes (and a real PostgreSQL cluster).

// The server's tests use all of it; these, the cluster alone.
#[allow(dead_code)]
#[path = "../../tests/server/pg.rs"]
mod pg;

use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

/// One attack at a time: each measures a server against bounds in time (a stall, a computer's
/// clock), which another attack's servers running beside it on the same cores would eat into.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn bench(args: &[&str]) -> Output {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    Command::new(env!("CARGO_BIN_EXE_merels-bench"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("merels-bench runs")
}

/// `chaos` at a small scale, on SQLite, on PostgreSQL, and as three instances on
/// PostgreSQL with clients on any of them (their sockets forwarded, then kept and relayed over a
/// NATS server that chaos starts): a server killed (SIGKILL and SIGTERM; SIGKILL every
/// 4 s for the three) while it is played loses no acknowledged turn, stores no gap and no turn
/// after an end, never shows a version going back, and says the same as its store; and among
/// three, no game stands still longer than the lease and two seconds. (scripts/test runs the
/// three at full scale: 300 games, one killed every 20 s for two minutes.)
#[test]
fn a_server_killed_while_played_keeps_every_promise() {
    let cluster = pg::PgCluster::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let postgres = runtime.block_on(cluster.database("chaos"));
    let three = runtime.block_on(cluster.database("chaos_three"));
    let over_a_bus = runtime.block_on(cluster.database("chaos_bus"));
    let instances = |url| vec!["--database-url", url, "--instances", "3", "--every", "4"];
    let mut bus = instances(over_a_bus.as_str());
    bus.push("--bus");
    for extra in [
        vec![],
        vec!["--database-url", postgres.as_str()],
        instances(three.as_str()),
        bus,
    ] {
        let mut args = vec!["chaos", "--games", "4", "--kills", "4", "--seed", "7"];
        args.extend(extra.iter().copied());
        let out = bench(&args);
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{said}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(said.starts_with("chaos: 4 kills"), "{said}");
        assert!(
            said.contains(
                " 0 lost, 0 gaps, 0 after an end, 0 unreadable, 0 versions back, 0 differing"
            ),
            "{said}"
        );
        let turns: u64 = said
            .split(" acknowledged turns")
            .next()
            .and_then(|s| s.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(turns > 100, "the games were played: {said}");
    }
}

/// `hostile` at a small scale: bad frames of every kind, each answered, none changing the
/// game they were sent to; a flood of idle connections while `/healthz` answers; a chat flood
/// from one address; an analysis flood during a game against the computer; a canary game
/// playing on throughout; no panic. Then connections held on an instance's internal address
/// (on PostgreSQL, where it is opened) while `/healthz` answers.
#[test]
fn a_server_sent_every_kind_of_bad_input_answers_each_and_changes_nothing() {
    let cluster = pg::PgCluster::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let database = runtime.block_on(cluster.database("hostile"));
    let out = bench(&[
        "hostile",
        "--frames",
        "800",
        "--attackers",
        "16",
        "--flood",
        "400",
        "--database-url",
        &database,
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("hostile: 800 bad frames of 8 kinds, 0 unanswered, 0 state changes"),
        "{said}"
    );
    assert!(said.contains("400 idle connections") && said.contains("0 panics, server alive"));
    assert!(said.contains("another address heard"), "{said}");
    assert!(
        said.contains("hostile: analysis flood of") && !said.contains("lost on time"),
        "{said}"
    );
    assert!(
        said.contains("internal hold: 300 connections held") && said.ends_with("server alive\n"),
        "{said}"
    );
}
