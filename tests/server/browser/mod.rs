//! End to end in a real headless Chromium (Debian's chromium and chromium-driver, which
//! scripts/test installs), driven with fantoccini: the driver, the helpers every browser test
//! uses, and the tests by theme (the arrival, the home page, whole games, input, offers,
//! presence, looks, chat, instances, the embed in another site's page).

use crate::harness::{TestServer, answers, eager_turn, eventually, free_port, turns};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
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
        // A process group of its own, with the Chromiums it starts: a test that fails leaves
        // none of them running behind it (killing chromedriver alone orphans them).
        let child = Command::new(&exe)
            .process_group(0)
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
        self.browser_with_prefs(name, width, height, more, Value::Null)
            .await
    }

    /// [`Driver::browser_with`] with Chromium preferences (`prefs` of `goog:chromeOptions`).
    async fn browser_with_prefs(
        &self,
        name: &str,
        width: u32,
        height: u32,
        more: &[&str],
        prefs: Value,
    ) -> Client {
        self.browser_with_options(name, width, height, more, json!({ "prefs": prefs }))
            .await
    }

    /// A phone: a page 390 by 844 CSS pixels, touch. (A window of that size is not one: a
    /// headless Chromium's window is at least 500 pixels wide, and its page shorter.)
    async fn phone(&self, name: &str) -> Client {
        self.screen(name, 390, 844).await
    }

    /// A page of exactly `width` by `height` CSS pixels, touch (a phone's, or a desktop's).
    async fn screen(&self, name: &str, width: u32, height: u32) -> Client {
        let metrics = json!({"width": width, "height": height, "pixelRatio": 1, "touch": true});
        let options = json!({"mobileEmulation": {"deviceMetrics": metrics}});
        self.browser_with_options(name, width, height, &[], options)
            .await
    }

    /// [`Driver::browser_with`] with more of `goog:chromeOptions` (`prefs`, `mobileEmulation`:
    /// each set unless null).
    async fn browser_with_options(
        &self,
        name: &str,
        width: u32,
        height: u32,
        more: &[&str],
        options: Value,
    ) -> Client {
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
        for (key, value) in options.as_object().into_iter().flatten() {
            if !value.is_null() {
                caps["goog:chromeOptions"][key] = value.clone();
            }
        }
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
        if let Some(group) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
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

/// The WebDriver key for Enter.
const ENTER: &str = "\u{E007}";

/// Three Men's Morris and its solved table, for the pages that play against it (puzzles, trainer).
fn three() -> (
    std::sync::Arc<merels::rules::Variant>,
    merels::engine::Table,
) {
    let variant = merels::catalog::Catalog::builtin()
        .configure("three-mens-morris", &std::collections::BTreeMap::new())
        .unwrap();
    let table = merels::engine::solve(&variant, 1).unwrap();
    (variant, table)
}

/// Plays a turn by typing it into the page's turn box (`#typed`) and pressing Enter.
async fn typed(c: &Client, turn: &str) {
    let input = c.find(Locator::Css("#typed")).await.unwrap();
    input.send_keys(&format!("{turn}{ENTER}")).await.unwrap();
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

/// [`seated_pair`] and a spectator's browser: White's, Black's, the spectator's, and White's seat.
async fn seated_pair_watched(
    server: &TestServer,
    driver: &Driver,
    variant: &str,
    names: [&str; 2],
) -> (Client, Client, Client, crate::harness::Seat) {
    let (white, black, seat) = seated_pair(server, driver, variant, names).await;
    let watcher = watcher(server, driver, &seat.id).await;
    (white, black, watcher, seat)
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
    seat_both(server, &seat, &white, &black).await;
    (white, black, seat)
}

/// A spectator's browser on game `id`'s page, once the page says it watches.
async fn watcher(server: &TestServer, driver: &Driver, id: &str) -> Client {
    let watcher = driver.browser("watcher", 1000, 900).await;
    watcher
        .goto(&format!("{}/g/{id}", server.base))
        .await
        .unwrap();
    wait_text(&watcher, "#you", "You are watching.").await;
    watcher
}

/// An open challenge made from the home page's flow (Six Men's Morris, White, untimed) by a
/// browser, the creator, and another browser, a visitor, on the home page that lists it: the
/// two, and the game's id.
async fn open_challenge(server: &TestServer, driver: &Driver) -> (Client, Client, String) {
    let creator = driver.browser("creator", 1000, 800).await;
    start_from_home(&creator, server, "six-mens-morris", &[], "white", "open").await;
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
    (creator, visitor, id)
}

/// The home page's HTML, as the server renders it (no script run).
async fn home_page(server: &TestServer) -> String {
    reqwest::get(&server.base)
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// The one-time link a seat's page made ("Continue on another device"), once it is there.
async fn made_link(c: &Client) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let value = c
            .execute(
                "return document.getElementById('handoff-link').value",
                vec![],
            )
            .await
            .unwrap();
        let value = value.as_str().unwrap_or("").to_string();
        if value.contains("#code=") {
            return value;
        }
        assert!(Instant::now() < deadline, "no link was made: {value}");
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// A one-time link that moves `seat` to a browser ("continue on another device").
async fn seat_link(server: &TestServer, seat: &crate::harness::Seat) -> String {
    server.http().handoff(seat).await.0
}

/// Seats two browsers in a game waiting with White taken: White's by the link that carries the
/// seat, Black's by opening the share link and taking the empty seat.
async fn seat_both(
    server: &TestServer,
    seat: &crate::harness::Seat,
    white: &Client,
    black: &Client,
) {
    white.goto(&seat_link(server, seat).await).await.unwrap();
    wait_text(white, "#you", "You play white.").await;
    black
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    press_when_shown(black, "#take-seat").await;
    wait_text(black, "#you", "You play black.").await;
}

/// Starts a game from the home page's flow, as a visitor does: opens the home page, picks
/// `variant`'s card, chooses its `options` (key and value), the colour (`white`, `black` or
/// `random`), and presses the button of `opponent` (`friend`, `open` or `computer`). Every test
/// that creates a game through the home page goes through here, so a change of the page changes
/// one place.
async fn start_from_home(
    c: &Client,
    server: &TestServer,
    variant: &str,
    options: &[(&str, &str)],
    color: &str,
    opponent: &str,
) {
    c.goto(&format!("{}/", server.base)).await.unwrap();
    press(c, &format!("label[for=\"v-{variant}\"]")).await;
    for (key, value) in options {
        let select = format!("#options-{variant} select[name=\"opt.{variant}.{key}\"]");
        press(c, &format!("{select} option[value=\"{value}\"]")).await;
    }
    press(
        c,
        &format!("#setup input[name=\"color\"][value=\"{color}\"]"),
    )
    .await;
    press(c, &format!("#setup button[value=\"{opponent}\"]")).await;
}

/// Where an element is drawn, in CSS pixels of the window.
#[derive(Debug, serde::Deserialize)]
struct Rect {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

async fn rect(c: &Client, css: &str) -> Rect {
    let r = c
        .execute(
            "return JSON.stringify(document.querySelector(arguments[0]).getBoundingClientRect())",
            vec![json!(css)],
        )
        .await
        .unwrap();
    serde_json::from_str(r.as_str().unwrap()).unwrap()
}

async fn count(c: &Client, css: &str) -> usize {
    c.find_all(Locator::Css(css)).await.map_or(0, |v| v.len())
}

/// Scrolls the first element `css` finds to the middle of the page and saves a screenshot as
/// `file` in [`screenshots_dir`].
async fn screenshot_of(c: &Client, css: &str, file: &str) {
    c.execute(
        "document.querySelector(arguments[0]).scrollIntoView({block: 'center'})",
        vec![json!(css)],
    )
    .await
    .unwrap();
    std::fs::write(screenshots_dir().join(file), c.screenshot().await.unwrap()).unwrap();
}

fn screenshots_dir() -> PathBuf {
    let dir = std::env::var("MERELS_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

mod arrival;
mod challenges;
mod chat;
mod embed;
mod home;
mod input;
mod instances;
mod lang;
mod looks;
mod mine;
mod names;
mod offers;
mod play;
mod presence;
mod puzzles;
mod trainer;
