//! The picture flood beside the benchmark's games (`--image-clients N`): N clients, each from an
//! address of its own on the loopback network (127.0.x.y, so that the server's cap per address
//! lets each draw), ask over and over for the position PNG of a game being played, and now and
//! then its GIF. A game in play changes with every turn, so nearly every ask misses the server's
//! cache and is drawn. The flood is load, like the games against the computer: what it shows is
//! whether the measured games' turns per second and latency hold while pictures are drawn.

use crate::workload::Shared;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What the flood got, while measuring.
#[derive(Debug, Default)]
pub struct Flood {
    /// Pictures answered (200).
    pub drawn: AtomicU64,
    /// Asks refused for the address's cap or the server's (429).
    pub refused: AtomicU64,
    /// Anything else: failed requests, other statuses.
    pub failed: AtomicU64,
}

/// The loopback address of flood client `n`: 127.0.1.1, 127.0.1.2, …, never 127.0.0.1 (the
/// players').
fn address(n: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(
        127,
        0,
        1 + (n / 250) as u8,
        1 + (n % 250) as u8,
    ))
}

/// Runs flood client `n` against `addrs` until `games.stop`: the pictures of the games
/// `games` is playing, counted in `flood` while `games` measures.
pub async fn client(n: usize, addrs: Arc<[SocketAddr]>, games: Arc<Shared>, flood: Arc<Flood>) {
    let Ok(http) = reqwest::Client::builder()
        .local_address(address(n))
        .timeout(Duration::from_secs(30))
        .build()
    else {
        flood.failed.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let mut asked = n;
    while !games.stop.load(Ordering::Relaxed) {
        asked += 1;
        let Some(id) = games.some_live_game(asked) else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        // One ask in ten is the game's GIF, the dearest picture.
        let picture = if asked.is_multiple_of(10) {
            "game.gif"
        } else {
            "image.png"
        };
        let addr = addrs[asked % addrs.len()];
        let answer = http
            .get(format!("http://{addr}/g/{id}/{picture}"))
            .send()
            .await;
        let counter = match answer.as_ref().map(|a| a.status().as_u16()) {
            Ok(200) => &flood.drawn,
            Ok(429) => &flood.refused,
            _ => &flood.failed,
        };
        // The body is read whole, as a browser would, before the next ask.
        let whole = match answer {
            Ok(a) => a.bytes().await.is_ok(),
            Err(_) => false,
        };
        if games.measuring.load(Ordering::Relaxed) {
            let counter = if whole { counter } else { &flood.failed };
            counter.fetch_add(1, Ordering::Relaxed);
        }
    }
}
