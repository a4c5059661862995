//! Puzzles in the page: one solved by clicking on a desktop, one failed and its right turn shown,
//! and one solved on a phone by typed turns alone (the keyboard), with screenshots of each.

use super::*;
use merels::engine::Table;
use merels::engine::puzzles::{Goal, values};
use merels::rules::Variant;

/// The page's puzzle: its goal, and where it stands once ready (the position the solver plays).
async fn ready(c: &Client) -> (String, String) {
    let deadline = Instant::now() + WAIT;
    loop {
        if attr(c, "#puzzle", "data-state").await.as_deref() == Some("ready") {
            break;
        }
        assert!(Instant::now() < deadline, "the puzzle never became ready");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    let data = c
        .execute(
            "return document.getElementById('puzzle-data').textContent",
            vec![],
        )
        .await
        .unwrap();
    let data: Value = serde_json::from_str(data.as_str().unwrap()).unwrap();
    let position = attr(c, "#puzzle", "data-position").await.unwrap();
    (data["goal"].as_str().unwrap().to_string(), position)
}

/// The right turn of `position` and a wrong one, from the table.
fn right_and_wrong(
    variant: &Variant,
    table: &Table,
    position: &str,
    goal: &str,
) -> (String, String) {
    let pos = variant.parse_position(position).unwrap();
    let goal = Goal::parse(goal).unwrap();
    let all = values(variant, table, &pos).unwrap();
    let right = all.iter().find(|(_, v)| goal.kept_by(*v)).unwrap().0;
    let wrong = all.iter().find(|(_, v)| !goal.kept_by(*v)).unwrap().0;
    (variant.turn_string(right), variant.turn_string(wrong))
}

/// Plays the puzzle on the page to its end: each right turn by `play`, until it says solved.
async fn solve<F, Fut>(c: &Client, variant: &Variant, table: &Table, mut play: F)
where
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    loop {
        let (goal, position) = ready(c).await;
        let (right, _) = right_and_wrong(variant, table, &position, &goal);
        play(right).await;
        let deadline = Instant::now() + WAIT;
        loop {
            let state = attr(c, "#puzzle", "data-state").await;
            let at = attr(c, "#puzzle", "data-position").await.unwrap();
            if state.as_deref() == Some("over")
                || (state.as_deref() == Some("ready") && at != position)
            {
                break;
            }
            assert!(Instant::now() < deadline, "the turn was never judged");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        if attr(c, "#puzzle", "data-state").await.as_deref() == Some("over") {
            break;
        }
    }
    wait_text(c, "#verdict", "Solved!").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_puzzle_is_solved_and_one_failed_on_a_desktop_and_a_phone() {
    let _turn = one_at_a_time().await;
    let server = TestServer::start().await;
    let driver = Driver::start().await;
    let (variant, table) = three();

    // The desktop: from the home page to the boards, a puzzle solved by clicking.
    let desk = driver.browser("desk", 1000, 800).await;
    desk.goto(&format!("{}/", server.base)).await.unwrap();
    press(&desk, ".puzzles-link a").await;
    press(&desk, "a[href=\"/puzzles?variant=three-mens-morris\"]").await;
    wait_text(&desk, "#task", "to play and").await;
    solve(&desk, &variant, &table, |turn| {
        let desk = desk.clone();
        async move { click_turn(&desk, &turn).await }
    })
    .await;
    wait_text(&desk, "#streak", "Streak: 1").await;
    assert!(text(&desk, "#rating-change").await.starts_with("(+"));
    screenshot_of(&desk, "#puzzle", "puzzle-solved-desktop.png").await;

    // The next puzzle, failed: the wrong turn's value, then the right turn on the board.
    press(&desk, "#next").await;
    let (goal, position) = ready(&desk).await;
    let (right, wrong) = right_and_wrong(&variant, &table, &position, &goal);
    click_turn(&desk, &wrong).await;
    wait_text(&desk, "#verdict", &format!("The right turn was {right}")).await;
    assert!(text(&desk, "#streak").await.is_empty(), "the streak ended");
    assert!(text(&desk, "#rating-change").await.starts_with("(-"));
    screenshot_of(&desk, "#puzzle", "puzzle-wrong-desktop.png").await;
    press(&desk, "#show-right").await;
    let to = right
        .split(['-', 'x'])
        .nth(usize::from(right.contains('-')))
        .unwrap();
    let class = attr(&desk, &format!("[data-point=\"{to}\"]"), "class")
        .await
        .unwrap();
    assert!(
        class.contains("last") && !class.contains("empty"),
        "{class}"
    );
    wait_text(&desk, "#show-right", "Show the turn played").await;

    // A phone, by the keyboard alone: each turn typed.
    let phone = driver.phone("phone").await;
    phone
        .goto(&format!(
            "{}/puzzles?variant=three-mens-morris",
            server.base
        ))
        .await
        .unwrap();
    solve(&phone, &variant, &table, |turn| {
        let phone = phone.clone();
        async move { typed(&phone, &turn).await }
    })
    .await;
    screenshot_of(&phone, "#puzzle", "puzzle-solved-phone.png").await;
    let board = rect(&phone, "#board").await;
    assert!(board.right <= 390.0 && board.left >= 0.0, "{board:?}");

    desk.close().await.unwrap();
    phone.close().await.unwrap();
    server.stop().await;
}
