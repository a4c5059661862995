//! End to end in a real headless Chromium (Debian's chromium and chromium-driver, which
//! scripts/test installs), driven with fantoccini: one browser creates a Six Men's Morris game on
//! the home page, a second opens the share link and takes the seat, a third watches on a
//! phone-sized window. They play a whole game by clicking the board until one side wins.

use crate::harness::{TestServer, answers, eager_turn, eventually, free_port, turns};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// chromedriver on a free port, killed when dropped.
struct Driver {
    child: Child,
    url: String,
    _profiles: tempfile::TempDir,
}

impl Driver {
    async fn start() -> Driver {
        let port = free_port();
        let exe =
            std::env::var("MERELS_CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
        let child = Command::new(&exe)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{exe} does not start ({e}): scripts/test installs chromium-driver")
            });
        let url = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        let status = format!("{url}/status");
        eventually("chromedriver answers", || answers(&client, &status)).await;
        Driver {
            child,
            url,
            _profiles: tempfile::tempdir().unwrap(),
        }
    }

    /// A new browser with its own profile (its own cookies), of the given window size.
    async fn browser(&self, name: &str, width: u32, height: u32) -> Client {
        self.browser_with(name, width, height, &[]).await
    }

    /// [`Driver::browser`] with more Chromium flags.
    async fn browser_with(&self, name: &str, width: u32, height: u32, more: &[&str]) -> Client {
        let profile = self._profiles.path().join(name);
        let chromium =
            std::env::var("MERELS_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let caps = json!({
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", "--disable-quic", format!("--user-data-dir={}", profile.display()),
                    format!("--window-size={width},{height}")
                ]
            }
        });
        let mut caps = caps;
        let args = caps["goog:chromeOptions"]["args"].as_array_mut().unwrap();
        args.extend(more.iter().map(|a| Value::from(*a)));
        let Value::Object(caps) = caps else {
            unreachable!()
        };
        ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&self.url)
            .await
            .expect("a Chromium session")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const WAIT: Duration = Duration::from_secs(15);

/// Browser tests take turns: each starts several Chromiums, and two cores are shared by all.
async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::OnceLock<tokio::sync::Mutex<()>> = std::sync::OnceLock::new();
    LOCK.get_or_init(|| tokio::sync::Mutex::new(()))
        .lock()
        .await
}

/// The visible text of the first element `css` finds, or nothing if there is none. A page that
/// renders between finding an element and reading it has replaced the element (the player cards
/// are drawn anew for every state), so a read that fails finds it again rather than reading as
/// empty.
async fn text(c: &Client, css: &str) -> String {
    for _ in 0..5 {
        let Ok(e) = c.find(Locator::Css(css)).await else {
            return String::new();
        };
        if let Ok(text) = e.text().await {
            return text;
        }
    }
    String::new()
}

async fn attr(c: &Client, css: &str, name: &str) -> Option<String> {
    c.find(Locator::Css(css))
        .await
        .ok()?
        .attr(name)
        .await
        .ok()?
}

