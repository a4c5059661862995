//! Sockets kept where they land, over a NATS bus (`MERELS_NATS_URL`), when several instances
//! share one PostgreSQL database. A client's socket stays on the instance it reached (the edge),
//! which parses its frames there and sends the valid ones to the game's owner; the owner's room
//! serves the connection as one of its own, through a relayed outbox, and everything it queues
//! for the connections of one edge crosses the bus once per change (see
//! [`PeerQueue`]). Without a bus, [`forward`](super::forward) passes the socket itself on.
//!
//! Subjects (instance ids are ids made at each start, so a restarted instance is a new peer):
//! - `merels.o.{owner}.connect`: a request from an edge, answered once the owner's room has the
//!   connection (an empty reply) or refuses it (an [`ApiError`] as JSON);
//! - `merels.o.{owner}.from.{edge}`: [`wire`] records from an edge's clients (frames already
//!   checked to parse, and leavings);
//! - `merels.e.{edge}`: [`wire`] records for an edge's clients (text frames, each for one or more
//!   of its connections, and closes).
//!
//! Each direction between two instances is a queue drained by a task of its own, which sends
//! what it finds as one message: under load, one message carries many games' changes.
//!
//! Here: the relay's state, joining the bus, forgetting dead peers and the drain ([`pump`]);
//! `edge` is the side of the sockets served here, `owner` the side of the rooms run here.
//!
//! An instance whose lease lapses is a dead peer: its edge connections are dropped by the owners
//! and the sockets whose owner it was are closed by the edges (1012: reconnect), which is how
//! clients reach whoever takes its games ([`Relay::keep_only`]).

mod edge;
mod owner;
mod wire;

pub use edge::EdgeConn;
use edge::{EdgeEntry, Lane};
use owner::Remote;

use crate::metrics::Metrics;
use crate::protocol::ErrorCode;
use crate::rooms::Rooms;
use crate::rooms::outbox::PeerQueue;
use crate::store::owners::Owner;
use bytes::BytesMut;
use futures_util::{FutureExt, StreamExt};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use wire::Record;

