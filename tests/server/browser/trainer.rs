//! The endgame trainer in the page: an endgame played out to the win by clicking on a desktop, a
//! slip said plainly, and one won on a phone by typed turns alone, with screenshots of each.

use super::*;
use merels::engine::puzzles::values;
use merels::engine::{Table, Value as Worth};
use merels::rules::Variant;

/// The position the page stands at once it is ready for a turn, or `None` once it is over.
async fn ready(c: &Client) -> Option<String> {
    let deadline = Instant::now() + WAIT;
    loop {
        match attr(c, "#trainer", "data-state").await.as_deref() {
            Some("ready") => return attr(c, "#trainer", "data-position").await,
            Some("over") => return None,
            _ => {}
        }
        assert!(Instant::now() < deadline, "the trainer never became ready");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// Plays the page's endgame out with the table's best turns, each by `play`, checking the
/// distance shown after each; returns once the page says it is won.
async fn win<F, Fut>(c: &Client, variant: &Variant, table: &Table, mut play: F)
where
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    while let Some(position) = ready(c).await {
        let pos = variant.parse_position(&position).unwrap();
        let (best, value) = table.best(variant, &pos).unwrap();
        let Worth::Win(plies) = value else {
            panic!("not a win: {position}");
        };
        play(variant.turn_string(best)).await;
        let deadline = Instant::now() + WAIT;
        loop {
            let state = attr(c, "#trainer", "data-state").await;
            let at = attr(c, "#trainer", "data-position").await.unwrap();
            if state.as_deref() == Some("over")
                || (state.as_deref() == Some("ready") && at != position)
            {
                break;
            }
            assert!(Instant::now() < deadline, "the turn was never answered");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        if attr(c, "#trainer", "data-state").await.as_deref() == Some("ready") {
            let left = plies - 2;
            let shown = match left {
                1 => "You win with your next turn".to_string(),
                _ => format!("You win in {left} plies"),
            };
            wait_text(c, "#distance", &shown).await;
        }
    }
    wait_text(c, "#verdict", "Won! You played the win out").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endgame_is_played_out_to_the_win_on_a_desktop_and_a_phone() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let (variant, table) = three();

    // The desktop: from the home page to the trainer, endgame 1 won by clicking.
    let desk = driver.browser("desk", 1000, 800).await;
    desk.goto(&format!("{}/", server.base)).await.unwrap();
    press(&desk, ".daily-puzzle a[href=\"/trainer\"]").await;
    press(&desk, "a[href=\"/trainer/three-mens-morris\"]").await;
    press(&desk, "a[href=\"/trainer/three-mens-morris/1\"]").await;
    wait_text(&desk, "#task", "to play and win").await;
    wait_text(&desk, "#distance", "A win in").await;
    win(&desk, &variant, &table, |turn| {
        let desk = desk.clone();
        async move { click_turn(&desk, &turn).await }
    })
    .await;
    screenshot_of(&desk, "#trainer", "trainer-won-desktop.png").await;

    // A turn that lets the win go, said plainly, and the play goes on from there.
    let (_, starts) = server
        .http()
        .request("GET", "/api/trainer/three-mens-morris", None, None)
        .await;
    let (n, weak) = starts["starts"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|start| {
            let pos = variant.parse_position(start["position"].as_str()?).ok()?;
            let (t, _) = values(&variant, &table, &pos)?
                .into_iter()
                .find(|(_, v)| !matches!(v, Worth::Win(_)))?;
            Some((start["n"].clone(), variant.turn_string(t)))
        })
        .expect("a start where a turn lets the win go");
    desk.goto(&format!("{}/trainer/three-mens-morris/{n}", server.base))
        .await
        .unwrap();
    ready(&desk).await.unwrap();
    click_turn(&desk, &weak).await;
    let verdict = {
        let deadline = Instant::now() + WAIT;
        loop {
            let said = text(&desk, "#verdict").await;
            if said.contains("let the win slip") || said.contains("threw it away") {
                break said;
            }
            assert!(Instant::now() < deadline, "no slip said: {said}");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    };
    assert!(verdict.starts_with(&weak), "{verdict}");
    screenshot_of(&desk, "#trainer", "trainer-slip-desktop.png").await;

    // A phone, by the keyboard alone: each turn typed.
    let phone = driver.phone("phone").await;
    phone
        .goto(&format!("{}/trainer/three-mens-morris/2", server.base))
        .await
        .unwrap();
    win(&phone, &variant, &table, |turn| {
        let phone = phone.clone();
        async move { typed(&phone, &turn).await }
    })
    .await;
    screenshot_of(&phone, "#trainer", "trainer-won-phone.png").await;
    let board = rect(&phone, "#board").await;
    assert!(board.right <= 390.0 && board.left >= 0.0, "{board:?}");

    desk.close().await.unwrap();
    phone.close().await.unwrap();
    server.stop().await;
}
