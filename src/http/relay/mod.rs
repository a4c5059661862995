//! Sockets kept where they land, over a NATS bus (`MERELS_NATS_URL`), when several instances
//! share one PostgreSQL database. A client's socket stays on the instance it reached (the edge),
//! which parses its frames there and sends the valid ones to the game's owner; the owner's room
//! serves the connection as one of its own, through a relayed outbox, and everything it queues
//! for the connections of one edge crosses the bus once per change (see
//! [`PeerQueue`]). Without a bus, [`forward`](super::forward) passes the socket itself on.
//!
//! Every message is sealed with the instances' key and numbered ([`seal`]): a client of the NATS
//! server that is not an instance can neither forge one nor replay one, and no seat secret
//! crosses the bus (a connect carries the seat's hash, which the owner's room compares).
//!
//! Subjects (instance ids are ids made at each start, so a restarted instance is a new peer):
//! - `merels.{owner}.connect`: a request from an edge, answered once the owner's room has the
//!   connection (an empty reply) or refuses it (an [`ApiError`] as JSON);
//! - `merels.{to}.from.{from}`: [`wire`] records from one instance to another, whichever side
//!   each is on: for an owner, frames its clients sent and their leavings; for an edge, text
//!   frames for its connections (each for one or more of them) and closes.
//!
//! Each direction between two instances is one [`Peer`]: the queue of what rooms here send to
//! that instance's clients, and the lane of what clients here send to its rooms, drained
//! together by one task into one message per wake-up. Under load, one message carries many
//! games' changes both ways.
//!
//! Here: the relay's state, joining the bus, forgetting dead peers and the drain ([`pump`]);
//! `edge` is the side of the sockets served here, `owner` the side of the rooms run here.
//!
//! An instance whose lease lapses is a dead peer: its edge connections are dropped by the owners
//! and the sockets whose owner it was are closed by the edges (1012: reconnect), which is how
//! clients reach whoever takes its games ([`Relay::keep_only`]).

mod edge;
mod owner;
mod seal;
mod wire;

pub use edge::EdgeConn;
use edge::{EdgeEntry, Lane};
use owner::Remote;
use seal::{Refused, Seal, Window};

use crate::http::error::ApiError;
use crate::metrics::Metrics;
use crate::protocol::ErrorCode;
use crate::rooms::Rooms;
use crate::rooms::outbox::{PeerFrame, PeerQueue};
use crate::store::owners::Owner;
use axum::body::Bytes;
use bytes::BytesMut;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
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
    /// The NATS URL does not parse.
    #[error("the NATS URL is not one: {0}")]
    Url(std::io::Error),
}

/// Marks a socket request for a game another instance owns, to be served here over the bus.
#[derive(Debug, Clone)]
pub struct RelayTo(pub Owner);

/// An edge's request to the owner: serve this client of game `game`, who presented the seat
/// secret whose hash is `seat` (the secret itself never crosses the bus).
#[derive(Debug, Serialize, Deserialize)]
struct ConnectAsk {
    edge: String,
    conn: u64,
    game: String,
    seat: Option<String>,
    from: IpAddr,
    /// The client's browser id (its hash, never the cookie), if it has one.
    #[serde(default)]
    browser: Option<String>,
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
    /// The instances' key, and the numbers of what this instance sends.
    seal: Arc<Seal>,
    /// The numbers each other instance has used, by its id (each start is a new id).
    windows: Mutex<HashMap<String, Window>>,
    /// Connections served here whose game another instance owns, by number.
    edges: Mutex<HashMap<u64, EdgeEntry>>,
    /// Connections of other instances served by rooms here, by edge and number.
    remotes: Mutex<HashMap<(String, u64), Remote>>,
    /// What is bound for each other instance, by its id.
    peers: Mutex<HashMap<String, Peer>>,
    /// When each other instance was last heard from (a sealed message of its own), by its id.
    heard: Mutex<HashMap<String, tokio::time::Instant>>,
    tasks: TaskTracker,
}

/// Everything bound for one other instance, drained onto the bus by a task of its own until
/// `cut` (the instance is gone).
#[derive(Debug, Clone)]
struct Peer {
    /// What rooms here queue for the clients it serves.
    queue: Arc<PeerQueue>,
    /// What clients here send to the rooms it runs.
    lane: Arc<Lane>,
    cut: CancellationToken,
}

impl Peer {
    /// Waits until either side has something to send.
    async fn ready(&self) {
        tokio::select! {
            () = self.queue.ready() => {}
            () = self.lane.ready() => {}
        }
    }

