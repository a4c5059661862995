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
//! An instance whose lease lapses is a dead peer: its edge connections are dropped by the owners
//! and the sockets whose owner it was are closed by the edges (1012: reconnect), which is how
//! clients reach whoever takes its games ([`Relay::keep_only`]).

mod wire;

use super::error::ApiError;
use super::ws::act;
use crate::metrics::Metrics;
use crate::protocol::{ClientMessage, ErrorCode};
use crate::rooms::outbox::{Outbox, PeerFrame, PeerQueue};
use crate::rooms::{Connection, Rooms};
use crate::store::owners::Owner;
use axum::body::Bytes;
use axum::extract::ws::Utf8Bytes;
use bytes::BytesMut;
use futures_util::{FutureExt, StreamExt};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;
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

/// What the clients here send to one owner, in order.
#[derive(Debug, Default)]
struct Lane {
    queue: Mutex<Vec<Record>>,
    notify: Notify,
}

impl Lane {
    fn push(&self, record: Record) {
        lock(&self.queue).push(record);
        self.notify.notify_one();
    }

    async fn next(&self) -> Vec<Record> {
        loop {
            {
                let mut queue = lock(&self.queue);
                if !queue.is_empty() {
                    return std::mem::take(&mut *queue);
                }
            }
            self.notify.notified().await;
        }
    }

    fn is_empty(&self) -> bool {
        lock(&self.queue).is_empty()
    }
}

#[derive(Debug)]
struct EdgeEntry {
    outbox: Arc<Outbox>,
    owner: String,
    /// Cancelled when the owner is found gone: a connect still waiting on it gives up.
    gone: CancellationToken,
}

impl EdgeEntry {
    /// Closes the socket (the client reconnects) and gives up a connect in flight.
    fn close(&self, code: ErrorCode, reason: &str) {
        self.gone.cancel();
        self.outbox.close(code, reason);
    }
}

/// A connection of another instance, as the owner holds it.
#[derive(Debug)]
enum Remote {
    /// Its room is taking it: should the client leave meanwhile, it is let go at once after.
    Connecting { gone: bool },
    /// In its room.
    Live {
        game: String,
        conn: Arc<Connection>,
        outbox: Arc<Outbox>,
    },
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

    /// Connects a client of game `game`, which `owner` runs, through the bus: its room queues
    /// `hello` and the state on `outbox` as for a socket of its own.
    pub async fn connect(
        &self,
        owner: &Owner,
        game: &str,
        secret: Option<String>,
        from: IpAddr,
        outbox: Arc<Outbox>,
    ) -> Result<EdgeConn, ApiError> {
        let inner = &self.inner;
        let conn = inner.next_conn.fetch_add(1, Ordering::Relaxed);
        let gone = CancellationToken::new();
        lock(&inner.edges).insert(
            conn,
            EdgeEntry {
                outbox,
                owner: owner.instance.clone(),
                gone: gone.clone(),
            },
        );
        let edge = EdgeConn {
            relay: self.clone(),
            owner: owner.instance.clone(),
            conn,
        };
        let ask = ConnectAsk {
            edge: inner.me.clone(),
            conn,
            game: game.to_string(),
            secret,
            from,
        };
        let payload = Bytes::from(serde_json::to_vec(&ask).unwrap_or_default());
        let unreachable = |e: &dyn std::fmt::Display| {
            tracing::warn!(error = %e, "the game's owner did not answer on the bus");
            ApiError::new(
                ErrorCode::Unavailable,
                "the game's server did not answer: try again",
            )
        };
        let request = inner
            .client
            .request(format!("merels.o.{}.connect", owner.instance), payload);
        // An owner killed just as the request left never answers (nor does the bus say it has
        // no listener): the wait ends when this instance finds its lease lapsed.
        let answer = tokio::select! {
            answer = request => answer.map_err(|e| e.to_string()),
            () = gone.cancelled() => Err("the owner is gone (its lease ran out)".to_string()),
        };
        let refusal = match answer {
            Ok(reply) if reply.payload.is_empty() => None,
            Ok(reply) => Some(
                serde_json::from_slice::<ApiError>(&reply.payload)
                    .unwrap_or_else(|e| unreachable(&e)),
            ),
            Err(e) => Some(unreachable(&e)),
        };
        match refusal {
            None => {
                inner.metrics.relayed.inc();
                Ok(edge)
            }
            Some(e) => {
                // The owner may yet take it (a late answer): it lets it go on the bye.
                edge.leave();
                Err(e)
            }
        }
    }