/// Waits until `#you` says `expected`.
async fn wait_text(c: &Client, css: &str, expected: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let got = text(c, css).await;
        if got.contains(expected) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{css} never said '{expected}' (it says '{got}')"
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// Waits until the page shows the state of `version`.
async fn wait_version(c: &Client, version: u64) {
    let deadline = Instant::now() + WAIT;
    loop {
        let got = attr(c, "#game", "data-version")
            .await
            .and_then(|v| v.parse::<u64>().ok());
        if got == Some(version) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the page never reached version {version} (at {got:?})"
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

async fn click(c: &Client, point: &str) {
    c.find(Locator::Css(&format!("[data-point=\"{point}\"]")))
        .await
        .unwrap_or_else(|e| panic!("no point {point}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("clicking {point}: {e}"));
}

/// Clicks the button `css` names once it is shown (the page shows it after its first state).
async fn press_when_shown(c: &Client, css: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Ok(e) = c.find(Locator::Css(css)).await
            && e.is_displayed().await.unwrap_or(false)
        {
            break;
        }
        assert!(Instant::now() < deadline, "{css} was never shown");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    press(c, css).await;
}

/// Clicks the button (or link) `css` names.
async fn press(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("clicking {css}: {e}"));
}

/// Plays a turn written in notation by clicking: the man to move (if any), the destination, and
/// the man to remove (if any).
async fn click_turn(c: &Client, turn: &str) {
    let (moving, remove) = match turn.split_once('x') {
        Some((m, r)) => (m, Some(r)),
        None => (turn, None),
    };
    for point in moving.split('-') {
        click(c, point).await;
    }
    if let Some(r) = remove {
        // Only removable men respond once the mill is closed.
        let deadline = Instant::now() + WAIT;
        while !attr(c, &format!("[data-point=\"{r}\"]"), "class")
            .await
            .unwrap_or_default()
            .contains("removable")
        {
            assert!(Instant::now() < deadline, "{r} never became removable");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        click(c, r).await;
    }
}

/// A game of `variant` with a Chromium in each seat: the creator's (White, via the handoff link)
/// and the first visitor's (Black, by opening the share link).
async fn seated_pair(
    server: &TestServer,
    driver: &Driver,
    variant: &str,
    names: [&str; 2],
) -> (Client, Client, crate::harness::Seat) {
    seated_pair_timed(server, driver, variant, names, "untimed").await
}

/// [`seated_pair`] with a time control.
async fn seated_pair_timed(
    server: &TestServer,
    driver: &Driver,
    variant: &str,
    names: [&str; 2],
    clock: &str,
) -> (Client, Client, crate::harness::Seat) {
    let seat = server.http().create_timed(variant, "white", clock).await;
    let white = driver.browser(names[0], 1000, 800).await;
    let black = driver.browser(names[1], 1000, 800).await;
    white
        .goto(&format!(
            "{}/g/{}?seat={}",
            server.base, seat.id, seat.secret
        ))
        .await
        .unwrap();
    wait_text(&white, "#you", "You play white.").await;
    black
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    press_when_shown(&black, "#take-seat").await;
    wait_text(&black, "#you", "You play black.").await;
    (white, black, seat)
}

async fn count(c: &Client, css: &str) -> usize {
    c.find_all(Locator::Css(css)).await.map_or(0, |v| v.len())
}

fn screenshots_dir() -> PathBuf {
    let dir = std::env::var("MERELS_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

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
    white.goto(&format!("{}/", server.base)).await.unwrap();
    white
        .find(Locator::Css("#v-six-mens-morris input[value=\"white\"]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    white
        .find(Locator::Css("#v-six-mens-morris button[type=\"submit\"]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
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
    let handoff = body["handoff_url"].as_str().unwrap().to_string();
    page.goto(&handoff).await.unwrap();
    wait_text(&page, "#you", "You play white.").await;
    let url = page.current_url().await.unwrap();
    assert!(
        url.query().is_none(),
        "the secret leaves the address bar: {url}"
    );
    page.refresh().await.unwrap();
    wait_text(&page, "#you", "You play white.").await;
    // A wrong secret gives nothing.
    let other = driver.browser("other", 800, 700).await;
    other
        .goto(&format!("{}/g/{}?seat=wrong", server.base, seat.id))
        .await
        .unwrap();
    wait_text(&other, "#you", "You are watching.").await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_resigns_from_the_page() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    // The tab says whose turn it is; each player sees the board from their side, and may turn it.
    assert!(white.title().await.unwrap().starts_with("Your turn · "));
    assert!(!black.title().await.unwrap().contains("Your turn"));
    let a1 = "#board [data-point=\"a1\"]";
    assert_eq!(
        attr(&white, a1, "transform").await.as_deref(),
        Some("translate(0 4)")
    );
    assert_eq!(
        attr(&black, a1, "transform").await.as_deref(),
        Some("translate(4 0)")
    );
    press(&black, "#flip").await;
    assert_eq!(
        attr(&black, a1, "transform").await.as_deref(),
        Some("translate(0 4)")
    );
    press(&black, "#flip").await;
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    wait_text(&white, "#turns", "a1").await;
    // A turn sounds; the mute switch is remembered.
    assert_eq!(
        attr(&black, "#game", "data-sound").await.as_deref(),
        Some("turn")
    );
    assert!(black.title().await.unwrap().starts_with("Your turn · "));
    press(&black, "#mute").await;
    let muted = black
        .execute("return localStorage.getItem('merels.mute')", vec![])
        .await
        .unwrap();
    assert_eq!(muted, "1");
    // Only White has a turn to take back.
    assert_eq!(attr(&white, "#takeback-offer", "hidden").await, None);
    assert_eq!(
        attr(&black, "#takeback-offer", "hidden").await.as_deref(),
        Some("true")
    );
    // Resigning asks once more before it acts.
    let resign = black.find(Locator::Css("#resign")).await.unwrap();
    resign.click().await.unwrap();
    wait_text(&black, "#resign", "Click again").await;
    assert_eq!(http.state(&seat.id).await["status"], "playing");
    resign.click().await.unwrap();
    for page in [&white, &black] {
        wait_text(page, "#banner", "White wins (resignation)").await;
    }
    // Each player hears how it went for them; the end sounds where sound is on.
    assert!(text(&white, "#banner").await.starts_with("You won: "));
    assert!(text(&black, "#banner").await.starts_with("You lost: "));
    assert_eq!(
        attr(&white, "#game", "data-sound").await.as_deref(),
        Some("end")
    );
    assert_eq!(
        attr(&black, "#game", "data-sound").await.as_deref(),
        Some("turn"),
        "muted"
    );
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_is_offered_and_accepted_on_the_page() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let (white, black, _) =
        seated_pair(&server, &driver, "twelve-mens-morris", ["white", "black"]).await;
    press(&white, "#draw-offer").await;
    wait_text(&black, "#status", "Your opponent offers a draw.").await;
    wait_text(&white, "#status", "You offered a draw.").await;
    wait_text(&black, "#notice", "Your opponent offered a draw.").await;
    // Declined, it is said on both pages (and, in the live region, to screen readers).
    press(&black, "#draw-decline").await;
    wait_text(&white, "#notice", "Your opponent declined the draw.").await;
    wait_text(&black, "#notice", "You declined the draw.").await;
    // A takeback accepted changes the board, and says so.
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    press(&white, "#takeback-offer").await;
    wait_text(&black, "#notice", "Your opponent asked for a takeback.").await;
    press(&black, "#takeback-accept").await;
    for page in [&white, &black] {
        wait_text(page, "#notice", "Takeback accepted: 1 turn taken back.").await;
    }
    // Offered again, and accepted this time.
    press(&white, "#draw-offer").await;
    wait_text(&black, "#status", "Your opponent offers a draw.").await;
    press(&black, "#draw-accept").await;
    for page in [&white, &black] {
        wait_text(page, "#banner", "Draw (agreement)").await;
    }
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_resignation_both_players_land_in_the_rematch_with_colours_swapped() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let (first, second, seat) =
        seated_pair(&server, &driver, "five-mens-morris", ["first", "second"]).await;
    let watcher = driver.browser("watcher", 1000, 800).await;
    watcher
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    wait_text(&watcher, "#you", "You are watching.").await;
    let resign = second.find(Locator::Css("#resign")).await.unwrap();
    resign.click().await.unwrap();
    wait_text(&second, "#resign", "Click again").await;
    resign.click().await.unwrap();
    wait_text(&first, "#banner", "White wins (resignation)").await;

    // A rematch offer can be declined, and each side is told.
    press(&first, "#rematch").await;
    wait_text(&second, "#notice", "Your opponent offered a rematch.").await;
    press_when_shown(&second, "#rematch-decline").await;
    wait_text(&first, "#notice", "Your opponent declined the rematch.").await;
    wait_text(&first, "#rematch", "Rematch").await;
    assert!(attr(&second, "#rematch-decline", "hidden").await.is_some());
    press(&first, "#rematch").await;
    wait_text(&second, "#rematch", "Accept the rematch").await;
    press(&second, "#rematch").await;
    wait_text(&first, "#you", "You play black.").await;
    wait_text(&second, "#you", "You play white.").await;
    let new_game = first.current_url().await.unwrap();
    assert_ne!(new_game.path(), format!("/g/{}", seat.id));
    assert!(new_game.query().is_none());
    wait_text(&watcher, "#rematch-link", "Watch the rematch").await;
    for c in [first, second, watcher] {
        c.close().await.unwrap();
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_tick_and_a_player_who_leaves_can_be_claimed_against() {
    let _turn = one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    let server = TestServer::start_on(&url, |c| c.absent_timed_secs = 1.0).await;
    let driver = Driver::start().await;
    let (white, black, _) = seated_pair_timed(
        &server,
        &driver,
        "six-mens-morris",
        ["white", "black"],
        "1+0",
    )
    .await;
    wait_text(&white, "#time-control", "Time: 1 min + 0 s").await;
    wait_text(&white, "#clock-note", "You have").await;
    wait_text(&black, "#clock-note", "White has").await;
    wait_text(&black, ".clock[data-side=\"black\"]", "1:00").await;
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    click(&black, "e5").await;
    wait_text(&white, "#turns", "e5").await;

    // Both have moved: White's clock runs down on both pages, Black's stands.
    let white_clock = ".clock.running[data-side=\"white\"]";
    wait_text(&black, white_clock, "0:5").await;
    let first = text(&black, white_clock).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let later = text(&black, white_clock).await;
    assert!(
        later < first,
        "White's clock stood still: {first} then {later}"
    );
    assert_eq!(text(&black, ".clock[data-side=\"black\"]").await, "1:00");

    // White goes away on White's turn. Black is told, and after the wait may claim the win.
    white.close().await.unwrap();
    wait_text(&black, ".side.white .presence", "offline").await;
    wait_text(&black, "#clock-note", "White has left the game.").await;
    wait_text(&black, "#clock-note", "You may claim the win or a draw").await;
    std::fs::write(
        screenshots_dir().join("game-claim.png"),
        black.screenshot().await.unwrap(),
    )
    .unwrap();
    press(&black, "#claim-win").await;
    wait_text(&black, "#banner", "Black wins (abandonment)").await;
    black.close().await.unwrap();
    server.stop().await;
}

/// A player who leaves by a link (the logo) or the back button no longer counts as present, even
/// were the page kept in the back/forward cache; coming back makes them present again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_follows_a_link_away_is_offline_until_back() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    wait_text(&black, ".side.white .presence", "online").await;
    press(&white, "a.brand").await;
    wait_text(&black, ".side.white .presence", "offline").await;
    assert_eq!(
        http.state(&seat.id).await["seats"]["white"]["connected"],
        false
    );
    white.back().await.unwrap();
    wait_text(&white, "#you", "You play white.").await;
    wait_text(&black, ".side.white .presence", "online").await;
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// An abort before the first turns reads as one, with no replay to step through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_game_says_so_and_offers_no_replay() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    let abort = black.find(Locator::Css("#abort")).await.unwrap();
    abort.click().await.unwrap();
    wait_text(&black, "#abort", "Click again").await;
    abort.click().await.unwrap();
    for page in [&white, &black] {
        wait_text(page, "#banner", "Game aborted.").await;
        assert!(!text(page, "#banner").await.contains('*'));
        assert_eq!(
            attr(page, "#replay", "hidden").await.as_deref(),
            Some("true")
        );
    }
    assert_eq!(http.state(&seat.id).await["termination"], "aborted");
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// A double click sends one turn: the page ignores the board while a turn is on its way.
/// Closing a mill by a placement: the man is drawn where it went and has left the hand while
/// the man to remove is chosen, and the turn can be cancelled (on touch too: a button).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mill_turn_shows_its_man_while_the_removal_is_chosen_and_can_be_cancelled() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    for (c, point, ply) in [
        (&white, "a1", 1),
        (&black, "e1", 2),
        (&white, "a3", 3),
        (&black, "e5", 4),
    ] {
        click(c, point).await;
        let deadline = Instant::now() + WAIT;
        while turns(&http.state(&seat.id).await).len() < ply {
            assert!(Instant::now() < deadline, "{point} was never played");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        for page in [&white, &black] {
            wait_text(page, "#turns", point).await;
        }
    }
    let a5 = "#board [data-point=\"a5\"]";
    let white_hand = "#sides .side.white .hand";
    assert_eq!(text(&white, white_hand).await, "4");
    click(&white, "a5").await;
    wait_text(&white, "#removing", "Choose a man to remove").await;
    assert!(attr(&white, a5, "class").await.unwrap().contains("white"));
    assert_eq!(
        text(&white, white_hand).await,
        "3",
        "the man has left the hand"
    );
    press(&white, "#cancel-remove").await;
    let deadline = Instant::now() + WAIT;
    while !attr(&white, a5, "class").await.unwrap().contains("empty") {
        assert!(Instant::now() < deadline, "the cancelled man stayed");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    assert_eq!(text(&white, white_hand).await, "4");
    assert!(attr(&white, "#removing", "hidden").await.is_some());
    assert_eq!(
        turns(&http.state(&seat.id).await).len(),
        4,
        "nothing was sent"
    );
    // Begun again, and finished with the removal.
    click_turn(&white, "a5xe1").await;
    wait_text(&black, "#turns", "a5xe1").await;
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// Keyboard only: one playable point is in the tab order, arrow keys go between the playable
/// points, Enter plays; or the turn is typed in notation. A typed turn that is not legal is
/// refused on the page and nothing is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_with_the_keyboard_alone() {
    const RIGHT: &str = "\u{E014}";
    const DOWN: &str = "\u{E015}";
    const ENTER: &str = "\u{E007}";
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    assert_eq!(
        count(&white, "#board [tabindex=\"0\"]").await,
        1,
        "one tab stop"
    );
    let first = white
        .find(Locator::Css("#board [tabindex=\"0\"]"))
        .await
        .unwrap();
    let start = first.attr("data-point").await.unwrap().unwrap();
    first.send_keys(RIGHT).await.unwrap();
    let focused = |c: &Client| {
        let c = c.clone();
        async move {
            c.active_element()
                .await
                .unwrap()
                .attr("data-point")
                .await
                .unwrap()
        }
    };
    let moved = focused(&white).await.expect("a point has the focus");
    assert_ne!(moved, start, "the arrow moved the focus");
    white
        .active_element()
        .await
        .unwrap()
        .send_keys(DOWN)
        .await
        .unwrap();
    let chosen = focused(&white).await.expect("a point has the focus");
    white
        .active_element()
        .await
        .unwrap()
        .send_keys(ENTER)
        .await
        .unwrap();
    wait_text(&black, "#turns", &chosen).await;
    assert_eq!(turns(&http.state(&seat.id).await), [chosen.as_str()]);

    // Black types. Not a legal turn first: refused here, nothing sent.
    let typed = black.find(Locator::Css("#typed")).await.unwrap();
    typed.send_keys(&format!("{chosen}{ENTER}")).await.unwrap();
    wait_text(&black, "#banner", "is not a legal turn here").await;
    let legal = http.state(&seat.id).await["legal"][0]["turn"]
        .as_str()
        .unwrap()
        .to_string();
    typed.clear().await.unwrap();
    typed
        .send_keys(&format!("{}{ENTER}", legal.to_uppercase()))
        .await
        .unwrap();
    wait_text(&white, "#turns", &legal).await;
    assert_eq!(
        turns(&http.state(&seat.id).await),
        [chosen.as_str(), legal.as_str()]
    );
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// A system in dark mode gets a dark page with the board still wood; the last move, a fresh
/// mill and the keyboard's focus each have a colour of their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_follows_the_systems_dark_mode() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let seat = server.http().create("nine-mens-morris", "white").await;
    let driver = Driver::start().await;
    let dark = driver
        .browser_with(
            "dark",
            1000,
            800,
            &[
                "--force-dark-mode",
                "--blink-settings=preferredColorScheme=0",
            ],
        )
        .await;
    dark.goto(&format!(
        "{}/g/{}?seat={}",
        server.base, seat.id, seat.secret
    ))
    .await
    .unwrap();
    wait_text(&dark, "#you", "You play white.").await;
    let style = |script: &'static str| {
        let dark = dark.clone();
        async move { dark.execute(script, vec![]).await.unwrap() }
    };
    assert_eq!(
        style("return matchMedia('(prefers-color-scheme: dark)').matches").await,
        true
    );
    assert_eq!(
        style("return getComputedStyle(document.body).backgroundColor").await,
        "rgb(27, 26, 23)"
    );
    let colours = style(
        "const root = getComputedStyle(document.documentElement);\
         return ['--gold', '--mill', '--focus'].map((v) => root.getPropertyValue(v).trim());",
    )
    .await;
    let colours: Vec<&str> = colours
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(
        colours.iter().collect::<BTreeSet<_>>().len(),
        3,
        "{colours:?}"
    );
    std::fs::write(
        screenshots_dir().join("game-dark.png"),
        dark.screenshot().await.unwrap(),
    )
    .unwrap();
    dark.close().await.unwrap();
    server.stop().await;
}

/// During play the turn list and the arrow keys go back through the game; nothing can be played
/// from an old position, and "Back to the game" returns to it as it stands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_looks_back_during_play_and_returns_to_the_game() {
    const LEFT: &str = "\u{E012}";
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    for (c, point) in [(&white, "a1"), (&black, "e1"), (&white, "a3")] {
        click(c, point).await;
        for page in [&white, &black] {
            wait_text(page, "#turns", point).await;
        }
    }
    let class = |point: &'static str| {
        let black = black.clone();
        async move {
            attr(&black, &format!("#board [data-point=\"{point}\"]"), "class")
                .await
                .unwrap()
        }
    };
    press(&black, "#turns span[data-ply=\"2\"]").await;
    wait_text(
        &black,
        "#status",
        "Looking back: the position after turn 2 of 3",
    )
    .await;
    assert!(class("a3").await.contains("empty") && class("e1").await.contains("black"));
    assert_eq!(attr(&black, "#back-to-game", "hidden").await, None);
    black
        .active_element()
        .await
        .unwrap()
        .send_keys(LEFT)
        .await
        .unwrap();
    wait_text(&black, "#replay-at", "1 / 3").await;
    assert!(class("e1").await.contains("empty"));
    // No turn from an old position.
    click(&black, "c1").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(turns(&http.state(&seat.id).await).len(), 3);
    press(&black, "#back-to-game").await;
    wait_text(&black, "#status", "Your turn.").await;
    assert!(class("a3").await.contains("white"));
    assert!(attr(&black, "#back-to-game", "hidden").await.is_some());
    click(&black, "e5").await;
    wait_text(&white, "#turns", "e5").await;
    white.close().await.unwrap();
    black.close().await.unwrap();
    server.stop().await;
}

/// On a phone, a game waiting for its opponent shows the invite above the fold, and the QR code
/// of the link that carries the seat is drawn when asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_shows_the_invite_first_and_the_seat_as_a_qr_code() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let seat = server.http().create("nine-mens-morris", "white").await;
    let driver = Driver::start().await;
    let phone = driver.browser("phone", 390, 844).await;
    phone
        .goto(&format!(
            "{}/g/{}?seat={}",
            server.base, seat.id, seat.secret
        ))
        .await
        .unwrap();
    wait_text(&phone, "#you", "You play white.").await;
    let fits = phone
        .execute(
            "const r = document.getElementById('share').getBoundingClientRect();\
             return r.top >= 0 && r.bottom <= window.innerHeight;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(fits, true, "the invite is above the fold");
    std::fs::write(
        screenshots_dir().join("invite-phone.png"),
        phone.screenshot().await.unwrap(),
    )
    .unwrap();
    press_when_shown(&phone, "#handoff summary").await;
    let deadline = Instant::now() + WAIT;
    loop {
        let drawn = phone
            .execute(
                "const i = document.getElementById('handoff-qr'); return i.complete && i.naturalWidth;",
                vec![],
            )
            .await
            .unwrap();
        if drawn.as_u64().unwrap_or(0) > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "the seat's QR code never drew");
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    phone.close().await.unwrap();
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
    let creator = driver.browser("creator", 1000, 800).await;
    creator.goto(&server.base).await.unwrap();
    for css in [
        "#v-six-mens-morris input[name=\"open\"]",
        "#v-six-mens-morris input[value=\"white\"]",
        "#v-six-mens-morris button[value=\"friend\"]",
    ] {
        press(&creator, css).await;
    }
    wait_text(&creator, "#you", "You play white.").await;
    let id = creator
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/g/")
        .to_string();

    let visitor = driver.browser("visitor", 1000, 800).await;
    visitor.goto(&server.base).await.unwrap();
    wait_text(
        &visitor,
        "#challenges",
        "Six Men's Morris, Untimed: White is waiting",
    )
    .await;
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
    let home = reqwest::get(&server.base)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        home.contains("None right now"),
        "a taken challenge is listed no more"
    );
    creator.close().await.unwrap();
    visitor.close().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_click_plays_one_turn() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let http = server.http();
    let driver = Driver::start().await;
    let (white, black, seat) =
        seated_pair(&server, &driver, "six-mens-morris", ["white", "black"]).await;
    // Two clicks in one go, as a double tap lands: both before any answer can arrive.
    white
        .execute(
            "const p = document.querySelector('[data-point=\"a1\"]');\
             for (let i = 0; i < 2; i++) p.dispatchEvent(new MouseEvent('click', {bubbles: true}));",
            vec![],
        )
        .await
        .unwrap();
    wait_text(&black, "#turns", "a1").await;
    wait_text(&white, "#status", "Black to move.").await;
    assert_eq!(turns(&http.state(&seat.id).await), ["a1"]);
    assert!(
        !text(&white, "#banner").await.contains("not your turn"),
        "no second turn was sent"
    );
    assert_eq!(
        crate::harness::metric(&server, "merels_turns_rejected_total").await,
        0.0
    );
    // Play goes on as usual.
    click(&black, "e5").await;
    wait_text(&white, "#turns", "e5").await;
    white.close().await.unwrap();
    black.close().await.unwrap();
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
        "#play select[name=\"opt.movement\"] option[value=\"adjacent\"]",
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