    /// Everything both sides hold, as records: what the rooms queued, then what the clients
    /// sent (the two concern different connections, so their order does not matter).
    fn take(&self) -> Vec<Record> {
        let mut records: Vec<Record> = self
            .queue
            .take()
            .into_iter()
            .map(|frame| match frame {
                PeerFrame::Text(text, conns) => Record::Text(conns, Bytes::from(text)),
                PeerFrame::Close(conn, code, reason) => {
                    let why = serde_json::to_vec(&ApiError::new(code, reason));
                    Record::Close(conn, Bytes::from(why.unwrap_or_default()))
                }
            })
            .collect();
        records.extend(self.lane.take());
        records
    }

    fn is_empty(&self) -> bool {
        self.queue.is_empty() && self.lane.is_empty()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Relay {
    /// Joins the bus at `url` (with the credentials it names, if any) as instance `me`, sealing
    /// what it sends with the instances' shared `secret`, and serves its subjects until `stop`.
    pub async fn start(
        url: &str,
        secret: &str,
        rooms: Rooms,
        metrics: Arc<Metrics>,
        stop: CancellationToken,
    ) -> Result<Relay, RelayError> {
        let me = rooms.lease().me.instance.clone();
        let options = async_nats::ConnectOptions::new()
            .name(format!("merels {me}"))
            .request_timeout(Some(Duration::from_secs(5)))
            // Edges and owners each drain one subscription: room for a burst of every game.
            .subscription_capacity(1 << 16);
        let options = with_credentials(options, url)?;
        // Boxed: the library's connecting future is large, and awaited once.
        let client = Box::pin(options.connect(url)).await?;
        let mut subscription = client.subscribe(format!("merels.{me}.>")).await?;
        let relay = Relay {
            inner: Arc::new(Inner {
                client,
                me,
                rooms,
                metrics,
                next_conn: AtomicU64::new(1),
                seal: Arc::new(Seal::new(secret)),
                windows: Mutex::default(),
                edges: Mutex::default(),
                remotes: Mutex::default(),
                peers: Mutex::default(),
                heard: Mutex::default(),
                tasks: TaskTracker::new(),
            }),
        };
        let receiver = relay.clone();
        relay.inner.tasks.spawn(async move {
            loop {
                tokio::select! {
                    message = subscription.next() => match message {
                        Some(message) => receiver.received(message).await,
                        None => return,
                    },
                    () = stop.cancelled() => {
                        receiver.close_edges("this server is restarting: reconnect");
                        return;
                    }
                }
            }
        });
        Ok(relay)
    }

    /// A message on this instance's subjects: a request to take a connection, or records from
    /// another instance, each to the side it is for.
    async fn received(&self, message: async_nats::Message) {
        let Some(rest) = message
            .subject
            .strip_prefix("merels.")
            .and_then(|r| r.strip_prefix(self.inner.me.as_str()))
            .and_then(|r| r.strip_prefix('.'))
        else {
            return;
        };
        if rest == "connect" {
            self.asked(message);
            return;
        }
        let Some(from) = rest.strip_prefix("from.") else {
            return;
        };
        let body = match self.open(&message.subject, message.payload.clone(), from) {
            Ok(body) => body,
            Err(why) => return self.refused("records", why),
        };
        let Ok(records) = Record::read_all(body) else {
            tracing::warn!(from, "a relay message that does not parse");
            return;
        };
        let (for_owner, for_edge) = records.into_iter().partition(Record::is_for_owner);
        self.as_edge(for_edge);
        self.as_owner(from, for_owner).await;
    }

    /// What is bound for instance `id`, with the task that drains it (started on first need).
    fn peer(&self, id: &str) -> Peer {
        let mut peers = lock(&self.inner.peers);
        if let Some(peer) = peers.get(id) {
            return peer.clone();
        }
        let peer = Peer {
            queue: Arc::new(PeerQueue::counting(
                self.inner.metrics.messages_skipped.clone(),
            )),
            lane: Arc::new(Lane::default()),
            cut: CancellationToken::new(),
        };
        peers.insert(id.to_string(), peer.clone());
        let subject = format!("merels.{id}.from.{}", self.inner.me);
        self.inner.tasks.spawn(pump(
            self.inner.client.clone(),
            self.inner.seal.clone(),
            subject,
            peer.clone(),
        ));
        peer
    }

    /// Forgets every peer not among `live` (those whose lease holds): the connections their
    /// clients had here are let go, and the sockets here whose game they ran are closed with
    /// 1012, so that those clients reconnect and reach whoever takes the game. A paused owner
    /// would otherwise keep them waiting until it woke.
    ///
    /// `live` was read at `asked`: a peer heard from since is alive, though the view missed it
    /// (it registered again after a pause, just after the view was read, and sent a client).
    pub fn keep_only(&self, live: &[Owner], asked: tokio::time::Instant) {
        let inner = &self.inner;
        let heard = {
            let mut heard = lock(&inner.heard);
            heard.retain(|_, at| *at >= asked);
            heard.keys().cloned().collect::<Vec<_>>()
        };
        let alive = |id: &str| {
            id == inner.me || live.iter().any(|o| o.instance == id) || heard.iter().any(|h| h == id)
        };
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
        lock(&inner.peers).retain(|id, peer| {
            let keep = alive(id);
            if !keep {
                peer.cut.cancel();
            }
            keep
        });
    }

    /// Waits until what this instance's rooms queued for other instances has left (at shutdown,
    /// after the rooms ended: their last words are closes).
    pub async fn flush(&self) {
        let peers: Vec<_> = lock(&self.inner.peers).values().cloned().collect();
        for _ in 0..100 {
            if peers.iter().all(Peer::is_empty) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let _ = self.inner.client.flush().await;
    }
}

impl Relay {
    /// The body of a message on `subject` from instance `sender`, if its seal holds and its
    /// number is new.
    fn open(&self, subject: &str, message: Bytes, sender: &str) -> Result<Bytes, Refused> {
        let (body, seq) = self.inner.seal.open(subject, message)?;
        self.take_number(sender, seq)?;
        Ok(body)
    }

    /// Takes number `seq` of what `sender` sent (refused if it was taken before: a replay),
    /// and notes that the sender was heard from: it is alive, whatever a view of the live
    /// instances read before said ([`Relay::keep_only`]).
    fn take_number(&self, sender: &str, seq: u64) -> Result<(), Refused> {
        {
            let mut windows = lock(&self.inner.windows);
            match windows.get_mut(sender) {
                Some(window) => window.take(seq)?,
                None => windows.entry(sender.to_string()).or_default().take(seq)?,
            }
        }
        let now = tokio::time::Instant::now();
        lock(&self.inner.heard).insert(sender.to_string(), now);
        Ok(())
    }

    /// Counts a refused message, and says so in the log (the first, then ever more rarely: a
    /// flood of them does not flood the log).
    fn refused(&self, what: &str, why: Refused) {
        let n = self.inner.metrics.bus_refused.inc() + 1;
        if n.is_power_of_two() {
            tracing::warn!(what, %why, refused = n, "a message on the bus refused");
        }
    }
}

/// `options` with the credentials `url` names: `nats://user:password@host` or
/// `nats://token@host` (percent-encoded as URLs are).
fn with_credentials(
    options: async_nats::ConnectOptions,
    url: &str,
) -> Result<async_nats::ConnectOptions, RelayError> {
    let address: async_nats::ServerAddr = url.parse().map_err(RelayError::Url)?;
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    Ok(match (address.username(), address.password()) {
        (Some(user), Some(password)) => options.user_and_password(decode(user), decode(password)),
        (Some(token), None) => options.token(decode(token)),
        _ => options,
    })
}

/// How long a busy drain waits, after the first record, for others to join it.
const LINGER: Duration = Duration::from_millis(5);

/// Publishes what `peer` holds to `subject`, each batch in as few messages as fit, until the peer
/// is cut (gone) or the bus refuses.
async fn pump(client: async_nats::Client, seal: Arc<Seal>, subject: String, peer: Peer) {
    let mut out = BytesMut::new();
    let mut last = tokio::time::Instant::now();
    loop {
        tokio::select! {
            () = peer.ready() => {}
            () = peer.cut.cancelled() => return,
        }
        // Under steady load, what else comes within the window leaves with it: one message then
        // carries many games' changes, where each message costs both instances and the bus
        // wake-ups and system calls. A lone change (a quiet server) leaves at once.
        if last.elapsed() < LINGER * 2 {
            tokio::time::sleep(LINGER).await;
        }
        last = tokio::time::Instant::now();
        let batch = peer.take();
        for (i, record) in batch.iter().enumerate() {
            record.write(&mut out);
            if out.len() >= wire::MESSAGE_BYTES || i + 1 == batch.len() {
                seal.seal(&subject, &mut out);
                let message = out.split().freeze();
                if client.publish(subject.clone(), message).await.is_err() {
                    return;
                }
            }
        }
    }
}
