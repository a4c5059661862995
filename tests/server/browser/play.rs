//! Whole games in the browser: two players and a watcher, every board, the variant pages, an
//! open challenge, and the computer on a phone.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_browsers_play_a_whole_game_while_a_third_watches() {
    let _turn = one_at_a_time().await;
    let mut server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let white = driver.browser("white", 1100, 850).await;
    let black = driver.browser("black", 1100, 850).await;
    let watcher = driver.browser("watcher", 390, 844).await;

    // The creator picks Six Men's Morris and White on the home page.
    start_from_home(&white, &server, "six-mens-morris", &[], "white", "friend").await;
    wait_text(&white, "#you", "You play white.").await;
    let share = white
        .find(Locator::Css("#share"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    let id = share.rsplit('/').next().unwrap().to_string();
    assert!(share.starts_with(&server.base), "{share}");
    assert_eq!(http.state(&id).await["status"], "waiting");

    // Whoever opens the link chooses: the seat, or watching. Opening it takes nothing.
    watcher.goto(&share).await.unwrap();
    press_when_shown(&watcher, "#just-watch").await;
    wait_text(&watcher, "#you", "You are watching.").await;
    assert!(attr(&watcher, "#join-or-watch", "hidden").await.is_some());
    assert_eq!(http.state(&id).await["status"], "waiting");
    black.goto(&share).await.unwrap();
    wait_text(
        &black,
        "#invite-text",
        "White is waiting for an opponent. Play black, or watch?",
    )
    .await;
    assert_eq!(http.state(&id).await["status"], "waiting");
    press(&black, "#take-seat").await;
    wait_text(&black, "#you", "You play black.").await;
    assert!(attr(&black, "#join-or-watch", "hidden").await.is_some());
    watcher.refresh().await.unwrap();
    wait_text(&watcher, "#you", "You are watching.").await;
    assert!(
        attr(&watcher, "#join-or-watch", "hidden").await.is_some(),
        "a game with both seats taken asks nothing"
    );
    wait_text(&white, "#spectators", "1 spectator").await;
    assert!(
        attr(&white, "#handoff", "hidden").await.is_none(),
        "a seated player sees the handoff link"
    );

    let mut ply = 0;
    loop {
        let state = http.state(&id).await;
        let version = state["version"].as_u64().unwrap();
        for page in [&white, &black, &watcher] {
            wait_version(page, version).await;
        }
        // The watcher's board follows every turn.
        let on_board = &state["on_board"];
        assert_eq!(
            count(&watcher, ".point.white").await as u64,
            on_board["white"].as_u64().unwrap()
        );
        assert_eq!(
            count(&watcher, ".point.black").await as u64,
            on_board["black"].as_u64().unwrap()
        );
        if let Some(last) = state["last_turn"]["turn"].as_str() {
            assert!(text(&watcher, "#turns").await.contains(last));
        }
        if state["status"] == "finished" {
            break;
        }
        if ply == 8 {
            let dir = screenshots_dir();
            std::fs::write(
                dir.join("game-desktop.png"),
                white.screenshot().await.unwrap(),
            )
            .unwrap();
            std::fs::write(
                dir.join("game-phone.png"),
                watcher.screenshot().await.unwrap(),
            )
            .unwrap();
        }
        if ply == 12 {
            // A reload in the middle keeps the seat.
            black.refresh().await.unwrap();
            wait_text(&black, "#you", "You play black.").await;
            wait_version(&black, version).await;
        }
        if ply == 16 {
            // A server restart: every page reconnects by itself and carries on.
            server = server.restart().await;
            for page in [&white, &black, &watcher] {
                wait_text(page, "#conn", "Connected").await;
                wait_version(page, version).await;
            }
        }
        let turn = eager_turn(&state);
        let mover = if state["to_move"] == "white" {
            &white
        } else {
            &black
        };
        if ply == 0 {
            // The first turn with the keyboard alone: Tab to the point, then Enter.
            mover
                .execute(
                    "document.querySelector('[data-point=\"a1\"]').focus()",
                    vec![],
                )
                .await
                .unwrap();
            assert_eq!(turn, "a1");
            mover
                .active_element()
                .await
                .unwrap()
                .send_keys("\u{E007}")
                .await
                .unwrap();
        } else {
            click_turn(mover, &turn).await;
        }
        ply += 1;
        assert!(ply < 200, "the game did not end");
    }

    let state = http.state(&id).await;
    assert_eq!(state["status"], "finished");
    let winner = if state["winner"] == "white" {
        "White wins"
    } else {
        "Black wins"
    };
    for page in [&white, &black, &watcher] {
        wait_text(page, "#banner", winner).await;
    }

    // The finished game is a replay: arrow keys and buttons step through it.
    let n = state["turns"].as_array().unwrap().len();
    wait_text(&watcher, "#replay-at", &format!("{n} / {n}")).await;
    let body = watcher.find(Locator::Css("body")).await.unwrap();
    body.send_keys("\u{E012}").await.unwrap(); // ArrowLeft
    wait_text(&watcher, "#replay-at", &format!("{} / {n}", n - 1)).await;
    watcher
        .find(Locator::Css("#replay [data-step=\"first\"]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_text(&watcher, "#replay-at", &format!("0 / {n}")).await;
    assert_eq!(
        count(&watcher, ".point.white, .point.black").await,
        0,
        "the start is an empty board"
    );
    body.send_keys("\u{E014}").await.unwrap(); // ArrowRight
    wait_text(&watcher, "#replay-at", &format!("1 / {n}")).await;
    assert_eq!(count(&watcher, ".point.white").await, 1);
    for c in [white, black, watcher] {
        c.close().await.unwrap();
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_board_renders_and_the_handoff_link_moves_a_seat() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let page = driver.browser("boards", 800, 700).await;
    let cases = [
        ("three-mens-morris", json!({}), 9, 8),
        ("three-mens-morris", json!({"diagonals": "off"}), 9, 6),
        ("six-mens-morris", json!({}), 16, 12),
        ("seven-mens-morris", json!({}), 17, 10),
        ("nine-mens-morris", json!({}), 24, 16),
        ("twelve-mens-morris", json!({}), 24, 20),
    ];
    for (variant, options, points, lines) in cases {
        let (status, body) = http
            .request(
                "POST",
                "/api/games",
                None,
                Some(json!({"variant": variant, "options": options})),
            )
            .await;
        assert_eq!(status, 201);
        let id = body["id"].as_str().unwrap();
        page.goto(&format!("{}/g/{id}", server.base)).await.unwrap();
        wait_text(&page, "#conn", "Connected").await;
        assert_eq!(
            count(&page, "[data-point]").await,
            points,
            "{variant} {options}"
        );
        assert_eq!(
            count(&page, ".lines line").await,
            lines,
            "{variant} {options}"
        );
    }

    // The "continue on another device" link carries a seat to a browser that never had it.
    let seat = http.create("nine-mens-morris", "black").await;
    let (status, body) = http
        .request("POST", &format!("/api/games/{}/join", seat.id), None, None)
        .await;
    assert_eq!(status, 200);
    let joined = crate::harness::Seat {
        id: seat.id.clone(),
        color: "white".into(),
        secret: body["secret"].as_str().unwrap().to_string(),
    };
    let handoff = seat_link(&server, &joined).await;
    page.goto(&handoff).await.unwrap();
    wait_text(&page, "#you", "You play white.").await;
    let url = page.current_url().await.unwrap();
    assert!(
        url.query().is_none() && url.fragment().is_none(),
        "the code leaves the address bar: {url}"
    );
    page.refresh().await.unwrap();
    wait_text(&page, "#you", "You play white.").await;
    // The same link again, in another browser, gives nothing: it worked once.
    let other = driver.browser("other", 800, 700).await;
    other.goto(&handoff).await.unwrap();
    wait_text(&other, "#you", "You are watching.").await;
    wait_text(&other, "#handoff-stale", "used already").await;
    // The page makes links of its own: each a new one-time code, drawn as a QR code too.
    press(&page, "#handoff summary").await;
    press(&page, "#handoff-move").await;
    let made = made_link(&page).await;
    assert!(!made.contains(&joined.secret));
    let third = driver.browser("third", 800, 700).await;
    third.goto(&made).await.unwrap();
    wait_text(&third, "#you", "You play white.").await;
    wait_text(&page, "#seat-moved", "Your seat moved to another device").await;
    third.close().await.unwrap();
    page.close().await.unwrap();
    other.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_reads_every_variant_page_and_starts_a_game_from_one() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let page = driver.browser("reader", 1100, 900).await;
    page.goto(&format!("{}/", server.base)).await.unwrap();
    assert_eq!(
        count(&page, ".variants .diagram").await,
        8,
        "a thumbnail per variant"
    );
    std::fs::write(
        screenshots_dir().join("home.png"),
        page.screenshot().await.unwrap(),
    )
    .unwrap();
    for info in merels::catalog::Catalog::builtin().variants() {
        page.goto(&format!("{}/variants/{}", server.base, info.slug()))
            .await
            .unwrap();
        wait_text(&page, "h1", &info.title).await;
        assert_eq!(
            count(&page, "figure.board-figure svg").await,
            1,
            "{}",
            info.slug()
        );
        if info.slug() == "six-mens-morris" {
            std::fs::write(
                screenshots_dir().join("variant-page.png"),
                page.screenshot().await.unwrap(),
            )
            .unwrap();
        }
    }
    // "Play" leads to the table setup on the same page; creating the game seats the visitor.
    page.find(Locator::Css("a.button[href=\"#play\"]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.find(Locator::Css("#play input[value=\"black\"]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.find(Locator::Css("#play button[type=\"submit\"]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_text(&page, "#you", "You play black.").await;
    wait_text(&page, "h1", "Morabaraba").await;
    page.close().await.unwrap();
    server.stop().await;
}

/// A game opened to anyone is listed on the home page under "Open challenges"; a visitor takes
/// it from there and plays; once taken it is listed no more. One for a friend never is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_challenge_is_taken_from_the_home_page() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let private = http.create("six-mens-morris", "white").await;
    let (status, body) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "six-mens-morris", "computer": 2, "open": true})),
        )
        .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_variant")));
    let driver = Driver::start().await;
    let (creator, visitor, id) = open_challenge(&server, &driver).await;
    assert_eq!(
        count(&visitor, "#challenges li").await,
        1,
        "the friend's game is not listed"
    );
    assert_eq!(
        attr(&visitor, "#challenges a", "href").await.as_deref(),
        Some(format!("/g/{id}").as_str())
    );
    assert_ne!(private.id, id);
    press(&visitor, "#challenges a").await;
    press_when_shown(&visitor, "#take-seat").await;
    wait_text(&visitor, "#you", "You play black.").await;
    wait_text(&creator, "#status", "Your turn.").await;
    assert!(
        home_page(&server).await.contains("None right now"),
        "a taken challenge is listed no more"
    );
    creator.close().await.unwrap();
    visitor.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_plays_the_computer_to_the_end_on_a_phone() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let phone = driver.browser("phone", 390, 844).await;
    phone
        .goto(&format!("{}/variants/three-mens-morris", server.base))
        .await
        .unwrap();
    // The table setup: moves to a neighbouring point (a first-player win), Black, the
    // strongest level, and "Play the computer".
    for css in [
        "#play select[name=\"opt.three-mens-morris.movement\"] option[value=\"adjacent\"]",
        "#play input[value=\"black\"]",
        "#play select[name=\"level\"] option[value=\"6\"]",
        "#play button[value=\"computer\"]",
    ] {
        press(&phone, css).await;
    }
    wait_text(&phone, "#you", "You play black.").await;
    wait_text(&phone, "#sides", "computer, level 6, master").await;
    let url = phone.current_url().await.unwrap();
    let id = url.path().trim_start_matches("/g/").to_string();

    // The player clicks a legal turn whenever it is theirs, until the game ends.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = http.state(&id).await;
        if state["status"] == "finished" {
            break;
        }
        assert!(Instant::now() < deadline, "the game never ended: {state}");
        if state["to_move"] == "black"
            && attr(&phone, "#game", "data-version").await == Some(state["version"].to_string())
        {
            let before = state["version"].as_u64().unwrap();
            click_turn(&phone, &eager_turn(&state)).await;
            let deadline = Instant::now() + WAIT;
            while http.state(&id).await["version"].as_u64() == Some(before) {
                assert!(Instant::now() < deadline, "the click played nothing");
                tokio::time::sleep(Duration::from_millis(30)).await;
            }
        } else {
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }
    wait_text(&phone, "#banner", "White wins").await;
    assert!(text(&phone, "#sides").await.contains("thought"));
    std::fs::write(
        screenshots_dir().join("computer-phone.png"),
        phone.screenshot().await.unwrap(),
    )
    .unwrap();
    // The finished game opens in the computer's analysis: exact values, one row a turn.
    press(&phone, "#analysis-link a").await;
    wait_text(&phone, "#analysis", "win in").await;
    let plies = http.state(&id).await["plies"].as_u64().unwrap() as usize;
    assert_eq!(count(&phone, "#analysis tbody tr").await, plies);
    // It steps through the game on the board: at the start, the computer's best turn (the
    // centre) is drawn; a step plays it; a row jumps to its turn.
    wait_text(&phone, "#judgement", "The start. White to move: win in").await;
    let b2 = "#board [data-point=\"b2\"]";
    assert!(attr(&phone, b2, "class").await.unwrap().contains("best"));
    press(&phone, "#replay button[data-step=\"next\"]").await;
    wait_text(&phone, "#replay-at", &format!("1 / {plies}")).await;
    wait_text(&phone, "#judgement", "1. White played b2").await;
    assert!(attr(&phone, b2, "class").await.unwrap().contains("white"));
    press(&phone, "#analysis tbody tr:nth-child(3)").await;
    wait_text(&phone, "#replay-at", &format!("3 / {plies}")).await;
    assert!(
        attr(&phone, "#analysis tbody tr:nth-child(3)", "class")
            .await
            .unwrap()
            .contains("current")
    );
    std::fs::write(
        screenshots_dir().join("analysis-phone.png"),
        phone.screenshot().await.unwrap(),
    )
    .unwrap();
    phone.close().await.unwrap();
    server.stop().await;
}
