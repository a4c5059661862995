//! The edge's side: sockets served here for games another instance owns. Each connects through
//! the owner's room, sends its client's frames down the lane to that owner, and gets what the
//! owner's room queues for it from the bus.

use super::wire::Record;
use super::{ConnectAsk, Relay, lock};
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

/// Frames a lane holds before it refuses more. Each client is held to its own rate, so only a
/// stalled drain (the bus not taking messages) fills it.
const LANE_CAPACITY: usize = 8192;

/// What the clients here send to one owner, in order.
#[derive(Debug, Default)]
pub(super) struct Lane {
    queue: Mutex<Vec<Record>>,
    notify: Notify,
}

impl Lane {
    /// Queues a record; false if the lane is full and it was refused. A leaving is never
    /// refused (the owner would keep the connection), and there is one per connection.
    fn push(&self, record: Record) -> bool {
        {
            let mut queue = lock(&self.queue);
            if queue.len() >= LANE_CAPACITY && !matches!(record, Record::Bye(_)) {
                return false;
            }
            queue.push(record);
        }
        self.notify.notify_one();
        true
    }

    /// Waits until something is queued.
    pub(super) async fn ready(&self) {
        while self.is_empty() {
            // A notification sent between the check and here is kept as a permit.
            self.notify.notified().await;
        }
    }

    /// Hands over everything queued, in order.
    pub(super) fn take(&self) -> Vec<Record> {
        std::mem::take(&mut *lock(&self.queue))
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
    /// `hello` and the state on `outbox` as for a socket of its own. The seat `secret` the
    /// client presented crosses as its hash, as does its browser's id.
    pub async fn connect(
        &self,
        owner: &Owner,
        game: &str,
        secret: Option<String>,
        (from, browser): (IpAddr, Option<String>),
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
            seat: secret.as_deref().map(crate::rooms::secrets::hash),
            from,
            browser,
        };
        let subject = format!("merels.{}.connect", owner.instance);
        let payload = inner
            .seal
            .sealed(&subject, &serde_json::to_vec(&ask).unwrap_or_default());
        let unreachable = |e: &dyn std::fmt::Display| {
            tracing::warn!(error = %e, "the game's owner did not answer on the bus");
            ApiError::new(
                ErrorCode::Unavailable,
                "the game's server did not answer: try again",
            )
        };
        let request = inner.client.request(subject, payload);
        // An owner killed just as the request left never answers (nor does the bus say it has
        // no listener): the wait ends when this instance finds its lease lapsed.
        let answer = tokio::select! {
            answer = request => answer.map_err(|e| e.to_string()),
            () = gone.cancelled() => Err("the owner is gone (its lease ran out)".to_string()),
        };
        // The answer is sealed for the reply's own subject (one of this instance's inboxes,
        // used once): a forged one is refused as no answer.
        let answer = answer.and_then(|reply| {
            let opened = inner.seal.open(&reply.subject, reply.payload);
            opened.map_err(|why| {
                self.refused("connect answer", why);
                why.to_string()
            })
        });
        let refusal = match answer {
            Ok((body, _)) if body.is_empty() => None,
            Ok((body, _)) => {
                Some(serde_json::from_slice::<ApiError>(&body).unwrap_or_else(|e| unreachable(&e)))
            }
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

    /// What this instance, as an edge, is sent by an owner: frames for its connections, and
    /// closes.
    pub(super) fn as_edge(&self, records: Vec<Record>) {
        let inner = &self.inner;
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
            self.peer(&owner)
                .lane
                .push(Record::Frame(conn, sync_frame()));
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
    /// Sends the owner a frame the client sent (checked to parse); false if the lane to the
    /// owner is full and it was refused.
    #[must_use]
    pub fn send(&self, text: Utf8Bytes) -> bool {
        self.lane()
            .push(Record::Frame(self.conn, Bytes::from(text)))
    }

    /// Asks the owner for the whole state again. Should the lane be full, the client asks by
    /// itself when it sees a gap in the versions.
    pub fn resync(&self) {
        let _ = self.lane().push(Record::Frame(self.conn, sync_frame()));
    }

    /// The client left: the owner lets the connection go.
    pub fn leave(self) {
        lock(&self.relay.inner.edges).remove(&self.conn);
        let _ = self.lane().push(Record::Bye(self.conn));
    }

    fn lane(&self) -> Arc<Lane> {
        self.relay.peer(&self.owner).lane
    }
}

/// A `sync` message, as a client sends it: the owner answers with the whole state.
fn sync_frame() -> Bytes {
    Bytes::from(serde_json::to_vec(&ClientMessage::Sync).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_lane_refuses_frames_but_never_a_leaving() {
        let lane = Lane::default();
        let frame = |conn| Record::Frame(conn, Bytes::from_static(b"{\"type\":\"sync\"}"));
        for conn in 0..LANE_CAPACITY as u64 {
            assert!(lane.push(frame(conn)));
        }
        assert!(!lane.push(frame(1)), "a frame past the capacity");
        assert!(lane.push(Record::Bye(1)), "a leaving is always queued");
        lane.ready().await;
        let taken = lane.take();
        assert_eq!(taken.len(), LANE_CAPACITY + 1);
        assert_eq!(taken.last(), Some(&Record::Bye(1)));
        assert!(lane.is_empty());
        assert!(lane.push(frame(2)), "room again once drained");
    }
}