    /// What an owner is sent: connections to take, frames of theirs, and their leaving.
    async fn as_owner(&self, message: async_nats::Message) {
        let inner = &self.inner;
        let rest = message.subject.as_str();
        let Some(rest) = rest
            .strip_prefix("merels.o.")
            .and_then(|r| r.strip_prefix(inner.me.as_str()))
            .and_then(|r| r.strip_prefix('.'))
        else {
            return;
        };
        if rest == "connect" {
            let Some(reply) = message.reply else { return };
            let Ok(ask) = serde_json::from_slice::<ConnectAsk>(&message.payload) else {
                return;
            };
            let key = (ask.edge.clone(), ask.conn);
            lock(&inner.remotes).insert(key.clone(), Remote::Connecting { gone: false });
            let relay = self.clone();
            // Taking a connection may load the game: the frames of every other wait for none.
            inner.tasks.spawn(async move {
                let answer = match relay.take(ask).await {
                    Ok(()) => Bytes::new(),
                    Err(e) => Bytes::from(serde_json::to_vec(&e).unwrap_or_default()),
                };
                let _ = relay.inner.client.publish(reply, answer).await;
            });
            return;
        }
        let Some(edge) = rest.strip_prefix("from.") else {
            return;
        };
        let Ok(records) = Record::read_all(message.payload) else {
            tracing::warn!(edge, "a relay message that does not parse");
            return;
        };
        for record in records {
            match record {
                Record::Frame(conn, text) => self.frame(edge, conn, &text).await,
                Record::Bye(conn) => self.bye(edge, conn),
                Record::Text(..) | Record::Close(..) => {}
            }
        }
    }

    /// A frame from a client of `edge`, for the room that holds its connection.
    async fn frame(&self, edge: &str, conn: u64, text: &[u8]) {
        let inner = &self.inner;
        let live = match lock(&inner.remotes).get(&(edge.to_string(), conn)) {
            Some(Remote::Live { game, conn, outbox }) => {
                Some((game.clone(), conn.clone(), outbox.clone()))
            }
            _ => None,
        };
        let Some((game, conn, outbox)) = live else {
            return;
        };
        // The edge parsed it already; what fails here was not sent by a merels edge.
        let Ok(Ok(message)) = std::str::from_utf8(text).map(ClientMessage::parse) else {
            return;
        };
        if let Some((code, text)) = act(&inner.rooms, &game, &conn, &outbox, message).await {
            // A relayed outbox is never full here: the edge catches up its own client.
            outbox.push_reply(crate::rooms::outbox::error_frame(code, text));
        }
    }

    /// A client of `edge` left.
    fn bye(&self, edge: &str, conn: u64) {
        let key = (edge.to_string(), conn);
        let mut remotes = lock(&self.inner.remotes);
        match remotes.get_mut(&key) {
            Some(Remote::Connecting { gone }) => *gone = true,
            Some(Remote::Live { .. }) => {
                if let Some(Remote::Live { game, conn, .. }) = remotes.remove(&key) {
                    drop(remotes);
                    self.let_go(game, conn);
                }
            }
            None => {}
        }
    }

    /// Takes an edge's connection into its game's room (on this instance, which owns the game).
    async fn take(&self, ask: ConnectAsk) -> Result<(), ApiError> {
        let inner = &self.inner;
        let key = (ask.edge.clone(), ask.conn);
        let taken = async {
            let seat = inner.rooms.seat_of(&ask.game, ask.secret).await?;
            let outbox = Arc::new(Outbox::relayed(self.queue_for(&ask.edge), ask.conn));
            let conn = inner
                .rooms
                .connect(&ask.game, seat, ask.from, outbox.clone())
                .await?;
            Ok::<_, crate::rooms::RoomError>((Arc::new(conn), outbox))
        }
        .await;
        let mut remotes = lock(&inner.remotes);
        let gone = matches!(
            remotes.get(&key),
            Some(Remote::Connecting { gone: true }) | None
        );
        match taken {
            Ok((conn, outbox)) if !gone => {
                remotes.insert(
                    key,
                    Remote::Live {
                        game: ask.game,
                        conn,
                        outbox,
                    },
                );
                Ok(())
            }
            Ok((conn, _)) => {
                remotes.remove(&key);
                drop(remotes);
                self.let_go(ask.game, conn);
                Err(ApiError::new(ErrorCode::Unavailable, "the client left"))
            }
            Err(e) => {
                remotes.remove(&key);
                Err(ApiError::from(e))
            }
        }
    }

    /// Detaches a connection of another instance from its room.
    fn let_go(&self, game: String, conn: Arc<Connection>) {
        let rooms = self.inner.rooms.clone();
        self.inner
            .tasks
            .spawn(async move { rooms.disconnect(&game, &conn).await });
    }