/// Why the bus could not be joined.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// The NATS server refused or could not be reached.
    #[error("could not connect to the NATS server: {0}")]
    Connect(#[from] async_nats::ConnectError),
    /// The subscription for this instance's subjects failed.
    #[error("could not subscribe on the NATS server: {0}")]
    Subscribe(#[from] async_nats::SubscribeError),
}

/// Marks a socket request for a game another instance owns, to be served here over the bus.
#[derive(Debug, Clone)]
pub struct RelayTo(pub Owner);

/// An edge's request to the owner: serve this client of game `game`.
#[derive(Debug, Serialize, Deserialize)]
struct ConnectAsk {
    edge: String,
    conn: u64,
    game: String,
    secret: Option<String>,
    from: IpAddr,
}

/// The relay of one instance: its edge connections and the connections it serves for edges.
#[derive(Debug, Clone)]
pub struct Relay {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: async_nats::Client,
    me: String,
    rooms: Rooms,
    metrics: Arc<Metrics>,
    next_conn: AtomicU64,
    /// Connections served here whose game another instance owns, by number.
    edges: Mutex<HashMap<u64, EdgeEntry>>,
    /// Connections of other instances served by rooms here, by edge and number.
    remotes: Mutex<HashMap<(String, u64), Remote>>,
    /// The queue of everything bound for each edge, drained by a task of its own.
    peers: Mutex<HashMap<String, (Arc<PeerQueue>, CancellationToken)>>,
    /// The queue of what this instance's clients send to each owner, likewise.
    lanes: Mutex<HashMap<String, (Arc<Lane>, CancellationToken)>>,
    tasks: TaskTracker,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Relay {
    /// Joins the bus at `url` as instance `me`, and serves its subjects until `stop`.
    pub async fn start(
        url: &str,
        rooms: Rooms,
        metrics: Arc<Metrics>,
        stop: CancellationToken,
    ) -> Result<Relay, RelayError> {
        let me = rooms.lease().instance.clone();
        let options = async_nats::ConnectOptions::new()
            .name(format!("merels {me}"))
            .request_timeout(Some(Duration::from_secs(5)))
            // Edges and owners each drain one subscription: room for a burst of every game.
            .subscription_capacity(1 << 16);
        // Boxed: the library's connecting future is large, and awaited once.
        let client = Box::pin(options.connect(url)).await?;
        let owner_side = client.subscribe(format!("merels.o.{me}.>")).await?;
        let edge_side = client.subscribe(format!("merels.e.{me}")).await?;
        let relay = Relay {
            inner: Arc::new(Inner {
                client,
                me,
                rooms,
                metrics,
                next_conn: AtomicU64::new(1),
                edges: Mutex::default(),
                remotes: Mutex::default(),
                peers: Mutex::default(),
                lanes: Mutex::default(),
                tasks: TaskTracker::new(),
            }),
        };
        let (owner, edge) = (relay.clone(), relay.clone());
        let (stop_owner, stop_edge) = (stop.clone(), stop);
        relay.inner.tasks.spawn(async move {
            let mut sub = owner_side;
            loop {
                tokio::select! {
                    message = sub.next() => match message {
                        Some(message) => owner.as_owner(message).await,
                        None => return,
                    },
                    () = stop_owner.cancelled() => return,
                }
            }
        });
        relay.inner.tasks.spawn(async move {
            let mut sub = edge_side;
            loop {
                tokio::select! {
                    message = sub.next() => match message {
                        Some(message) => edge.as_edge(message).await,
                        None => return,
                    },
                    () = stop_edge.cancelled() => {
                        edge.close_edges("this server is restarting: reconnect");
                        return;
                    }
                }
            }
        });
        Ok(relay)
    }

    /// Forgets every peer not among `live` (those whose lease holds): the connections their
    /// clients had here are let go, and the sockets here whose game they ran are closed with
    /// 1012, so that those clients reconnect and reach whoever takes the game. A paused owner
    /// would otherwise keep them waiting until it woke.
    pub fn keep_only(&self, live: &[Owner]) {
        let inner = &self.inner;
        let alive = |id: &str| id == inner.me || live.iter().any(|o| o.instance == id);
        for entry in lock(&inner.edges).values() {
            if !alive(&entry.owner) {
                entry.close(
                    ErrorCode::Unavailable,
                    "the game's server went away: reconnect",
                );
            }
        }
        let gone: Vec<_> = {
            let mut remotes = lock(&inner.remotes);
            let dead: Vec<_> = remotes.keys().filter(|k| !alive(&k.0)).cloned().collect();
            dead.into_iter()
                .filter_map(|k| remotes.remove(&k))
                .collect()
        };
        for remote in gone {
            if let Remote::Live { game, conn, .. } = remote {
                self.let_go(game, conn);
            }
        }
        lock(&inner.peers).retain(|edge, (_, cut)| {
            let keep = alive(edge);
            if !keep {
                cut.cancel();
            }
            keep
        });
        lock(&inner.lanes).retain(|owner, (_, cut)| {
            let keep = alive(owner);
            if !keep {
                cut.cancel();
            }
            keep
        });
    }

    /// Waits until what this instance's rooms queued for other instances has left (at shutdown,
    /// after the rooms ended: their last words are closes).
    pub async fn flush(&self) {
        let queues: Vec<_> = lock(&self.inner.peers)
            .values()
            .map(|(q, _)| q.clone())
            .collect();
        let lanes: Vec<_> = lock(&self.inner.lanes)
            .values()
            .map(|(l, _)| l.clone())
            .collect();
        for _ in 0..100 {
            if queues.iter().all(|q| q.is_empty()) && lanes.iter().all(|l| l.is_empty()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let _ = self.inner.client.flush().await;
    }
}

/// How long a busy drain waits, after the first record, for others to join it.
const LINGER: Duration = Duration::from_millis(5);

/// Publishes what `next` hands over to `subject`, each batch in as few messages as fit, until
/// `cut` (the peer is gone) or the bus refuses.
async fn pump<F, Fut>(
    client: async_nats::Client,
    subject: String,
    cut: CancellationToken,
    mut next: F,
) where
    F: FnMut() -> Fut,
    Fut: Future<Output = Vec<Record>>,
{
    let mut out = BytesMut::new();
    let mut last = tokio::time::Instant::now();
    loop {
        let mut batch = tokio::select! {
            batch = next() => batch,
            () = cut.cancelled() => return,
        };
        // Under steady load, what else comes within the window leaves with it: one message then
        // carries many games' changes, where each message costs both instances and the bus
        // wake-ups and system calls. A lone change (a quiet server) leaves at once.
        if last.elapsed() < LINGER * 2 {
            tokio::time::sleep(LINGER).await;
            if let Some(more) = next().now_or_never() {
                batch.extend(more);
            }
        }
        last = tokio::time::Instant::now();
        for (i, record) in batch.iter().enumerate() {
            record.write(&mut out);
            if out.len() >= wire::MESSAGE_BYTES || i + 1 == batch.len() {
                let message = out.split().freeze();
                if client.publish(subject.clone(), message).await.is_err() {
                    return;
                }
            }
        }
    }
}
