//! The arrival: between sending the link and the first turn. The creator, whose page is in a
//! background tab, is told that the friend took the seat; a creator who closed the page comes
//! back to a game still waiting for their first move.

use super::*;

/// What the game's page does while another tab is in view, kept where that tab (same site, same
/// browser) can read it without bringing the game's page to the front: each sound with the
/// page's visibility, title and notice at that moment, and each notification made.
const RECORD_IN_BACKGROUND: &str = "\
    const root = document.getElementById('game');\
    const told = [];\
    const Real = window.Notification;\
    window.Notification = class extends Real {\
      constructor(title, options) {\
        super(title, options);\
        told.push([title, options.body]);\
        localStorage.setItem('test.told', JSON.stringify(told));\
      }\
    };\
    new MutationObserver(() => localStorage.setItem('test.heard', JSON.stringify({\
      sound: root.dataset.sound, audio: root.dataset.audio, visibility: document.visibilityState,\
      title: document.title, notice: document.getElementById('notice').textContent,\
    }))).observe(root, { attributes: true, attributeFilter: ['data-sound'] });";

/// The creator sends the link from another tab; the friend takes the seat. The creator's page,
/// in the background, plays a sound, says who came, changes the tab's title (also playing
/// Black, whose turn it is not) and sends the notification the creator allowed while waiting.
/// Offered in every game, not only those of days per turn: here an untimed one and a timed one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_creator_in_another_tab_is_told_that_the_friend_took_the_seat() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let allowed = json!({"profile.default_content_setting_values.notifications": 1});
    for (creator, friend, clock) in [("white", "black", "untimed"), ("black", "white", "3+2")] {
        let seat = server
            .http()
            .create_timed("six-mens-morris", creator, clock)
            .await;
        let page = driver
            .browser_with_prefs(creator, 1000, 800, &[], allowed.clone())
            .await;
        page.goto(&seat_link(&server, &seat).await).await.unwrap();
        wait_text(&page, "#you", &format!("You play {creator}.")).await;
        wait_text(
            &page,
            "#notify-on",
            "You will be notified when your opponent arrives.",
        )
        .await;
        // Copying the link is the creator's first use of the page: from then on it may sound.
        press(&page, "#copy").await;
        page.execute(RECORD_IN_BACKGROUND, vec![]).await.unwrap();
        let game = page.window().await.unwrap();
        let other = page.new_window(true).await.unwrap();
        page.switch_to_window(other.handle).await.unwrap();
        page.goto(&format!("{}/", server.base)).await.unwrap();

        let guest = driver.browser(friend, 1000, 800).await;
        guest
            .goto(&format!("{}/g/{}", server.base, seat.id))
            .await
            .unwrap();
        press_when_shown(&guest, "#take-seat").await;
        wait_text(&guest, "#you", &format!("You play {friend}.")).await;

        // Read from the tab in view: the game's page was out of view when it heard the friend.
        let read = |key: &'static str| {
            let page = page.clone();
            async move {
                let got = page
                    .execute(&format!("return localStorage.getItem('{key}')"), vec![])
                    .await
                    .unwrap();
                got.as_str()
                    .map(|s| serde_json::from_str::<Value>(s).unwrap())
            }
        };
        let deadline = Instant::now() + WAIT;
        let heard = loop {
            if let Some(heard) = read("test.heard").await {
                break heard;
            }
            assert!(
                Instant::now() < deadline,
                "the creator's page never sounded"
            );
            tokio::time::sleep(Duration::from_millis(40)).await;
        };
        let name = if friend == "white" { "White" } else { "Black" };
        let turn = if creator == "white" {
            "Your turn · "
        } else {
            ""
        };
        assert_eq!(
            heard,
            json!({
                "sound": "arrival",
                "audio": "running",
                "visibility": "hidden",
                "title": format!("{name} has taken the seat · {turn}Six Men's Morris · merels"),
                "notice": format!("{name} has taken the seat: the game begins."),
            })
        );
        assert_eq!(
            read("test.told").await,
            Some(json!([[
                format!("{name} has taken the seat"),
                "The game begins. Six Men's Morris · merels"
            ]]))
        );

        // Back on the game's tab: the notice stays until the first turn; the title, seen, is
        // the usual one again.
        page.switch_to_window(game).await.unwrap();
        wait_text(
            &page,
            "#notice",
            &format!("{name} has taken the seat: the game begins."),
        )
        .await;
        let deadline = Instant::now() + WAIT;
        while page.title().await.unwrap() != format!("{turn}Six Men's Morris · merels") {
            assert!(Instant::now() < deadline, "the arrival stayed in the title");
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        std::fs::write(
            screenshots_dir().join(format!("arrival-{creator}.png")),
            page.screenshot().await.unwrap(),
        )
        .unwrap();
        page.close().await.unwrap();
        guest.close().await.unwrap();
    }
    server.stop().await;
}