    /// The queue of what goes to `edge`, and the task that drains it onto the bus.
    fn queue_for(&self, edge: &str) -> Arc<PeerQueue> {
        let mut peers = lock(&self.inner.peers);
        if let Some((queue, _)) = peers.get(edge) {
            return queue.clone();
        }
        let queue = Arc::new(PeerQueue::counting(
            self.inner.metrics.messages_skipped.clone(),
        ));
        let cut = CancellationToken::new();
        peers.insert(edge.to_string(), (queue.clone(), cut.clone()));
        let drained = queue.clone();
        let next = move || {
            let queue = drained.clone();
            async move {
                let mut batch = Vec::new();
                queue.next(&mut batch).await;
                batch
                    .into_iter()
                    .map(|frame| match frame {
                        PeerFrame::Text(text, conns) => Record::Text(conns, Bytes::from(text)),
                        PeerFrame::Close(conn, code, reason) => {
                            let why = serde_json::to_vec(&ApiError::new(code, reason));
                            Record::Close(conn, Bytes::from(why.unwrap_or_default()))
                        }
                    })
                    .collect()
            }
        };
        let pumping = pump(
            self.inner.client.clone(),
            format!("merels.e.{edge}"),
            cut,
            next,
        );
        self.inner.tasks.spawn(pumping);
        queue
    }

    /// The queue of what this instance's clients send to `owner`, and the task that drains it.
    fn lane_to(&self, owner: &str) -> Arc<Lane> {
        let mut lanes = lock(&self.inner.lanes);
        if let Some((lane, _)) = lanes.get(owner) {
            return lane.clone();
        }
        let lane = Arc::new(Lane::default());
        let cut = CancellationToken::new();
        lanes.insert(owner.to_string(), (lane.clone(), cut.clone()));
        let drained = lane.clone();
        let next = move || {
            let lane = drained.clone();
            async move { lane.next().await }
        };
        let subject = format!("merels.o.{owner}.from.{}", self.inner.me);
        self.inner
            .tasks
            .spawn(pump(self.inner.client.clone(), subject, cut, next));
        lane
    }

    /// What an edge is sent: frames for its connections, and closes.
    async fn as_edge(&self, message: async_nats::Message) {
        let inner = &self.inner;
        let Ok(records) = Record::read_all(message.payload) else {
            tracing::warn!("a relay message that does not parse");
            return;
        };
        let mut behind = Vec::new();
        {
            let edges = lock(&inner.edges);
            for record in records {
                match record {
                    Record::Text(conns, text) => {
                        let Ok(frame) = Utf8Bytes::try_from(text) else {
                            continue;
                        };
                        for conn in conns {
                            if let Some(entry) = edges.get(&conn)
                                && entry.outbox.push_reply(frame.clone())
                            {
                                behind.push((conn, entry.owner.clone()));
                            }
                        }
                    }
                    Record::Close(conn, why) => {
                        let why = serde_json::from_slice::<ApiError>(&why).unwrap_or_else(|_| {
                            ApiError::new(ErrorCode::Unavailable, "the game's server closed")
                        });
                        if let Some(entry) = edges.get(&conn) {
                            entry.outbox.close(why.code, &why.message);
                        }
                    }
                    Record::Frame(..) | Record::Bye(..) => {}
                }
            }
        }
        // A client that fell behind lost its backlog: it gets the whole state again.
        for (conn, owner) in behind {
            self.lane_to(&owner).push(Record::Frame(conn, sync_frame()));
        }
    }

    /// Closes every socket served here for a game another instance owns (1012: reconnect).
    fn close_edges(&self, reason: &str) {
        for entry in lock(&self.inner.edges).values() {
            entry.close(ErrorCode::Unavailable, reason);
        }
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

/// A socket served here for a game another instance owns.
#[derive(Debug)]
pub struct EdgeConn {
    relay: Relay,
    owner: String,
    conn: u64,
}

impl EdgeConn {
    /// Sends the owner a frame the client sent (checked to parse).
    pub fn send(&self, text: Utf8Bytes) {
        self.lane()
            .push(Record::Frame(self.conn, Bytes::from(text)));
    }

    /// Asks the owner for the whole state again.
    pub fn resync(&self) {
        self.lane().push(Record::Frame(self.conn, sync_frame()));
    }

    /// The client left: the owner lets the connection go.
    pub fn leave(self) {
        lock(&self.relay.inner.edges).remove(&self.conn);
        self.lane().push(Record::Bye(self.conn));
    }

    fn lane(&self) -> Arc<Lane> {
        self.relay.lane_to(&self.owner)
    }
}

/// A `sync` message, as a client sends it: the owner answers with the whole state.
fn sync_frame() -> Bytes {
    Bytes::from(serde_json::to_vec(&ClientMessage::Sync).unwrap_or_default())
}
