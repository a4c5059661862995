//! The `merels` command line, run as a real process.

use std::process::{Command, Output};

fn merels(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_merels"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn fails_naming(args: &[&str], needle: &str) {
    let out = merels(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: {err}");
}

#[test]
fn variants_lists_every_variant_with_its_options() {
    let out = merels(&["variants"]);
    assert!(out.status.success());
    let text = stdout(&out);
    for slug in [
        "three-mens-morris",
        "six-mens-morris",
        "lasker-morris",
        "morabaraba",
    ] {
        assert!(text.contains(slug), "{text}");
    }
    assert!(text.contains("--set flying=<on|off>  (default on)"));
    assert!(text.contains("--set movement=<anywhere|adjacent>  (default anywhere)"));
}

#[test]
fn perft_prints_the_count_last() {
    let out = merels(&["perft", "--variant", "nine-mens-morris", "4"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().last(), Some("255024"));
    let out = merels(&[
        "perft",
        "--variant",
        "three-mens-morris",
        "--set",
        "diagonals=off",
        "--divide",
        "2",
    ]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 9 + 2);
    assert!(lines.contains(&"b2: 8"));
    assert_eq!(lines.last(), Some(&"72"));
    let out = merels(&[
        "perft",
        "--variant",
        "morabaraba",
        "--position",
        "a7,d7,g7,b4,f4 a1,d1,e3,f2,d3 0/0 w",
        "--moves",
        "g7-g4 a1-a4",
        "1",
    ]);
    assert_eq!(stdout(&out).trim(), "9");
}

#[test]
fn moves_prints_the_legal_turns() {
    let out = merels(&[
        "moves",
        "--variant",
        "nine-mens-morris",
        "--set",
        "flying=off",
        "--position",
        "a7,g7,c5 a1,d1,g1,b2,d2,f2 0/0 w",
    ]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "a7-a4\na7-d7\nc5-c4\nc5-d5\ng7-d7\ng7-g4\n");
    let out = merels(&[
        "moves",
        "--variant",
        "six-mens-morris",
        "--moves",
        "a1 a3 a5",
    ]);
    let text = stdout(&out);
    assert!(text.lines().all(|l| l.contains('-') || !text.is_empty()));
    assert_eq!(text.lines().count(), 13);
}

#[test]
fn bad_input_exits_non_zero_and_names_it() {
    fails_naming(
        &["perft", "--variant", "ten-mens-morris", "1"],
        "ten-mens-morris",
    );
    fails_naming(
        &[
            "perft",
            "--variant",
            "six-mens-morris",
            "--set",
            "flying=off",
            "1",
        ],
        "flying",
    );
    fails_naming(
        &[
            "perft",
            "--variant",
            "nine-mens-morris",
            "--set",
            "flying=perhaps",
            "1",
        ],
        "perhaps",
    );
    fails_naming(
        &[
            "moves",
            "--variant",
            "nine-mens-morris",
            "--position",
            "a1 a1 8/8 w",
        ],
        "same point",
    );
    fails_naming(
        &[
            "moves",
            "--variant",
            "nine-mens-morris",
            "--position",
            "z9 - 8/9 b",
        ],
        "z9",
    );
    fails_naming(
        &[
            "moves",
            "--variant",
            "nine-mens-morris",
            "--position",
            "a1 - 8/9",
        ],
        "4 fields",
    );
    fails_naming(
        &["moves", "--variant", "nine-mens-morris", "--moves", "d6 d6"],
        "d6",
    );
    fails_naming(
        &["moves", "--variant", "nine-mens-morris", "--moves", "d6 q9"],
        "q9",
    );
    fails_naming(&["perft", "--variant", "nine-mens-morris"], "DEPTH");
}

#[test]
fn a_position_may_start_with_a_hyphen() {
    let out = merels(&[
        "moves",
        "--variant",
        "six-mens-morris",
        "--position",
        "- - 6/6 w",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out).lines().count(), 16);
}

#[test]
fn the_computer_solves_plays_and_matches_from_the_command_line() {
    let tables = tempfile::tempdir().unwrap();
    let dir = tables.path().to_str().unwrap();
    let adjacent = [
        "--variant",
        "three-mens-morris",
        "--set",
        "movement=adjacent",
        "--tables",
        dir,
    ];
    let with = |command: &str, more: &[&str]| {
        let mut args = vec![command];
        args.extend(adjacent);
        args.extend(more);
        merels(&args)
    };

    // A solved board: the exact value, and the only winning first turn, the centre.
    let out = with("solve", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).contains("the start: win in 9 for White"),
        "{}",
        stdout(&out)
    );
    let file = "three-mens-morris.diagonals-on.movement-adjacent.table";
    assert!(tables.path().join(file).exists());
    let out = with("best", &[]);
    assert!(stdout(&out).starts_with("b2 win in 9"), "{}", stdout(&out));
    let out = with("best", &["--each"]);
    let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 9);
    assert_eq!(lines[0], "b2 win in 9");
    assert!(lines[1..].iter().all(|l| !l.contains("win")), "{lines:?}");

    // A big board is searched: the mill that closes at once.
    let out = merels(&[
        "best",
        "--variant",
        "nine-mens-morris",
        "--position",
        "a7,d7 a1,g1,b4 6/6 w",
        "--level",
        "4",
        "--millis",
        "2000",
    ]);
    assert!(stdout(&out).starts_with("g7x"), "{}", stdout(&out));
    assert!(stdout(&out).contains("nodes"));

    // Perfect play against a beginner, on the board where the start is a draw: from the start
    // (no random opening, which could hand either side a lost position), it never loses.
    let out = merels(&[
        "match",
        "--variant",
        "three-mens-morris",
        "--tables",
        dir,
        "--a",
        "6",
        "--b",
        "1",
        "--games",
        "20",
        "--opening",
        "0-0",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("in 20 games") && text.contains(" 0 lost"),
        "{text}"
    );
    assert!(text.contains("Elo +"), "{text}");

    fails_naming(
        &["best", "--variant", "three-mens-morris", "--level", "9"],
        "9",
    );
    fails_naming(
        &[
            "best",
            "--variant",
            "three-mens-morris",
            "--moves",
            "a1 a3 b1 b3 c1",
        ],
        "over",
    );
    fails_naming(
        &["solve", "--variant", "nine-mens-morris", "--tables", dir],
        "too many",
    );
}

#[test]
fn a_match_between_engines_gives_each_turn_a_node_budget() {
    // Two real `merels uci` processes; what the first is told is copied to a file on its way.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("first.log");
    let exe = env!("CARGO_BIN_EXE_merels");
    let first = format!("tee {} | {exe} uci", log.display());
    let second = format!("{exe} uci");
    let out = merels(&[
        "match",
        "--variant",
        "nine-mens-morris",
        "--engine",
        &first,
        "--engine",
        &second,
        "--nodes",
        "2000",
        "--games",
        "2",
        "--opening",
        "2-2",
        "--max-plies",
        "30",
        "--threads",
        "1",
    ]);
    let text = stdout(&out);
    assert!(text.contains("in 2 games"), "{text}");
    let told = std::fs::read_to_string(&log).unwrap();
    assert!(told.contains("go nodes 2000"), "{told}");
    assert!(!told.contains("go movetime"), "{told}");
}