/// A player who has not decided about notifications is offered them while waiting for the
/// opponent, in a real-time game too, beside the invite and above the fold, at a desktop's size
/// and a phone's. The friend comes, and the creator's page says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_are_offered_while_waiting_in_every_game() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    for (size, width, height) in [("desktop", 1280, 800), ("phone", 390, 844)] {
        let seat = server
            .http()
            .create_timed("nine-mens-morris", "white", "1+0")
            .await;
        let page = driver.screen(size, width, height).await;
        page.goto(&seat_link(&server, &seat).await).await.unwrap();
        wait_text(&page, "#you", "You play white.").await;
        wait_text(&page, "#notify", "Notify me when my opponent arrives").await;
        let (share, button) = (rect(&page, "#share").await, rect(&page, "#notify").await);
        assert!(
            button.top >= share.bottom && button.bottom <= f64::from(height),
            "{size}: the offer follows the invite, above the fold: {share:?} {button:?}"
        );
        std::fs::write(
            screenshots_dir().join(format!("waiting-{size}.png")),
            page.screenshot().await.unwrap(),
        )
        .unwrap();

        let friend = driver.browser(&format!("friend-{size}"), 1000, 800).await;
        friend
            .goto(&format!("{}/g/{}", server.base, seat.id))
            .await
            .unwrap();
        press_when_shown(&friend, "#take-seat").await;
        wait_text(
            &page,
            "#notice",
            "Black has taken the seat: the game begins.",
        )
        .await;
        screenshot_of(&page, "#notice", &format!("arrival-{size}.png")).await;
        page.close().await.unwrap();
        friend.close().await.unwrap();
    }
    server.stop().await;
}

/// A real-time game whose creator closed the page right after sending the link. The friend
/// arrives and is told what is being waited for; the creator comes back later than the
/// first-move countdown would have run out had it counted while they were away, and finds the
/// game waiting for their first move, not aborted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creator_who_comes_back_after_the_friend_arrived_still_has_the_first_move() {
    let _turn = one_at_a_time().await;
    // The absence wait (how long an away player has to come back) outlasts the creator's walk.
    let server = TestServer::start_with(|c| c.absent_timed_secs = 60.0).await;
    let http = server.http();
    let driver = Driver::start().await;
    let seat = http.create_timed("six-mens-morris", "white", "1+0").await;
    let creator = driver.browser("creator", 1000, 800).await;
    creator
        .goto(&seat_link(&server, &seat).await)
        .await
        .unwrap();
    wait_text(&creator, "#you", "You play white.").await;
    // The link goes out from another tab, and the game's tab is closed.
    let game = creator.window().await.unwrap();
    let other = creator.new_window(true).await.unwrap();
    creator.switch_to_window(game).await.unwrap();
    creator.close_window().await.unwrap();
    creator.switch_to_window(other.handle).await.unwrap();
    creator.goto(&format!("{}/", server.base)).await.unwrap();

    let friend = driver.browser("friend", 1000, 800).await;
    friend
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    press_when_shown(&friend, "#take-seat").await;
    wait_text(&friend, "#you", "You play black.").await;
    let arrived = Instant::now();
    wait_text(
        &friend,
        "#clock-note",
        "Waiting for White to come back: the game is called off in",
    )
    .await;
    std::fs::write(
        screenshots_dir().join("arrival-waiting-for-creator.png"),
        friend.screenshot().await.unwrap(),
    )
    .unwrap();

    // The creator comes back ten seconds after the countdown would have run out.
    let first_move = Duration::from_millis(merels::clock::FIRST_MOVE_MS as u64);
    tokio::time::sleep_until((arrived + first_move + Duration::from_secs(10)).into()).await;
    let state = http.state(&seat.id).await;
    assert_eq!(state["status"], "playing", "{state}");
    creator
        .goto(&format!("{}/g/{}", server.base, seat.id))
        .await
        .unwrap();
    wait_text(&creator, "#you", "You play white.").await;
    wait_text(&creator, "#clock-note", "You have").await;
    wait_text(&friend, "#clock-note", "White has").await;
    click(&creator, "a1").await;
    wait_text(&friend, "#turns", "a1").await;
    assert_eq!(http.state(&seat.id).await["status"], "playing");
    creator.close().await.unwrap();
    friend.close().await.unwrap();
    server.stop().await;
}
