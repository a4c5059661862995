//! Two instances on one PostgreSQL database, in real Chromiums: a page opened through one
//! instance for a game the other owns opens its socket at the owner's own address, and when the
//! owner goes away (a deploy), comes back through the instance it was opened at, which takes the
//! game on.

use super::*;
use crate::harness::{PgCluster, metric};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_follow_a_game_to_its_owner_and_back_when_the_owner_goes() {
    let _turn = one_at_a_time().await;
    let cluster = PgCluster::start();
    let url = cluster.database("browser_direct").await;
    // B stands for the site's public name (the balancer): the pages are opened there. A owns
    // the game and is reached at an address of its own, to which B sends the pages' sockets.
    let own_address = |c: &mut merels::config::Config| {
        c.direct_url = Some(format!("http://{}", c.bind));
    };
    let b = TestServer::start_on(&url, own_address).await;
    let site = b.base.clone();
    let a = TestServer::start_on(&url, |c| {
        own_address(c);
        c.public_url = Some(site);
    })
    .await;
    let seat = a.http().create("six-mens-morris", "white").await;
    let driver = Driver::start().await;
    let white = driver.browser("white", 1000, 800).await;
    let black = driver.browser("black", 1000, 800).await;
    // Both seats are taken at B (the handoff link and the share link name the site). The pages,
    // made by A, name A's own address for the socket, and the sockets go straight there: none
    // lands on B to be sent on.
    seat_both(&b, &seat, &white, &black).await;
    assert_eq!(
        white.current_url().await.unwrap().port(),
        Some(b.addr.port())
    );
    let owners_socket = format!("ws://{}/api/games/{}/ws", a.addr, seat.id);
    assert_eq!(
        attr(&black, "#game", "data-socket").await.as_deref(),
        Some(owners_socket.as_str())
    );
    click(&white, "a1").await;
    wait_text(&black, "#turns", "a1").await;
    click(&black, "e5").await;
    wait_text(&white, "#turns", "e5").await;
    assert_eq!(metric(&a, "merels_connections_open").await, 2.0);
    assert_eq!(metric(&b, "merels_connections_open").await, 0.0);
    assert_eq!(metric(&b, "merels_moved_total").await, 0.0);
    // Only A's room ran the game.
    assert_eq!(metric(&b, "merels_games_in_memory").await, 0.0);
    assert_eq!(metric(&a, "merels_games_in_memory").await, 1.0);

    // A stops. Its address no longer answers, so each page comes back through B, which takes
    // the game on from the store, seats and all.
    a.stop().await;
    let http = b.http();
    eventually("both pages are back, on B", || async {
        let state = http.state(&seat.id).await;
        state["seats"]["white"]["connected"] == true && state["seats"]["black"]["connected"] == true
    })
    .await;
    assert_eq!(metric(&b, "merels_games_in_memory").await, 1.0);
    let state = http.state(&seat.id).await;
    assert_eq!(turns(&state), ["a1", "e5"]);
    let turn = eager_turn(&state);
    click_turn(&white, &turn).await;
    wait_text(&black, "#turns", &turn).await;
    assert_eq!(
        turns(&http.state(&seat.id).await),
        ["a1", "e5", turn.as_str()]
    );
    wait_text(&black, "#you", "You play black.").await;
    // B owns the game now and serves its sockets itself.
    assert_eq!(metric(&b, "merels_connections_open").await, 2.0);
    white.close().await.unwrap();
    black.close().await.unwrap();
    b.stop().await;
}
