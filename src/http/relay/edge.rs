//! The edge's side: sockets served here for games another instance owns. Each connects through
//! the owner's room, sends its client's frames down the lane to that owner, and gets what the
//! owner's room queues for it from the bus.

use super::wire::Record;
use super::{ConnectAsk, Relay, lock, pump};
use crate::http::error::ApiError;
use crate::protocol::{ClientMessage, ErrorCode};
use crate::rooms::outbox::Outbox;
use crate::store::owners::Owner;
use axum::body::Bytes;
use axum::extract::ws::Utf8Bytes;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// What the clients here send to one owner, in order.
#[derive(Debug, Default)]
pub(super) struct Lane {
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

    pub(super) fn is_empty(&self) -> bool {
        lock(&self.queue).is_empty()
    }
}

#[derive(Debug)]
pub(super) struct EdgeEntry {
    pub(super) outbox: Arc<Outbox>,
    pub(super) owner: String,
    /// Cancelled when the owner is found gone: a connect still waiting on it gives up.
    gone: CancellationToken,
}

impl EdgeEntry {
    /// Closes the socket (the client reconnects) and gives up a connect in flight.
    pub(super) fn close(&self, code: ErrorCode, reason: &str) {
        self.gone.cancel();
        self.outbox.close(code, reason);
    }
}

impl Relay {
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
    pub(super) async fn as_edge(&self, message: async_nats::Message) {
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
    pub(super) fn close_edges(&self, reason: &str) {
        for entry in lock(&self.inner.edges).values() {
            entry.close(ErrorCode::Unavailable, reason);
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
